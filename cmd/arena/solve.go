package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/internal/puzzlefile"
)

const solveUsage = `Usage: arena solve [-json] [-limit N] [FILE...]

Reads puzzles, one a line, from the files or from stdin, and writes one line
per puzzle:
  the 81-digit solution   when the puzzle has exactly one solution
  none                    when it has none (including conflicting givens)
  multiple                when it has more than one
  invalid: REASON         when the line is not a puzzle
Lines starting with '#' and blank lines are skipped. The exit code is 1 when
any line was invalid (every other line is still solved), 2 for a bad command
line.

Flags:
`

// solveJSON is one line of `arena solve -json`.
type solveJSON struct {
	Puzzle   string     `json:"puzzle"`
	Solution string     `json:"solution,omitempty"`
	Count    int        `json:"count"`
	Limit    int        `json:"limit"`
	Stats    *statsJSON `json:"stats,omitempty"`
	Error    string     `json:"error,omitempty"`
}

type statsJSON struct {
	Iterations   int     `json:"iterations"`
	Guesses      int     `json:"guesses"`
	Propagations int     `json:"propagations"`
	Micros       float64 `json:"elapsed_us"`
}

func runSolve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("solve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "write one JSON object per puzzle: solution, solution count (capped at -limit) and solver statistics")
	limit := fs.Int("limit", 2, "count solutions up to this many (at least 2, so that several solutions can be told from one)")
	fs.Usage = func() { fmt.Fprint(fs.Output(), solveUsage); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	if *limit < 2 {
		fmt.Fprintf(stderr, "arena solve: -limit must be at least 2, got %d\n", *limit)
		return exitUsage
	}
	out := bufio.NewWriter(stdout)
	enc := json.NewEncoder(out)
	invalid := 0
	err := puzzlefile.Read(fs.Args(), stdin, func(pl puzzlefile.Line) error {
		if pl.Err != nil {
			invalid++
			if *asJSON {
				return enc.Encode(solveJSON{Puzzle: pl.Text, Limit: *limit, Error: puzzlefile.Reason(pl.Err)})
			}
			_, err := fmt.Fprintf(out, "invalid: %s\n", puzzlefile.Reason(pl.Err))
			return err
		}
		res := engine.Solve(pl.Grid, *limit)
		if *asJSON {
			j := solveJSON{Puzzle: pl.Grid.String(), Count: res.Count, Limit: *limit, Stats: &statsJSON{
				Iterations:   res.Stats.Iterations,
				Guesses:      res.Stats.Guesses,
				Propagations: res.Stats.Propagations,
				Micros:       float64(res.Stats.Elapsed.Nanoseconds()) / 1e3,
			}}
			if res.Count == 1 {
				j.Solution = res.Solution.String()
			}
			return enc.Encode(j)
		}
		_, err := fmt.Fprintln(out, verdict(res))
		return err
	})
	return finishLines("solve", out, stderr, err, invalid, "invalid line(s)")
}

// verdict is the one-line answer of `arena solve` for a solved puzzle.
func verdict(res engine.SolveResult) string {
	switch res.Count {
	case 0:
		return "none"
	case 1:
		return res.Solution.String()
	default:
		return "multiple"
	}
}

// usageExit maps a flag parsing error to an exit code: -h is a success.
func usageExit(err error) int {
	if err == flag.ErrHelp {
		return exitOK
	}
	return exitUsage
}
