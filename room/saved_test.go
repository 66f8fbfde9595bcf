package room_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
)

// restored is g saved, through JSON as the store keeps it, and brought
// back at g's now.
// restored is the game saved as a room's end saves it (Final) and brought
// back through JSON.
func (g *game) restored(cfg room.Config) (*game, *room.Saved) {
	g.tb.Helper()
	saved := g.Save(g.now)
	saved.Final = true
	return g.restoredFrom(cfg, saved)
}

func (g *game) restoredFrom(cfg room.Config, saved *room.Saved) (*game, *room.Saved) {
	g.tb.Helper()
	data, err := json.Marshal(saved)
	require.NoError(g.tb, err)
	var s room.Saved
	require.NoError(g.tb, json.Unmarshal(data, &s))
	r, err := room.Restore(cfg, &s, g.now)
	require.NoError(g.tb, err)
	r.Drain()
	back := played(g.tb, r, g.pz, g.now)
	back.ids = g.ids
	return back, &s
}

func TestSaveRestore(t *testing.T) {
	for _, mode := range []string{room.ModeRace, room.ModeCoop} {
		t.Run(mode, func(t *testing.T) {
			cfg := room.Config{ReconnectWindow: 20 * time.Second, HintPenalty: 30 * time.Second}
			g := running(t, mode, cfg, "a", "b", "c")
			g.watch("s")
			if mode == room.ModeRace {
				g.saved(results(t, g.fill("c")))
			}
			g.after(time.Minute)
			right := g.open("a")
			g.ok("a", move(right, g.pz.Solution[right]))
			bCell := g.open("b")
			g.ok("b", move(bCell, g.pz.Solution[bCell]))
			cell, d := g.wrong("a")
			g.ok("a", move(cell, d))
			g.ok("a", note(protocol.NoteCorner, g.open("a"), 2))
			g.ok("a", note(protocol.NoteCentre, g.open("a"), 7))
			g.ok("a", msg(protocol.TypeHint))
			g.ok("b", note(protocol.NoteCorner, g.open("b"), 9))
			g.ok("b", msg(protocol.TypeUndo))
			g.after(time.Second)
			g.Drain()

			r, saved := g.restored(cfg)
			assert.Equal(t, "r00m", saved.GameID())
			assert.Equal(t, protocol.PhaseRunning, r.Phase())
			assert.Equal(t, g.Seq(), r.Seq(), "seqs go on from where they were")
			assert.Equal(t, g.Host(), r.Host())
			assert.Equal(t, g.Round(), r.Round())
			assert.Equal(t, g.Puzzle(), r.Puzzle())
			assert.Equal(t, 3, r.Players())
			assert.Zero(t, r.Connected(), "everyone comes back away")
			_, ok := r.Member("s")
			assert.False(t, ok, "spectators are not kept")
			assert.Equal(t, g.now.Add(20*time.Second), r.Deadline(), "each player's reconnect window starts now")
			for _, id := range []string{"", "a", "b", "c"} {
				want := g.Snapshot(id, g.now)
				want.Spectators = 0
				for i := range want.Players {
					want.Players[i].Connected = false
				}
				assert.Equal(t, want, r.Snapshot(id, r.now), "%q's view", id)
			}
			if mode == room.ModeCoop {
				// b's digit was undone: a's two are all there are.
				assert.Equal(t, map[string][]int{"a": {min(right, cell), max(right, cell)}}, r.Snapshot("s", r.now).PlacedBy,
					"who placed each digit survives")
			}

			// A player back with the last seq they saw resumes.
			w, replay, s := r.arrive("a", false, saved.Seq)
			require.Nil(t, s.Err)
			assert.True(t, w.Resumed)
			assert.Empty(t, replay)
			assert.Equal(t, protocol.PresenceBack, one[*protocol.PresenceEvent](t, events(s.Out)).Status)
			r.join("b")

			// Undo history, redo and a racer's hint penalty survive.
			if mode == room.ModeRace {
				open := r.open("a")
				r.refused("a", move(open, r.pz.Solution[open]), protocol.CodeFrozen)
			}
			assert.Equal(t, cell, one[*protocol.MoveEvent](t, events(r.ok("a", msg(protocol.TypeUndo)).Out)).Cell)
			redo := one[*protocol.MoveEvent](t, events(r.ok("b", msg(protocol.TypeRedo)).Out))
			assert.Equal(t, bCell, redo.Cell)
			assert.True(t, redo.Redo)
			assert.Equal(t, 3, r.progress("b").Moves)
			assert.Equal(t, 1, r.progress("b").Filled)

			if mode == room.ModeCoop {
				// Who placed each digit survives: a's digit cleared is a's loss.
				filled := r.progress("a").Filled
				r.ok("b", move(right, 0))
				assert.Equal(t, filled-1, r.progress("a").Filled)
				return
			}
			// Ranks go on: c finished first.
			rs := results(t, r.fill("b"))
			assert.Equal(t, 2, rs[0].Rank)
			assert.Equal(t, r.now.Sub(*r.Snapshot("", r.now).StartedAt), rs[0].Elapsed)
		})
	}
}

func TestSaveRestorePhases(t *testing.T) {
	tests := []struct {
		name  string
		setup func(tb testing.TB) *game
		phase string
	}{
		{"waiting", func(tb testing.TB) *game {
			g := newGame(tb, room.ModeRace, room.Config{})
			g.join("a")
			return g
		}, protocol.PhaseWaiting},
		{"counting down", func(tb testing.TB) *game {
			g := newGame(tb, room.ModeCoop, room.Config{})
			g.join("a")
			g.ok("a", msg(protocol.TypeStart))
			return g
		}, protocol.PhaseCountdown},
		{"finished", func(tb testing.TB) *game { return finished(tb, true) }, protocol.PhaseFinished},
		{"preparing a rematch", func(tb testing.TB) *game {
			g := finished(tb, true)
			g.ok("a", msg(protocol.TypeRematch))
			return g
		}, protocol.PhaseFinished},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := tt.setup(t)
			r, saved := g.restored(room.Config{})
			assert.Equal(t, tt.phase, saved.Phase)
			assert.Equal(t, tt.phase, r.Phase())
			got := r.Snapshot("a", r.now)
			if g.Phase() == tt.phase {
				want := g.Snapshot("a", g.now)
				want.Spectators = 0
				for i := range want.Players {
					want.Players[i].Connected = false
				}
				assert.Equal(t, want, got)
			}
			switch tt.phase {
			case protocol.PhaseCountdown:
				r.now = *got.StartsAt
				r.tick()
				assert.Equal(t, protocol.PhaseRunning, r.Phase(), "the countdown runs on")
			case protocol.PhaseFinished:
				assert.Equal(t, g.pz.Solution.String(), got.Solution)
				for _, p := range got.Players {
					assert.Equal(t, g.pz.Solution.String(), p.Board)
					assert.NotZero(t, p.Rank)
				}
				r.join("a")
				assert.Equal(t, []room.Effect{{Save: true}, {NewRound: 2}}, r.ok("a", msg(protocol.TypeRematch)).Eff)
			}
		})
	}
}

func TestRestoreRefusesAnUnknownPhase(t *testing.T) {
	g := running(t, room.ModeRace, room.Config{}, "a")
	s := g.Save(g.now)
	s.Phase = "lunch"
	_, err := room.Restore(room.Config{}, s, g.now)
	assert.ErrorContains(t, err, `unknown phase "lunch"`)
}

// TestRestoreAfterACrash: a state saved on the way may be older than events
// clients saw; the room numbers on past them and resumes nobody.
func TestRestoreAfterACrash(t *testing.T) {
	cfg := room.Config{}
	g := running(t, room.ModeCoop, cfg, "a", "b")
	saved := g.Save(g.now)
	for range 3 {
		cell := g.open("a")
		g.ok("a", move(cell, g.pz.Solution[cell]))
	}
	seen := g.Seq() // b saw these before the crash
	require.Greater(t, seen, saved.Seq)

	r, _ := g.restoredFrom(cfg, saved)
	assert.Greater(t, r.Seq(), seen, "numbering goes on past anything sent")
	w, replay, s := r.arrive("b", false, seen)
	require.Nil(t, s.Err)
	assert.False(t, w.Resumed, "no replay can be trusted")
	assert.Empty(t, replay)
	require.NotNil(t, w.Room)
	assert.Greater(t, seqOf(s.Out[0].Event), seen)
}
