// Package backendtest opens every real store for a test of what sits on
// top of them (the rooms' adapter, the daily): the embedded SQLite store in
// the test's temporary folder, and a throwaway PostgreSQL server's
// (store/pgtest). It is for tests only.
package backendtest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/pgtest"
	"github.com/sudoku-arena/arena/store/postgres"
	"github.com/sudoku-arena/arena/store/sqlite"
)

// Stores opens each real store, by name ("sqlite", "postgres"), closed
// and removed when the test ends.
func Stores(t *testing.T) map[string]store.Store {
	t.Helper()
	ctx := context.Background()
	lite, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "arena.db"))
	require.NoError(t, err)
	pg, err := pgtest.Start(ctx, pgtest.Options{})
	require.NoError(t, err)
	t.Cleanup(pg.Stop)
	pgs, err := postgres.Open(ctx, pg.NewDatabase(t))
	require.NoError(t, err)
	t.Cleanup(func() { lite.Close(); pgs.Close() })
	return map[string]store.Store{"sqlite": lite, "postgres": pgs}
}
