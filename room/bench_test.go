package room_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/room/roomtest"
)

// BenchmarkMessage measures one client message through a real Room of four
// players: Room.Message, the room's goroutine, the rules, what each member
// may see, the frames' encoding, the replay log and the records for the
// event log, up to the frames queued on every member's connection. The
// connections are sinks that count what they are sent, and the store
// drops the records it is handed, so what is measured is the room alone
// (what decoding a frame costs is protocol's BenchmarkDecode).
//
//	go test ./room -run '^$' -bench Message -benchmem
//
// Moves alternate, for each player, between placing the solution's digit
// in a cell of their own and clearing it, so that no move is refused and
// the board is never solved. Messages are queued as a connection's reader
// queues them, without waiting for each to be handled; the room is caught
// up with before the timer stops. frames/op is how many frames the
// members were sent per message: a benchmark whose messages were refused
// fails on it.
func BenchmarkMessage(b *testing.B) {
	b.Run("coop/move", func(b *testing.B) { benchMessage(b, room.ModeCoop, protocol.TypeMove, 8) })
	b.Run("race/move", func(b *testing.B) { benchMessage(b, room.ModeRace, protocol.TypeMove, 5) })
	b.Run("coop/cursor", func(b *testing.B) { benchMessage(b, room.ModeCoop, protocol.TypeCursor, 3) })
	b.Run("coop/note", func(b *testing.B) { benchMessage(b, room.ModeCoop, protocol.TypeNote, 4) })
	b.Run("coop/ping", func(b *testing.B) { benchMessage(b, room.ModeCoop, protocol.TypePing, 1) })
}

// sink is a connection that counts the frames it is sent and keeps none.
type sink struct{ frames, bytes atomic.Int64 }

func (s *sink) Send(f room.Frame) bool {
	s.frames.Add(1)
	s.bytes.Add(int64(len(f.Data)))
	return true
}

func (s *sink) Close(room.CloseReason) {}

func benchMessage(b *testing.B, mode, typ string, wantFrames int64) {
	st := roomtest.NewStore()
	st.Forward = func(string, []room.Record) {}
	clock := roomtest.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	reg := room.NewRegistry(room.RegistryConfig{Clock: clock}, st)
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := reg.Shutdown(ctx); err != nil {
			b.Errorf("shutdown: %v", err)
		}
	})
	ctx := context.Background()
	r, err := reg.Create(ctx, mode, "easy")
	if err != nil {
		b.Fatal(err)
	}
	pz, ok := st.Puzzle(r.ID())
	if !ok {
		b.Fatal("no puzzle stored for the room")
	}
	ids := []string{"p_a", "p_b", "p_c", "p_d"}
	sinks := make([]*sink, len(ids))
	for i, id := range ids {
		sinks[i] = &sink{}
		if err := r.Attach(ctx, room.Join{ID: id, Name: "Name " + id}, sinks[i]); err != nil {
			b.Fatal(err)
		}
	}
	if err := r.Message(ctx, ids[0], sinks[0], &protocol.Msg{Type: protocol.TypeStart}, clock.Now()); err != nil {
		b.Fatal(err)
	}
	waitPhase(b, r, protocol.PhaseCountdown)
	clock.Advance(reg.Config().Countdown)
	waitPhase(b, r, protocol.PhaseRunning)

	// Two messages a player, taken in turn: a digit and its clearing,
	// each in the player's own empty cell (or a note's mark set and
	// cleared, a cursor, a ping).
	var msgs [][2]*protocol.Msg
	cell := 0
	for range ids {
		for pz.Givens[cell] != 0 {
			cell++
		}
		c, d, zero := cell, int(pz.Solution[cell]), 0
		id := json.RawMessage("17")
		var m [2]*protocol.Msg
		switch typ {
		case protocol.TypeMove:
			m[0] = &protocol.Msg{Type: typ, ID: id, Cell: &c, Digit: &d}
			m[1] = &protocol.Msg{Type: typ, ID: id, Cell: &c, Digit: &zero}
		case protocol.TypeNote:
			m[0] = &protocol.Msg{Type: typ, ID: id, Cell: &c, Digit: &d, Kind: protocol.NoteCorner}
			m[1] = &protocol.Msg{Type: typ, ID: id, Cell: &c, Digit: &zero, Kind: protocol.NoteCorner}
		case protocol.TypeCursor:
			m[0] = &protocol.Msg{Type: typ, Cell: &c}
			m[1] = m[0]
		default:
			m[0] = &protocol.Msg{Type: typ, ID: id}
			m[1] = m[0]
		}
		msgs = append(msgs, m)
		cell++
	}
	for _, s := range sinks {
		s.frames.Store(0)
		s.bytes.Store(0)
	}

	n := 0
	b.ReportAllocs()
	for b.Loop() {
		p := n % len(ids)
		at := time.Now()
		if err := r.Message(ctx, ids[p], sinks[p], msgs[p][n/len(ids)%2], at); err != nil {
			b.Fatal(err)
		}
		n++
	}
	// The room handles its commands in order: once this call is answered,
	// every message is.
	if _, err := r.Snapshot(ctx); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	var frames, bytes int64
	for _, s := range sinks {
		frames += s.frames.Load()
		bytes += s.bytes.Load()
	}
	b.ReportMetric(float64(frames)/float64(n), "frames/op")
	b.ReportMetric(float64(bytes)/float64(n), "wire-B/op")
	if frames != wantFrames*int64(n) {
		b.Fatalf("%d frames for %d messages; want %d each", frames, n, wantFrames)
	}
}

// waitPhase waits for the room to reach phase.
func waitPhase(b *testing.B, r *room.Room, phase string) {
	b.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		s, err := r.Snapshot(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if s.Phase == phase {
			return
		}
		time.Sleep(time.Millisecond)
	}
	b.Fatalf("the room is not %s within 5s", phase)
}
