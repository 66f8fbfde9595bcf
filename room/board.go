package room

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
	"time"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
)

// maxUndo bounds a player's undo history: the oldest moves fall off.
const maxUndo = 500

// change is one move on a player's undo or redo history: 3 bytes, since
// a history holds up to maxUndo of them (and the array it slides along
// twice that) for as long as the player is in the room.
type change struct {
	cell     uint8
	from, to uint8
}

type notes struct{ corner, centre uint16 }

// board is a player's own board (race) or the team's (co-op).
type board struct {
	cells engine.Grid
	notes [engine.NumCells]notes
	// colours are the cells' colours (co-op), a bit for each of 1 to 9.
	colours [engine.NumCells]uint16
	// by is who placed each digit (co-op attribution): 0 for nobody,
	// else 1 + the placer's index in placers. Indices rather than ids
	// keep the cells free of pointers: a board is 81 bytes of them, not
	// 1,296 bytes of strings that the collector scans for every board of
	// every live room.
	by      [engine.NumCells]uint8
	placers []string
}

// placer is who placed the digit in cell; "" for nobody.
func (b *board) placer(cell int) string {
	if i := b.by[cell]; i > 0 {
		return b.placers[i-1]
	}
	return ""
}

// setPlacer records id as who placed the digit in cell ("" for nobody).
func (b *board) setPlacer(cell int, id string) {
	if id == "" {
		b.by[cell] = 0
		return
	}
	if i := slices.Index(b.placers, id); i >= 0 {
		b.by[cell] = uint8(i + 1)
		return
	}
	if len(b.placers) == math.MaxUint8 {
		b.compactPlacers()
	}
	b.placers = append(b.placers, id)
	b.by[cell] = uint8(len(b.placers))
}

// compactPlacers keeps of placers only those who have a digit on the
// board (81 at most), so that a room that saw hundreds of players come
// and go still numbers its placers in a byte. It is seldom needed, and
// kept out of setPlacer's frame, which every move's stack holds.
//
//go:noinline
func (b *board) compactPlacers() {
	var kept []string
	var index [math.MaxUint8 + 1]uint8
	for cell, i := range b.by {
		if i == 0 {
			continue
		}
		if index[i] == 0 {
			kept = append(kept, b.placers[i-1])
			index[i] = uint8(len(kept))
		}
		b.by[cell] = index[i]
	}
	b.placers = kept
}

// placedCount is how many of the board's digits id placed.
func (b *board) placedCount(id string) int {
	i := slices.Index(b.placers, id)
	if id == "" || i < 0 {
		return 0
	}
	n := 0
	for _, by := range b.by {
		if int(by) == i+1 {
			n++
		}
	}
	return n
}

// noteList is the pencil marks of the cells that have any, in cell order.
func (b *board) noteList() []protocol.CellNotes {
	var out []protocol.CellNotes
	for cell, n := range b.notes {
		if n.corner|n.centre != 0 {
			out = append(out, cellNotes(cell, n))
		}
	}
	return out
}

// placedBy is who placed the board's digits: each player's id with the
// cells, in order, that hold a digit of theirs; nil while no digit is
// placed. A player who left keeps theirs, as the board does.
func (b *board) placedBy() map[string][]int {
	var out map[string][]int
	for cell := range b.by {
		id := b.placer(cell)
		if id == "" || b.cells[cell] == 0 {
			continue
		}
		if out == nil {
			out = map[string][]int{}
		}
		out[id] = append(out[id], cell)
	}
	return out
}

func cellNotes(cell int, n notes) protocol.CellNotes {
	return protocol.CellNotes{Cell: cell, Corner: maskDigits(n.corner), Centre: maskDigits(n.centre)}
}

func maskDigits(mask uint16) []int {
	var ds []int
	for mask != 0 {
		d := bits.TrailingZeros16(mask)
		ds = append(ds, d)
		mask &= mask - 1
	}
	return ds
}

func (g *Game) move(now time.Time, m *member, msg *protocol.Msg) *protocol.Error {
	cell, digit := *msg.Cell, uint8(*msg.Digit)
	if g.pz.Givens[cell] != 0 {
		return cellError(protocol.CodeGivenCell, cell, engine.CellName(cell)+" is a given: it cannot change")
	}
	if err := m.frozen(now); digit != 0 && err != nil {
		return err
	}
	b := g.rules.boardOf(g, m)
	if b.cells[cell] == digit {
		// Nothing changes; the echo confirms the client's view.
		g.publish(now, fact{kind: kindEcho, actor: m.id, ev: &protocol.MoveEvent{Header: protocol.Header{Type: protocol.TypeMove}, ID: msg.ID, Player: m.id, Cell: cell, Digit: int(digit)}})
		return nil
	}
	if err := g.conflict(now, m, b, cell, digit, msg.ID); err != nil {
		return err
	}
	g.place(now, m, b, cell, digit, msg.ID, false, false)
	return nil
}

// moved puts a new move on the player's undo history (the oldest falls
// off past maxUndo) and forgets what they could redo.
func (m *member) moved(c change) {
	if len(m.undo) == maxUndo {
		// The oldest falls off by sliding the history along its array.
		// Once it reaches the array's end it moves to a new one with room
		// to slide maxUndo moves more, so that a move past the bound does
		// not copy the whole history every time.
		m.undo = m.undo[1:]
		if len(m.undo) == cap(m.undo) {
			m.undo = append(make([]change, 0, 2*maxUndo), m.undo...)
		}
	}
	m.undo = append(m.undo, c)
	m.redo = m.redo[:0]
}

// conflict refuses a digit a peer already holds, telling the whole room.
// The mover's view carries the id of their message: the room does not send
// them the returned error, so this is the answer they match it by.
func (g *Game) conflict(now time.Time, m *member, b *board, cell int, digit uint8, id json.RawMessage) *protocol.Error {
	if digit == 0 {
		return nil
	}
	peers := b.cells.Conflicts(cell, digit)
	if peers.Empty() {
		return nil
	}
	cells := peers.Cells(nil)
	err := cellError(protocol.CodeConflict, cell,
		fmt.Sprintf("%d at %s conflicts with %s: same row, column or box", digit, engine.CellName(cell), engine.CellList(cells)))
	err.Cells = cells
	ev := err.Event(0, id)
	ev.Player = m.id
	ev.Digit = int(digit)
	g.publish(now, fact{kind: kindConflict, actor: m.id, ev: ev})
	return err
}

// set puts digit (0 clears) in cell for player id, clearing the cell's
// notes and the digit from its peers' notes (the peers cleared lists). It
// returns who had placed what the cell held.
func (b *board) set(id string, cell int, digit uint8) (owner string) {
	owner = b.placer(cell)
	b.cells[cell] = digit
	if digit == 0 {
		b.setPlacer(cell, "")
		return owner
	}
	b.setPlacer(cell, id)
	bit := uint16(1) << digit
	b.notes[cell] = notes{}
	for _, p := range engine.Peers[cell] {
		if n := &b.notes[p]; (n.corner|n.centre)&bit != 0 {
			n.corner &^= bit
			n.centre &^= bit
		}
	}
	return owner
}

// cleared is the peers of cell, in order, whose notes lose digit when it
// is placed there (set).
func (b *board) cleared(cell int, digit uint8) []int {
	if digit == 0 {
		return nil
	}
	bit := uint16(1) << digit
	var cells []int
	for _, p := range engine.Peers[cell] {
		if n := b.notes[p]; (n.corner|n.centre)&bit != 0 {
			cells = append(cells, int(p))
		}
	}
	sort.Ints(cells)
	return cells
}

// place has m put digit (0 clears) in cell of b, by a move, an undo or a
// redo: the move event says so, evolve makes it, and the room is told. A
// board it solves makes finishes, stored before anyone hears of them.
func (g *Game) place(now time.Time, m *member, b *board, cell int, digit uint8, id json.RawMessage, undo, redo bool) {
	owner := b.placer(cell)
	// The event is kept for replay: it keeps a copy of the message's id,
	// not the message, which its decoder made as one with its id.
	g.publish(now, fact{kind: kindMove, actor: m.id, ev: &protocol.MoveEvent{Header: protocol.Header{Type: protocol.TypeMove},
		ID: bytes.Clone(id), Player: m.id, Cell: cell, Digit: int(digit), Undo: undo, Redo: redo, Cleared: b.cleared(cell, digit)}})
	g.emitProgress(now, m)
	if owner != "" && owner != m.id {
		if o, ok := g.members[owner]; ok {
			g.emitProgress(now, o)
		}
	}
	switch {
	case b.cells == g.pz.Solution:
		g.storeResults(now, m)
	case !g.rules.liveMistakes() && b.cells.Filled() == engine.NumCells:
		// The player cannot see their mistakes: tell them, and them
		// alone, that the board is not the solution, once for each move
		// that leaves it full.
		g.publish(now, fact{kind: kindBoardFull, actor: m.id, ev: &protocol.BoardFullEvent{Header: protocol.Header{Type: protocol.TypeBoardFull},
			Message: "your board is full but is not the solution: some digits are wrong (a hint will not say which)"}})
	}
}

// storeResults queues the results of the finishes player m's solving move
// made, to be stored before anyone hears of them. It is a function of its
// own to keep place's frame, on every move's way, small.
//
//go:noinline
func (g *Game) storeResults(now time.Time, m *member) {
	rs := g.rules.results(g, now, m)
	g.pending += len(rs)
	g.effects = append(g.effects, Effect{Results: rs})
}

// cellError is an error about cell. The cell is copied into the error, made
// with it as one, so that the handlers' own cell stays off the heap on the
// way that refuses nothing.
func cellError(code string, cell int, message string) *protocol.Error {
	e := &struct {
		protocol.Error
		cell int
	}{Error: protocol.Error{Code: code, Message: message}, cell: cell}
	e.Cell = &e.cell
	return &e.Error
}

// emitProgress tells the room player m's progress. The event and the
// mistakes count it points to are made as one.
func (g *Game) emitProgress(now time.Time, m *member) {
	p := &struct {
		protocol.ProgressEvent
		mistakes int
	}{ProgressEvent: protocol.ProgressEvent{Header: protocol.Header{Type: protocol.TypeProgress}, Player: m.id, Progress: m.progress}, mistakes: m.mistakes}
	p.Mistakes = &p.mistakes
	g.publish(now, fact{kind: kindProgress, actor: m.id, ev: &p.ProgressEvent})
}

func (g *Game) note(now time.Time, m *member, msg *protocol.Msg) *protocol.Error {
	cell, digit := *msg.Cell, *msg.Digit
	b := g.rules.boardOf(g, m)
	if g.pz.Givens[cell] != 0 {
		return cellError(protocol.CodeGivenCell, cell, engine.CellName(cell)+" is a given: it takes no notes")
	}
	if b.cells[cell] != 0 {
		return cellError(protocol.CodeCellFilled, cell, engine.CellName(cell)+" holds a digit: clear it to take notes")
	}
	n := b.notes[cell]
	mark := &n.corner
	if msg.Kind == protocol.NoteCentre {
		mark = &n.centre
	}
	if digit == 0 {
		*mark = 0
	} else {
		*mark ^= 1 << digit
	}
	g.publish(now, fact{kind: kindNote, actor: m.id, ev: &protocol.NoteEvent{Header: protocol.Header{Type: protocol.TypeNote}, ID: bytes.Clone(msg.ID), Player: m.id, CellNotes: cellNotes(cell, n)}})
	return nil
}

// undo takes back (or, with back false, redoes) the member's last move. A
// move whose cell has changed since (a co-op partner's digit) cannot be
// taken back: it is dropped from the history, and the next undo takes
// back the move before it.
func (g *Game) undo(now time.Time, m *member, msg *protocol.Msg, back bool) *protocol.Error {
	stack := &m.undo
	if !back {
		stack = &m.redo
	}
	if len(*stack) == 0 {
		if back {
			return protocol.Errorf(protocol.CodeNothingToUndo, "you have no move to undo")
		}
		return protocol.Errorf(protocol.CodeNothingToRedo, "you have no move to redo")
	}
	c := (*stack)[len(*stack)-1]
	from, to := c.to, c.from // what the cell holds now, and what it gets
	if !back {
		from, to = c.from, c.to
	}
	b := g.rules.boardOf(g, m)
	cell := int(c.cell)
	if b.cells[cell] != from {
		// The entry is dropped, and no event tells of it: the saved state
		// does (see evolve).
		*stack = (*stack)[:len(*stack)-1]
		g.effects = append(g.effects, Effect{Save: true})
		return cellError(protocol.CodeUndoStale, cell, engine.CellName(cell)+" has changed since: that move cannot be taken back")
	}
	if err := m.frozen(now); to != 0 && err != nil {
		return err
	}
	if err := g.conflict(now, m, b, cell, to, msg.ID); err != nil {
		return err
	}
	// evolve moves the change from one history to the other (undone).
	g.place(now, m, b, cell, to, msg.ID, back, !back)
	return nil
}

func (g *Game) cursor(now time.Time, m *member, msg *protocol.Msg) *protocol.Error {
	if !g.rules.cursors() {
		return protocol.Errorf(protocol.CodeCoopOnly, "cursors are shared in co-op rooms only")
	}
	g.publish(now, fact{kind: kindCursor, actor: m.id, ev: &protocol.CursorEvent{Header: protocol.Header{Type: protocol.TypeCursor}, Player: m.id, Cell: *msg.Cell}})
	return nil
}
