package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/sudoku-arena/arena/engine"
)

const generateUsage = `Usage: arena generate -level LEVEL [-n N] [-seed S] [-symmetric] [-json] [-workers W]

Generates N puzzles of the level, one a line. Every puzzle has exactly one
solution and is graded exactly at its level's tier, and rated within its
Sudoku Explainer range: easy (singles only, SE 1.0-2.3), medium (up to locked
candidates and pairs, 2.4-3.4), hard (up to triples, quads, fish and wings,
3.5-4.9), expert (needs chains or uniqueness, 5.0-6.9), master (expert's
techniques, rated 7.0 and up). Puzzle i is made from seed S+i, so the
same flags always print the same puzzles. A timing summary (p50, p90, p99,
max per puzzle) goes to stderr.

Flags:
`

// generateJSON is one line of `arena generate -json`.
type generateJSON struct {
	Puzzle   string          `json:"puzzle"`
	Solution string          `json:"solution"`
	Level    string          `json:"level"`
	Score    int             `json:"score"`
	Hardest  string          `json:"hardest"`
	Counts   map[string]int  `json:"techniques"`
	Clues    int             `json:"clues"`
	Seed     uint64          `json:"seed"`
	SE       engine.SERating `json:"se,omitempty"`
	Micros   float64         `json:"elapsed_us"`
}

type genResult struct {
	gen     engine.Generated
	elapsed time.Duration
	err     error
}

func runGenerate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("generate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	levelName := fs.String("level", "medium", "difficulty: "+engine.ListNames(engine.DifficultyNames()))
	n := fs.Int("n", 1, "how many puzzles")
	seed := fs.Uint64("seed", 0, "seed of the first puzzle; 0 picks one from the clock (it is printed to stderr)")
	symmetric := fs.Bool("symmetric", false, "place clues in 180° rotational symmetry")
	asJSON := fs.Bool("json", false, "write one JSON object per puzzle: puzzle, solution, level, score, hardest technique, technique counts, seed")
	minSE := fs.Float64("min-se", 0, "instead of the level's SE range, require a Sudoku Explainer rating of at least this")
	workers := fs.Int("workers", 1, "puzzles generated in parallel (the timing summary is per puzzle either way)")
	fs.Usage = func() { fmt.Fprint(fs.Output(), generateUsage); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	level, _, err := engine.ParseDifficulty(*levelName)
	if err != nil {
		fmt.Fprintf(stderr, "arena generate: -level: %v\n", err)
		return exitUsage
	}
	if *minSE > 0 {
		level.MinSE, level.MaxSE = engine.SERating(*minSE*10+0.5), 0
	}
	if *n < 1 {
		fmt.Fprintf(stderr, "arena generate: -n must be at least 1, got %d\n", *n)
		return exitUsage
	}
	if *workers < 1 || *workers > 4*runtime.NumCPU() {
		fmt.Fprintf(stderr, "arena generate: -workers must be 1..%d, got %d\n", 4*runtime.NumCPU(), *workers)
		return exitUsage
	}
	if *seed == 0 {
		*seed = uint64(time.Now().UnixNano())
	}

	// Workers take puzzle indexes from a channel; results are written in
	// index order, so the output does not depend on -workers.
	results := make([]chan genResult, *n)
	for i := range results {
		results[i] = make(chan genResult, 1)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < *workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				start := time.Now()
				g, err := engine.Generate(level.Options(*seed+uint64(i), *symmetric))
				results[i] <- genResult{gen: g, elapsed: time.Since(start), err: err}
			}
		}()
	}
	go func() {
		for i := 0; i < *n; i++ {
			next <- i
		}
		close(next)
	}()

	out := bufio.NewWriter(stdout)
	enc := json.NewEncoder(out)
	times := make([]time.Duration, 0, *n)
	attempts := 0
	failed := 0
	wallStart := time.Now()
	for i := 0; i < *n; i++ {
		r := <-results[i]
		if r.err != nil {
			failed++
			fmt.Fprintf(stderr, "arena generate: puzzle %d: %v\n", i, r.err)
			continue
		}
		times = append(times, r.elapsed)
		attempts += r.gen.Attempts
		if *asJSON {
			gr := r.gen.Grade
			enc.Encode(generateJSON{
				Puzzle: r.gen.Givens.String(), Solution: r.gen.Solution.String(),
				Level: gr.Level.String(), Score: gr.Score, Hardest: gr.Hardest.String(),
				Counts: techniqueCounts(gr), Clues: r.gen.Givens.Filled(), Seed: r.gen.Seed, SE: r.gen.SE,
				Micros: float64(r.elapsed.Nanoseconds()) / 1e3,
			})
		} else {
			fmt.Fprintln(out, r.gen.Givens.String())
		}
	}
	wall := time.Since(wallStart)
	wg.Wait()
	if err := out.Flush(); err != nil {
		fmt.Fprintf(stderr, "arena generate: %v\n", err)
		return exitFail
	}
	if len(times) > 0 {
		slices.Sort(times)
		fmt.Fprintf(stderr, "generated %d %s puzzle(s) in %v (seed %d, %d worker(s), %.2f grids/puzzle): per puzzle p50 %v  p90 %v  p99 %v  max %v\n",
			len(times), level.Name, wall.Round(time.Millisecond), *seed, *workers, float64(attempts)/float64(len(times)),
			pct(times, 50), pct(times, 90), pct(times, 99), times[len(times)-1].Round(time.Microsecond))
	}
	if failed > 0 {
		return exitFail
	}
	return exitOK
}

// pct is the p-th percentile of sorted durations (nearest rank).
func pct(sorted []time.Duration, p int) time.Duration {
	i := (len(sorted)*p + 99) / 100
	if i < 1 {
		i = 1
	}
	return sorted[i-1].Round(time.Microsecond)
}

// techniqueCounts is a grade's technique counts keyed by the stable ids.
func techniqueCounts(g engine.Grade) map[string]int {
	out := make(map[string]int, len(g.Counts))
	for t, n := range g.Counts {
		out[t.String()] = n
	}
	return out
}
