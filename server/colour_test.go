package server_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sudoku-arena/arena/protocol"
)

// TestColoursOverTheWire colours cells of a co-op board over WebSockets, as
// docs/protocol.md ("colour") says: the partner is told, a newcomer's
// snapshot has the colours, a malformed colour is refused with bad_field
// and a race's colours with coop_only.
func TestColoursOverTheWire(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b := e.dial("Ann"), e.dial("Bob")
	id, givens, _ := e.startGame("coop", a, b)
	given := -1
	for cell, v := range givens {
		if v != 0 {
			given = cell
			break
		}
	}

	a.send(map[string]any{"type": "colour", "id": "k1", "cell": given, "colour": 4})
	ev := await(b, protocol.TypeColour, func(c *protocol.ColourEvent) bool { return c.Cell == given })
	assert.Equal(t, a.id, ev.Player)
	assert.Equal(t, []int{4}, ev.Colours)
	mine := await(a, protocol.TypeColour, func(c *protocol.ColourEvent) bool { return c.Cell == given })
	assert.JSONEq(t, `"k1"`, string(mine.ID), "the mover's id is echoed")

	for _, bad := range []map[string]any{
		{"type": "colour", "cell": given, "colour": 10},
		{"type": "colour", "cell": given},
		{"type": "colour", "cell": 81, "colour": 1},
	} {
		a.send(bad)
		a.awaitError(protocol.CodeBadField)
	}

	c := e.dial("Cy")
	w := c.join(id)
	assert.Equal(t, []protocol.CellColours{{Cell: given, Colours: []int{4}}}, w.Room.Colours, "a late joiner sees the colours")

	r1, r2 := e.dial("Rae"), e.dial("Sam")
	_, raceGivens, _ := e.startGame("race", r1, r2)
	for cell, v := range raceGivens {
		if v == 0 {
			r1.send(map[string]any{"type": "colour", "cell": cell, "colour": 1})
			break
		}
	}
	r1.awaitError(protocol.CodeCoopOnly)
}
