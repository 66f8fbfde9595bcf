package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/sudoku-arena/arena/engine"
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

// candidateJSON is a cell and a digit, with the cell's name for people.
type candidateJSON struct {
	Cell  int    `json:"cell"`
	Name  string `json:"name"`
	Digit uint8  `json:"digit"`
}

// stepJSON is one logical step as the command line prints it.
type stepJSON struct {
	Technique   string          `json:"technique"`
	Name        string          `json:"name"`
	Level       string          `json:"level"`
	Explanation string          `json:"explanation"`
	Place       []candidateJSON `json:"place,omitempty"`
	Eliminate   []candidateJSON `json:"eliminate,omitempty"`
	Cells       []int           `json:"cells,omitempty"`
	Digits      []int           `json:"digits,omitempty"`
}

func newStepJSON(s engine.Step) stepJSON {
	conv := func(cs []engine.Candidate) []candidateJSON {
		var out []candidateJSON
		for _, c := range cs {
			out = append(out, candidateJSON{Cell: c.Cell, Name: engine.CellName(c.Cell), Digit: c.Digit})
		}
		return out
	}
	var digits []int
	for _, d := range s.Digits {
		digits = append(digits, int(d))
	}
	return stepJSON{
		Technique: s.Technique.String(), Name: s.Technique.Name(), Level: s.Technique.Level().String(),
		Explanation: s.Explanation(), Place: conv(s.Place), Eliminate: conv(s.Eliminate),
		Cells: s.Cells, Digits: digits,
	}
}

// hintJSON is the output of `arena hint`.
type hintJSON struct {
	Board       string    `json:"board"`
	Step        *stepJSON `json:"step,omitempty"`
	Wrong       []string  `json:"wrong,omitempty"`
	WrongCells  []int     `json:"wrong_cells,omitempty"`
	Explanation string    `json:"explanation"`
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
	var lines []puzzleLine
	if err := readPuzzles(nil, stdin, func(pl puzzleLine) error {
		lines = append(lines, pl)
		return nil
	}); err != nil {
		fmt.Fprintf(stderr, "arena hint: %v\n", err)
		return exitFail
	}
	for _, pl := range lines {
		if pl.Err != nil {
			fmt.Fprintf(stderr, "arena hint: stdin line %d: %s\n", pl.LineNo, lineReason(pl.Err))
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
				fmt.Fprintf(stderr, "arena hint: -givens: %s\n", lineReason(err))
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
		s := newStepJSON(*h.Step)
		j.Step = &s
		j.Explanation = s.Explanation
	}
	b, _ := json.Marshal(j)
	fmt.Fprintln(stdout, string(b))
	return exitOK
}
