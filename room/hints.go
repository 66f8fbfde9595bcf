package room

import (
	"time"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
)

// hint gives player m the next step on their board, with why it holds, or,
// when some of their digits do not match the solution, says so: in co-op
// it names those cells; in a contest it names none, or a hint would be a
// right-or-wrong checker of any cell for the price of a freeze (place a
// digit, ask, undo), and a racer could test their way to a finish rather
// than solve. Under rules with a hint penalty it freezes their board for
// a while.
func (g *Game) hint(now time.Time, m *member, msg *protocol.Msg) *protocol.Error {
	if err := m.frozen(now); err != nil {
		return err
	}
	b := g.rules.boardOf(g, m)
	h, err := engine.NextHint(g.pz.Givens, b.cells)
	if err != nil {
		// The room's puzzle is unique and its boards keep the givens, so
		// this is a bug; the client learns only that no hint came.
		return protocol.Errorf(protocol.CodeUnavailable, "no hint could be found for this board")
	}
	if h.Solved {
		return protocol.Errorf(protocol.CodeFinished, "the board is solved")
	}
	ev := &protocol.HintEvent{Header: protocol.Header{Type: protocol.TypeHint}, ID: msg.ID, Player: m.id, Hints: m.progress.Hints + 1}
	ev.Explanation = h.Explanation()
	switch {
	case len(h.Wrong) > 0 && g.rules.private():
		ev.Technique, ev.TechniqueName = "wrong-digits", "Wrong digits"
		ev.Explanation = WrongDigitsSomewhere
	case len(h.Wrong) > 0:
		ev.Technique, ev.TechniqueName = "wrong-digits", "Wrong digits"
		ev.Wrong = h.Wrong
		ev.Cells = h.Wrong
	default:
		st := h.Step
		ev.Technique, ev.TechniqueName = st.Technique.String(), st.Technique.Name()
		ev.Cells = stepCells(st)
		ev.Place = marks(st.Place)
		ev.Eliminate = marks(st.Eliminate)
	}
	if penalty := g.rules.hintPenalty(g.cfg); penalty > 0 {
		until := now.Add(penalty)
		ev.FrozenUntil = &until
	}
	// evolve counts the hint and freezes the board.
	g.publish(now, fact{kind: kindHint, actor: m.id, ev: ev})
	g.emitProgress(now, m)
	return nil
}

// WrongDigitsSomewhere is a contest's hint on a board with a wrong digit:
// it says that there is one, not where, nor how many.
const WrongDigitsSomewhere = "At least one of your digits is wrong; this hint does not say which."

// stepCells is every cell a step rests on or changes, in order.
func stepCells(st *engine.Step) []int {
	var set engine.CellSet
	for _, c := range st.Cells {
		set.Add(c)
	}
	for _, c := range st.Opposite {
		set.Add(c)
	}
	for _, cs := range [][]engine.Candidate{st.Place, st.Eliminate, st.Chain} {
		for _, c := range cs {
			set.Add(c.Cell)
		}
	}
	return set.Cells(nil)
}

func marks(cs []engine.Candidate) []protocol.Mark {
	if len(cs) == 0 {
		return nil
	}
	out := make([]protocol.Mark, len(cs))
	for i, c := range cs {
		out[i] = protocol.Mark{Cell: c.Cell, Digit: int(c.Digit)}
	}
	return out
}
