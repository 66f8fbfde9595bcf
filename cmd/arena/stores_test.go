package main

import (
	"context"
	"testing"
	"time"

	"github.com/sudoku-arena/arena/daily"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
)

// newRooms is the rooms' store over st, as serve wires it, with its
// event log, ranking guests (RANK_GUESTS=true): the tests' players are
// guests, and what they test is how finishes rank.
func newRooms(t *testing.T, st store.Store) *daily.Rooms {
	t.Helper()
	events := store.NewEventLog(st, store.EventLogOptions{Interval: time.Millisecond})
	t.Cleanup(func() { _ = events.Close(context.Background()) })
	pool := &store.PuzzlePool{Store: st, Make: store.MakePuzzle, Levels: room.Levels, Stock: 1}
	return &daily.Rooms{Adapter: &store.Adapter{Store: st, Pool: pool, Events: events}, Puzzles: &daily.Puzzles{Store: st}, RankGuests: true}
}
