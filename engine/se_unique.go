package engine

import "math/bits"

// Unique rectangles and loops (types 1, 2 and 4; 4.5-5.0) and the
// bivalue universal grave (BUG+1, 5.6; type 2, 5.7), which rely on the
// puzzle having one solution.

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

// bug is the bivalue universal grave as Sudoku Explainer finds it: take
// from the cells with three or more candidates the digits that appear
// neither once nor twice... in a unit (the BUG digits); when what is left
// has two candidates in every cell and each digit twice in every unit, one
// BUG digit must be true. BUG+1 (5.6): one such cell keeps only its BUG
// digits. BUG type 2 (5.7): the cells share one BUG digit, which goes from
// the cells that see them all.
func (s *seGrid) bug(h *seHint) bool {
	temp := s.cand
	var bugCells []int
	bugValues := map[int]uint16{}
	var all uint16
	var common CellSet
	haveCommon := false
	var extraCells CellSet
	haveExtra, oneValue := false, true
	var onlyValue uint8
	addBug := func(c int, d uint8) bool {
		if !slicesContains(bugCells, c) {
			bugCells = append(bugCells, c)
		}
		bugValues[c] |= 1 << d
		all |= 1 << d
		temp[c] &^= 1 << d
		if !haveCommon {
			common, haveCommon = PeerSet[c], true
		} else {
			common = common.Intersect(PeerSet[c])
		}
		for _, b := range bugCells {
			common.Remove(b)
		}
		return !(len(bugCells) > 1 && bitsCount(all) > 1 && common.Empty())
	}
	for _, u := range seUnitOrder2 {
		for d := uint8(1); d <= 9; d++ {
			p := s.positions(u, d)
			if n := bitsCount(p); n == 0 || n == 2 {
				continue
			}
			var fresh []int
			for i, c := range Units[u] {
				if p&(1<<i) != 0 && s.count(int(c)) >= 3 {
					fresh = append(fresh, int(c))
				}
			}
			if !haveExtra {
				haveExtra, onlyValue = true, d
				for _, c := range fresh {
					extraCells.Add(c)
				}
			} else if oneValue {
				if onlyValue == d {
					for _, c := range fresh {
						extraCells.Add(c)
					}
				} else {
					oneValue = false
				}
			}
			if len(fresh) == 1 && !addBug(fresh[0], d) {
				return false
			}
			if len(fresh) == 0 {
				return false
			}
		}
	}
	if oneValue && haveExtra && extraCells.Len() > len(bugCells) {
		for _, b := range bugCells {
			extraCells.Remove(b)
		}
		for c := range extraCells.All() {
			if !addBug(c, onlyValue) {
				return false
			}
		}
	}
	for c := 0; c < NumCells; c++ {
		if s.val[c] == 0 && bits.OnesCount16(temp[c]) != 2 {
			return false
		}
	}
	for u := 0; u < 27; u++ {
		for d := uint8(1); d <= 9; d++ {
			n := 0
			for _, c := range Units[u] {
				if temp[c]&(1<<d) != 0 {
					n++
				}
			}
			if n != 0 && n != 2 {
				return false
			}
		}
	}
	switch {
	case len(bugCells) == 1:
		c := bugCells[0]
		for d := uint8(1); d <= 9; d++ {
			if s.has(c, d) && all&(1<<d) == 0 {
				h.remove(c, d)
			}
		}
		h.set(56, "BUG+1")
	case bitsCount(all) == 1 && haveCommon:
		d := uint8(bits.TrailingZeros16(all))
		for c := range common.All() {
			if s.has(c, d) {
				h.remove(c, d)
			}
		}
		h.set(57, "BUG type 2")
	}
	return len(h.elim) > 0
}

// seUnitOrder2 is boxes, then rows, then columns.
var seUnitOrder2 = func() [27]int {
	var o [27]int
	for i := 0; i < 9; i++ {
		o[i], o[9+i], o[18+i] = 18+i, i, 9+i
	}
	return o
}()

func bitsCount(m uint16) int { return bits.OnesCount16(m) }
