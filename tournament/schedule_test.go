package tournament_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/tournament"
)

func TestSchedule(t *testing.T) {
	rs, err := tournament.ParseSchedule(" 1h/easy/20m, 24h/hard/1h30m ,")
	require.NoError(t, err)
	assert.Equal(t, []tournament.Recurring{{Every: time.Hour, Level: "easy", Duration: 20 * time.Minute},
		{Every: 24 * time.Hour, Level: "hard", Duration: 90 * time.Minute}}, rs)
	assert.Equal(t, "1h/easy/20m,24h/hard/1h30m", tournament.FormatSchedule(rs))

	at := time.Date(2026, 11, 27, 18, 10, 0, 0, time.UTC)
	s := rs[0].Next(at)
	assert.Equal(t, tournament.Spec{ID: "easy-20m-20261127t1800", Name: "Easy 20m arena", Level: "easy",
		StartsAt: time.Date(2026, 11, 27, 18, 0, 0, 0, time.UTC), Duration: 20 * time.Minute}, s, "the one running")
	s = rs[0].Next(at.Add(10 * time.Minute))
	assert.Equal(t, time.Date(2026, 11, 27, 19, 0, 0, 0, time.UTC), s.StartsAt, "the next, once this one has ended")
	assert.Equal(t, time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC), rs[1].Next(at).StartsAt)

	for _, bad := range []string{"1h/easy", "1h/impossible/20m", "30s/easy/20s", "1h/easy/2h", "200h/easy/1h", "x/easy/1m"} {
		_, err := tournament.ParseSchedule(bad)
		assert.Error(t, err, bad)
	}
	none, err := tournament.ParseSchedule("")
	require.NoError(t, err)
	assert.Empty(t, none)
}
