package tournament

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/sqlite"
)

// list names a stored upcoming tournament whose start has passed running.
func TestListSaysRunning(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "arena.db"))
	require.NoError(t, err)
	defer st.Close()
	now := time.Date(2026, 11, 27, 18, 10, 0, 0, time.UTC)
	for _, tr := range []store.Tournament{
		{ID: "now", Name: "Now", Level: "easy", StartsAt: now.Add(-10 * time.Minute), Duration: 20 * time.Minute, Status: store.TournamentUpcoming},
		{ID: "later", Name: "Later", Level: "hard", StartsAt: now.Add(time.Hour), Duration: 30 * time.Minute, Status: store.TournamentUpcoming},
	} {
		require.NoError(t, st.SaveTournament(ctx, tr))
	}
	var out bytes.Buffer
	require.NoError(t, list(ctx, st, &out, now))
	assert.Equal(t, "now\trunning\teasy\t2026-11-27T18:00:00Z\t20m\t0 players\nlater\tupcoming\thard\t2026-11-27T19:10:00Z\t30m\t0 players\n", out.String())
}
