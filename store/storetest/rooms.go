package storetest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
)

func testRooms(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "host")
	pz := mkPuzzle(t, s, 2, "easy")
	r := mkRoom(t, s, "room1", room.ModeRace, pz.ID, "host")
	mkRoom(t, s, "room0", room.ModeCoop, pz.ID, "host")
	got, err := s.Room(ctx, "room1")
	require.NoError(t, err)
	assert.Equal(t, room.ModeRace, got.Mode)
	assert.Equal(t, store.StateWaiting, got.State)
	assert.True(t, got.StartedAt.IsZero())
	assert.JSONEq(t, `{"countdown":3}`, string(got.Settings))
	assert.ErrorIs(t, s.CreateRoom(ctx, r), store.ErrConflict)

	r.State, r.StartedAt = store.StateRunning, t0.Add(time.Minute)
	require.NoError(t, s.UpdateRoom(ctx, r))
	got, err = s.Room(ctx, "room1")
	require.NoError(t, err)
	assert.Equal(t, store.StateRunning, got.State)
	assert.True(t, r.StartedAt.Equal(got.StartedAt))

	live, err := s.LiveRooms(ctx)
	require.NoError(t, err)
	require.Len(t, live, 2)
	r.State, r.FinishedAt = store.StateFinished, t0.Add(2*time.Minute)
	require.NoError(t, s.UpdateRoom(ctx, r))
	live, err = s.LiveRooms(ctx)
	require.NoError(t, err)
	require.Len(t, live, 1)
	assert.Equal(t, "room0", live[0].ID)

	_, err = s.Room(ctx, "nope")
	assert.ErrorIs(t, err, store.ErrNotFound)
	assert.ErrorIs(t, s.UpdateRoom(ctx, store.Room{ID: "nope", Mode: room.ModeRace, PuzzleID: pz.ID, State: store.StateRunning}), store.ErrNotFound)
}

// testRoomOwner: a room made with an owner holds it at epoch 1 on its
// first round's row; a later round's row holds none, and an unowned room
// is epoch 0.
func testRoomOwner(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "host")
	pz := mkPuzzle(t, s, 2, "easy")
	r := store.Room{ID: "owned", Mode: room.ModeRace, PuzzleID: pz.ID, HostID: "host", State: store.StateWaiting, CreatedAt: t0, Owner: "node-a"}
	require.NoError(t, s.CreateRoom(ctx, r))
	r.ID = "owned.2"
	require.NoError(t, s.CreateRoom(ctx, r))
	mkRoom(t, s, "plain", room.ModeCoop, pz.ID, "host")
	tests := []struct {
		id    string
		owner string
		epoch int64
	}{
		{"owned", "node-a", 1},
		{"owned.2", "node-a", 0},
		{"plain", "", 0},
	}
	for _, tt := range tests {
		got, err := s.Room(ctx, tt.id)
		require.NoError(t, err)
		assert.Equal(t, tt.owner, got.Owner, tt.id)
		assert.Equal(t, tt.epoch, got.Epoch, tt.id)
	}
	assert.Equal(t, "owned", store.RoomOf("owned.2"))
	assert.Equal(t, "owned", store.RoomOf("owned"))
}

// testFencedWrites: each kind of write for a room carrying an epoch
// other than the room's (here 2, where the room is at 1: a claim moves
// epochs only on PostgreSQL, whose own tests claim) is refused with
// ErrFenced and changes nothing; the room's epoch, or none, is written.
func testFencedWrites(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "host")
	pz := mkPuzzle(t, s, 2, "easy")
	base := store.Room{ID: "f1", Mode: room.ModeCoop, PuzzleID: pz.ID, HostID: "host", State: store.StateRunning, CreatedAt: t0, Owner: "node-a"}
	require.NoError(t, s.CreateRoom(ctx, base))
	other := base
	other.ID = "f2"
	require.NoError(t, s.CreateRoom(ctx, other))

	t.Run("state", func(t *testing.T) {
		r := base
		r.Settings, r.Epoch = json.RawMessage(`{"by":"stale"}`), 2
		assert.ErrorIs(t, s.UpdateRoom(ctx, r), store.ErrFenced)
		r.Settings, r.Epoch = json.RawMessage(`{"by":"owner"}`), 1
		require.NoError(t, s.UpdateRoom(ctx, r))
		got, err := s.Room(ctx, "f1")
		require.NoError(t, err)
		assert.JSONEq(t, `{"by":"owner"}`, string(got.Settings))
		r.Epoch = 0
		require.NoError(t, s.UpdateRoom(ctx, r), "epoch 0 is unfenced")
		r.ID, r.Epoch = "none", 1
		assert.ErrorIs(t, s.UpdateRoom(ctx, r), store.ErrNotFound)

		round := base
		round.ID, round.Epoch = "f1.2", 2
		assert.ErrorIs(t, s.CreateRoom(ctx, round), store.ErrFenced)
		_, err = s.Room(ctx, "f1.2")
		assert.ErrorIs(t, err, store.ErrNotFound)
		round.Epoch = 1
		require.NoError(t, s.CreateRoom(ctx, round))
	})

	t.Run("events", func(t *testing.T) {
		ev := func(game string, seq, epoch int64) store.Event {
			return store.Event{RoomID: game, Seq: seq, Type: "move", PlayerID: "host", At: t0, Epoch: epoch}
		}
		err := s.AppendEvents(ctx, []store.Event{ev("f1", 1, 2), ev("f2", 1, 1), ev("f1.2", 1, 2), ev("f2", 2, 0)})
		var fe *store.FencedError
		require.ErrorAs(t, err, &fe)
		assert.ErrorIs(t, err, store.ErrFenced)
		assert.Equal(t, []string{"f1"}, fe.Rooms)
		for _, tt := range []struct {
			game string
			n    int
		}{{"f1", 0}, {"f1.2", 0}, {"f2", 2}} {
			evs, err := s.Events(ctx, tt.game, 0, 0)
			require.NoError(t, err)
			assert.Len(t, evs, tt.n, tt.game)
		}
		require.NoError(t, s.AppendEvents(ctx, []store.Event{ev("f1", 1, 1), ev("f1.2", 1, 1)}))
	})

	t.Run("results", func(t *testing.T) {
		res := store.Result{RoomID: "f1", PlayerID: "host", PuzzleID: pz.ID, Mode: room.ModeCoop, Level: "easy",
			Elapsed: time.Minute, FinishedAt: t0, Epoch: 2}
		assert.ErrorIs(t, s.SaveResults(ctx, []store.Result{res}), store.ErrFenced)
		hist, err := s.PlayerHistory(ctx, "host", 0)
		require.NoError(t, err)
		assert.Empty(t, hist)
		res.Epoch = 1
		require.NoError(t, s.SaveResults(ctx, []store.Result{res}))
		hist, err = s.PlayerHistory(ctx, "host", 0)
		require.NoError(t, err)
		assert.Len(t, hist, 1)
	})
}
