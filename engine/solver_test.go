package engine

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// famousPuzzles are five well-known hard puzzles, each with exactly one
// solution. The solutions were checked against the reference search
// (refSolve), which takes seconds on them under the race detector.
var famousPuzzles = []struct{ name, puzzle, solution string }{
	{"Inkala 2012", inkala,
		"812753649943682175675491283154237896369845721287169534521974368438526917796318452"},
	{"AI Escargot", "1....7.9..3..2...8..96..5....53..9...1..8...26....4...3......1..4......7..7...3..",
		"162857493534129678789643521475312986913586742628794135356478219241935867897261354"},
	{"Easter Monster", "1.......2.9.4...5...6...7...5.9.3.......7.......85..4.7.....6...3...9.8...2.....1",
		"174385962293467158586192734451923876928674315367851249719548623635219487842736591"},
	{"Golden Nugget", ".......39.....1..5..3.5.8....8.9...6.7...2...1..4.......9.8..5..2....6..4..7.....",
		"751846239892371465643259871238197546974562318165438927319684752527913684486725193"},
	{"Platinum Blonde", ".......12........3..23..4....18....5.6..7.8.......9.....85.....9...4.5..47...6...",
		"839465712146782953752391486391824675564173829287659341628537194913248567475916238"},
}

// givensKept reports whether solution s agrees with every given of puzzle p.
func givensKept(p, s Grid) bool {
	for i, v := range p {
		if v != 0 && s[i] != v {
			return false
		}
	}
	return true
}

// checkUniqueSolve returns what is wrong with res as the answer for a puzzle p
// that has exactly one solution, or "" when nothing is.
func checkUniqueSolve(p Grid, res SolveResult) string {
	switch {
	case res.Count != 1:
		return fmt.Sprintf("count %d, want 1", res.Count)
	case !res.Solution.Complete():
		return "solution " + res.Solution.String() + " is not a complete valid grid"
	case !givensKept(p, res.Solution):
		return "solution " + res.Solution.String() + " changes a given"
	}
	return ""
}

// solveFailures collects what went wrong over a whole collection, so that a test
// over 49k puzzles reports the first few bad puzzles and a total instead of
// stopping at the first or flooding the log.
type solveFailures struct {
	n        int
	examples []string
}

func (f *solveFailures) add(p Grid, why string) {
	f.n++
	if len(f.examples) < 5 {
		f.examples = append(f.examples, p.String()+": "+why)
	}
}

func (f *solveFailures) check(t *testing.T, of int) {
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
			puzzles := loadPuzzles(t, tt.file, 0)
			require.Len(t, puzzles, tt.want)
			var bad solveFailures
			for _, p := range puzzles {
				if why := checkUniqueSolve(p, Solve(p, 2)); why != "" {
					bad.add(p, why)
				}
			}
			bad.check(t, len(puzzles))
		})
	}
}

func TestSolveSergAllHaveSeveralSolutions(t *testing.T) {
	puzzles := loadPuzzles(t, "serg-benchmark.txt", 0)
	require.Len(t, puzzles, 10000)
	var bad solveFailures
	for _, p := range puzzles {
		res := Solve(p, 2)
		switch {
		case res.Count != 2:
			bad.add(p, fmt.Sprintf("count %d with limit 2, want 2", res.Count))
		case !res.Solution.Complete() || !givensKept(p, res.Solution):
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
	for _, tt := range famousPuzzles {
		t.Run(tt.name, func(t *testing.T) {
			p := MustParse(tt.puzzle)
			res := Solve(p, 2)
			require.Empty(t, checkUniqueSolve(p, res))
			assert.Equal(t, tt.solution, res.Solution.String())
			assert.Equal(t, 1, CountSolutions(p, 2))
		})
	}
}

// inkalaSolution is a complete valid grid (Inkala's solution, as published).
const inkalaSolution = "812753649943682175675491283154237896369845721287169534521974368438526917796318452"

func TestSolveEdgeCases(t *testing.T) {
	full := MustParse(inkalaSolution)
	oneHole := full
	oneHole[40] = 0
	conflictRow := MustParse(inkala)
	conflictRow[1] = 8 // row 1 already has an 8 at r1c1
	conflictBox := MustParse(inkala)
	conflictBox[10] = 8 // r2c2 shares box 1 with the 8 at r1c1
	conflictCol := MustParse(inkala)
	conflictCol[63] = 8 // r8c1 shares column 1 with the 8 at r1c1
	noCandidate := MustParse(".12345678" + "9........" + strings.Repeat(".", 63))
	badValue := MustParse(inkala)
	badValue[5] = 10

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
		{"value out of range", badValue, 2, 0},
		{"full grid with a conflict", func() Grid { g := full; g[0], g[1] = g[1], g[0]; return g }(), 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Solve(tt.g, tt.limit)
			require.Equal(t, tt.want, res.Count)
			if res.Count > 0 {
				assert.True(t, res.Solution.Complete(), "solution %s", res.Solution)
				assert.True(t, givensKept(tt.g, res.Solution), "solution %s", res.Solution)
			} else {
				assert.Equal(t, Grid{}, res.Solution, "no solution, zero grid")
			}
		})
	}
	res := Solve(oneHole, 2)
	assert.Equal(t, full, res.Solution)
	assert.Equal(t, full, Solve(full, 1).Solution)
}

// puzzleKind is a way to make a random test puzzle from a random solution.
type puzzleKind int

const (
	holes      puzzleKind = iota // some cells blanked: one or many solutions
	wrongGiven                   // then one given changed without a direct conflict: usually none
	conflict                     // then a blank filled so that it repeats a peer's digit: none
)

// randomPuzzle blanks between minBlank and maxBlank random cells of a random
// solution and, depending on kind, spoils it.
func randomPuzzle(rng *rand.Rand, kind puzzleKind, minBlank, maxBlank int) Grid {
	g := RandomSolution(rng)
	sol := g
	blank := minBlank + rng.IntN(maxBlank-minBlank+1)
	for _, c := range rng.Perm(NumCells)[:blank] {
		g[c] = 0
	}
	switch kind {
	case wrongGiven:
		for _, c := range rng.Perm(NumCells) {
			if g[c] == 0 {
				continue
			}
			for _, d := range rng.Perm(9) {
				v := uint8(d + 1)
				if v != sol[c] && g.Conflicts(c, v).Empty() {
					g[c] = v
					return g
				}
			}
		}
	case conflict:
		for _, c := range rng.Perm(NumCells) {
			if g[c] != 0 {
				continue
			}
			for _, p := range rng.Perm(20) {
				if v := g[Peers[c][p]]; v != 0 {
					g[c] = v
					return g
				}
			}
		}
	}
	return g
}

func TestSolvePigeonholeIsRefutedWithoutSearch(t *testing.T) {
	// Found by FuzzSolve (testdata/fuzz/FuzzSolve/0ef4e28dceac30a6). Rows 5
	// and 6 hold 1, 3 and 5 in boxes 5 and 6, so row 4 must put all three in
	// box 4, where only r4c1 and r4c2 are free: no solution. Before the
	// minirow rule the search needed 4.3 million guesses to prove it.
	p := MustParse("020001070000000000080000000009000000000510030000030510000000000000000000000000006")
	res := Solve(p, 2)
	assert.Equal(t, 0, res.Count)
	assert.Zero(t, res.Stats.Guesses, "the minirow rule sees the contradiction")
	n, _ := refSolve(p, 2)
	assert.Equal(t, 0, n, "the reference agrees")

	// The same puzzle transposed poses it in a column, which the band
	// representation sees only through the stack rule; it still takes few
	// guesses.
	var q Grid
	for r := 0; r < 9; r++ {
		for c := 0; c < 9; c++ {
			q[c*9+r] = p[r*9+c]
		}
	}
	res = Solve(q, 2)
	assert.Equal(t, 0, res.Count)
	assert.Less(t, res.Stats.Guesses, 1000)
}

func TestSolveColumnPigeonholeIsRefutedWithoutSearch(t *testing.T) {
	// Found by FuzzSolve (testdata/fuzz/FuzzSolve/cc598800ae039fcc). In
	// band 2, digits 1, 2 and 3 are sure to sit in column 1 of box 4 and in
	// column 5 of box 5, so both minicolumns hold exactly 1, 2 and 3, and
	// r5c1 and r5c5 must both be 3: no solution. It took 20 million guesses
	// (35 s) before the minirow rule looked at columns too.
	p := MustParse(".1.2.3....3.1.......2.....................12...........2.3.......1..2.....3..1...")
	res := Solve(p, 2)
	assert.Equal(t, 0, res.Count)
	assert.Zero(t, res.Stats.Guesses)
}

func TestSolveHiddenPigeonholeStaysCheap(t *testing.T) {
	// Row 4 must hold 1, 2 and 3, but columns 2, 3, 4 and 6 and box 6 shut
	// them out of all its cells but r4c1 and r4c5, in different boxes. No
	// propagation rule sees that; the search alone took 15 million guesses
	// to prove there is no solution. After deepAfter guesses the Hall check
	// (solver_hall.go) refutes it.
	p := MustParse(".1.2.3....3.1.......2.....................12.........3.2.3.......1..2.....3..1...")
	res := Solve(p, 2)
	assert.Equal(t, 0, res.Count)
	assert.Less(t, res.Stats.Guesses, deepAfter+100)
}

func TestMatchable(t *testing.T) {
	all := [9]uint16{511, 511, 511, 511, 511, 511, 511, 511, 511}
	diagonal := [9]uint16{1, 2, 4, 8, 16, 32, 64, 128, 256}
	rotated := [9]uint16{2 | 1, 4 | 2, 8 | 4, 16 | 8, 32 | 16, 64 | 32, 128 | 64, 256 | 128, 1 | 256}
	threeInTwo := all
	threeInTwo[0], threeInTwo[1], threeInTwo[2] = 3, 3, 1|2 // digits 1..3 in cells 1..2
	empty := diagonal
	empty[4] = 0
	// Digit d may take cells d and d+1, except the last, which can only
	// take cell 0: matching it pushes every other digit one cell along.
	chain := [9]uint16{1 | 2, 2 | 4, 4 | 8, 8 | 16, 16 | 32, 32 | 64, 64 | 128, 128 | 256, 1}
	tests := []struct {
		name string
		pos  [9]uint16
		want bool
	}{
		{"all open", all, true},
		{"placed", diagonal, true},
		{"pairs in a cycle", rotated, true},
		{"augmenting chain", chain, true},
		{"three digits in two cells", threeInTwo, false},
		{"a digit with no cell", empty, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pos := tt.pos
			assert.Equal(t, tt.want, matchable(&pos))
		})
	}
	// Against Hall's theorem checked by brute force: a matching exists iff
	// every set of digits has at least as many cells between them.
	hall := func(pos [9]uint16) bool {
		for set := 1; set < 512; set++ {
			var cells uint16
			for d := 0; d < 9; d++ {
				if set>>d&1 != 0 {
					cells |= pos[d]
				}
			}
			if bits.OnesCount16(cells) < bits.OnesCount(uint(set)) {
				return false
			}
		}
		return true
	}
	rng := rand.New(rand.NewPCG(8, 9))
	var yes, no int
	for k := 0; k < 5000; k++ {
		var pos [9]uint16
		for d := range pos {
			// Sparse masks: each cell with probability about 1/4.
			pos[d] = uint16(rng.Uint32() & rng.Uint32() & 511)
		}
		want := hall(pos)
		require.Equal(t, want, matchable(&pos), "%v", pos)
		if want {
			yes++
		} else {
			no++
		}
	}
	assert.Positive(t, yes)
	assert.Positive(t, no)
}

func TestSolveAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(2026, 11))
	tests := []struct {
		name               string
		kind               puzzleKind
		minBlank, maxBlank int
		n                  int
	}{
		{"few holes", holes, 0, 30, 500},
		{"many holes", holes, 40, 64, 1500},
		{"nearly empty", holes, 70, 81, 200},
		{"wrong given", wrongGiven, 30, 58, 800},
		{"conflicting givens", conflict, 10, 70, 300},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := tt.n
			if raceEnabled {
				// The reference search is an order of magnitude slower
				// under the race detector (raceEnabled: logic_race_test.go).
				n /= 4
			}
			seen := map[int]int{} // reference count -> puzzles
			for k := 0; k < n; k++ {
				p := randomPuzzle(rng, tt.kind, tt.minBlank, tt.maxBlank)
				limit := 1 + k%3
				want, wantSol := refSolve(p, limit)
				seen[want]++
				res := Solve(p, limit)
				require.Equal(t, want, res.Count, "puzzle %s, limit %d", p, limit)
				require.Equal(t, want, CountSolutions(p, limit), "puzzle %s, limit %d", p, limit)
				if want == 0 {
					require.Equal(t, Grid{}, res.Solution, "puzzle %s", p)
					continue
				}
				require.True(t, res.Solution.Complete(), "puzzle %s: solution %s", p, res.Solution)
				require.True(t, givensKept(p, res.Solution), "puzzle %s: solution %s", p, res.Solution)
				if n, _ := refSolve(p, 2); n == 1 {
					require.Equal(t, wantSol, res.Solution, "puzzle %s", p)
				}
			}
			t.Logf("reference counts: %v", seen)
			switch tt.kind {
			case holes:
				assert.Zero(t, seen[0], "blanking cells of a solution leaves it solvable")
			case conflict:
				assert.Equal(t, n, seen[0], "conflicting givens have no solution")
			case wrongGiven:
				assert.NotZero(t, seen[0], "some spoiled puzzles have no solution")
			}
		})
	}
}

func TestCountSolutionsAgreesWithSolve(t *testing.T) {
	for _, name := range []string{"magictour-top1465.txt", "serg-benchmark.txt"} {
		for _, p := range loadPuzzles(t, name, 300) {
			for limit := 1; limit <= 3; limit++ {
				require.Equal(t, Solve(p, limit).Count, CountSolutions(p, limit), "%s, limit %d", p, limit)
			}
		}
	}
	assert.Equal(t, 5, CountSolutions(Grid{}, 5))
	assert.Equal(t, 1, CountSolutions(MustParse(inkalaSolution), 2))
	assert.Equal(t, 0, CountSolutions(MustParse("11"+strings.Repeat(".", 79)), 2))
}

func TestSolveStats(t *testing.T) {
	// With no guess, every empty cell is placed by propagation exactly once.
	var noGuess, guessed int
	for _, p := range loadPuzzles(t, "17-clue.txt", 3000) {
		res := Solve(p, 2)
		require.Equal(t, 1, res.Count)
		assert.Positive(t, res.Stats.Iterations, "puzzle %s", p)
		assert.Positive(t, res.Stats.Elapsed, "puzzle %s", p)
		if res.Stats.Guesses == 0 {
			noGuess++
			require.Equal(t, NumCells-p.Filled(), res.Stats.Propagations, "puzzle %s", p)
		} else {
			guessed++
			assert.Positive(t, res.Stats.Propagations, "puzzle %s", p)
		}
	}
	assert.Positive(t, noGuess, "most 17-clue puzzles need no guess")
	assert.Positive(t, guessed, "some 17-clue puzzles need a guess")

	full := Solve(MustParse(inkalaSolution), 2).Stats
	assert.Zero(t, full.Guesses, "a full grid needs no guess")
	assert.Zero(t, full.Propagations, "a full grid has nothing to place")

	empty := Solve(Grid{}, 1).Stats
	assert.Positive(t, empty.Guesses, "an empty grid needs guesses")
	assert.Less(t, empty.Propagations, NumCells, "some cells of an empty grid are guessed")

	// The hardest famous puzzles need guesses even for the fast solver.
	assert.Positive(t, Solve(MustParse(famousPuzzles[2].puzzle), 2).Stats.Guesses, "Easter Monster")
}

func TestSearchStartsStatisticsAfresh(t *testing.T) {
	// solvableWithout loads a state, edits it and calls search on a solver
	// from the pool, which may still hold the counts of its last solve.
	for _, p := range loadPuzzles(t, "17-clue.txt", 20) {
		want := Solve(p, 2)
		s := new(bitSolver)
		s.iterations, s.guesses, s.props = 5000, 5000, 5000
		require.True(t, s.stack[0].load(&p))
		require.Equal(t, 1, s.search(2))
		assert.Equal(t, want.Stats.Guesses, s.guesses, "puzzle %s", p)
		assert.Equal(t, want.Stats.Propagations, s.props, "puzzle %s", p)
		assert.Equal(t, want.Stats.Iterations, s.iterations, "puzzle %s", p)
		assert.Equal(t, want.Solution, s.solution, "puzzle %s", p)
	}
}

// TestSolvableWithout checks solvableWithout against the exported solver:
// g has a solution without digit in cell exactly when one of the eight
// other digits placed there leaves a solvable grid. Unique puzzles answer
// no for their solution's digit; serg's puzzles, which all have several
// solutions, answer yes for some cells.
func TestSolvableWithout(t *testing.T) {
	var yes, no int
	puzzles := append(loadPuzzles(t, "17-clue.txt", 20), loadPuzzles(t, "serg-benchmark.txt", 40)...)
	for _, p := range puzzles {
		sol := Solve(p, 1).Solution
		for cell, v := range p {
			if v != 0 {
				continue
			}
			want := false
			for d := uint8(1); d <= 9 && !want; d++ {
				q := p
				q[cell] = d
				want = d != sol[cell] && CountSolutions(q, 1) > 0
			}
			got := solvableWithout(&p, cell, sol[cell])
			require.Equal(t, want, got, "puzzle %s without %d in r%dc%d", p, sol[cell], cell/9+1, cell%9+1)
			if got {
				yes++
			} else {
				no++
			}
		}
	}
	assert.Positive(t, yes, "cells that can take another digit")
	assert.Positive(t, no, "cells that cannot")

	bad := MustParse(inkala)
	bad[1] = 8 // conflicting givens: no solution with or without anything
	assert.False(t, solvableWithout(&bad, 2, 1))
}

func TestSolveConcurrent(t *testing.T) {
	puzzles := loadPuzzles(t, "magictour-top1465.txt", 200)
	want := make([]SolveResult, len(puzzles))
	for i, p := range puzzles {
		want[i] = Solve(p, 2)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for k := range puzzles {
				i := (k + w*25) % len(puzzles)
				got := Solve(puzzles[i], 2)
				if got.Count != want[i].Count || got.Solution != want[i].Solution {
					errs <- fmt.Sprintf("worker %d, puzzle %s: got %d %s", w, puzzles[i], got.Count, got.Solution)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestRandomSolution(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	seen := map[Grid]bool{}
	var firstCell [10]int // how often each digit lands in r1c1
	const n = 2700
	for k := 0; k < n; k++ {
		g := RandomSolution(rng)
		require.True(t, g.Complete(), "grid %s", g)
		seen[g] = true
		firstCell[g[0]]++
	}
	assert.Len(t, seen, n, "no repeats among %d random grids", n)
	for d := 1; d <= 9; d++ {
		// 300 expected; a fair die stays within 200..400 with near certainty.
		assert.InDelta(t, n/9, firstCell[d], 100, "digit %d in r1c1: %v", d, firstCell)
	}

	// Deterministic for a seed, different for different seeds.
	a, b, c := rand.New(rand.NewPCG(7, 7)), rand.New(rand.NewPCG(7, 7)), rand.New(rand.NewPCG(7, 8))
	for k := 0; k < 50; k++ {
		ga, gb, gc := RandomSolution(a), RandomSolution(b), RandomSolution(c)
		require.Equal(t, ga, gb, "same seed, grid %d", k)
		require.NotEqual(t, ga, gc, "different seeds, grid %d", k)
	}
}

func TestRandomFillIsUnbiasedPerCell(t *testing.T) {
	// Before the symmetry shuffle, the first cell takes each of the nine
	// digits with equal probability, and so does the last cell of row 1
	// (chosen among the digits the row has left).
	rng := rand.New(rand.NewPCG(11, 12))
	var first, ninth [10]int
	const n = 2700
	for k := 0; k < n; k++ {
		g, ok := randomFill(rng)
		require.True(t, ok)
		require.True(t, g.Complete(), "grid %s", g)
		first[g[0]]++
		ninth[g[8]]++
	}
	for d := 1; d <= 9; d++ {
		assert.InDelta(t, n/9, first[d], 100, "digit %d in r1c1: %v", d, first)
		assert.InDelta(t, n/9, ninth[d], 100, "digit %d in r1c9: %v", d, ninth)
	}
}

func TestRandomSolutionAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("under the race detector sync.Pool drops items on purpose")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	RandomSolution(rng) // warm the solver pool
	allocs := testing.AllocsPerRun(200, func() { RandomSolution(rng) })
	assert.Zero(t, allocs)
	p := MustParse(inkala)
	allocs = testing.AllocsPerRun(200, func() { Solve(p, 2) })
	assert.Zero(t, allocs)
}

func TestSolveRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	// A unique puzzle has only its solution, whatever the order of guesses.
	for _, tt := range famousPuzzles {
		p := MustParse(tt.puzzle)
		got, ok := SolveRandom(p, rng)
		require.True(t, ok, tt.name)
		assert.Equal(t, Solve(p, 1).Solution, got, tt.name)
	}
	// No solution: ok is false and the grid is zero. The two pigeonholes
	// found by FuzzSolve took tens of seconds when random mode skipped the
	// stack and minirow rules.
	bad := MustParse(inkala)
	bad[1] = 8
	for _, g := range []Grid{
		bad,
		MustParse("020001070000000000080000000009000000000510030000030510000000000000000000000000006"),
		MustParse(".1.2.3....3.1.......2.....................12...........2.3.......1..2.....3..1..."),
	} {
		got, ok := SolveRandom(g, rng)
		assert.False(t, ok, "grid %s", g)
		assert.Equal(t, Grid{}, got)
	}

	// A puzzle with many solutions yields valid ones that keep the givens,
	// and not always the same one.
	p := MustParse(inkala)
	for _, c := range []int{0, 11, 12, 19, 22, 24, 28} {
		p[c] = 0
	}
	require.Equal(t, 2, Solve(p, 2).Count)
	sols := map[Grid]bool{}
	for k := 0; k < 200; k++ {
		g, ok := SolveRandom(p, rng)
		require.True(t, ok)
		require.True(t, g.Complete(), "solution %s", g)
		require.True(t, givensKept(p, g), "solution %s", g)
		sols[g] = true
	}
	assert.Greater(t, len(sols), 1, "different solutions of a puzzle with many")

	// Deterministic for a seed.
	g1, _ := SolveRandom(Grid{}, rand.New(rand.NewPCG(9, 9)))
	g2, _ := SolveRandom(Grid{}, rand.New(rand.NewPCG(9, 9)))
	g3, _ := SolveRandom(Grid{}, rand.New(rand.NewPCG(9, 10)))
	assert.True(t, g1.Complete())
	assert.Equal(t, g1, g2)
	assert.NotEqual(t, g1, g3)
}

// TestCountGuesses holds CountGuesses to Solve's count and to the guesses
// of the solver that counts: the triad solver where it is built in, else
// the band solver, whose Solve reports the same search.
func TestCountGuesses(t *testing.T) {
	var total, none int
	for i, p := range loadPuzzles(t, "magictour-top1465.txt", 300) {
		limit := 1 + i%3
		n, guesses := CountGuesses(p, limit)
		want := Solve(p, limit)
		require.Equal(t, want.Count, n, "%s, limit %d", p, limit)
		wantGuesses := want.Stats.Guesses
		if tn, _, tg, ok := triadSolve(&p, limit, false); ok {
			require.Equal(t, n, tn)
			wantGuesses = tg
		}
		require.Equal(t, wantGuesses, guesses, "%s, limit %d", p, limit)
		total += guesses
		if guesses == 0 {
			none++
		}
	}
	assert.Greater(t, total, 300, "top1465's puzzles need guesses")
	assert.Positive(t, none, "some need none")
}
