package room_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
)

// viewers are every member of the fair-play games, and an outsider ("").
var viewers = []string{"a", "b", "s", ""}

// toldMistakes checks what outs and every viewer's snapshot tell of each
// player's mistakes: want[id] is the count now, or nil when nothing may be
// told. A progress event (which carries the count at its time) and a
// snapshot's player carry the count or leave it out.
func (g *game) toldMistakes(outs []room.Output, want map[string]*int) {
	g.tb.Helper()
	for _, id := range viewers[:3] {
		for _, ev := range seen(outs, id) {
			switch ev := ev.(type) {
			case *protocol.ProgressEvent:
				assert.Equal(g.tb, want[ev.Player] != nil, ev.Mistakes != nil, "%s's progress as %s gets it", ev.Player, id)
			case *protocol.State:
				for _, p := range ev.Room.Players {
					assert.Equal(g.tb, want[p.ID], p.Mistakes, "%s in %s's state", p.ID, id)
				}
			}
		}
	}
	for _, id := range viewers {
		for _, p := range g.Snapshot(id, g.now).Players {
			assert.Equal(g.tb, want[p.ID], p.Mistakes, "%s in %q's snapshot", p.ID, id)
		}
	}
}

// TestMistakesToldByTheRules is rules.liveMistakes, mode by mode: co-op
// tells each player's mistakes as they are made; a race tells nobody, the
// mover included, until the player's finish, and everything once the room
// is finished. The count goes on either way, into the results.
func TestMistakesToldByTheRules(t *testing.T) {
	n1, n2 := 1, 2
	tests := []struct {
		mode string
		// What everyone is told of a's and b's mistakes after a's wrong
		// digit and b's two, after a's finish, and when the room is over.
		playing, aFinished, over map[string]*int
	}{
		{
			mode:      room.ModeRace,
			playing:   map[string]*int{"a": nil, "b": nil},
			aFinished: map[string]*int{"a": &n1, "b": nil},
			over:      map[string]*int{"a": &n1, "b": &n2},
		},
		{
			// The team finishes at once: a's finish is the end.
			mode:      room.ModeCoop,
			playing:   map[string]*int{"a": &n1, "b": &n2},
			aFinished: map[string]*int{"a": &n1, "b": &n2},
			over:      map[string]*int{"a": &n1, "b": &n2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			g := running(t, tt.mode, room.Config{}, "a", "b")
			g.watch("s")
			var outs []room.Output
			for _, id := range []string{"a", "b", "b"} {
				cell, d := g.wrong(id)
				outs = append(outs, g.ok(id, move(cell, d)).Out...)
			}
			g.toldMistakes(outs, tt.playing)
			assert.Equal(t, 1, g.mistakes("a"), "counted, told or not")
			assert.Equal(t, 2, g.mistakes("b"))
			if tt.mode == room.ModeRace {
				for _, o := range outs {
					data, err := json.Marshal(o.Event)
					require.NoError(t, err)
					assert.NotContains(t, string(data), "mistakes", "nothing in a live race tells a count")
				}
			}

			// The save keeps the count, and a restored room tells as
			// little as before.
			back, err := room.Restore(room.Config{}, g.Save(g.now), g.now)
			require.NoError(t, err)
			for _, p := range back.Snapshot("", g.now).Players {
				assert.Equal(t, tt.playing[p.ID], p.Mistakes, "%s after a restore", p.ID)
			}

			// a's finish: stored, then told with the count.
			s := g.fill("a")
			rs := results(t, s)
			assert.Equal(t, 1, rs[0].Mistakes, "the result has a's count")
			assert.Equal(t, room.Score("easy", 0, 1, 0), rs[0].Score, "and the score takes it")
			g.toldMistakes(s.Out, tt.playing)
			outs = g.saved(rs).Out
			fin := ofType[*protocol.FinishEvent](seen(outs, "s"))
			require.Len(t, fin, 1)
			if tt.mode == room.ModeRace {
				assert.Equal(t, 1, fin[0].Mistakes, "a's finish tells a's count")
			} else {
				assert.Equal(t, 3, fin[0].Mistakes, "the team's finish tells the team's total")
			}
			g.toldMistakes(outs, tt.aFinished)

			if tt.mode == room.ModeRace {
				s = g.fill("b")
				g.toldMistakes(s.Out, tt.aFinished)
				outs = g.saved(results(t, s)).Out
			}
			require.Equal(t, protocol.PhaseFinished, g.Phase())
			g.toldMistakes(outs, tt.over)
			require.NotEmpty(t, ofType[*protocol.State](seen(outs, "s")), "the final state")
		})
	}
}

// TestEarlyRematchShowsTheUnfinished: a rematch started while a racer is
// still playing ends their race, and the state that says so shows their
// count.
func TestEarlyRematchShowsTheUnfinished(t *testing.T) {
	g := running(t, room.ModeRace, room.Config{}, "a", "b")
	g.watch("s")
	cell, d := g.wrong("b")
	g.ok("b", move(cell, d))
	g.saved(results(t, g.fill("a")))
	assert.Nil(t, g.player("b").Mistakes, "b races on")

	s := g.ok("a", msg(protocol.TypeRematch))
	require.Equal(t, protocol.PhasePreparing, g.Phase())
	n0, n1 := 0, 1
	g.toldMistakes(s.Out, map[string]*int{"a": &n0, "b": &n1})
	require.Len(t, states(t, s.Out, "a", "b", "s"), 3)
}

// TestMistakesStartAgainWithTheRematch: a new round's counts start at
// zero, and a race hides them again.
func TestMistakesStartAgainWithTheRematch(t *testing.T) {
	g := running(t, room.ModeRace, room.Config{}, "a", "b")
	cell, d := g.wrong("a")
	g.ok("a", move(cell, d))
	for _, id := range []string{"a", "b"} {
		g.saved(results(t, g.fill(id)))
	}
	n := 1
	assert.Equal(t, &n, g.player("a").Mistakes, "told once the race is over")

	g.ok("a", msg(protocol.TypeRematch))
	next := puzzle(t, 2)
	g.Rematch(g.now, 2, next)
	g.pz = next
	g.begin()
	for _, id := range []string{"a", "b"} {
		assert.Zero(t, g.mistakes(id), "%s starts afresh", id)
		assert.Nil(t, g.player(id).Mistakes, "and a running race tells nothing")
	}
}

// twoSolutions is a puzzle with more than one solution: the solution of
// an easy puzzle with four cells emptied that can be filled two ways (two
// rows of one band, two columns of different stacks, holding x y / y x).
// A full board without a clash is then not always the room's solution.
// It returns the puzzle and the other way to fill it.
func twoSolutions(tb testing.TB) (room.Puzzle, engine.Grid) {
	tb.Helper()
	for seed := uint64(1); seed <= 20; seed++ {
		pz := puzzle(tb, seed)
		sol := pz.Solution
		for r1 := range 9 {
			for r2 := r1 + 1; r2 < r1/3*3+3; r2++ {
				for c1 := range 9 {
					for c2 := (c1/3 + 1) * 3; c2 < 9; c2++ {
						a, b, c, d := r1*9+c1, r1*9+c2, r2*9+c1, r2*9+c2
						if sol[a] != sol[d] || sol[b] != sol[c] {
							continue
						}
						givens, other := sol, sol
						for _, cell := range []int{a, b, c, d} {
							givens[cell] = 0
						}
						other[a], other[b], other[c], other[d] = sol[b], sol[a], sol[d], sol[c]
						return room.Puzzle{ID: int64(seed), Level: "easy", Givens: givens, Solution: sol}, other
					}
				}
			}
		}
	}
	require.FailNow(tb, "no puzzle of seeds 1 to 20 has such a rectangle")
	return room.Puzzle{}, engine.Grid{}
}

// TestBoardFullButNotTheSolution: a racer whose board fills up without
// being the solution is told so, alone, once for each move that leaves it
// full, under no seq of its own; co-op shows mistakes instead. (With a
// puzzle of one solution, as the server deals, a full board without a
// clash is the solution, and this cannot happen.)
func TestBoardFullButNotTheSolution(t *testing.T) {
	for _, mode := range []string{room.ModeRace, room.ModeCoop} {
		t.Run(mode, func(t *testing.T) {
			pz, other := twoSolutions(t)
			g0, err := room.NewGame(room.Config{}, "r00m", mode, pz, t0)
			require.NoError(t, err)
			g0.Drain()
			g := played(t, g0, pz, t0)
			g.join("a")
			g.join("b")
			g.watch("s")
			g.begin()

			var cells []int
			for cell, v := range pz.Givens {
				if v == 0 {
					cells = append(cells, cell)
				}
			}
			require.Len(t, cells, 4)
			var last step
			for _, cell := range cells {
				last = g.ok("a", move(cell, other[cell]))
			}
			assert.Empty(t, last.Eff, "no finish")
			assert.Equal(t, protocol.PhaseRunning, g.Phase())
			notices := ofType[*protocol.BoardFullEvent](events(last.Out))
			if mode == room.ModeCoop {
				assert.Empty(t, notices, "co-op shows mistakes as they are made")
				four := 4
				assert.Equal(t, &four, g.player("a").Mistakes)
				return
			}
			require.Len(t, notices, 1)
			o := last.Out[len(last.Out)-1]
			assert.Equal(t, room.Output{To: "a", Event: &protocol.BoardFullEvent{
				Header:  protocol.Header{Type: protocol.TypeBoardFull, Seq: g.Seq()},
				Message: notices[0].Message,
			}}, o, "to a alone, unlogged, under the progress event's seq")
			assert.Equal(t, seqOf(last.Out[len(last.Out)-2].Event), g.Seq(), "no seq of its own")
			assert.NotRegexp(t, `[0-9]`, notices[0].Message, "no cell named, no count")
			for _, id := range []string{"b", "s"} {
				assert.Empty(t, ofType[*protocol.BoardFullEvent](seen(last.Out, id)), id)
			}

			// The same digit again changes nothing and tells nothing; a
			// cleared cell is no full board; filling it again tells again.
			s := g.ok("a", move(cells[0], other[cells[0]]))
			assert.Empty(t, ofType[*protocol.BoardFullEvent](events(s.Out)), "an echo")
			s = g.ok("a", move(cells[0], 0))
			assert.Empty(t, ofType[*protocol.BoardFullEvent](events(s.Out)), "not full")
			s = g.ok("a", move(cells[0], other[cells[0]]))
			assert.Len(t, ofType[*protocol.BoardFullEvent](events(s.Out)), 1, "full again")

			// Put right, the board finishes, and the finish tells the count.
			for _, cell := range cells {
				g.ok("a", move(cell, 0))
			}
			for _, cell := range cells {
				s = g.ok("a", move(cell, pz.Solution[cell]))
			}
			assert.Empty(t, ofType[*protocol.BoardFullEvent](events(s.Out)))
			rs := results(t, s)
			assert.Equal(t, 5, rs[0].Mistakes, "four wrong digits, one of them twice")
			fin := one[*protocol.FinishEvent](t, events(g.saved(rs).Out))
			assert.Equal(t, 5, fin.Mistakes)
		})
	}
}
