package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/internal/puzzlefile"
	"github.com/sudoku-arena/arena/protocol"
)

const hintUsage = `Usage: arena hint [-givens PUZZLE] < BOARD

Reads a board (81 characters, '.' or '0' for an empty cell) from stdin and
prints the next logical step from it as one JSON object: the technique, the
cells and digits it rests on, what it places or eliminates, and an
explanation. The board is the puzzle's givens plus the player's digits; name
the givens with -givens, or put them on the line before the board, so that a
wrong player digit can be told from a given. With the board alone, every
digit on it counts as a given. When a player digit contradicts the solution
the hint names the wrong cell(s) instead of a step.

Flags:
`

// cliStep is s as the command line prints it: the step's technique with
// its name and level, its explanation, what it places or eliminates (each
// cell with its name for people), and the cells and digits of its pattern.
func cliStep(s engine.Step) protocol.Step {
	named := func(cs []engine.Candidate) []protocol.Mark {
		out := protocol.Marks(cs)
		for i := range out {
			out[i].Name = engine.CellName(out[i].Cell)
		}
		return out
	}
	var digits []int
	for _, d := range s.Digits {
		digits = append(digits, int(d))
	}
	return protocol.Step{
		Technique: s.Technique.String(), Name: s.Technique.Name(), Level: s.Technique.Level().String(),
		Explanation: s.Explanation(), Place: named(s.Place), Eliminate: named(s.Eliminate),
		Cells: s.Cells, Digits: digits,
	}
}

// hintJSON is the output of `arena hint`.
type hintJSON struct {
	Board       string         `json:"board"`
	Step        *protocol.Step `json:"step,omitempty"`
	Wrong       []string       `json:"wrong,omitempty"`
	WrongCells  []int          `json:"wrong_cells,omitempty"`
	Explanation string         `json:"explanation"`
}

func runHint(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hint", flag.ContinueOnError)
	fs.SetOutput(stderr)
	givensText := fs.String("givens", "", "the puzzle's givens (81 characters); default: the line before the board, or the board itself")
	fs.Usage = func() { fmt.Fprint(fs.Output(), hintUsage); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "arena hint: the board is read from stdin; unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	var lines []puzzlefile.Line
	if err := puzzlefile.Read(nil, stdin, func(pl puzzlefile.Line) error {
		lines = append(lines, pl)
		return nil
	}); err != nil {
		fmt.Fprintf(stderr, "arena hint: %v\n", err)
		return exitFail
	}
	for _, pl := range lines {
		if pl.Err != nil {
			fmt.Fprintf(stderr, "arena hint: stdin line %d: %s\n", pl.LineNo, puzzlefile.Reason(pl.Err))
			return exitFail
		}
	}
	var givens, board engine.Grid
	switch {
	case len(lines) == 0:
		fmt.Fprintln(stderr, "arena hint: no board on stdin")
		return exitFail
	case len(lines) > 2 || (len(lines) == 2 && *givensText != ""):
		fmt.Fprintln(stderr, "arena hint: want one board on stdin, or the givens and then the board")
		return exitFail
	case len(lines) == 2:
		givens, board = lines[0].Grid, lines[1].Grid
	default:
		board = lines[0].Grid
		givens = board
		if *givensText != "" {
			g, err := engine.Parse(*givensText)
			if err != nil {
				fmt.Fprintf(stderr, "arena hint: -givens: %s\n", puzzlefile.Reason(err))
				return exitUsage
			}
			givens = g
		}
	}
	h, err := engine.NextHint(givens, board)
	if err != nil {
		fmt.Fprintf(stderr, "arena hint: %v\n", err)
		return exitFail
	}
	if h.Solved {
		fmt.Fprintln(stderr, "arena hint: the board is already solved")
		return exitFail
	}
	j := hintJSON{Board: board.String()}
	if len(h.Wrong) > 0 {
		var names []string
		for _, c := range h.Wrong {
			names = append(names, engine.CellName(c))
		}
		j.Wrong, j.WrongCells = names, h.Wrong
		j.Explanation = h.Explanation()
	} else if h.Step != nil {
		s := cliStep(*h.Step)
		j.Step = &s
		j.Explanation = s.Explanation
	}
	b, _ := json.Marshal(j)
	fmt.Fprintln(stdout, string(b))
	return exitOK
}
