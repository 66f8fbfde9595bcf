package room

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
)

// OwnPuzzle checks a puzzle a player gave and grades it: a room can only
// be played on a puzzle with exactly one solution, since the server checks
// every digit against that solution. A refusal is an *Error (PuzzleError);
// the puzzle's Level is its grade's, which may be "beyond" (the techniques
// cannot finish it).
func OwnPuzzle(givens engine.Grid) (Puzzle, error) {
	gr, err := engine.GradePuzzle(givens)
	if err != nil {
		return Puzzle{}, PuzzleError(err)
	}
	// A finished grade's board is the solution (the puzzle has one);
	// only a puzzle the techniques cannot finish needs the solver.
	sol := gr.Board
	if !gr.Solved {
		sol = engine.Solve(givens, 1).Solution
	}
	return Puzzle{Level: gr.Level.String(), Givens: givens, Solution: sol}, nil
}

// PuzzleError is engine.GradePuzzle's refusal of a puzzle as an *Error
// whose code says why: no_solution (the message names two clashing givens
// when there are some) or many_solutions. Any other error is wrapped as it
// is.
func PuzzleError(err error) error {
	switch {
	case errors.Is(err, engine.ErrConflict):
		return protocol.Errorf(protocol.CodeNoSolution, "the puzzle has no solution: %s", conflictText(err))
	case errors.Is(err, engine.ErrNoSolution):
		return protocol.Errorf(protocol.CodeNoSolution, "the puzzle has no solution: its givens rule every digit out of some cell")
	case errors.Is(err, engine.ErrMultipleSolutions):
		return protocol.Errorf(protocol.CodeManySolutions, "the puzzle has more than one solution: it needs more givens")
	}
	return fmt.Errorf("room: grade puzzle: %w", err)
}

// conflictText is what engine.ErrConflict's wrapping says after the
// sentinel's own text: which two cells hold the same digit.
func conflictText(err error) string {
	if cells, ok := strings.CutPrefix(err.Error(), engine.ErrConflict.Error()+": "); ok {
		return cells
	}
	return "two givens in the same row, column or box hold the same digit"
}

// CreateOwn makes a room of the mode (race or coop) on a puzzle a player
// gave, as OwnPuzzle returned it; its finishes are never ranked (PlayOwn).
func (reg *Registry) CreateOwn(ctx context.Context, mode string, pz Puzzle) (*Room, error) {
	if m, ok := ModeOf(mode); !ok || !m.Own {
		return nil, fmt.Errorf("room: a %s room cannot play a player's puzzle", mode)
	}
	return reg.create(ctx, spec{mode: mode, level: pz.Level, own: &pz})
}
