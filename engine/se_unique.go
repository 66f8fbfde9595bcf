package engine

import "math/bits"

// Unique rectangles (types 1, 2 and 4; 4.5) and the bivalue universal
// grave (BUG+1, 5.6), which rely on the puzzle having one solution.

// uniqueLoops finds a unique rectangle with something to remove; among
// several the lowest type wins, as in Sudoku Explainer.
func (s *seGrid) uniqueLoops(h *seHint) bool {
	var best []Candidate
	bestType := 0
	for r1 := 0; r1 < 9; r1++ {
		for r2 := r1 + 1; r2 < 9; r2++ {
			for c1 := 0; c1 < 9; c1++ {
				for c2 := c1 + 1; c2 < 9; c2++ {
					if (r1/3 == r2/3) == (c1/3 == c2/3) {
						continue // one box or four boxes
					}
					cells := [4]int{r1*9 + c1, r1*9 + c2, r2*9 + c1, r2*9 + c2}
					common := uint16(0x3fe)
					for _, c := range cells {
						common &= s.cand[c]
					}
					if bits.OnesCount16(common) < 2 {
						continue
					}
					for v1 := uint8(1); v1 <= 9; v1++ {
						for v2 := v1 + 1; v2 <= 9; v2++ {
							pair := uint16(1)<<v1 | uint16(1)<<v2
							if common&pair != pair {
								continue
							}
							t, elim := s.rectangle(cells, v1, v2)
							if t != 0 && (bestType == 0 || t < bestType) {
								bestType, best = t, elim
							}
						}
					}
				}
			}
		}
	}
	if bestType == 0 {
		return false
	}
	h.elim = best
	h.set(45, "unique rectangle")
	return true
}

// rectangle returns the type of the unique rectangle on cells with digits
// v1, v2 and what it removes, or 0.
func (s *seGrid) rectangle(cells [4]int, v1, v2 uint8) (int, []Candidate) {
	pair := uint16(1)<<v1 | uint16(1)<<v2
	var extra []int
	var extraDigits uint16
	for _, c := range cells {
		if s.cand[c] != pair {
			extra = append(extra, c)
			extraDigits |= s.cand[c] &^ pair
		}
	}
	var elim []Candidate
	switch {
	case len(extra) == 1:
		c := extra[0]
		return 1, []Candidate{{Cell: c, Digit: v1}, {Cell: c, Digit: v2}}
	case len(extra) == 4 || len(extra) == 0:
		return 0, nil
	}
	if bits.OnesCount16(extraDigits) == 1 {
		d := uint8(bits.TrailingZeros16(extraDigits))
		var ex CellSet
		for _, c := range extra {
			ex.Add(c)
		}
		for c := range seesAll(ex).All() {
			if s.has(c, d) {
				elim = append(elim, Candidate{Cell: c, Digit: d})
			}
		}
		if len(elim) > 0 {
			return 2, elim
		}
	}
	if len(extra) != 2 {
		return 0, nil
	}
	a, b := extra[0], extra[1]
	for _, u := range CellUnits[a] {
		if !UnitSet[u].Has(b) {
			continue
		}
		for _, pv := range [2][2]uint8{{v1, v2}, {v2, v1}} {
			v, w := pv[0], pv[1]
			only := true
			for _, c := range Units[u] {
				if int(c) != a && int(c) != b && s.has(int(c), v) {
					only = false
				}
			}
			if only {
				return 4, []Candidate{{Cell: a, Digit: w}, {Cell: b, Digit: w}}
			}
		}
	}
	return 0, nil
}

// bug: every unsolved cell but one has two candidates and every digit
// appears twice in each unit, except one digit of the one cell with three:
// that digit goes there (BUG+1, 5.6).
func (s *seGrid) bug(h *seHint) bool {
	extra := -1
	for c := 0; c < NumCells; c++ {
		if s.val[c] != 0 {
			continue
		}
		switch s.count(c) {
		case 2:
		case 3:
			if extra >= 0 {
				return false
			}
			extra = c
		default:
			return false
		}
	}
	if extra < 0 {
		return false
	}
	var digit uint8
	for d := uint8(1); d <= 9; d++ {
		if !s.has(extra, d) {
			continue
		}
		odd := false
		for _, u := range CellUnits[extra] {
			if bitsCount(s.positions(int(u), d)) == 3 {
				odd = true
			}
		}
		if odd {
			if digit != 0 {
				return false
			}
			digit = d
		}
	}
	if digit == 0 {
		return false
	}
	for d := uint8(1); d <= 9; d++ {
		if d != digit && s.has(extra, d) {
			h.remove(extra, d)
		}
	}
	h.set(56, "BUG+1")
	return true
}

func bitsCount(m uint16) int { return bits.OnesCount16(m) }
