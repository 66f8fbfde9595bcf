package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/storetest"
)

func open(t *testing.T) store.Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "arena.db"))
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

func TestContract(t *testing.T) {
	storetest.Run(t, open)
}

func TestMigrationsUpDownUp(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sub", "dir", "arena.db")
	s, err := Open(ctx, path)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	v, dirty, err := Migrate(ctx, path, store.MigrateVersion)
	require.NoError(t, err)
	assert.Equal(t, uint(4), v)
	assert.False(t, dirty)
	v, _, err = Migrate(ctx, path, store.MigrateDown)
	require.NoError(t, err)
	assert.Equal(t, uint(0), v)
	v, _, err = Migrate(ctx, path, store.MigrateUp)
	require.NoError(t, err)
	assert.Equal(t, uint(4), v)
	s, err = Open(ctx, path)
	require.NoError(t, err)
	defer s.Close()
	_, err = s.PoolSize(ctx, "easy")
	require.NoError(t, err)
}

// TestWALStartsOver: under a steady stream of event batches, with the
// checkpointer copying beside the writer, the WAL still starts over from
// its beginning now and then, so its file stays near walRestartPages
// instead of growing with everything ever written.
func TestWALStartsOver(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 30,000 events")
	}
	g := newLogRig(t, 250)
	g.appendMoves(t, 15_000, 250)
	fi, err := os.Stat(g.s.path + "-wal")
	require.NoError(t, err)
	// A batch's moves are in as many rooms, so each move dirties a page:
	// 15,000 pages went through the WAL, near twice what it may hold
	// before it starts over.
	assert.LessOrEqual(t, fi.Size(), int64(walRestartPages+1000)*(4096+24), "the WAL started over")
	n, err := g.s.Events(context.Background(), g.rooms[7], 0, 0)
	require.NoError(t, err)
	assert.Len(t, n, 120, "every event of a room is kept: 60 moves of two events")
}
