package room_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
)

func colour(cell, c int) *protocol.Msg {
	m := msg(protocol.TypeColour)
	m.Cell, m.Colour = &cell, &c
	return m
}

// TestCoopColours colours cells of a shared board: each colour toggles,
// a cell takes several, 0 clears them, givens and filled cells take them
// too, everyone (spectators as well) is told, and a late joiner's
// snapshot has them. The harness replays every step from the store's
// records, so a restore brings them back as well.
func TestCoopColours(t *testing.T) {
	g := running(t, room.ModeCoop, room.Config{}, "a", "b")
	g.watch("s")
	open, given := g.blank(), g.givenCell()

	s := g.ok("a", colour(open, 3))
	ev := one[*protocol.ColourEvent](t, events(s.Out))
	assert.Equal(t, &protocol.ColourEvent{
		Header: protocol.Header{Type: protocol.TypeColour, Seq: g.Seq()}, ID: []byte(`"c-colour"`),
		Player: "a", CellColours: protocol.CellColours{Cell: open, Colours: []int{3}},
	}, ev)
	for _, id := range []string{"a", "b", "s"} {
		assert.Len(t, ofType[*protocol.ColourEvent](seen(s.Out, id)), 1, "%s is told", id)
	}
	assert.True(t, s.Out[0].Logged, "a colour is stored and replayed")

	s = g.ok("b", colour(open, 7))
	assert.Equal(t, []int{3, 7}, one[*protocol.ColourEvent](t, events(s.Out)).Colours, "a cell takes several colours")
	s = g.ok("a", colour(open, 3))
	assert.Equal(t, []int{7}, one[*protocol.ColourEvent](t, events(s.Out)).Colours, "again takes it off")
	g.ok("b", colour(given, 1))
	g.ok("a", move(open, g.pz.Solution[open]))

	w := g.join("c")
	assert.Equal(t, ordered(protocol.CellColours{Cell: open, Colours: []int{7}}, protocol.CellColours{Cell: given, Colours: []int{1}}),
		w.Room.Colours, "a late joiner sees the colours, on a given and under a digit too")
	assert.Equal(t, w.Room.Colours, g.views()["s"].Colours, "and a spectator")

	s = g.ok("c", colour(open, 0))
	assert.Empty(t, one[*protocol.ColourEvent](t, events(s.Out)).Colours, "0 clears the cell's colours")
	assert.Equal(t, []protocol.CellColours{{Cell: given, Colours: []int{1}}}, g.views()["a"].Colours)
}

// ordered is two cells' colours as a snapshot lists them: in cell order.
func ordered(a, b protocol.CellColours) []protocol.CellColours {
	if a.Cell > b.Cell {
		a, b = b, a
	}
	return []protocol.CellColours{a, b}
}

// TestColourRefusals: a race keeps colours in each racer's browser, a
// spectator cannot colour, and nobody colours before play.
func TestColourRefusals(t *testing.T) {
	race := running(t, room.ModeRace, room.Config{}, "a", "b")
	race.refused("a", colour(race.blank(), 2), protocol.CodeCoopOnly)
	assert.Empty(t, race.views()["a"].Colours)

	coop := newGame(t, room.ModeCoop, room.Config{})
	coop.join("a")
	coop.watch("s")
	coop.refused("a", colour(0, 2), protocol.CodeNotStarted)
	coop.begin()
	coop.refused("s", colour(0, 2), protocol.CodeSpectator)
}
