package room_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
)

// A hint on a board with a wrong digit says so and gives no step. In
// co-op it names the wrong cells (the team sees the board anyway); in a
// contest (a race, a daily) it names no cell, nor how many, so that a
// hint is no right-or-wrong checker of a cell; the others learn only who
// asked. A board without a wrong digit gets the next step, as ever.
func TestHintOnWrongDigits(t *testing.T) {
	for _, mode := range []string{room.ModeRace, room.ModeDaily, room.ModeCoop} {
		t.Run(mode, func(t *testing.T) {
			g := newGame(t, mode, room.Config{})
			g.join("a")
			if mode != room.ModeDaily {
				g.join("b")
				g.begin()
			}
			g.watch("s")
			cell, d := g.wrong("a")
			g.ok("a", move(cell, d))
			right := g.open("a")
			g.ok("a", move(right, g.pz.Solution[right]))

			s := g.ok("a", msg(protocol.TypeHint))
			full := one[*protocol.HintEvent](t, seen(s.Out, "a"))
			assert.Equal(t, "wrong-digits", full.Technique)
			assert.Equal(t, "Wrong digits", full.TechniqueName)
			assert.Empty(t, full.Place, "no digit is given away")
			assert.Empty(t, full.Eliminate)
			assert.Equal(t, 1, full.Hints, "it costs a hint all the same")
			if mode == room.ModeCoop {
				assert.Equal(t, []int{cell}, full.Wrong, "only the wrong cell")
				assert.Equal(t, []int{cell}, full.Cells)
				assert.Contains(t, full.Explanation, engine.CellName(cell))
			} else {
				assert.Empty(t, full.Wrong, "no cell named")
				assert.Empty(t, full.Cells, "no cell shown")
				assert.Equal(t, room.WrongDigitsSomewhere, full.Explanation)
				assert.NotContains(t, full.Explanation, engine.CellName(cell))
				watcher := one[*protocol.HintEvent](t, seen(s.Out, "s"))
				assert.Empty(t, watcher.Technique, "nor that a digit is wrong")
				assert.Empty(t, watcher.Explanation)
			}
			g.secret(s.Out)

			// Once the wrong digit is gone, the hint is a step again, from
			// the right digits on the board.
			if full.FrozenUntil != nil {
				g.now = *full.FrozenUntil
			}
			g.ok("a", move(cell, 0))
			s = g.ok("a", msg(protocol.TypeHint))
			step := one[*protocol.HintEvent](t, seen(s.Out, "a"))
			assert.NotEqual(t, "wrong-digits", step.Technique)
			require.NotEmpty(t, step.Place, "an easy puzzle's next step places a digit")
			for _, p := range step.Place {
				assert.Equal(t, int(g.pz.Solution[p.Cell]), p.Digit, "the step is right")
			}
			assert.Equal(t, 2, step.Hints)
		})
	}
}
