package engine

import (
	"math/bits"
	"math/rand/v2"
	"sync"
)

// The solver's design
//
// The representation and the propagation follow the published design of
// zhouyundong's solver as refined in JCZSolve: candidates are kept per digit
// and per band (three rows), so the whole state is 27 words of 27 bits.
// In the word for digit d and band b, bit r*9+c says that d may still go
// in row r of the band (0..2), column c (0..8); cell numbers line up, the
// cell being b*27 + r*9 + c.
//
// One digit in one band must take one cell in each of the band's three rows
// and one in each of its three boxes, so the three "minirows" it uses (a row
// of a box) form a permutation: row r in box p(r). There are six such
// patterns. Updating a digit-band:
//
//  1. squeeze each row into three bits saying which of its minirows still
//     hold a candidate, giving a 9-bit minirow occupancy;
//  2. keep only the minirows that take part in at least one of the six
//     patterns whose three minirows are all occupied (table bandKeep); none
//     left means a contradiction. This single lookup applies every "locked
//     candidates" deduction inside the band and finds hidden singles in
//     boxes;
//  3. for each box where the digit is down to one column, remove that
//     column from the digit's two other bands (table colLock);
//  4. a row with one candidate left holds the digit there: the cell is
//     solved, so it is removed from the eight other digits' words.
//
// Propagation updates every digit-band whose word changed since its last
// update (a dirty bit per digit-band, set without branching only when a
// word really changes) until none is dirty; then it counts, for each cell,
// whether it has one, two, or three or more candidates, with three words of
// bit-sliced counters over the nine digits. A cell with none is a
// contradiction and a cell with one is a naked single, which is placed.
// When that finds nothing either, two more rules run, each only where
// something changed since it last ran (after every band update they cost
// more than they saved; the fixed point reached is the same):
//
//   - the pattern rule across the bands: in each stack a digit takes one
//     column per band, a different one in each, so the 3x3 matrix of (band,
//     column) pairs left to it must contain one of six patterns too (table
//     stackKeep). That finds locked candidates and hidden singles along
//     columns;
//   - the minirow rule (tdoku's "triads"), for the rows and the columns of
//     each box: the three cells of a minirow (minicolumn) hold three
//     different digits, so three digits that alone can go there are
//     confined to it, three digits sure to go there shut the others out,
//     and fewer than three possible or more than three sure is a
//     contradiction. On top1465 it saves a sixth of the guesses (20.8 ->
//     17.2 a puzzle) for about what they cost, but it also refutes at once
//     grids like a row needing three digits in two cells, which otherwise
//     took millions of guesses.
//
// Then the search guesses. Like tdoku, it prefers to branch on a digit's
// pattern in a band: in the unsolved band with the fewest patterns left
// over its nine digits, a digit down to two patterns takes the first in
// one branch and the second in the other. With no such digit, it guesses
// on the two-candidate cell that sees the most unsolved cells (the
// alternative is the cell's other digit), or failing that on the first
// unsolved cell (the alternative is the cell without the digit tried).
// On the forum's hardest puzzles, branching on patterns takes 13% fewer
// guesses than branching on cells (199.6 a puzzle where cells take 230.7,
// on the first 200 of the 1106 set); on top1465 7% more (18.5 for 17.2),
// about the same time. It keeps an explicit stack of whole states (280 bytes
// each, so a copy is cheaper than undoing), never recurses, and stops as
// soon as it has found the limit's worth of solutions.
//
// Solve, SolveRandom and the generator's own searches use this solver
// alone. CountSolutions uses it only while its propagation settles the
// puzzle: at the first guess it hands the puzzle to the triad solver of
// solver_triad_simd.go (tdoku's own design, in SIMD vectors) where that is
// built in, which is faster once a puzzle needs guesses.

// bandAll has the 27 cells of a band.
const bandAll = 1<<27 - 1

// maxSearchDepth bounds the search stack: every level places at least one
// digit more than the level below it, so no search is deeper than 81 levels.
const maxSearchDepth = NumCells + 1

// bitBoard is one search state.
//
// cand is indexed band*9 + digit (digits 0..8), so that the nine words of a
// band are contiguous; its five spare words let an index masked with 31
// stand in for a bounds check. Bit i of dirty stands for cand[i].
type bitBoard struct {
	cand     [32]uint32 // candidates; [27:] unused
	unsolved [4]uint32  // per band, the cells not yet known to be solved; [3] unused
	dirty    uint32     // bit i: cand[i] changed since digit-band i was last updated
	recheck  uint32     // bits 0..8: digits changed since the stack rule last saw them; 9..11: bands since the minirow rule did
	shape    [32]uint32 // cand[i] after its last update: minirows (bit row*3+box) | columns<<16
}

// bitSolver holds the search stack and the counters of one solve; Solve and
// friends take one from solverPool so that the 23 KB stack is not
// allocated, or even cleared, on every call.
type bitSolver struct {
	stack    [maxSearchDepth]bitBoard
	pairs    [3]uint32 // per band, the cells with exactly two candidates
	rng      *rand.Rand
	solution Grid

	iterations, guesses, props int
}

var solverPool = sync.Pool{New: func() any { return new(bitSolver) }}

// Outcomes of propagate.
const (
	stDead   = iota // a contradiction: no solution below this state
	stSolved        // every cell solved
	stOpen          // propagation is stuck: guess
)

// run loads g and searches it, returning the number of solutions found up
// to limit; the first one is left in s.solution.
func (s *bitSolver) run(g *Grid, limit int) int {
	if !s.stack[0].load(g) {
		s.iterations, s.guesses, s.props = 0, 0, 0
		return 0
	}
	return s.search(limit)
}

// search counts the solutions of the state in s.stack[0], up to limit (a
// limit below 1 counts as 1); the first one is left in s.solution. It
// starts the statistics afresh: s.guesses also decides when the Hall check
// starts (deepAfter), so a solver taken from the pool must not carry its
// last count over. solvableWithout calls it on a state it loaded and
// edited.
func (s *bitSolver) search(limit int) int {
	if limit < 1 {
		limit = 1
	}
	s.iterations, s.guesses, s.props = 0, 0, 0
	count := 0
	sp := 0
	for {
		b := &s.stack[sp]
		switch s.propagate(b) {
		case stSolved:
			if count == 0 {
				s.solution = b.grid()
			}
			count++
			if count >= limit {
				return count
			}
		case stOpen:
			s.guess(sp)
			sp++
			continue
		}
		// This branch is over: resume the alternative left pending at the
		// level below, if any.
		if sp == 0 {
			return count
		}
		sp--
		s.guesses++
	}
}

// load sets b to the state of grid g with all givens placed at once: a
// digit loses its givens' peers in their band, their columns in the other
// bands, and every other given cell. It reports false when a value is out
// of range or two givens conflict (one given sits where another of the
// same digit already ruled it out).
func (b *bitBoard) load(g *Grid) bool {
	var given [27]uint32 // per cand index, the given cells
	var taken [3]uint32  // per band, every given cell
	for i := range b.cand {
		b.cand[i] = bandAll
	}
	for band := 0; band < 3; band++ {
		cells := (*[27]uint8)(g[band*27 : band*27+27])
		for p, v := range cells {
			if v == 0 {
				continue
			}
			if v > 9 {
				return false
			}
			i := (uint(band*9) + uint(v) - 1) & 31
			bit := uint32(1) << uint(p)
			if b.cand[i]&bit == 0 {
				return false
			}
			given[i&31] |= bit
			taken[band] |= bit
			b.cand[i] &^= bandPeers[p]
			col := bandColBits[p%9]
			o := bandOthers[i]
			b.cand[o&31] &^= col
			b.cand[o>>8&31] &^= col
		}
	}
	for i := range given {
		band := bandOthers[i] >> 16 & 3
		b.cand[i] = b.cand[i]&^taken[band] | given[i]
	}
	for band := 0; band < 3; band++ {
		b.unsolved[band] = bandAll &^ taken[band]
	}
	b.dirty = bandAll      // all 27 digit-bands
	b.recheck = 0          // update sets it for every digit and band it visits
	b.shape = [32]uint32{} // so that the first update sees every change of shape
	return true
}

// nonzero is 1 when x is not zero and 0 when it is, without a branch:
// adding 2^32-1 to a 32-bit value carries into bit 32 exactly when the
// value is not zero. Updates use it to mark a digit-band dirty only when
// its word really changed; a branch there would be unpredictable.
func nonzero(x uint32) uint32 { return uint32((uint64(x) + 0xFFFFFFFF) >> 32) }

// place solves the cell at bit p of band band with digit d (which must
// still be a candidate there): the cell leaves every other digit's word,
// the digit leaves the cell's peers in the band and the cell's column in
// the other two bands.
func (b *bitBoard) place(band, d int, p uint) {
	bit := uint32(1) << (p & 31)
	base := uint(band*9) & 31
	dirty := clearCells((*[9]uint32)(b.cand[base:base+9]), bit)
	i := (base + uint(d)) & 31
	b.cand[i] = b.cand[i]&^bandPeers[p%27] | bit
	col := bandColBits[p%9]
	o := bandOthers[i]
	j1, j2 := uint(o)&31, uint(o>>8)&31
	o1, o2 := b.cand[j1], b.cand[j2]
	b.cand[j1], b.cand[j2] = o1&^col, o2&^col
	b.dirty |= dirty<<base | 1<<i | nonzero(o1&col)<<j1 | nonzero(o2&col)<<j2
	b.unsolved[band&3] &^= bit
}

// remove takes digit d out of the cell at bit p of band band.
func (b *bitBoard) remove(band, d int, p uint) {
	i := uint(band*9+d) & 31
	b.cand[i] &^= 1 << (p & 31)
	b.dirty |= 1 << i
}

// grid reads a fully solved state out as a Grid.
func (b *bitBoard) grid() Grid {
	var g Grid
	for i, w := range b.cand[:27] {
		d := uint8(i%9 + 1)
		base := i / 9 * 27
		for ; w != 0; w &= w - 1 {
			g[base+bits.TrailingZeros32(w)] = d
		}
	}
	return g
}

// unsolvedCount is the number of cells not yet solved.
func (b *bitBoard) unsolvedCount() int {
	return bits.OnesCount64(uint64(b.unsolved[0])|uint64(b.unsolved[1])<<32) + bits.OnesCount32(b.unsolved[2])
}

// propagate applies the band updates and naked singles until nothing more
// follows, and says whether b is dead, solved, or needs a guess (in which
// case s.pairs is up to date). Every cell it solves counts as a
// propagation; counting them here, by difference, keeps popcounts out of
// the inner loops.
func (s *bitSolver) propagate(b *bitBoard) int {
	before := b.unsolvedCount()
	state := stOpen
	for {
		if !s.update(b) {
			state = stDead
			break
		}
		if b.unsolved[0]|b.unsolved[1]|b.unsolved[2] == 0 {
			state = stSolved
			break
		}
		placed, ok := s.singles(b)
		if !ok {
			state = stDead
			break
		}
		if placed {
			continue
		}
		changed, ok := b.stacks()
		if !ok {
			state = stDead
			break
		}
		if changed {
			continue
		}
		changed, ok = b.triads()
		if !ok {
			state = stDead
			break
		}
		if !changed {
			if s.guesses >= deepAfter && b.hallViolated() {
				state = stDead
			}
			break
		}
	}
	s.props += before - b.unsolvedCount()
	return state
}

// update applies the band rule (see the design notes) to dirty digit-bands,
// in sweeps over the dirty set, until none is dirty. It reports false on a contradiction.
func (s *bitSolver) update(b *bitBoard) bool {
	// The dirty set and the digits seen live in registers for the loop.
	dirty, seen, bandsSeen := b.dirty, uint32(0), uint32(0)
	visits := 0
	ok := true
sweeps:
	for dirty != 0 {
		// Sweep a snapshot of the dirty set: the next digit-band to visit then
		// does not wait on what this one's update dirtied, so the processor can
		// start on it early.
		for cur := dirty; cur != 0; cur &= cur - 1 {
			i := uint(bits.TrailingZeros32(cur)) & 31
			dirty &^= 1 << i
			visits++
			a := b.cand[i]
			// Minirow occupancy from the high halves of the row tables; keep
			// only the minirows of complete patterns (low half of bandKeep).
			occ := (rowTable[0][a&511] | rowTable[1][a>>9&511] | rowTable[2][a>>18&511]) >> 32 & 511
			keep := bandKeep[occ]
			a &= uint32(keep)
			if a == 0 {
				ok = false
				break sweeps
			}
			b.cand[i] = a
			o := bandOthers[i]
			band := uint(o>>16) & 3
			seen |= o // bit 20+d: the stack rule must look at digit d again
			// Fold the rows onto the columns still in use; a box down to one
			// column takes that column from the digit's other two bands.
			cols := (a | a>>9 | a>>18) & 511
			lock := colLock[cols]
			// The minirow rules need another look at this band only when the
			// digit's shape - its minirows (high half of bandKeep) and columns
			// - changed.
			shape := uint32(keep>>32) | cols<<16
			bandsSeen |= nonzero(b.shape[i]^shape) << band
			b.shape[i] = shape
			j1, j2 := uint(o)&31, uint(o>>8)&31
			o1, o2 := b.cand[j1], b.cand[j2]
			b.cand[j1], b.cand[j2] = o1&lock, o2&lock
			dirty |= nonzero(o1&^lock)<<j1 | nonzero(o2&^lock)<<j2
			// Rows down to one candidate, from the low halves of the row
			// tables, solve a cell, which the other eight digits lose.
			lone := uint32(rowTable[0][a&511] | rowTable[1][a>>9&511] | rowTable[2][a>>18&511])
			if placed := a & lone & b.unsolved[band]; placed != 0 {
				b.unsolved[band] &^= placed
				base := band * 9
				cleared := clearCells((*[9]uint32)(b.cand[base:base+9]), placed)
				b.cand[i] = a
				dirty |= cleared << base &^ (1 << i)
			}
		}
	}
	b.dirty = dirty
	b.recheck |= seen>>20&511 | bandsSeen<<9
	s.iterations += visits
	return ok
}

// clearCells removes cells m from the nine digit words of a band and
// returns a bit per digit whose word changed. It is unrolled by hand: it
// runs for every solved cell, and the loop version costs half again more.
func clearCells(c *[9]uint32, m uint32) uint32 {
	x0, x1, x2, x3, x4, x5, x6, x7, x8 := c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8]
	c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8] = x0&^m, x1&^m, x2&^m, x3&^m, x4&^m, x5&^m, x6&^m, x7&^m, x8&^m
	return nonzero(x0&m) | nonzero(x1&m)<<1 | nonzero(x2&m)<<2 | nonzero(x3&m)<<3 |
		nonzero(x4&m)<<4 | nonzero(x5&m)<<5 | nonzero(x6&m)<<6 | nonzero(x7&m)<<7 | nonzero(x8&m)<<8
}

// singles counts the candidates of every cell and places the naked singles.
// It reports whether it placed any, and false for ok when a cell has no
// candidate left or two singles collide. When it places none, s.pairs is
// left holding the two-candidate cells of each band.
func (s *bitSolver) singles(b *bitBoard) (placed, ok bool) {
	for band := 0; band < 3; band++ {
		base := uint(band * 9)
		r1, r2, r3 := countCandidates((*[9]uint32)(b.cand[base : base+9]))
		if r1 != bandAll {
			return false, false
		}
		s.pairs[band] = r2 &^ r3
		for one := r1 &^ r2 & b.unsolved[band]; one != 0; one &= one - 1 {
			p := uint(bits.TrailingZeros32(one))
			d := b.digitAt(band, 0, p)
			if d < 0 {
				// An earlier single in this loop took the cell's last candidate.
				return false, false
			}
			b.place(band, d, p)
			placed = true
		}
	}
	return placed, true
}

// stacks applies the pattern rule across bands: in each stack, a digit
// takes one column in each band and a different one in each, so the 3x3
// matrix of (band, column) pairs it may still use must contain one of the
// six patterns; pairs in none of them go. This finds locked candidates and
// hidden singles along columns, which the band rule alone does not see.
// It reports whether it removed a candidate, and false for ok on a
// contradiction.
func (b *bitBoard) stacks() (changed, ok bool) {
	m := b.recheck & 511
	b.recheck &^= 511
	for ; m != 0; m &= m - 1 {
		d := uint(bits.TrailingZeros32(m))
		if d >= 9 {
			break // unreachable; tells the compiler the indexes are in range
		}
		a0, a1, a2 := b.cand[d], b.cand[9+d], b.cand[18+d]
		// Columns each band still uses, one 9-bit row per band.
		w := (a0|a0>>9|a0>>18)&511 | (a1|a1>>9|a1>>18)&511<<9 | (a2|a2>>9|a2>>18)&511<<18
		var keep uint32
		for k := uint(0); k < 9; k += 3 {
			// Gather stack k's three 3-bit column groups into 9 bits,
			// band by band; stackKeep returns the kept bits in place.
			x := w >> k & 0x1C0E07
			kk := stackKeep[(x|x>>6|x>>12)&511]
			if kk == 0 {
				return false, false
			}
			keep |= kk << k
		}
		if keep == w {
			continue
		}
		n0, n1, n2 := a0&spreadCols[keep&511], a1&spreadCols[keep>>9&511], a2&spreadCols[keep>>18&511]
		b.cand[d], b.cand[9+d], b.cand[18+d] = n0, n1, n2
		b.dirty |= nonzero(a0^n0)<<d | nonzero(a1^n1)<<(9+d) | nonzero(a2^n2)<<(18+d)
		changed = true
	}
	return changed, true
}

// triads applies the minirow rule, tdoku's "triads", to rows and to
// columns. The three cells of a minirow (a row of a box) hold three
// different digits, so: three digits that alone can go there are confined
// to it; three digits sure to go there (it is the only minirow left to
// them in their row) shut the others out; and fewer than three possible,
// or more than three sure, is a contradiction. The same holds for the
// three cells of a column in a box ("minicolumn"), a digit being sure of
// one when it is the only column left to it in that box. The band rule
// leaves each digit-band's minirows and columns in b.shape, so this only
// counts, with bit-sliced counters over the nine digits, in the bands
// where a shape changed since it last looked. It reports whether it
// removed a candidate, and false for ok on a contradiction.
func (b *bitBoard) triads() (changed, ok bool) {
	m := b.recheck >> 9 & 7
	b.recheck &^= 7 << 9
	for ; m != 0; m &= m - 1 {
		band := uint(bits.TrailingZeros32(m))
		if band >= 3 {
			break // unreachable; tells the compiler the indexes are in range
		}
		shape := (*[9]uint32)(b.shape[band*9 : band*9+9])
		c3, c4 := countShapes(shape)
		if uint32(c3) != 511|511<<16 || c4>>32 != 0 {
			return false, false
		}
		// Only minirows and minicolumns with a cell still unsolved can
		// yield anything: a solved one always has three digits, all sure.
		u := b.unsolved[band]
		active := uint32((rowTable[0][u&511]|rowTable[1][u>>9&511]|rowTable[2][u>>18&511])>>32) | (u|u>>9|u>>18)&511<<16
		three, full := uint32(c3&^c4)&active, uint32(c3>>32)&active
		rThree, rFull := three&511, full&511
		cThree, cFull := three>>16, full>>16
		if rThree|rFull|cThree|cFull == 0 {
			continue
		}
		var dirty uint32
		c := (*[9]uint32)(b.cand[band*9 : band*9+9])
		if rThree|rFull != 0 {
			for d, x := range shape {
				r := x & 511
				sure := uint32(minirowSure[r])
				a := c[d]
				n := a & minirowForce[r&rThree&^sure] &^ minirowCells[rFull&^sure]
				c[d] = n
				dirty |= nonzero(a^n) << uint(d)
			}
		}
		if cThree|cFull != 0 {
			for d, x := range shape {
				col := x >> 16 & 511
				sure := uint32(minirowSure[col])
				a := c[d]
				n := a & spreadCols[colForce[col&cThree&^sure]] &^ spreadCols[cFull&^sure]
				c[d] = n
				dirty |= nonzero(a^n) << uint(d)
			}
		}
		if dirty != 0 {
			b.dirty |= dirty << (band * 9)
			changed = true
		}
	}
	return changed, true
}

// countShapes counts, over a band's nine digits, how many may use each
// minirow and minicolumn and how many are sure to. shape[d] has digit d's
// minirows in bits 0..8 (bit row*3+box) and its columns in bits 16..24,
// each in three groups of three (a row's minirows, a box's columns); a
// digit is sure of the only one left in its group. The counters are
// bit-sliced like countCandidates and count all four kinds at once, one
// kind per 16-bit lane of a 64-bit word: minirows that may be used (bits
// 0..8), minicolumns that may be (16..24), minirows sure to be (32..40),
// minicolumns sure to be (48..56). A bit is set in c3 (c4) if at least
// three (four) digits count for it.
func countShapes(shape *[9]uint32) (c3, c4 uint64) {
	var c1, c2 uint64
	for _, x := range shape {
		v := uint64(x) | uint64(minirowSure[x&511])<<32 | uint64(minirowSure[x>>16&511])<<48
		c4 |= c3 & v
		c3 |= c2 & v
		c2 |= c1 & v
		c1 |= v
	}
	return c3, c4
}

// countCandidates counts, with bit-sliced counters, how many of a band's
// nine digit words hold each cell: a cell's bit is set in r1 if at least
// one does, in r2 if at least two do, in r3 if at least three do. Each
// step is a saturating add of one bit-plane: the cells already at two and
// seeing another reach three, and so on. Unrolled by hand, like clearCells.
func countCandidates(c *[9]uint32) (r1, r2, r3 uint32) {
	x0, x1, x2, x3, x4, x5, x6, x7, x8 := c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8]
	r1 = x0
	r2 = r1 & x1
	r1 |= x1
	r3 = r2 & x2
	r2 |= r1 & x2
	r1 |= x2
	r3 |= r2 & x3
	r2 |= r1 & x3
	r1 |= x3
	r3 |= r2 & x4
	r2 |= r1 & x4
	r1 |= x4
	r3 |= r2 & x5
	r2 |= r1 & x5
	r1 |= x5
	r3 |= r2 & x6
	r2 |= r1 & x6
	r1 |= x6
	r3 |= r2 & x7
	r2 |= r1 & x7
	r1 |= x7
	r3 |= r2 & x8
	r2 |= r1 & x8
	r1 |= x8
	return r1, r2, r3
}

// digitAt is the first digit from `from` on that is still a candidate in
// the cell at bit p of band band, or -1 if there is none.
func (b *bitBoard) digitAt(band, from int, p uint) int {
	for d := from; d < 9; d++ {
		if b.cand[uint(band*9+d)&31]>>(p&31)&1 != 0 {
			return d
		}
	}
	return -1
}

// guess branches at level sp: it copies the state to level sp+1 and makes
// the guess there, and turns level sp into the alternative to try when that
// branch is over. It prefers a digit with two patterns left in a band,
// where the alternative is the other pattern; then a two-candidate cell,
// where the alternative is simply the other digit; otherwise it takes the first unsolved cell and
// the alternative is the cell without the digit tried.
func (s *bitSolver) guess(sp int) {
	b := &s.stack[sp]
	next := &s.stack[sp+1]
	s.guesses++
	// A digit down to two patterns in a band (see the design notes) splits
	// the search in two as a two-candidate cell does, and usually decides
	// more. In random mode the cells below pick among the digits at random.
	if s.rng == nil {
		if i, p1, p2, ok := b.patternBranch(); ok {
			*next = *b
			next.cand[i&31] &= minirowCells[p1]
			next.dirty |= 1 << (i & 31)
			b.cand[i&31] &= minirowCells[p2]
			b.dirty |= 1 << (i & 31)
			return
		}
	}
	// Among the two-candidate cells, take the one that sees the most
	// unsolved cells: whichever digit it gets, it bears on the most of the
	// rest of the grid. (On top1465, with limit 2, this takes 18.9
	// guesses a puzzle where the first such cell takes 32.2.)
	bestBand, bestP, bestScore := -1, uint(0), -1
	for band := 0; band < 3; band++ {
		if s.rng != nil && s.pairs[band] != 0 {
			// In random mode the number of guesses matters less than
			// their cost: take the first two-candidate cell.
			bestBand, bestP = band, uint(bits.TrailingZeros32(s.pairs[band]))
			break
		}
		// Unsolved cells of this band, then of the two others shifted by
		// 27 and 54, in one word for the column test.
		u := b.unsolved[band]
		others := uint64(b.unsolved[bandNext1[band]]) | uint64(b.unsolved[bandNext2[band]])<<27
		for m := s.pairs[band]; m != 0; m &= m - 1 {
			p := uint(bits.TrailingZeros32(m)) & 31
			score := bits.OnesCount32(u&bandPeers[p]) + bits.OnesCount64(others&colPair[p])
			if score > bestScore {
				bestBand, bestP, bestScore = band, p, score
			}
		}
	}
	if bestBand >= 0 {
		band, p := bestBand, bestP
		d1 := b.digitAt(band, 0, p)
		d2 := b.digitAt(band, d1+1, p)
		if s.rng != nil && s.rng.Uint64()&1 == 1 {
			d1, d2 = d2, d1
		}
		*next = *b
		next.place(band, d1, p)
		b.place(band, d2, p)
		return
	}
	for band := 0; band < 3; band++ {
		m := b.unsolved[band]
		if m == 0 {
			continue
		}
		p := uint(bits.TrailingZeros32(m))
		d := b.digitAt(band, 0, p)
		if s.rng != nil {
			// Pick uniformly among the cell's candidates.
			n := 0
			for e := d; e >= 0; e = b.digitAt(band, e+1, p) {
				n++
			}
			for k := s.rng.IntN(n); k > 0; k-- {
				d = b.digitAt(band, d+1, p)
			}
		}
		*next = *b
		next.place(band, d, p)
		b.remove(band, d, p)
		return
	}
	panic("engine: guess on a solved board")
}
