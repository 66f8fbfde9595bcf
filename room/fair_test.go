package room_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
			case *room.ProgressEvent:
				assert.Equal(g.tb, want[ev.Player] != nil, ev.Mistakes != nil, "%s's progress as %s gets it", ev.Player, id)
			case *room.State:
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
			fin := ofType[*room.FinishEvent](seen(outs, "s"))
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
			require.Equal(t, room.PhaseFinished, g.Phase())
			g.toldMistakes(outs, tt.over)
			require.NotEmpty(t, ofType[*room.State](seen(outs, "s")), "the final state")
		})
	}
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

	g.ok("a", msg(room.TypeRematch))
	next := puzzle(t, 2)
	g.Rematch(g.now, 2, next)
	g.pz = next
	g.begin()
	for _, id := range []string{"a", "b"} {
		assert.Zero(t, g.mistakes(id), "%s starts afresh", id)
		assert.Nil(t, g.player(id).Mistakes, "and a running race tells nothing")
	}
}
