package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/internal/puzzlefile"
	"github.com/sudoku-arena/arena/protocol"
)

const gradeUsage = `Usage: arena grade [-steps] [FILE...]

Grades puzzles, one a line, from the files or from stdin, by the human
techniques a logical solver needs for them. Writes one JSON object per
puzzle: level (easy, medium, hard, expert, or beyond when the techniques do
not finish it), score, hardest technique and the count of each technique
used, and se: its rating on the Sudoku Explainer scale (1.2 for a hidden
single to about 9; left out when it needs more than multiple forcing
chains); or, for a puzzle that cannot be graded, an "error" saying why (no
solution, several solutions, not a puzzle). The exit code is 1 when any
line could not be graded.

Flags:
`

// gradeJSON is one line of `arena grade`.
type gradeJSON struct {
	Puzzle  string           `json:"puzzle"`
	Level   string           `json:"level,omitempty"`
	Score   int              `json:"score,omitempty"`
	Hardest string           `json:"hardest,omitempty"`
	SE      *engine.SERating `json:"se,omitempty"`
	Counts  map[string]int   `json:"techniques,omitempty"`
	Steps   []protocol.Step  `json:"steps,omitempty"`
	Error   string           `json:"error,omitempty"`
}

func runGrade(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("grade", flag.ContinueOnError)
	fs.SetOutput(stderr)
	steps := fs.Bool("steps", false, "include every step with its explanation")
	fs.Usage = func() { fmt.Fprint(fs.Output(), gradeUsage); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	out := bufio.NewWriter(stdout)
	enc := json.NewEncoder(out)
	bad := 0
	err := puzzlefile.Read(fs.Args(), stdin, func(pl puzzlefile.Line) error {
		if pl.Err != nil {
			bad++
			return enc.Encode(gradeJSON{Puzzle: pl.Text, Error: "invalid: " + puzzlefile.Reason(pl.Err)})
		}
		gr, err := engine.GradePuzzle(pl.Grid)
		if err != nil {
			bad++
			return enc.Encode(gradeJSON{Puzzle: pl.Grid.String(), Error: err.Error()})
		}
		j := gradeJSON{
			Puzzle: pl.Grid.String(), Level: gr.Level.String(), Score: gr.Score,
			Hardest: gr.Hardest.String(), Counts: techniqueCounts(gr),
		}
		if se, ok := engine.RateSE(pl.Grid); ok {
			j.SE = &se
		}
		if *steps {
			for _, s := range gr.Steps {
				j.Steps = append(j.Steps, cliStep(s))
			}
		}
		return enc.Encode(j)
	})
	return finishLines("grade", out, stderr, err, bad, "line(s) could not be graded")
}
