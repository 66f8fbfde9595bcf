package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"text/tabwriter"
	"time"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/internal/puzzlefile"
)

const benchUsage = `Usage: arena bench [-t SECONDS] FILE...

Measures the solver on each puzzle file, one goroutine on one core, solving
every puzzle to two solutions (that is, with the uniqueness check), over and
over until -t seconds have passed (at least one full pass). A first pass,
not timed, gathers the statistics. Prints one row per file: puzzles per
second, microseconds per puzzle, the share of puzzles solved without a guess
and guesses per puzzle (of the solver that counted, named below).

Flags:
`

// benchRow is one file's figures.
type benchRow struct {
	File          string
	Puzzles       int
	Unique        int // puzzles with exactly one solution, per pass
	Runs          int // puzzles solved in all, over every pass
	Elapsed       time.Duration
	NoGuess       int // per pass
	Guesses       int // per pass
	PuzzlesPerSec float64
}

func runBench(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seconds := fs.Float64("t", 5, "seconds to spend on each file (at least one full pass is made)")
	fs.Usage = func() { fmt.Fprint(fs.Output(), benchUsage); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "arena bench: name at least one puzzle file")
		fs.Usage()
		return exitUsage
	}
	if *seconds <= 0 {
		fmt.Fprintf(stderr, "arena bench: -t must be positive, got %g\n", *seconds)
		return exitUsage
	}
	// One core, as the published figures of other solvers are.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))

	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "file\tpuzzles\tpuzzles/s\tµs/puzzle\tno guess %\tguesses/puzzle\tunique\t")
	for _, name := range fs.Args() {
		row, err := benchFile(name, time.Duration(*seconds*float64(time.Second)))
		if err != nil {
			tw.Flush()
			fmt.Fprintf(stderr, "arena bench: %v\n", err)
			return exitFail
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.2f\t%.1f\t%.2f\t%d\t\n",
			filepath.Base(row.File), row.Puzzles, row.PuzzlesPerSec, 1e6/row.PuzzlesPerSec,
			100*float64(row.NoGuess)/float64(row.Puzzles), float64(row.Guesses)/float64(row.Puzzles), row.Unique)
	}
	tw.Flush()
	fmt.Fprintf(stdout, "\n%s/%s, GOMAXPROCS=1, %d CPU(s), %s; counted by %s\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version(), engine.Counter())
	return exitOK
}

func benchFile(name string, budget time.Duration) (benchRow, error) {
	row := benchRow{File: name}
	var grids []engine.Grid
	err := puzzlefile.Read([]string{name}, nil, func(pl puzzlefile.Line) error {
		if pl.Err != nil {
			return fmt.Errorf("%s line %d: %s", name, pl.LineNo, puzzlefile.Reason(pl.Err))
		}
		grids = append(grids, pl.Grid)
		return nil
	})
	if err != nil {
		return row, err
	}
	if len(grids) == 0 {
		return row, fmt.Errorf("%s: no puzzles", name)
	}
	row.Puzzles = len(grids)
	// The statistics, untimed, from the same solver. The timed passes
	// count as the generator does.
	for _, g := range grids {
		n, guesses := engine.CountGuesses(g, 2)
		if n == 1 {
			row.Unique++
		}
		if guesses == 0 {
			row.NoGuess++
		}
		row.Guesses += guesses
	}
	start := time.Now()
	for row.Runs == 0 || time.Since(start) < budget {
		for _, g := range grids {
			engine.CountSolutions(g, 2)
		}
		row.Runs += len(grids)
	}
	row.Elapsed = time.Since(start)
	row.PuzzlesPerSec = float64(row.Runs) / row.Elapsed.Seconds()
	return row, nil
}
