package engine

import (
	"fmt"
	"math/bits"
	"strconv"
)

// SERating is a puzzle's difficulty on the Sudoku Explainer scale, in
// tenths: 12 is SE 1.2 (a hidden single in a box), 23 a naked single, 71 a
// short forcing chain. Zero means the puzzle was already full.
//
// The scale is Sudoku Explainer's: at each step the rater takes the first
// technique in Sudoku Explainer's order that finds something, applies that
// one step, and starts again from the singles; the rating is the highest
// rating of a step taken. Each technique has its own rating, and chains add
// a penalty that grows with their length. Sukaku Explainer (a maintained
// fork of Sudoku Explainer, with its default settings) is the reference the
// rater is measured against (see TestSEAgreement).
type SERating int

// String writes the rating with one decimal: "7.1".
func (r SERating) String() string {
	return strconv.Itoa(int(r)/10) + "." + strconv.Itoa(int(r)%10)
}

// MarshalJSON writes the rating as a JSON number with one decimal: 7.1.
func (r SERating) MarshalJSON() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalJSON reads a rating as MarshalJSON writes it (a JSON number).
func (r *SERating) UnmarshalJSON(b []byte) error {
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil || v < 0 || v > 100 {
		return fmt.Errorf("engine: bad SE rating %q", b)
	}
	*r = SERating(v*10 + 0.5)
	return nil
}

// seStepLimit bounds the rater's loop; every step places a digit or
// removes a candidate, so it is never reached by a correct technique.
const seStepLimit = NumCells * 10

// RateSE rates a puzzle with exactly one solution on the Sudoku Explainer
// scale (see SERating). It does not check uniqueness: the uniqueness
// techniques assume it, so call it on puzzles GradePuzzle accepts. ok is
// false when the rater's techniques (up to Sudoku Explainer's multiple
// forcing chains) cannot finish the puzzle: Sudoku Explainer would need
// its dynamic or nested chains, rated 8.5 and up.
//
// It is slower than GradePuzzle (milliseconds; up to a few hundred for
// the hardest puzzles); Generate calls it only for GenerateOptions.MinSE.
func RateSE(g Grid) (r SERating, ok bool) {
	return rateSE(g, nil)
}

// seStep is one step of the rater, for tests: its rating and name.
type seStep struct {
	rating SERating
	name   string
}

// rateSE rates g; with a non-nil log it records every step.
func rateSE(g Grid, log *[]seStep) (SERating, bool) {
	s := newSEGrid(g)
	var best SERating
	var h seHint
	for n := 0; n < seStepLimit && !s.solved(); n++ {
		h = seHint{}
		if !s.next(&h) {
			return best, false
		}
		if log != nil {
			*log = append(*log, seStep{h.rating, h.name})
		}
		if h.rating > best {
			best = h.rating
		}
		if !s.apply(&h) {
			return best, false
		}
	}
	if !s.solved() {
		return best, false
	}
	return best, true
}

// seGrid is the rater's board: digits and candidates (bit d for digit d).
type seGrid struct {
	val  [NumCells]uint8
	cand [NumCells]uint16
}

func newSEGrid(g Grid) *seGrid {
	s := &seGrid{}
	for i := range s.cand {
		s.cand[i] = 0x3fe
	}
	for i, v := range g {
		if v != 0 {
			s.place(i, v)
		}
	}
	return s
}

func (s *seGrid) place(cell int, d uint8) {
	s.val[cell] = d
	s.cand[cell] = 0
	for _, p := range Peers[cell] {
		s.cand[p] &^= 1 << d
	}
}

func (s *seGrid) solved() bool {
	for _, v := range s.val {
		if v == 0 {
			return false
		}
	}
	return true
}

// has reports whether digit d is a candidate of cell.
func (s *seGrid) has(cell int, d uint8) bool { return s.cand[cell]&(1<<d) != 0 }

// count is the number of candidates of cell.
func (s *seGrid) count(cell int) int { return bits.OnesCount16(s.cand[cell]) }

// positions is the bit set (bit i for the unit's i-th cell) of where d
// can go in unit u.
func (s *seGrid) positions(u int, d uint8) uint16 {
	var m uint16
	for i, c := range Units[u] {
		if s.cand[c]&(1<<d) != 0 {
			m |= 1 << i
		}
	}
	return m
}

// empty is the number of empty cells of unit u.
func (s *seGrid) empty(u int) int {
	n := 0
	for _, c := range Units[u] {
		if s.val[c] == 0 {
			n++
		}
	}
	return n
}

// seHint is one step: a digit to place or candidates to remove.
type seHint struct {
	rating SERating
	name   string
	place  bool
	cell   int
	digit  uint8
	elim   []Candidate
}

func (h *seHint) remove(cell int, d uint8) {
	for _, e := range h.elim {
		if e.Cell == cell && e.Digit == d {
			return
		}
	}
	h.elim = append(h.elim, Candidate{Cell: cell, Digit: d})
}

// apply carries out h; false when it changes nothing (a bug guard).
func (s *seGrid) apply(h *seHint) bool {
	if h.place {
		if s.val[h.cell] != 0 {
			return false
		}
		s.place(h.cell, h.digit)
		return true
	}
	done := false
	for _, e := range h.elim {
		if s.has(e.Cell, e.Digit) {
			s.cand[e.Cell] &^= 1 << e.Digit
			done = true
		}
	}
	return done
}

// seUnitOrder is Sudoku Explainer's order of units for most techniques:
// boxes, then columns, then rows.
var seUnitOrder = func() [27]int {
	var o [27]int
	for i := 0; i < 9; i++ {
		o[i] = 18 + i
		o[9+i] = 9 + i
		o[18+i] = i
	}
	return o
}()

// seTechniques are the techniques in Sudoku Explainer's order; each fills
// h with the first step it finds and reports whether it found one.
var seTechniques []func(*seGrid, *seHint) bool

func init() {
	seTechniques = []func(*seGrid, *seHint) bool{
		(*seGrid).fullHouse,
		(*seGrid).hiddenSingle,
		(*seGrid).directLocking,
		func(s *seGrid, h *seHint) bool { return s.hiddenSet(h, 2, true) },
		(*seGrid).nakedSingle,
		func(s *seGrid, h *seHint) bool { return s.hiddenSet(h, 3, true) },
		(*seGrid).locking,
		func(s *seGrid, h *seHint) bool { return s.nakedSet(h, 2) },
		func(s *seGrid, h *seHint) bool { return s.fish(h, 2) },
		func(s *seGrid, h *seHint) bool { return s.hiddenSet(h, 2, false) },
		func(s *seGrid, h *seHint) bool { return s.nakedSet(h, 3) },
		func(s *seGrid, h *seHint) bool { return s.fish(h, 3) },
		func(s *seGrid, h *seHint) bool { return s.hiddenSet(h, 3, false) },
		func(s *seGrid, h *seHint) bool { return s.strongLinks(h, 2) },
		func(s *seGrid, h *seHint) bool { return s.xyWing(h, false) },
		func(s *seGrid, h *seHint) bool { return s.xyWing(h, true) },
		(*seGrid).uniqueLoops,
		func(s *seGrid, h *seHint) bool { return s.nakedSet(h, 4) },
		func(s *seGrid, h *seHint) bool { return s.fish(h, 4) },
		func(s *seGrid, h *seHint) bool { return s.hiddenSet(h, 4, false) },
		func(s *seGrid, h *seHint) bool { return s.strongLinks(h, 3) },
		func(s *seGrid, h *seHint) bool { return s.wing(h, 4) },
		(*seGrid).bug,
		func(s *seGrid, h *seHint) bool { return s.strongLinks(h, 4) },
		func(s *seGrid, h *seHint) bool { return s.wing(h, 5) },
		// UVWXYZ-Wing (6.6) would come here in today's Sukaku Explainer;
		// the reference ratings were made without it (with it, nine
		// puzzles rated 7.1-7.2 by chains there come out 6.6).
		(*seGrid).chains,
		func(s *seGrid, h *seHint) bool { return s.wing(h, 7) },
		(*seGrid).nishio,
		(*seGrid).multiple,
	}
}

// next finds the step the rater takes.
func (s *seGrid) next(h *seHint) bool {
	for _, t := range seTechniques {
		if t(s, h) {
			return true
		}
	}
	return false
}
