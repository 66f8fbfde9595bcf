package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/store"
)

// eventRows counts the rows of one of the event tables.
func eventRows(t *testing.T, s *Store, table string) int {
	t.Helper()
	var n int
	require.NoError(t, s.r.QueryRowContext(context.Background(), `SELECT count(*) FROM `+table).Scan(&n))
	return n
}

// seqsOf is the room's events' seqs and types, as Events reads them.
func seqsOf(t *testing.T, s *Store, room string, after int64, limit int) []string {
	t.Helper()
	evs, err := s.Events(context.Background(), room, after, limit)
	require.NoError(t, err)
	out := make([]string, len(evs))
	for i, e := range evs {
		require.Equal(t, room, e.RoomID)
		out[i] = fmt.Sprintf("%d:%s", e.Seq, e.Type)
	}
	return out
}

func moveEv(room string, seq int64, typ string) store.Event {
	return store.Event{RoomID: room, Seq: seq, Type: typ, PlayerID: "p",
		Data: json.RawMessage(fmt.Sprintf(`{"seq":%d}`, seq)), At: time.UnixMicro(1_800_000_000_000_000 + seq).UTC()}
}

// TestEventsAcrossTheMove: events read the same, in order and each once,
// while they wait in room_events_hot, after they are moved into
// room_events, and when a room's are in both; an event appended again
// (into the hot table, unchecked) is read and moved as first stored.
func TestEventsAcrossTheMove(t *testing.T) {
	ctx := context.Background()
	g := newLogRig(t, 2)
	s, r, other := g.s, g.rooms[0], g.rooms[1]
	var want []string
	for i := int64(1); i <= 10; i++ {
		want = append(want, fmt.Sprintf("%d:move", i))
	}

	require.NoError(t, s.AppendEvents(ctx, []store.Event{moveEv(r, 6, "move"), moveEv(r, 7, "move"), moveEv(r, 8, "move"), moveEv(other, 1, "move")}))
	require.NoError(t, s.AppendEvents(ctx, []store.Event{moveEv(r, 9, "move"), moveEv(r, 10, "move"), moveEv(r, 1, "move"),
		moveEv(r, 2, "move"), moveEv(r, 3, "move"), moveEv(r, 4, "move"), moveEv(r, 5, "move")}))
	// A retried batch, the second time with other contents.
	require.NoError(t, s.AppendEvents(ctx, []store.Event{moveEv(r, 3, "retried"), moveEv(r, 4, "retried")}))
	assert.Equal(t, 13, eventRows(t, s, "room_events_hot"), "appended in arrival order, duplicates and all")
	assert.Equal(t, want, seqsOf(t, s, r, 0, 0), "read from the hot table")
	assert.Equal(t, want[2:5], seqsOf(t, s, r, 2, 3))

	require.NoError(t, s.moveEvents(ctx, allHot, allHotEnd))
	assert.Zero(t, eventRows(t, s, "room_events_hot"))
	assert.Equal(t, 11, eventRows(t, s, "room_events"), "each (room, seq) moved once")
	assert.Equal(t, want, seqsOf(t, s, r, 0, 0), "read from room_events")
	assert.Equal(t, []string{"1:move"}, seqsOf(t, s, other, 0, 0))
	evs, err := s.Events(ctx, r, 4, 1)
	require.NoError(t, err)
	require.Len(t, evs, 1)
	assert.Equal(t, moveEv(r, 5, "move"), evs[0], "every field is kept by the move")

	// A room's events in both tables, one of them in both.
	require.NoError(t, s.AppendEvents(ctx, []store.Event{moveEv(r, 11, "move"), moveEv(r, 10, "retried"), moveEv(r, 12, "move")}))
	require.NoError(t, s.AppendEvents(ctx, []store.Event{moveEv(r, 12, "retried")}))
	want = append(want, "11:move", "12:move")
	assert.Equal(t, want, seqsOf(t, s, r, 0, 0))
	assert.Equal(t, want[8:11], seqsOf(t, s, r, 8, 3), "a page across both tables")
	require.NoError(t, s.moveEvents(ctx, allHot, allHotEnd))
	assert.Zero(t, eventRows(t, s, "room_events_hot"))
	assert.Equal(t, want, seqsOf(t, s, r, 0, 0))
	require.NoError(t, s.moveEvents(ctx, allHot, allHotEnd), "an empty hot table moves nothing")
	assert.Equal(t, 13, eventRows(t, s, "room_events"))
}

// TestEventsMovedAtClose: Close moves the new events into room_events,
// and a store opened again reads them.
func TestEventsMovedAtClose(t *testing.T) {
	ctx := context.Background()
	g := newLogRig(t, 3)
	g.appendMoves(t, 30, 30)
	require.Equal(t, 60, eventRows(t, g.s, "room_events_hot"))
	require.NoError(t, g.s.Close())
	require.NoError(t, g.s.Close(), "a second Close has nothing left to do")

	s, err := Open(ctx, g.s.path)
	require.NoError(t, err)
	defer s.Close()
	assert.Zero(t, eventRows(t, s, "room_events_hot"))
	assert.Equal(t, 60, eventRows(t, s, "room_events"))
	assert.Len(t, seqsOf(t, s, g.rooms[1], 0, 0), 20)
}

// TestRetentionOfNewEvents: a retention pass deletes a finished room's
// events still in the hot table, and leaves the others' moved.
func TestRetentionOfNewEvents(t *testing.T) {
	ctx := context.Background()
	g := newLogRig(t, 2)
	s, done, live := g.s, g.rooms[0], g.rooms[1]
	require.NoError(t, s.AppendEvents(ctx, []store.Event{moveEv(done, 1, "move"), moveEv(live, 1, "move"), moveEv(done, 2, "move")}))
	require.NoError(t, s.moveEvents(ctx, allHot, allHotEnd))
	require.NoError(t, s.AppendEvents(ctx, []store.Event{moveEv(done, 3, "move"), moveEv(live, 2, "move"), moveEv(done, 3, "move")}))
	r, err := s.Room(ctx, done)
	require.NoError(t, err)
	r.State, r.FinishedAt = store.StateFinished, time.Now().Add(-time.Hour)
	require.NoError(t, s.UpdateRoom(ctx, r))

	n, err := s.DeleteFinishedEvents(ctx, time.Now(), 10)
	require.NoError(t, err)
	assert.Equal(t, int64(3), n, "the room's events in both tables, the duplicate once")
	assert.Empty(t, seqsOf(t, s, done, 0, 0))
	assert.Equal(t, []string{"1:move", "2:move"}, seqsOf(t, s, live, 0, 0))
	assert.Zero(t, eventRows(t, s, "room_events_hot"))
}

// TestEventsMovedByPart: the background moves take one part of the hot
// table at a time; a room whose part has moved and one whose part has
// not both read whole.
func TestEventsMovedByPart(t *testing.T) {
	ctx := context.Background()
	g := newLogRig(t, 8)
	s, a := g.s, g.rooms[0]
	b := ""
	for _, r := range g.rooms[1:] {
		if bucketOf(r) != bucketOf(a) {
			b = r
			break
		}
	}
	require.NotEmpty(t, b, "rooms in two parts")
	require.NoError(t, s.AppendEvents(ctx, []store.Event{moveEv(a, 1, "move"), moveEv(b, 1, "move"), moveEv(a, 2, "move"), moveEv(b, 2, "move")}))
	lo, hi := bucketIDs(bucketOf(a))
	require.NoError(t, s.moveEvents(ctx, lo, hi))
	assert.Equal(t, 2, eventRows(t, s, "room_events"), "a's part moved")
	assert.Equal(t, 2, eventRows(t, s, "room_events_hot"), "b's part waits")
	assert.Equal(t, []string{"1:move", "2:move"}, seqsOf(t, s, a, 0, 0))
	assert.Equal(t, []string{"1:move", "2:move"}, seqsOf(t, s, b, 0, 0))
}
