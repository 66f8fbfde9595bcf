package engine

import (
	"errors"
	"fmt"
	"math/bits"
)

// ErrBoardMismatch is NextHint's error for a board that does not keep the
// puzzle's givens, or holds a value that is not a digit.
var ErrBoardMismatch = errors.New("engine: the board does not match the puzzle")

// Hint is what NextHint has for a player.
type Hint struct {
	// Step is the next logical step from the board, or, when the techniques
	// are stuck, a TechniqueTrial step that reveals one cell from the
	// solution. It is nil when Wrong is set or the board is solved.
	Step *Step `json:"step,omitempty"`
	// Wrong lists the cells whose player digit is not the solution's.
	Wrong []int `json:"wrong,omitempty"`
	// Solved is true when the board is complete and correct.
	Solved bool `json:"solved,omitempty"`
	// Path is the steps from the board up to and including the first one
	// that places a digit, Step first: the server does not know the
	// player's pencil marks, so a hint that only eliminates would come
	// back unchanged next time; Path says where it leads.
	Path []Step `json:"path,omitempty"`
}

// Explanation is the hint as a sentence for the player.
func (h Hint) Explanation() string {
	switch {
	case len(h.Wrong) == 1:
		return CellName(h.Wrong[0]) + " is wrong: the solution has a different digit there."
	case len(h.Wrong) > 1:
		return CellList(h.Wrong) + " are wrong: the solution has different digits there."
	case h.Solved:
		return "The board is solved."
	case h.Step != nil:
		return h.Step.Explanation()
	}
	return ""
}

// NextHint tells the player what to do next. givens is the puzzle; board is
// the givens plus the player's digits. If any player digit differs from the
// puzzle's unique solution, the hint names those cells and nothing else.
// Otherwise it is the easiest logical step from the board (its candidates
// being what the placed digits leave), and Path follows the steps on to
// the first placement. When no technique applies, the hint reveals the
// digit of the empty cell with the fewest candidates (the first such cell),
// as a TechniqueTrial step that says so honestly.
//
// It returns ErrConflict, ErrNoSolution or ErrMultipleSolutions when the
// givens do not have exactly one solution, and ErrBoardMismatch when the
// board changes a given.
func NextHint(givens, board Grid) (Hint, error) {
	sol, err := checkUnique(givens)
	if err != nil {
		return Hint{}, err
	}
	var h Hint
	for cell := 0; cell < NumCells; cell++ {
		switch v := board[cell]; {
		case v > 9:
			return Hint{}, fmt.Errorf("%w: %s holds %d", ErrBoardMismatch, CellName(cell), v)
		case givens[cell] != 0 && v != givens[cell]:
			return Hint{}, fmt.Errorf("%w: %s is the given %d, not %d", ErrBoardMismatch, CellName(cell), givens[cell], v)
		case v != 0 && v != sol[cell]:
			h.Wrong = append(h.Wrong, cell)
		}
	}
	if len(h.Wrong) > 0 {
		return h, nil
	}
	if board == sol {
		h.Solved = true
		return h, nil
	}
	c := NewCandidates(board)
	var buf stepBuf
	st := buf.init()
	for n := 0; n < maxSteps && !c.Solved(); n++ {
		if !nextStep(&c, st, LevelExpert) {
			h.Path = append(h.Path, trialStep(&c, &sol))
			break
		}
		if !c.Apply(st) {
			h.Path = append(h.Path, trialStep(&c, &sol))
			break
		}
		h.Path = append(h.Path, st.clone())
		if len(st.Place) > 0 {
			break
		}
	}
	h.Step = &h.Path[0]
	return h, nil
}

// trialStep reveals, from the solution, the digit of the empty cell with the
// fewest candidates.
func trialStep(c *Candidates, sol *Grid) Step {
	best, bestN := -1, 10
	for cell := c.unsolved.First(); cell >= 0; cell = nextCell(c.unsolved, cell) {
		if n := bits.OnesCount16(c.mask[cell]); n < bestN {
			best, bestN = cell, n
		}
	}
	d := sol[best]
	return Step{
		Technique: TechniqueTrial,
		Place:     []Candidate{{best, d}},
		Cells:     []int{best},
		Digits:    appendMaskDigits(nil, c.mask[best]&^(1<<d)),
	}
}
