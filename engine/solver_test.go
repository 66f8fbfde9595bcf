package engine

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// famous are five well-known hard puzzles, each with exactly one solution.
var famous = []struct{ name, puzzle string }{
	{"Inkala 2012", inkala},
	{"AI Escargot", "1....7.9..3..2...8..96..5....53..9...1..8...26....4...3......1..4......7..7...3.."},
	{"Easter Monster", "1.......2.9.4...5...6...7...5.9.3.......7.......85..4.7.....6...3...9.8...2.....1"},
	{"Golden Nugget", ".......39.....1..5..3.5.8....8.9...6.7...2...1..4.......9.8..5..2....6..4..7....."},
	{"Platinum Blonde", ".......12........3..23..4....18....5.6..7.8.......9.....85.....9...4.5..47...6..."},
}

// collectionPath is where a shared puzzle collection lives, seen from this
// package (the repository is /work/main, the collections /work/shared/data).
// It fails the test at once, saying where it looked, when the file is missing.
func collectionPath(tb testing.TB, name string) string {
	tb.Helper()
	p := dataPath(name)
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("puzzle collection %q is missing: looked for %s (the shared data directory "+
			"is expected two levels above engine/): %v", name, p, err)
	}
	return p
}

// collections caches parsed collections: several tests and benchmarks read
// the same 49k-puzzle file.
var collections sync.Map // name -> []Grid

// loadCollection parses every puzzle of a shared collection: one puzzle a
// line, '#' comment lines and blank lines skipped.
func loadCollection(tb testing.TB, name string) []Grid {
	tb.Helper()
	if v, ok := collections.Load(name); ok {
		return v.([]Grid)
	}
	data, err := os.ReadFile(collectionPath(tb, name))
	require.NoError(tb, err)
	var out []Grid
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		g, err := Parse(line)
		require.NoError(tb, err, "%s line %d", name, i+1)
		out = append(out, g)
	}
	collections.Store(name, out)
	return out
}

// keepsGivens reports whether solution s agrees with every given of puzzle p.
func keepsGivens(p, s Grid) bool {
	for i, v := range p {
		if v != 0 && s[i] != v {
			return false
		}
	}
	return true
}

// checkUnique returns what is wrong with res as the answer for a puzzle p
// that has exactly one solution, or "" when nothing is.
func checkUnique(p Grid, res SolveResult) string {
	switch {
	case res.Count != 1:
		return fmt.Sprintf("count %d, want 1", res.Count)
	case !res.Solution.Complete():
		return "solution " + res.Solution.String() + " is not a complete valid grid"
	case !keepsGivens(p, res.Solution):
		return "solution " + res.Solution.String() + " changes a given"
	}
	return ""
}

// failures collects what went wrong over a whole collection, so that a test
// over 49k puzzles reports the first few bad puzzles and a total instead of
// stopping at the first or flooding the log.
type failures struct {
	n        int
	examples []string
}

func (f *failures) add(p Grid, why string) {
	f.n++
	if len(f.examples) < 5 {
		f.examples = append(f.examples, p.String()+": "+why)
	}
}

func (f *failures) check(t *testing.T, of int) {
	t.Helper()
	assert.Zero(t, f.n, "%d of %d puzzles wrong; first ones:\n%s", f.n, of, strings.Join(f.examples, "\n"))
}

func TestSolveUniqueCollections(t *testing.T) {
	tests := []struct {
		file string
		want int // puzzles in the file
	}{
		{"17-clue.txt", 49158},
		{"magictour-top1465.txt", 1465},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			puzzles := loadCollection(t, tt.file)
			require.Len(t, puzzles, tt.want)
			var bad failures
			for _, p := range puzzles {
				if why := checkUnique(p, Solve(p, 2)); why != "" {
					bad.add(p, why)
				}
			}
			bad.check(t, len(puzzles))
		})
	}
}

func TestSolveSergAllHaveSeveralSolutions(t *testing.T) {
	puzzles := loadCollection(t, "serg-benchmark.txt")
	require.Len(t, puzzles, 10000)
	var bad failures
	for _, p := range puzzles {
		res := Solve(p, 2)
		switch {
		case res.Count != 2:
			bad.add(p, fmt.Sprintf("count %d with limit 2, want 2", res.Count))
		case !res.Solution.Complete() || !keepsGivens(p, res.Solution):
			bad.add(p, "first solution "+res.Solution.String()+" is not a solution")
		}
	}
	bad.check(t, len(puzzles))
	// With limit 1 the search stops at the first solution.
	for _, p := range puzzles[:200] {
		require.Equal(t, 1, Solve(p, 1).Count, "puzzle %s", p)
	}
}

func TestSolveFamous(t *testing.T) {
	for _, tt := range famous {
		t.Run(tt.name, func(t *testing.T) {
			p := MustParse(tt.puzzle)
			res := Solve(p, 2)
			require.Empty(t, checkUnique(p, res))
			n, want := refSolve(p, 2)
			require.Equal(t, 1, n, "the reference solver agrees it is unique")
			assert.Equal(t, want, res.Solution)
		})
	}
	// Inkala's solution, as published.
	assert.Equal(t, "812753649943682175675491283154237896369845721287169534521974368438526917796318452",
		Solve(MustParse(inkala), 2).Solution.String())
}

// solvedGrid is a complete valid grid (Inkala's solution).
const solvedGrid = "812753649943682175675491283154237896369845721287169534521974368438526917796318452"

func TestSolveEdgeCases(t *testing.T) {
	full := MustParse(solvedGrid)
	oneHole := full
	oneHole[40] = 0
	conflictRow := MustParse(inkala)
	conflictRow[1] = 8 // row 1 already has an 8 at r1c1
	conflictBox := MustParse(inkala)
	conflictBox[10] = 8 // r2c2 shares box 1 with the 8 at r1c1
	conflictCol := MustParse(inkala)
	conflictCol[63] = 8 // r8c1 shares column 1 with the 8 at r1c1
	noCandidate := MustParse(".12345678" + "9........" + strings.Repeat(".", 63))

	tests := []struct {
		name  string
		g     Grid
		limit int
		want  int
	}{
		{"empty grid, limit 1", Grid{}, 1, 1},
		{"empty grid, limit 2", Grid{}, 2, 2},
		{"empty grid, limit 7", Grid{}, 7, 7},
		{"empty grid, limit 0 means 1", Grid{}, 0, 1},
		{"empty grid, negative limit means 1", Grid{}, -3, 1},
		{"full valid grid", full, 2, 1},
		{"one hole", oneHole, 2, 1},
		{"conflict in a row", conflictRow, 2, 0},
		{"conflict in a box", conflictBox, 2, 0},
		{"conflict in a column", conflictCol, 2, 0},
		{"cell with no candidate", noCandidate, 2, 0},
		{"full grid with a conflict", func() Grid { g := full; g[0], g[1] = g[1], g[0]; return g }(), 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Solve(tt.g, tt.limit)
			require.Equal(t, tt.want, res.Count)
			if res.Count > 0 {
				assert.True(t, res.Solution.Complete(), "solution %s", res.Solution)
				assert.True(t, keepsGivens(tt.g, res.Solution), "solution %s", res.Solution)
			} else {
				assert.Equal(t, Grid{}, res.Solution, "no solution, zero grid")
			}
		})
	}
	res := Solve(oneHole, 2)
	assert.Equal(t, full, res.Solution)
	assert.Equal(t, full, Solve(full, 1).Solution)
}
