package sqlite

import (
	"context"
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
