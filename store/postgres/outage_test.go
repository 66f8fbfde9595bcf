package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/pgtest"
)

// TestOutageQueuesAndCatchesUp stops PostgreSQL at once mid-game (pg_ctl
// stop -m immediate) while events keep coming and a finish is written,
// then starts it again: the event log holds what came meanwhile, says how
// much and since when, and catches up; the finish, retried, is stored;
// every event and result is stored exactly once.
func TestOutageQueuesAndCatchesUp(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Durable: with synchronous_commit off, an immediate stop loses the
	// commits of the last moments, which a real deployment does not.
	srv, err := pgtest.Start(ctx, pgtest.Options{Own: true, Durable: true})
	require.NoError(t, err)
	t.Cleanup(srv.Stop)
	s, err := Open(ctx, srv.NewDatabase(t))
	require.NoError(t, err)
	defer s.Close()
	now := time.Now()
	for _, id := range []string{"a", "b"} {
		require.NoError(t, s.CreatePlayer(ctx, store.Player{ID: id, Name: id, TokenHash: []byte(id), CreatedAt: now, LastSeen: now}))
	}
	pz, err := s.SavePuzzle(ctx, store.Puzzle{Givens: "2" + strings.Repeat(".", 80), Solution: strings.Repeat("2", 81), Level: "easy", CreatedAt: now})
	require.NoError(t, err)
	require.NoError(t, s.CreateRoom(ctx, store.Room{ID: "r", Mode: room.ModeCoop, PuzzleID: pz.ID, HostID: "a", State: store.StateRunning, CreatedAt: now}))

	l := store.NewEventLog(s, store.EventLogOptions{Interval: 5 * time.Millisecond, MaxBatch: 50, RetryMin: 5 * time.Millisecond, RetryMax: 100 * time.Millisecond})
	defer l.Close(context.Background())
	seq := int64(0)
	appendN := func(n int) {
		for range n {
			seq++
			l.Append(store.Event{RoomID: "r", Seq: seq, Type: "move", PlayerID: "a", Data: []byte(fmt.Sprintf(`{"cell":%d}`, seq%81)), At: time.Now()})
		}
	}
	appendN(100)
	require.NoError(t, l.Flush(ctx))

	require.NoError(t, srv.Halt(ctx))
	appendN(200)
	finish := []store.Result{
		{RoomID: "r", PlayerID: "a", PuzzleID: pz.ID, Mode: room.ModeCoop, Level: "easy", Elapsed: time.Minute, Score: 940, FinishedAt: now},
		{RoomID: "r", PlayerID: "b", PuzzleID: pz.ID, Mode: room.ModeCoop, Level: "easy", Elapsed: time.Minute, Mistakes: 1, Score: 890, FinishedAt: now},
	}
	sctx, scancel := context.WithTimeout(ctx, 2*time.Second)
	err = s.SaveResults(sctx, finish)
	scancel()
	require.Error(t, err, "the database is away")
	assert.NotErrorIs(t, err, store.ErrConflict)
	assert.NotErrorIs(t, err, store.ErrInvalid, "an outage is not a refusal: the caller retries")
	require.Eventually(t, func() bool { return l.Stats().Retries >= 3 }, 20*time.Second, 5*time.Millisecond)
	st := l.Stats()
	assert.Equal(t, 200, st.Pending, "held while the database is away")
	assert.Positive(t, st.PendingBytes)
	assert.False(t, st.OldestAt.IsZero())
	assert.Zero(t, st.Dropped)

	require.NoError(t, srv.Resume(ctx))
	appendN(50)
	require.NoError(t, l.Flush(ctx), "caught up")
	require.Eventually(t, func() bool {
		sctx, scancel := context.WithTimeout(ctx, 2*time.Second)
		defer scancel()
		return s.SaveResults(sctx, finish) == nil
	}, 30*time.Second, 50*time.Millisecond, "the finish is stored once the database is back")
	require.NoError(t, s.SaveResults(ctx, finish), "and a retry stores nothing twice")

	evs, err := s.Events(ctx, "r", 0, 0)
	require.NoError(t, err)
	require.Equal(t, 350, len(evs), "every event, once")
	for i, e := range evs {
		require.Equal(t, int64(i+1), e.Seq)
	}
	st = l.Stats()
	assert.Zero(t, st.Pending)
	assert.True(t, st.OldestAt.IsZero())
	for _, id := range []string{"a", "b"} {
		hist, err := s.PlayerHistory(ctx, id, 0)
		require.NoError(t, err)
		assert.Len(t, hist, 1, "one result for %s", id)
	}
}
