package engine

import "math/bits"

// Unique rectangles and loops (types 1, 2 and 4; 4.5-5.0) and the bivalue universal
// grave (BUG+1, 5.6), which rely on the puzzle having one solution.

// uniqueLoops finds a unique rectangle or loop (4.5 for four cells, 4.6
// for six, 4.7 for eight, 5.0 for ten or more) with something to remove;
// among several the lowest rating wins, then the lowest type, as in Sudoku
// Explainer.
func (s *seGrid) uniqueLoops(h *seHint) bool {
	var best []Candidate
	bestR, bestType, bestName := SERating(0), 0, ""
	for c := 0; c < NumCells; c++ {
		if s.val[c] != 0 || s.count(c) != 2 {
			continue
		}
		var ds []uint8
		for d := uint8(1); d <= 9; d++ {
			if s.has(c, d) {
				ds = append(ds, d)
			}
		}
		v1, v2 := ds[0], ds[1]
		loop := []int{c}
		var walk func(cell, allowed int, ex uint16, last int)
		walk = func(cell, allowed int, ex uint16, last int) {
			for kind := 0; kind < 3; kind++ {
				if kind == last {
					continue
				}
				u := [3]int{18 + Box(cell), Row(cell), 9 + Col(cell)}[kind]
				for _, n8 := range Units[u] {
					next := int(n8)
					if next == loop[0] && len(loop) >= 4 {
						if !seValidLoop(loop) {
							continue
						}
						t, elim := s.loopHint(loop, v1, v2)
						r := loopRating(len(loop))
						if t != 0 && (bestType == 0 || r < bestR || (r == bestR && t < bestType)) {
							bestR, bestType, best, bestName = r, t, elim, "unique rectangle"
							if len(loop) > 4 {
								bestName = "unique loop"
							}
						}
						continue
					}
					if len(loop) >= 14 || slicesContains(loop, next) || !s.has(next, v1) || !s.has(next, v2) {
						continue
					}
					nex := ex | s.cand[next]&^(1<<v1|1<<v2)
					n := s.count(next)
					if n == 2 || bitsCount(nex) == 1 || allowed > 0 {
						na := allowed
						if n > 2 {
							na--
						}
						loop = append(loop, next)
						walk(next, na, nex, kind)
						loop = loop[:len(loop)-1]
					}
				}
			}
		}
		walk(c, 2, 0, -1)
	}
	if bestType == 0 {
		return false
	}
	h.elim = best
	h.set(bestR, bestName)
	return true
}

func slicesContains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// loopRating is Sudoku Explainer's rating of a unique loop of n cells.
func loopRating(n int) SERating {
	r := SERating(45)
	if n >= 10 {
		r += 3
	}
	if n >= 8 {
		r += 2
	} else if n >= 6 {
		r++
	}
	return r
}

// seValidLoop reports whether every unit the loop visits is visited by two
// of its cells, one at an odd and one at an even place.
func seValidLoop(loop []int) bool {
	var odd, even [27]bool
	for i, c := range loop {
		for _, u := range CellUnits[c] {
			seen := &even
			if i%2 == 1 {
				seen = &odd
			}
			if seen[u] {
				return false
			}
			seen[u] = true
		}
	}
	return odd == even
}

// loopHint returns the type of the unique loop on cells with digits v1, v2
// and what it removes, or 0.
func (s *seGrid) loopHint(cells []int, v1, v2 uint8) (int, []Candidate) {
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
	case len(extra) == 0:
		return 0, nil
	}
	if bitsCount(extraDigits) == 1 {
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
