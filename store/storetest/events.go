package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
)

func testEvents(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "a")
	pz := mkPuzzle(t, s, 3, "easy")
	mkRoom(t, s, "r", room.ModeCoop, pz.ID, "a")
	mkRoom(t, s, "other", room.ModeCoop, pz.ID, "a")
	var batch []store.Event
	for i := 1; i <= 250; i++ {
		batch = append(batch, store.Event{RoomID: "r", Seq: int64(i), Type: "move", PlayerID: "a",
			Data: json.RawMessage(fmt.Sprintf(`{"cell":%d,"digit":%d}`, i%81, i%9+1)), At: t0.Add(time.Duration(i) * time.Millisecond)})
	}
	// Out of order within the batch, and across batches.
	require.NoError(t, s.AppendEvents(ctx, batch[100:]))
	require.NoError(t, s.AppendEvents(ctx, append([]store.Event{batch[99]}, batch[:99]...)))
	require.NoError(t, s.AppendEvents(ctx, []store.Event{{RoomID: "other", Seq: 1, Type: "join", At: t0}}))
	// A retried batch writes nothing twice, and does not overwrite.
	dup := batch[10]
	dup.Type = "changed"
	require.NoError(t, s.AppendEvents(ctx, []store.Event{dup, batch[11]}))

	all, err := s.Events(ctx, "r", 0, 0)
	require.NoError(t, err)
	require.Len(t, all, 250)
	for i, e := range all {
		assert.Equal(t, int64(i+1), e.Seq)
		assert.Equal(t, "move", e.Type)
		assert.JSONEq(t, string(batch[i].Data), string(e.Data))
		assert.True(t, batch[i].At.Equal(e.At))
	}
	page, err := s.Events(ctx, "r", 240, 5)
	require.NoError(t, err)
	require.Len(t, page, 5)
	assert.Equal(t, int64(241), page[0].Seq)
	none, err := s.Events(ctx, "r", 250, 0)
	require.NoError(t, err)
	assert.Empty(t, none)

	// A batch with an event for a room that does not exist fails whole.
	err = s.AppendEvents(ctx, []store.Event{{RoomID: "r", Seq: 251, Type: "move", At: t0}, {RoomID: "ghost", Seq: 1, Type: "move", At: t0}})
	require.Error(t, err)
	after, err := s.Events(ctx, "r", 250, 0)
	require.NoError(t, err)
	assert.Empty(t, after, "a failed batch writes nothing")

	// A new event appended twice, the second time changed (a batch
	// retried after its first write landed), is read back once, as first
	// stored.
	next := store.Event{RoomID: "r", Seq: 251, Type: "move", PlayerID: "a", Data: json.RawMessage(`{"cell":1}`), At: t0}
	require.NoError(t, s.AppendEvents(ctx, []store.Event{next}))
	again := next
	again.Type, again.Data = "changed", json.RawMessage(`{"cell":2}`)
	require.NoError(t, s.AppendEvents(ctx, []store.Event{again, next}))
	after, err = s.Events(ctx, "r", 249, 0)
	require.NoError(t, err)
	require.Len(t, after, 2)
	assert.Equal(t, []int64{250, 251}, []int64{after[0].Seq, after[1].Seq})
	assert.Equal(t, "move", after[1].Type)
	assert.JSONEq(t, `{"cell":1}`, string(after[1].Data))
}

// testEventText: an event's strings come back as they went in, quotes,
// backslashes and control characters included, and its data byte for
// byte (escapes, a number's spelling, non-ASCII text).
func testEventText(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "host")
	pz := mkPuzzle(t, s, 1, "easy")
	mkRoom(t, s, "txt", room.ModeCoop, pz.ID, "host")
	in := []store.Event{
		{RoomID: "txt", Seq: 1, Type: `mo"ve`, PlayerID: `p\a`, Data: json.RawMessage(`{"a":"\u00e9\u003c\"x\\","n":1.50,"big":12345678901234567890,"e":1e5}`), At: t0},
		{RoomID: "txt", Seq: 2, Type: "tab\tnew\nline\x01", PlayerID: "é", Data: json.RawMessage(`{"s":"a\nb\u2028","u":"日本","l":[[1,2],[]],"z":null,"t":true}`), At: t0.Add(time.Second)},
		{RoomID: "txt", Seq: 3, Type: "finish", PlayerID: "", Data: json.RawMessage(`"plain"`), At: t0.Add(2 * time.Second)},
	}
	require.NoError(t, s.AppendEvents(ctx, in))
	out, err := s.Events(ctx, "txt", 0, 0)
	require.NoError(t, err)
	require.Len(t, out, len(in))
	for i := range in {
		assert.Equal(t, in[i].Type, out[i].Type, "seq %d", in[i].Seq)
		assert.Equal(t, in[i].PlayerID, out[i].PlayerID, "seq %d", in[i].Seq)
		assert.Equal(t, string(in[i].Data), string(out[i].Data), "seq %d: the data's text", in[i].Seq)
		assert.True(t, in[i].At.Equal(out[i].At), "seq %d: %s against %s", in[i].Seq, out[i].At, in[i].At)
	}
}

// testEventRetention: DeleteFinishedEvents deletes the events of rooms
// finished before the time, oldest first and at most maxRooms rooms at a
// time, and nothing else: not the events of rooms finished since or not
// finished, not the rooms, not their results.
func testEventRetention(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "a")
	pz := mkPuzzle(t, s, 4, "easy")
	finish := func(id string, at time.Time) {
		r := mkRoom(t, s, id, room.ModeRace, pz.ID, "a")
		r.State, r.StartedAt, r.FinishedAt = store.StateFinished, at.Add(-time.Minute), at
		require.NoError(t, s.UpdateRoom(ctx, r))
	}
	finish("oldest", t0.Add(-72*time.Hour))
	finish("old", t0.Add(-48*time.Hour))
	finish("recent", t0.Add(-time.Hour))
	finish("empty", t0.Add(-96*time.Hour)) // finished long ago, no events
	running := mkRoom(t, s, "running", room.ModeCoop, pz.ID, "a")
	running.State, running.StartedAt = store.StateRunning, t0.Add(-100*time.Hour)
	require.NoError(t, s.UpdateRoom(ctx, running))
	mkRoom(t, s, "waiting", room.ModeCoop, pz.ID, "a")
	counts := map[string]int{"oldest": 3, "old": 2, "recent": 4, "running": 5, "waiting": 1}
	for id, n := range counts {
		var evs []store.Event
		for i := 1; i <= n; i++ {
			evs = append(evs, store.Event{RoomID: id, Seq: int64(i), Type: "move", At: t0.Add(-100 * time.Hour)})
		}
		require.NoError(t, s.AppendEvents(ctx, evs))
	}
	mkResult(t, s, "oldest", "a", pz, "", 500, t0.Add(-72*time.Hour), time.Minute)
	left := func(id string) int {
		t.Helper()
		evs, err := s.Events(ctx, id, 0, 0)
		require.NoError(t, err)
		return len(evs)
	}

	cutoff := t0.Add(-24 * time.Hour)
	n, err := s.DeleteFinishedEvents(ctx, cutoff, 1)
	require.NoError(t, err)
	assert.Equal(t, int64(3), n, "one room at a time, the oldest with events first")
	assert.Zero(t, left("oldest"))
	assert.Equal(t, 2, left("old"))

	n, err = s.DeleteFinishedEvents(ctx, cutoff, 10)
	require.NoError(t, err)
	assert.Equal(t, int64(2), n)
	n, err = s.DeleteFinishedEvents(ctx, cutoff, 10)
	require.NoError(t, err)
	assert.Zero(t, n, "nothing is left to delete")

	for id, want := range map[string]int{"old": 0, "recent": 4, "running": 5, "waiting": 1} {
		assert.Equal(t, want, left(id), id)
	}
	for _, id := range []string{"oldest", "old", "empty"} {
		_, err := s.Room(ctx, id)
		assert.NoError(t, err, "the room %s stays", id)
	}
	hist, err := s.PlayerHistory(ctx, "a", 10)
	require.NoError(t, err)
	assert.Len(t, hist, 1, "results stay")

	// Later, the recent room's time comes too.
	n, err = s.DeleteFinishedEvents(ctx, t0, 10)
	require.NoError(t, err)
	assert.Equal(t, int64(4), n)
	assert.Equal(t, 5, left("running"))
}

func testEventLog(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "a")
	pz := mkPuzzle(t, s, 13, "easy")
	rooms := []string{"e1", "e2", "e3"}
	for _, r := range rooms {
		mkRoom(t, s, r, room.ModeRace, pz.ID, "a")
	}
	l := store.NewEventLog(s, store.EventLogOptions{Interval: 5 * time.Millisecond, MaxBatch: 200})
	const perRoom = 1000
	for i := 1; i <= perRoom; i++ {
		for _, r := range rooms {
			l.Append(store.Event{RoomID: r, Seq: int64(i), Type: "move", PlayerID: "a", Data: json.RawMessage(`{"i":` + fmt.Sprint(i) + `}`), At: t0})
		}
	}
	require.NoError(t, l.Flush(ctx))
	st := l.Stats()
	assert.Equal(t, int64(3*perRoom), st.Written)
	assert.GreaterOrEqual(t, st.Batches, int64(15), "at most 200 events a batch")
	assert.Less(t, st.Batches, int64(3*perRoom/10), "events are grouped, not written one by one")
	for _, r := range rooms {
		evs, err := s.Events(ctx, r, 0, 0)
		require.NoError(t, err)
		require.Len(t, evs, perRoom)
		for i, e := range evs {
			require.Equal(t, int64(i+1), e.Seq)
		}
	}
	l.Append(store.Event{RoomID: "e1", Seq: perRoom + 1, Type: "finish", At: t0})
	require.NoError(t, l.Close(ctx), "close writes what is queued")
	evs, err := s.Events(ctx, "e1", perRoom, 0)
	require.NoError(t, err)
	require.Len(t, evs, 1)
	assert.Equal(t, "finish", evs[0].Type)
	l.Append(store.Event{RoomID: "e1", Seq: perRoom + 2, Type: "late", At: t0})
	assert.Equal(t, int64(1), l.Stats().Dropped, "events after close are dropped and counted")
}

// flaky fails the first n batch writes, after writing half of the first
// batch behind the log's back: as if the connection died mid-batch after
// the database had committed part of the work.
type flaky struct {
	store.Store
	mu    sync.Mutex
	fails int
}

func (f *flaky) AppendEvents(ctx context.Context, events []store.Event) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fails > 0 {
		f.fails--
		if err := f.Store.AppendEvents(ctx, events[:len(events)/2]); err != nil {
			return err
		}
		return fmt.Errorf("connection reset mid-batch")
	}
	return f.Store.AppendEvents(ctx, events)
}

func testEventLogRetries(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "a")
	pz := mkPuzzle(t, s, 14, "easy")
	mkRoom(t, s, "f", room.ModeRace, pz.ID, "a")
	f := &flaky{Store: s, fails: 3}
	l := store.NewEventLog(f, store.EventLogOptions{Interval: time.Millisecond, MaxBatch: 50, RetryMin: time.Millisecond})
	for i := 1; i <= 500; i++ {
		l.Append(store.Event{RoomID: "f", Seq: int64(i), Type: "move", At: t0})
	}
	fctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	require.NoError(t, l.Close(fctx))
	assert.Equal(t, int64(3), l.Stats().Retries)
	evs, err := s.Events(ctx, "f", 0, 0)
	require.NoError(t, err)
	require.Len(t, evs, 500, "nothing lost, nothing twice")
	for i, e := range evs {
		require.Equal(t, int64(i+1), e.Seq)
	}
}
