package storetest

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
)

// flushes makes a room's events as its flushes log them: one flush of
// each size given, the seqs following on from after, each event with its
// own type, player, data and time.
func flushes(roomID string, after int64, sizes ...int) [][]store.Event {
	var out [][]store.Event
	seq := after
	for f, n := range sizes {
		var flush []store.Event
		for k := range n {
			seq++
			typ, player := "move", fmt.Sprintf("p%d", f%3)
			if k > 0 {
				typ = "progress"
			}
			flush = append(flush, store.Event{RoomID: roomID, Seq: seq, Type: typ, PlayerID: player,
				Data: json.RawMessage(fmt.Sprintf(`{"type":%q,"seq":%d,"player":%q,"cell":%d}`, typ, seq, player, seq%81)),
				At:   t0.Add(time.Duration(seq) * time.Millisecond)})
		}
		out = append(out, flush)
	}
	return out
}

// assertEvents checks that got are want, field by field.
func assertEvents(t *testing.T, want, got []store.Event, msgAndArgs ...any) {
	t.Helper()
	require.Len(t, got, len(want), msgAndArgs...)
	for i := range want {
		w, g := want[i], got[i]
		assert.Equal(t, w.RoomID, g.RoomID, "seq %d", w.Seq)
		assert.Equal(t, w.Seq, g.Seq, msgAndArgs...)
		assert.Equal(t, w.Type, g.Type, "seq %d", w.Seq)
		assert.Equal(t, w.PlayerID, g.PlayerID, "seq %d", w.Seq)
		assert.Equal(t, string(w.Data), string(g.Data), "seq %d: the data's text", w.Seq)
		assert.True(t, w.At.Equal(g.At), "seq %d: at %s against %s", w.Seq, g.At, w.At)
	}
}

// testPackedEvents: the events of a room's flush, next to one another in
// a batch with consecutive seqs, are stored together (store.EventRows)
// and read back one by one, as they went in: each after afterSeq, even
// one inside a row, and limit counting events, not rows. A batch given
// again, whole, in part or cut inside a flush, stores nothing twice; a
// fenced room's flush is dropped whole.
func testPackedEvents(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "a")
	pz := mkPuzzle(t, s, 15, "easy")
	for _, id := range []string{"p", "q", "r"} {
		mkRoom(t, s, id, room.ModeCoop, pz.ID, "a")
	}

	// Two rooms' moves, interleaved as the event log queues them, and a
	// flush longer than a row holds, then one event alone.
	sizes := []int{2, 2, 3, 2, 1, 2, store.PackMax + 3, 2, 2, 1}
	p, q := flushes("p", 0, sizes...), flushes("q", 0, sizes...)
	var batch, wantP []store.Event
	for i := range p {
		batch = append(batch, p[i]...)
		batch = append(batch, q[i]...)
		wantP = append(wantP, p[i]...)
	}
	require.NoError(t, s.AppendEvents(ctx, batch))
	all, err := s.Events(ctx, "p", 0, 0)
	require.NoError(t, err)
	assertEvents(t, wantP, all)

	for after := 0; after <= len(wantP); after++ {
		for _, limit := range []int{1, 2, 3, 5, store.PackMax + 1, 0} {
			got, err := s.Events(ctx, "p", int64(after), limit)
			require.NoError(t, err)
			end := len(wantP)
			if limit > 0 {
				end = min(after+limit, end)
			}
			assertEvents(t, wantP[after:end], got, "after %d, limit %d", after, limit)
		}
	}

	// A batch written in part (cut inside a flush), then whole, then
	// again; a row's middle event alone; a run from inside one flush to
	// inside another. Each event comes back once, as it went in.
	var wantR []store.Event
	for _, f := range flushes("r", 0, 2, 3, 2, 4, 2, 2) {
		wantR = append(wantR, f...)
	}
	require.NoError(t, s.AppendEvents(ctx, wantR[:4]))
	require.NoError(t, s.AppendEvents(ctx, wantR))
	require.NoError(t, s.AppendEvents(ctx, wantR))
	require.NoError(t, s.AppendEvents(ctx, wantR[3:4]))
	require.NoError(t, s.AppendEvents(ctx, wantR[3:9]))
	got, err := s.Events(ctx, "r", 0, 0)
	require.NoError(t, err)
	assertEvents(t, wantR, got, "nothing twice")
	got, err = s.Events(ctx, "r", 4, 3)
	require.NoError(t, err)
	assertEvents(t, wantR[4:7], got, "nothing twice, after 4")

	// A room's flush whose epoch moved on is dropped whole; another
	// room's flush in the same batch is stored.
	owned := store.Room{ID: "fenced", Mode: room.ModeCoop, PuzzleID: pz.ID, HostID: "a", State: store.StateRunning, CreatedAt: t0, Owner: "node-a"}
	require.NoError(t, s.CreateRoom(ctx, owned))
	stale := flushes("fenced", 0, 2)[0]
	for i := range stale {
		stale[i].Epoch = 2
	}
	qLast := q[len(q)-1][len(q[len(q)-1])-1].Seq
	next := flushes("q", qLast, 2)[0]
	err = s.AppendEvents(ctx, append(append([]store.Event{}, stale...), next...))
	var fe *store.FencedError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, []string{"fenced"}, fe.Rooms)
	got, err = s.Events(ctx, "fenced", 0, 0)
	require.NoError(t, err)
	assert.Empty(t, got, "the fenced flush is dropped")
	got, err = s.Events(ctx, "q", qLast, 0)
	require.NoError(t, err)
	assertEvents(t, next, got, "the other room's flush is stored")
	for i := range stale {
		stale[i].Epoch = 1
	}
	require.NoError(t, s.AppendEvents(ctx, stale))
	more := append(stale, flushes("fenced", 2, 2)[0]...)
	for i := range more {
		more[i].Epoch = 1
	}
	require.NoError(t, s.AppendEvents(ctx, more), "a fenced batch given again, with more of its run")
	got, err = s.Events(ctx, "fenced", 0, 0)
	require.NoError(t, err)
	assertEvents(t, more, got, "the owner's flushes are stored, once")
}

// PackedEvents stores, in a new room "packed", events of flushes that go
// in packed rows (and one that goes alone), with data that a JSON tool
// might spell otherwise, and returns them: for a backend's test of its
// migration down, which must give each its own row again.
func PackedEvents(t *testing.T, s store.Store) []store.Event {
	t.Helper()
	ctx := context.Background()
	mkPlayer(t, s, "packer")
	pz := mkPuzzle(t, s, 16, "easy")
	mkRoom(t, s, "packed", room.ModeCoop, pz.ID, "packer")
	fs := flushes("packed", 0, 2, 3, 1, 2)
	fs[0][0].Data = json.RawMessage(`{"n": 1.50, "s": "\u00e9\"]}"}`)
	fs[0][1].Type, fs[0][1].PlayerID = `mo"ve`, "é"
	for i := range fs[1] {
		fs[1][i].At = fs[1][0].At // a flush's events share their time
	}
	var evs []store.Event
	for _, f := range fs {
		require.NoError(t, s.AppendEvents(ctx, f)) // a batch each: a row each
		evs = append(evs, f...)
	}
	return evs
}

// CheckPackedEvents checks that the room "packed" holds the events
// PackedEvents stored, their data the same JSON.
func CheckPackedEvents(t *testing.T, s store.Store, want []store.Event) {
	t.Helper()
	got, err := s.Events(context.Background(), "packed", 0, 0)
	require.NoError(t, err)
	require.Len(t, got, len(want))
	for i, w := range want {
		g := got[i]
		assert.Equal(t, w.Seq, g.Seq)
		assert.Equal(t, w.Type, g.Type, "seq %d", w.Seq)
		assert.Equal(t, w.PlayerID, g.PlayerID, "seq %d", w.Seq)
		assert.JSONEq(t, string(w.Data), string(g.Data), "seq %d", w.Seq)
		assert.True(t, w.At.Equal(g.At), "seq %d: at %s against %s", w.Seq, g.At, w.At)
	}
}

// CheckUnpacked checks the rows of the room "packed" as a migration down
// left them (seq, type, player_id, data, at in microseconds, by seq): a
// row an event, each as PackedEvents stored it, its data the same JSON.
func CheckUnpacked(t *testing.T, rows *sql.Rows, want []store.Event) {
	t.Helper()
	defer rows.Close()
	i := 0
	for ; rows.Next(); i++ {
		var e store.Event
		var data string
		var at int64
		require.NoError(t, rows.Scan(&e.Seq, &e.Type, &e.PlayerID, &data, &at))
		require.Less(t, i, len(want))
		w := want[i]
		assert.Equal(t, w.Seq, e.Seq)
		assert.Equal(t, w.Type, e.Type, "seq %d", w.Seq)
		assert.Equal(t, w.PlayerID, e.PlayerID, "seq %d", w.Seq)
		assert.JSONEq(t, string(w.Data), data, "seq %d", w.Seq)
		assert.Equal(t, w.At.UnixMicro(), at, "seq %d", w.Seq)
	}
	require.NoError(t, rows.Err())
	assert.Equal(t, len(want), i, "a row an event")
}
