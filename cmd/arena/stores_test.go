package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/daily"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/pgtest"
	"github.com/sudoku-arena/arena/store/postgres"
	"github.com/sudoku-arena/arena/store/sqlite"
)

// stores opens each real store for a test: the embedded one, and a
// throwaway PostgreSQL server's.
func stores(t *testing.T) map[string]store.Store {
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

// newRooms is the rooms' store over st, as serve wires it, with its
// event log.
func newRooms(t *testing.T, st store.Store) *daily.Rooms {
	t.Helper()
	events := store.NewEventLog(st, store.EventLogOptions{Interval: time.Millisecond})
	t.Cleanup(func() { _ = events.Close(context.Background()) })
	pool := &store.PuzzlePool{Store: st, Make: store.MakePuzzle, Levels: room.Levels, Stock: 1}
	return &daily.Rooms{Adapter: &store.Adapter{Store: st, Pool: pool, Events: events}, Puzzles: &daily.Puzzles{Store: st}}
}
