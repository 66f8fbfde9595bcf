package engine

import (
	"errors"
	"fmt"
	"math/rand/v2"
)

// GenerateOptions says what puzzle to make. The same options always make the
// same puzzle: the daily puzzle depends on that.
type GenerateOptions struct {
	Level     Level  // easy, medium, hard or expert
	Seed      uint64 // everything random derives from it
	Symmetric bool   // clues in 180° rotational symmetry
}

// Generated is a puzzle with its solution and grade.
type Generated struct {
	Givens   Grid
	Solution Grid
	Grade    Grade // without Steps: GradePuzzle(Givens) has them
	Seed     uint64
	Attempts int // full grids tried before one dug out to the level
}

// ErrGenerateGaveUp is returned when no puzzle of the level turned up within
// the attempt budget; in practice it means a level the digger cannot reach.
var ErrGenerateGaveUp = errors.New("engine: generate: no puzzle of the level within the attempt budget")

// maxGenerateAttempts bounds the full grids one Generate call digs. Each
// level is reached within a handful of attempts almost always (see the
// generation benchmarks); the bound only turns a bug into an error.
const maxGenerateAttempts = 500

// Generate makes a puzzle with exactly one solution whose grade is exactly
// opts.Level.
//
// It digs: from a random full grid it removes clues in a random order (in
// symmetric pairs with opts.Symmetric) and keeps each removal that leaves the
// puzzle with one solution and solvable by the level's techniques, without
// guessing. Removing a clue seldom makes a puzzle easier, so the dug-out
// puzzle sits near the top of what the level's techniques can solve; when
// its hardest step still belongs to an easier level, the next grid is tried.
//
// Digging runs in two passes for speed: first with the singles-only solver
// (fast, and a puzzle solved by singles has one solution), then, for harder
// levels, over the clues that are left with the uniqueness check first (the
// bitboard solver, a few microseconds, rejects most removals) and the
// level's logical solver second.
func Generate(opts GenerateOptions) (Generated, error) {
	if opts.Level > LevelExpert {
		return Generated{}, fmt.Errorf("engine: generate: level %v cannot be generated; want easy, medium, hard or expert", opts.Level)
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 0x9e3779b97f4a7c15))
	for attempt := 1; attempt <= maxGenerateAttempts; attempt++ {
		sol := RandomSolution(rng)
		givens, atLevel := dig(sol, rng, opts)
		if !atLevel {
			continue
		}
		// dig keeps the puzzle unique at every step: no need to check again.
		gr := grade(givens, false)
		if gr.Level == opts.Level {
			return Generated{Givens: givens, Solution: sol, Grade: gr, Seed: opts.Seed, Attempts: attempt}, nil
		}
	}
	return Generated{}, fmt.Errorf("%w (level %v, seed %d)", ErrGenerateGaveUp, opts.Level, opts.Seed)
}

// dig makes a puzzle from the full grid sol: with opts.Level easy it removes
// clues in a random order, keeping each removal the singles still solve;
// otherwise see digToward. The bool reports whether the puzzle's hardest
// step is at opts.Level.
func dig(sol Grid, rng *rand.Rand, opts GenerateOptions) (Grid, bool) {
	var orderBuf [NumCells]uint8
	order := removalOrder(orderBuf[:0], rng, opts.Symmetric)
	if opts.Level == LevelEasy {
		p := sol
		for _, c := range order {
			saved := p
			clear2(&p, int(c), opts.Symmetric)
			if ok, _ := SolvableWithin(p, LevelEasy); !ok {
				p = saved
			}
		}
		return p, true
	}
	return digToward(sol, order, opts)
}

// removalOrder appends the cells to try removing, shuffled: every cell, or
// with symmetric the centre and one cell of each mirrored pair.
func removalOrder(dst []uint8, rng *rand.Rand, symmetric bool) []uint8 {
	n := NumCells
	if symmetric {
		n = NumCells/2 + 1
	}
	for c := 0; c < n; c++ {
		dst = append(dst, uint8(c))
	}
	rng.Shuffle(len(dst), func(i, j int) { dst[i], dst[j] = dst[j], dst[i] })
	return dst
}

// clear2 empties cell c, and its mirror image when symmetric.
func clear2(p *Grid, c int, symmetric bool) {
	p[c] = 0
	if symmetric {
		p[NumCells-1-c] = 0
	}
}

// digToward aims at a level above easy without paying for the logical
// solver at every removal. It digs with the uniqueness check alone (the
// bitboard solver: microseconds) down to a minimal puzzle, remembering the
// order of the removals. Difficulty grows along that sequence, so when the
// minimal puzzle is too hard for the level a binary search finds the last
// puzzle of the sequence the level's techniques still solve (a handful of
// logical solves), and the clues removed after the one that broke it are
// tried again one by one.
func digToward(sol Grid, order []uint8, opts GenerateOptions) (Grid, bool) {
	p := sol
	var seqBuf [NumCells]uint8
	seq := seqBuf[:0]
	// failedAt[c] is how many clues had gone when removing c broke
	// uniqueness (NumCells: it never did).
	var failedAt [NumCells]uint8
	// The first removals almost never break uniqueness: take a batch of
	// them on one check (every puzzle between the full grid and a unique
	// one is unique too), and go one by one only when the batch fails.
	if k := bulkRemovals(opts.Symmetric); len(order) > k {
		q := sol
		for _, c := range order[:k] {
			clear2(&q, int(c), opts.Symmetric)
		}
		if CountSolutions(q, 2) == 1 {
			p = q
			for _, c := range order[:k] {
				seq = append(seq, c)
				failedAt[c] = NumCells
			}
			order = order[k:]
		}
	}
	for _, c := range order {
		if stillUnique(&p, &sol, int(c), opts.Symmetric) {
			clear2(&p, int(c), opts.Symmetric)
			seq = append(seq, c)
			failedAt[c] = NumCells
		} else {
			failedAt[c] = uint8(len(seq))
		}
	}
	ok, hardest := SolvableWithin(p, opts.Level)
	if ok {
		return p, hardest == opts.Level
	}
	prefix := func(k int) Grid {
		q := sol
		for _, c := range seq[:k] {
			clear2(&q, int(c), opts.Symmetric)
		}
		return q
	}
	// Invariant: prefix(lo) is solvable within the level, prefix(hi) is not.
	lo, hi := 0, len(seq)
	loHardest := LevelEasy
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if ok, h := SolvableWithin(prefix(mid), opts.Level); ok {
			lo, loHardest = mid, h
		} else {
			hi = mid
		}
	}
	p = prefix(lo)
	// Every clue left but the one that broke the level is worth another
	// try: with more clues around, some that the uniqueness-only dig had
	// to keep can go now. Not those it failed to remove with at most lo
	// clues gone: this puzzle has all the clues that one had and more
	// gone, and removing a clue from a puzzle with fewer clues cannot
	// bring back the uniqueness it broke.
	broke := seq[hi-1]
	var retryBuf [NumCells]uint8
	retry := retryBuf[:0]
	for _, c := range order {
		if c != broke && p[c] != 0 && int(failedAt[c]) > lo {
			retry = append(retry, c)
		}
	}
	for _, c := range retry {
		if !stillUnique(&p, &sol, int(c), opts.Symmetric) {
			continue
		}
		saved := p
		clear2(&p, int(c), opts.Symmetric)
		if ok, h := SolvableWithin(p, opts.Level); ok {
			loHardest = h
		} else {
			p = saved
		}
	}
	return p, loHardest == opts.Level
}

// bulkRemovals is how many clues digToward removes on one uniqueness check
// before it checks each removal: about 25 cells either way.
func bulkRemovals(symmetric bool) int {
	if symmetric {
		return 12
	}
	return 25
}

// stillUnique reports whether the puzzle p, which has exactly one solution,
// sol, keeps it as its only one when the given cell (and its mirror image,
// when symmetric) is emptied. That holds when no solution puts another digit
// in an emptied cell: one search for any solution with the cell's digit
// ruled out, per emptied cell. Such a search fails fast where counting the
// solutions to two would first have to find sol again.
func stillUnique(p *Grid, sol *Grid, cell int, symmetric bool) bool {
	q := *p
	clear2(&q, cell, symmetric)
	if !otherDigitImpossible(&q, cell, sol[cell]) {
		return false
	}
	if m := NumCells - 1 - cell; symmetric && m != cell {
		return otherDigitImpossible(&q, m, sol[m])
	}
	return true
}

// otherDigitImpossible reports whether q has no solution with digit ruled
// out of the empty cell.
func otherDigitImpossible(q *Grid, cell int, digit uint8) bool {
	s := solverPool.Get().(*bitSolver)
	defer solverPool.Put(s)
	b := &s.stack[0]
	if !b.load(q) {
		return true
	}
	b.remove(cell/27, int(digit)-1, uint(cell%27))
	return s.search(1) == 0
}
