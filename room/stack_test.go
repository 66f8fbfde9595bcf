//go:build !race

// The race detector's instrumentation makes frames larger: stack sizes
// are measured without it.

package room_test

import (
	"context"
	"encoding/json"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/room/roomtest"
)

// TestARoomPlayingMovesKeepsASmallStack: a room's goroutine lives as long
// as the room, and its stack is as large as the deepest thing it has done
// since the collector last shrank it; a room of players sends it moves
// several times a second. Handling moves takes no more than the 4 KiB
// stack an idle room shrinks to (a snapshot's view took a kilobyte of
// every event's view frame, and moves grew each room's stack to 8 KiB).
func TestARoomPlayingMovesKeepsASmallStack(t *testing.T) {
	st := roomtest.NewStore()
	st.Forward = func(string, []room.Record) {}
	clock := roomtest.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	reg := room.NewRegistry(room.RegistryConfig{Clock: clock}, st)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		assert.NoError(t, reg.Shutdown(ctx))
	})
	ctx := context.Background()
	const rooms = 400
	type player struct {
		id   string
		sink *sink
		cell int
	}
	type playing struct {
		r       *room.Room
		players []player
		sol     [81]uint8
	}
	var all []playing
	for range rooms {
		r, err := reg.Create(ctx, room.ModeCoop, "easy")
		require.NoError(t, err)
		pz, ok := st.Puzzle(r.ID())
		require.True(t, ok)
		p := playing{r: r, sol: pz.Solution}
		cell := 0
		for k := range 4 {
			for pz.Givens[cell] != 0 {
				cell++
			}
			pl := player{id: "p_" + string(rune('a'+k)), sink: &sink{}, cell: cell}
			cell++
			require.NoError(t, r.Attach(ctx, room.Join{ID: pl.id, Name: "Player " + pl.id}, pl.sink))
			p.players = append(p.players, pl)
		}
		require.NoError(t, r.Message(ctx, p.players[0].id, p.players[0].sink, &protocol.Msg{Type: protocol.TypeStart}, clock.Now()))
		all = append(all, p)
	}
	phase := func(want string) func() bool {
		return func() bool {
			for _, p := range all {
				if s, err := p.r.Snapshot(ctx); err != nil || s.Phase != want {
					return false
				}
			}
			return true
		}
	}
	require.Eventually(t, phase(protocol.PhaseCountdown), 5*time.Second, time.Millisecond)
	clock.Advance(reg.Config().Countdown)
	require.Eventually(t, phase(protocol.PhaseRunning), 5*time.Second, time.Millisecond)
	// The rooms sit idle through collections, which shrink their stacks.
	time.Sleep(50 * time.Millisecond)
	for range 4 {
		runtime.GC()
	}
	var idle runtime.MemStats
	runtime.ReadMemStats(&idle)
	var sent int64
	for _, p := range all {
		for _, pl := range p.players {
			sent += pl.sink.frames.Load()
		}
	}

	// Every player places a digit and clears it.
	for _, digit := range []int{-1, 0} {
		for _, p := range all {
			for _, pl := range p.players {
				c, d := pl.cell, digit
				if d < 0 {
					d = int(p.sol[c])
				}
				require.NoError(t, p.r.Message(ctx, pl.id, pl.sink, &protocol.Msg{Type: protocol.TypeMove, ID: json.RawMessage("1"), Cell: &c, Digit: &d}, time.Now()))
			}
		}
	}
	// Each move reaches four members, with its progress.
	want := sent + rooms*2*4*4*2
	require.Eventually(t, func() bool {
		var n int64
		for _, p := range all {
			for _, pl := range p.players {
				n += pl.sink.frames.Load()
			}
		}
		return n >= want
	}, 10*time.Second, 5*time.Millisecond, "the moves are handled")
	var played runtime.MemStats
	runtime.ReadMemStats(&played)
	perRoom := (int64(played.StackInuse) - int64(idle.StackInuse)) / rooms
	t.Logf("stack: %d B a room idle, %d B more after moves", int64(idle.StackInuse)/rooms, perRoom)
	assert.Less(t, perRoom, int64(1024), "the rooms' stacks grew while handling moves")
}
