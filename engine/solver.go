package engine

import (
	"math/bits"
	"math/rand/v2"
	"time"
)

// SolveStats describes the work one Solve call did. The counts cover the
// whole search, including branches that failed and, with a limit above one,
// the search for further solutions.
type SolveStats struct {
	// Iterations counts propagation rounds. A round applies the band rule
	// (see the design notes in solver_bits.go) to one digit's candidates in one
	// band (three rows), because they changed since its last round;
	// propagation stops when no digit-band is left to revisit. A puzzle
	// solved without guessing typically takes 100 to 150 rounds.
	Iterations int
	// Guesses counts the branches the search took on a guess: each digit
	// tried in a cell that still had several candidates, or pattern tried
	// for a digit in a band (three rows) that still had two, and each
	// return to try what remained after a branch ended.
	// Zero means the puzzle was solved by propagation alone.
	Guesses int
	// Propagations counts digits placed by propagation (a digit left with
	// a single place in a row, column or box, or a cell left with a single
	// candidate), as opposed to givens and guessed digits. Without guesses
	// it is the number of empty cells.
	Propagations int
	// Elapsed is the wall time of the call.
	Elapsed time.Duration
}

// SolveResult is what Solve found: Count solutions, capped at the limit it
// was given, and the first solution found when Count > 0 (the zero Grid
// otherwise).
type SolveResult struct {
	Count    int
	Solution Grid
	Stats    SolveStats
}

// Solve counts the solutions of g up to limit (limit 2 answers "is it
// unique?"; a limit below 1 counts as 1) and returns the first one found.
// A grid whose givens conflict, or that holds a value outside 0..9, has no
// solution. Solve is safe for concurrent use and, in steady state, does not
// allocate.
func Solve(g Grid, limit int) SolveResult {
	start := time.Now()
	s := solverPool.Get().(*bitSolver)
	s.rng = nil
	var res SolveResult
	res.Count = s.run(&g, limit)
	if res.Count > 0 {
		res.Solution = s.solution
	}
	res.Stats = SolveStats{Iterations: s.iterations, Guesses: s.guesses, Propagations: s.props}
	solverPool.Put(s)
	res.Stats.Elapsed = time.Since(start)
	return res
}

// CountSolutions is Solve without the solution and the statistics: the
// number of solutions of g, capped at limit (a limit below 1 counts as 1).
// It skips Solve's clock reads, which matter when counting is all a caller
// does, as a puzzle generator checking uniqueness does thousands of times a
// second.
//
// Where the triad solver is built in (see solver_triad_simd.go), it counts
// every puzzle, the band solver none: since its propagation is in assembly
// and its load visits the givens alone, it is the faster on every public
// collection, puzzles that need no guess included. Instructions per puzzle
// with AVX2: the band solver handing over to the triad solver where its
// singles stall, as CountSolutions did before, 26.9 k on 17-clue, 57.3 k
// on top1465 and 359 k on the 1106 sample; the triad solver alone 16.6 k,
// 47.1 k and 350 k then, and 14.9 k, 41.2 k and 304 k since its band
// function restricts its boxes in line. Elsewhere the band solver counts.
func CountSolutions(g Grid, limit int) int {
	n, _ := CountGuesses(g, limit)
	return n
}

// CountGuesses is CountSolutions with the number of guesses its solver
// made (each branch on a band's configurations for the triad solver, each
// alternative tried for the band solver): what `arena bench` reports.
func CountGuesses(g Grid, limit int) (count, guesses int) {
	if n, _, guesses, ok := triadSolve(&g, limit, false); ok {
		return n, guesses
	}
	s := solverPool.Get().(*bitSolver)
	s.rng = nil
	count, guesses = s.run(&g, limit), s.guesses
	solverPool.Put(s)
	return count, guesses
}

// Counter names what CountSolutions counts with on this build and
// processor: the triad solver where it is built in, else the band solver.
func Counter() string {
	if n := triadName(); n != "" {
		return n
	}
	return "the band solver"
}

// solvableWithout reports whether g has a solution with digit (1..9) ruled
// out of cell (0..80), which g leaves empty. The generator asks it, and
// nothing of the solver's state, whether an emptied clue could take
// another digit: a search for such a solution fails fast, where counting
// g's solutions to two would first have to find the known one again.
func solvableWithout(g *Grid, cell int, digit uint8) bool {
	s := solverPool.Get().(*bitSolver)
	s.rng = nil
	found := false
	if b := &s.stack[0]; b.load(g) {
		b.remove(cell/27, int(digit)-1, uint(cell%27))
		found = s.search(1) > 0
	}
	solverPool.Put(s)
	return found
}

// SolveRandom solves g choosing branch digits in an rng-driven order, so
// that a grid with many solutions yields a random one of them; ok is false
// when g has no solution. For a given rng state the result is deterministic.
func SolveRandom(g Grid, rng *rand.Rand) (Grid, bool) {
	s := solverPool.Get().(*bitSolver)
	s.rng = rng
	n := s.run(&g, 1)
	sol := s.solution
	s.rng = nil
	solverPool.Put(s)
	if n == 0 {
		return Grid{}, false
	}
	return sol, true
}

// RandomSolution returns a uniformly-shuffled complete valid grid,
// deterministic for the given rng.
//
// It fills an empty grid cell by cell, row by row, each cell with a digit
// drawn uniformly from those its row, column and box still allow, backing
// up when a cell has none left (about 130 cells are tried per grid on
// average). Then it applies a uniformly random symmetry of Sudoku: a
// relabelling of the digits, a permutation of the bands and of the rows
// within each band, the same for stacks and columns, and a transposition
// half of the time. The result is equally likely to be any member of the
// equivalence class of the grid the fill produced. (The fill itself does
// not pick grids with exactly equal probability; nothing in Sudoku Arena
// needs it to.) It takes a few microseconds and does not allocate.
func RandomSolution(rng *rand.Rand) Grid {
	for {
		if g, ok := randomFill(rng); ok {
			return randomSymmetry(g, rng)
		}
	}
}

// randomFillBudget caps the cells randomFill tries before it gives up and
// RandomSolution draws again: a fill needs about 130 on average and a few
// hundred at worst in testing, but row-by-row backtracking has a long tail.
const randomFillBudget = 5000

// randomFill is the row-by-row random fill of RandomSolution, an explicit
// depth-first search over bitmasks of the digits each unit already holds
// (bit v for digit v; units numbered as in Units). It reports false when
// it ran out of budget.
func randomFill(rng *rand.Rand) (Grid, bool) {
	var g Grid
	var used [32]uint16       // per unit, the digits placed; [27:] unused
	var left [NumCells]uint16 // per cell, the digits not yet tried there
	var random uint64         // random bits, consumed 32 at a time
	var haveRandom bool
	c := 0
	left[0] = 0x3FE
	for tried := 0; tried < randomFillBudget; tried++ {
		u := &CellUnits[c]
		if left[c] == 0 {
			// Dead end: undo the previous cell and try its next digit.
			c--
			if c < 0 {
				return Grid{}, false // unreachable from an empty grid
			}
			u = &CellUnits[c]
			v := g[c]
			used[u[0]&31] &^= 1 << v
			used[u[1]&31] &^= 1 << v
			used[u[2]&31] &^= 1 << v
			g[c] = 0
			continue
		}
		if !haveRandom {
			random = rng.Uint64()
		}
		haveRandom = !haveRandom
		// A uniform choice among the n digits left: n*x/2^32 for a random
		// 32-bit x, then the chosen set bit by table.
		m := left[c]
		k := uint64(uint32(random)) * uint64(bits.OnesCount16(m)) >> 32
		random >>= 32
		v := nthBit[m>>1&511][k]
		left[c] = m &^ (1 << v)
		used[u[0]&31] |= 1 << v
		used[u[1]&31] |= 1 << v
		used[u[2]&31] |= 1 << v
		g[c] = v
		c++
		if c == NumCells {
			return g, true
		}
		u = &CellUnits[c]
		left[c] = ^(used[u[0]&31] | used[u[1]&31] | used[u[2]&31]) & 0x3FE
	}
	return Grid{}, false
}

// randomSymmetry applies a uniformly random Sudoku symmetry to g.
func randomSymmetry(g Grid, rng *rand.Rand) Grid {
	digits := randomDigitPerm(rng)
	rows := randomLineOrder(rng)
	cols := randomLineOrder(rng)
	transpose := rng.Uint64()&1 == 1
	var out Grid
	for r := 0; r < 9; r++ {
		for c := 0; c < 9; c++ {
			v := g[int(rows[r])*9+int(cols[c])]
			if transpose {
				out[c*9+r] = digits[v-1] + 1
			} else {
				out[r*9+c] = digits[v-1] + 1
			}
		}
	}
	return out
}

// randomLineOrder returns a random permutation of the nine rows (or
// columns) that keeps bands (stacks) together: the bands are permuted, and
// the rows within each band.
func randomLineOrder(rng *rand.Rand) [9]uint8 {
	// One draw below 6^4 = 1296 picks four independent permutations of three.
	x := rng.Uint32N(6 * 6 * 6 * 6)
	band := perms3[x%6]
	x /= 6
	var out [9]uint8
	for b := 0; b < 3; b++ {
		within := perms3[x%6]
		x /= 6
		for i := 0; i < 3; i++ {
			out[b*3+i] = band[b]*3 + within[i]
		}
	}
	return out
}

// perms3 lists the six permutations of 0, 1, 2.
var perms3 = [6][3]uint8{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}

// randomDigitPerm returns a uniformly random permutation of 0..8 from a
// single draw: a number below 9! read as the digits of a factorial-base
// number is exactly the sequence of choices a Fisher-Yates shuffle makes.
func randomDigitPerm(rng *rand.Rand) [9]uint8 {
	p := [9]uint8{0, 1, 2, 3, 4, 5, 6, 7, 8}
	x := rng.Uint32N(362880)
	for i := 8; i > 0; i-- {
		j := x % uint32(i+1)
		x /= uint32(i + 1)
		p[i], p[j] = p[j], p[i]
	}
	return p
}
