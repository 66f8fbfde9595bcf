package arenatest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/tournament"
)

// TestTournamentsRunAnHourMore: every 3 minutes of 90 days, the setting's
// tournament runs then and for at least an hour after, where 2h/easy/2h
// would end within the minute at every even hour.
func TestTournamentsRunAnHourMore(t *testing.T) {
	start := time.Date(2026, 11, 1, 0, 1, 0, 0, time.UTC)
	least := 24 * time.Hour
	for now := start; now.Before(start.AddDate(0, 0, 90)); now = now.Add(3 * time.Minute) {
		rs, err := tournament.ParseSchedule(tournamentsAt(now))
		require.NoError(t, err)
		require.Len(t, rs, 1)
		s := rs[0].Next(now)
		require.False(t, now.Before(s.StartsAt), "%s: running", now)
		least = min(least, s.StartsAt.Add(s.Duration).Sub(now))
	}
	assert.GreaterOrEqual(t, least, time.Hour, "the least time left over the year")
	t.Logf("the least time left: %s", least)
	assert.Equal(t, "120m/easy/120m", tournamentsAt(time.Date(2026, 11, 27, 8, 30, 0, 0, time.UTC)), "2h, the first, where it has an hour left")
}
