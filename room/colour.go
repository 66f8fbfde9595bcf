package room

import (
	"bytes"
	"time"

	"github.com/sudoku-arena/arena/protocol"
)

// colour toggles a colour on a cell of the team's board (0 clears the
// cell's colours), for everyone to see: a way to point cells out to a
// partner, or to follow a chain. Any cell may be coloured, a given or a
// filled one too; colours outlive the digits under them. Where the board
// is each racer's own, colours are not shared and the server keeps none.
func (g *Game) colour(now time.Time, m *member, msg *protocol.Msg) *protocol.Error {
	if !g.rules.cursors() {
		return protocol.Errorf(protocol.CodeCoopOnly, "colours are shared in co-op rooms only: a racer's stay in their browser")
	}
	cell, c := *msg.Cell, *msg.Colour
	mask := g.rules.boardOf(g, m).colours[cell]
	if c == 0 {
		mask = 0
	} else {
		mask ^= 1 << c
	}
	g.publish(now, fact{kind: kindColour, actor: m.id, ev: &protocol.ColourEvent{Header: protocol.Header{Type: protocol.TypeColour}, ID: bytes.Clone(msg.ID), Player: m.id, CellColours: protocol.CellColours{Cell: cell, Colours: maskDigits(mask)}}})
	return nil
}

// evolveColour sets a cell's colours.
func (g *Game) evolveColour(ev *protocol.ColourEvent) {
	m, ok := g.members[ev.Player]
	if !ok || m.role != protocol.RolePlayer {
		return
	}
	g.rules.boardOf(g, m).colours[ev.Cell] = digitMask(ev.Colours)
}

// colourList is the colours of the board's cells that have any, in cell
// order.
func (b *board) colourList() []protocol.CellColours {
	var out []protocol.CellColours
	for cell, mask := range b.colours {
		if mask != 0 {
			out = append(out, protocol.CellColours{Cell: cell, Colours: maskDigits(mask)})
		}
	}
	return out
}
