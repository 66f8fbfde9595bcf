package engine

import (
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
)

// GenerateOptions says what puzzle to make. The same options always make the
// same puzzle: the daily puzzle depends on that.
type GenerateOptions struct {
	Level     Level  // easy, medium, hard or expert
	Seed      uint64 // everything random derives from it
	Symmetric bool   // clues in 180° rotational symmetry
	// MinSE, when set, also asks for a Sudoku Explainer rating (RateSE) of
	// at least MinSE: puzzles of the level rated lower are passed over. At
	// LevelExpert, 7.0 gives puzzles above expert: forcing chains and
	// harder (see docs/performance.md for how long they take).
	MinSE SERating
	// MaxSE, when set, asks for a rating of at most MaxSE: puzzles rated
	// higher, or beyond the rater, are passed over. Difficulty.Options
	// sets both to the difficulty's range.
	MaxSE SERating
}

// Generated is a puzzle with its solution and grade.
type Generated struct {
	Givens   Grid
	Solution Grid
	Grade    Grade // without Steps: GradePuzzle(Givens) has them
	Seed     uint64
	Attempts int // full grids tried before one dug out to the level
	// SE is the puzzle's Sudoku Explainer rating when MinSE or MaxSE asked
	// for one to be taken (0 otherwise, and for a puzzle beyond the rater).
	SE SERating
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
// symmetric pairs with opts.Symmetric). For easy it keeps each removal the
// singles still solve. For the other levels it keeps each removal that
// leaves the puzzle with one solution, down to a minimal puzzle, and grades
// that: at the level, it is the answer; too hard, clues go back in until
// the level's techniques solve it at exactly that level (see addBack); too
// easy, or when no clue given back makes it, the next grid is tried.
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
		if gr.Level != opts.Level {
			continue
		}
		if se, in := inSERange(givens, opts); in {
			return Generated{Givens: givens, Solution: sol, Grade: gr, Seed: opts.Seed, Attempts: attempt, SE: se}, nil
		}
	}
	return Generated{}, fmt.Errorf("%w (level %v, seed %d)", ErrGenerateGaveUp, opts.Level, opts.Seed)
}

// inSERange reports whether the puzzle's Sudoku Explainer rating is within
// opts.MinSE and opts.MaxSE, with the rating (0 when neither is set: the
// rater is not called then). A puzzle beyond the rater counts as harder
// than any bound.
func inSERange(p Grid, opts GenerateOptions) (SERating, bool) {
	if opts.MinSE == 0 && opts.MaxSE == 0 {
		return 0, true
	}
	r, ok := RateSE(p)
	if !ok {
		r = 0
	}
	return r, Difficulty{MinSE: opts.MinSE, MaxSE: opts.MaxSE}.Holds(r, ok)
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
	return digToward(sol, order, rng, opts)
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
	p[mirror(c, symmetric)] = 0
}

// mirror is the cell that goes with c: its mirror image when symmetric,
// otherwise c itself.
func mirror(c int, symmetric bool) int {
	if symmetric {
		return NumCells - 1 - c
	}
	return c
}

// digToward aims at a level above easy without paying for the logical
// solver at every removal. It digs with the uniqueness check alone down to
// a minimal puzzle and grades that. A puzzle too hard for the level is
// then given clues back (see addBack); one too easy is given up on.
func digToward(sol Grid, order []uint8, rng *rand.Rand, opts GenerateOptions) (Grid, bool) {
	var d digger
	d.init(&sol, opts.Symmetric)
	// The first removals almost never break uniqueness: take a batch of
	// them on one check (every puzzle between the full grid and a unique
	// one is unique too), and go one by one only when the batch fails.
	if k := bulkRemovals(opts.Symmetric); len(order) > k {
		q := sol
		for _, c := range order[:k] {
			clear2(&q, int(c), opts.Symmetric)
		}
		if CountSolutions(q, 2) == 1 {
			d.set(&q)
			order = order[k:]
		}
	}
	for _, c := range order {
		if d.canRemove(int(c)) {
			d.remove(int(c))
		}
	}
	below, _ := newCandidates(&d.p)
	if ok, _ := below.solveWithin(opts.Level - 1); ok {
		return d.p, false
	}
	at := below
	if ok, _ := at.solveWithin(opts.Level); ok {
		return d.p, true
	}
	return addBack(d.p, &sol, &below, &at, rng, opts)
}

// addBackTries bounds the clues addBack tries giving back to one puzzle.
const addBackTries = 20

// addBack takes a unique puzzle p that the techniques of opts.Level cannot
// solve towards one they solve at exactly that level, by giving back clues
// of the solution sol. below and at are p taken as far as the techniques
// of the level below and of the level go. It gives back a cell where at is
// stuck, picked at random, and looks at both boards with that digit placed:
// if the level below then solves the puzzle, the clue made it too easy and
// another cell is tried; if the level still does not, the clue stays and
// the search goes on from there; otherwise the puzzle with the clue is the
// answer. Adding a clue keeps a puzzle unique, so no uniqueness check is
// needed.
//
// Going on from boards the techniques already worked on costs far less
// than grading the puzzle with the clue from scratch, and comes to the same
// answer as long as a clue never stops a technique from making a deduction
// it made without it (or one that follows from it). For medium and hard
// that held for all of 4,305 answers checked against a grade from scratch;
// the uniqueness techniques of expert are not like that (23 of 1,356 expert
// answers differed), so an expert answer is graded from scratch first.
// Generate grades every answer anyway.
func addBack(p Grid, sol *Grid, below, at *Candidates, rng *rand.Rand, opts GenerateOptions) (Grid, bool) {
	for try := 0; try < addBackTries; try++ {
		stuck := at.Unsolved()
		x := nthCell(stuck, rng.IntN(stuck.Len()))
		nb, na := *below, *at
		for _, c := range [2]int{x, mirror(x, opts.Symmetric)} {
			nb.Place(c, sol[c])
			na.Place(c, sol[c])
		}
		if ok, _ := nb.solveWithin(opts.Level - 1); ok {
			continue
		}
		q := p
		q[x] = sol[x]
		if m := mirror(x, opts.Symmetric); m != x {
			q[m] = sol[m]
		}
		if ok, _ := na.solveWithin(opts.Level); !ok {
			p, *below, *at = q, nb, na
			continue
		}
		if opts.Level < LevelExpert {
			return q, true
		}
		if ok, hardest := SolvableWithin(q, opts.Level); ok && hardest == opts.Level {
			return q, true
		}
	}
	return p, false
}

// nthCell is the k-th lowest cell of s, counting from 0; s must hold more
// than k cells.
func nthCell(s CellSet, k int) int {
	w := 0
	if n := bits.OnesCount64(s[0]); k >= n {
		k -= n
		w = 1
	}
	b := s[w]
	for ; k > 0; k-- {
		b &= b - 1
	}
	return w<<6 | bits.TrailingZeros64(b)
}

// bulkRemovals is how many clues digToward removes on one uniqueness check
// before it checks each removal: about 25 cells either way.
func bulkRemovals(symmetric bool) int {
	if symmetric {
		return 12
	}
	return 25
}

// digger is a puzzle being dug out of its solution, with what makes the
// question "does it keep one solution without this clue?" cheap to answer
// most of the time: the digits each unit holds, and the two-digit
// unavoidable sets of the solution.
type digger struct {
	sol       Grid
	p         Grid
	symmetric bool
	clues     CellSet    // the filled cells of p
	used      [27]uint16 // per unit, the digits p holds there (bit d for d)
	ua        []CellSet  // unavoidable sets of sol: p has a clue in each
	uaBuf     [maxPairSets]CellSet
}

// init starts digging the full grid sol.
func (d *digger) init(sol *Grid, symmetric bool) {
	d.sol = *sol
	d.symmetric = symmetric
	d.ua = unavoidablePairs(d.uaBuf[:0], sol)
	d.set(sol)
}

// set makes p, a puzzle with d.sol as its only solution, the one being dug.
func (d *digger) set(p *Grid) {
	d.p = *p
	d.clues = CellSet{}
	d.used = [27]uint16{}
	for c, v := range p {
		if v == 0 {
			continue
		}
		d.clues.Add(c)
		u := &CellUnits[c]
		d.used[u[0]] |= 1 << v
		d.used[u[1]] |= 1 << v
		d.used[u[2]] |= 1 << v
	}
}

// remove empties cell c (and its mirror image when symmetric).
func (d *digger) remove(c int) {
	for _, x := range [2]int{c, mirror(c, d.symmetric)} {
		if v := d.p[x]; v != 0 {
			d.p[x] = 0
			d.clues.Remove(x)
			u := &CellUnits[x]
			d.used[u[0]] &^= 1 << v
			d.used[u[1]] &^= 1 << v
			d.used[u[2]] &^= 1 << v
		}
	}
}

// canRemove reports whether the puzzle keeps d.sol as its only solution
// when cell c (and its mirror image, when symmetric) is emptied. A known
// unavoidable set left without a clue answers no at once; an emptied cell
// that is a naked or hidden single among the clues left cannot take
// another digit; for any other, a search for a solution with the cell's
// digit ruled out must fail. Such a search fails fast where counting the
// solutions to two would first have to find sol again.
func (d *digger) canRemove(c int) bool {
	m := mirror(c, d.symmetric)
	clues := d.clues
	clues.Remove(c)
	clues.Remove(m)
	for _, s := range d.ua {
		if s.Intersect(clues).Empty() {
			return false
		}
	}
	used := d.used
	for _, x := range [2]int{c, m} {
		u := &CellUnits[x]
		bit := uint16(1) << d.sol[x]
		used[u[0]] &^= bit
		used[u[1]] &^= bit
		used[u[2]] &^= bit
	}
	q := d.p
	clear2(&q, c, d.symmetric)
	if !forcedSingle(&used, clues, c, d.sol[c]) && solvableWithout(&q, c, d.sol[c]) {
		return false
	}
	return m == c || forcedSingle(&used, clues, m, d.sol[m]) || !solvableWithout(&q, m, d.sol[m])
}

// forcedSingle reports whether the empty cell must hold digit in every
// solution of a puzzle with the given filled cells, whose units hold the
// digits in used, because it is a naked single (its peers hold the eight
// other digits) or a hidden single (every other empty cell of one of its
// units sees digit).
func forcedSingle(used *[27]uint16, clues CellSet, cell int, digit uint8) bool {
	u := &CellUnits[cell]
	bit := uint16(1) << digit
	if used[u[0]]|used[u[1]]|used[u[2]]|bit == allDigits {
		return true
	}
	for _, unit := range u {
		hidden := true
		for _, e := range Units[unit] {
			if int(e) == cell || clues.Has(int(e)) {
				continue
			}
			v := &CellUnits[e]
			if (used[v[0]]|used[v[1]]|used[v[2]])&bit == 0 {
				hidden = false
				break
			}
		}
		if hidden {
			return true
		}
	}
	return false
}
