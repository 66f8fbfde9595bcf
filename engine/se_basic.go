package engine

import "math/bits"

// The rater's singles, intersections, naked and hidden sets and basic fish,
// with Sudoku Explainer's ratings and its order of search.

func (h *seHint) set(r SERating, name string) { h.rating, h.name = r, name }

func (h *seHint) placeDigit(r SERating, name string, cell int, d uint8) {
	h.set(r, name)
	h.place, h.cell, h.digit = true, cell, d
}

// fullHouse: the last empty cell of a unit (1.0).
func (s *seGrid) fullHouse(h *seHint) bool {
	for _, u := range seUnitOrder {
		if s.empty(u) != 1 {
			continue
		}
		for _, c := range Units[u] {
			if s.val[c] == 0 && s.cand[c] != 0 {
				h.placeDigit(10, "full house", int(c), uint8(bits.TrailingZeros16(s.cand[c])))
				return true
			}
		}
	}
	return false
}

// hiddenSingle: the only place for a digit in a box (1.2) or a row or
// column (1.5).
func (s *seGrid) hiddenSingle(h *seHint) bool {
	for _, u := range seUnitOrder {
		for d := uint8(1); d <= 9; d++ {
			p := s.positions(u, d)
			if bits.OnesCount16(p) != 1 {
				continue
			}
			r := SERating(15)
			if u >= 18 {
				r = 12
			}
			h.placeDigit(r, "hidden single", int(Units[u][bits.TrailingZeros16(p)]), d)
			return true
		}
	}
	return false
}

// nakedSingle: a cell with one candidate (2.3).
func (s *seGrid) nakedSingle(h *seHint) bool {
	for c := 0; c < NumCells; c++ {
		if s.val[c] == 0 && s.count(c) == 1 {
			h.placeDigit(23, "naked single", c, uint8(bits.TrailingZeros16(s.cand[c])))
			return true
		}
	}
	return false
}

// unitCells is the set of cells of u whose bits are set in m.
func unitCells(u int, m uint16) CellSet {
	var cs CellSet
	for i, c := range Units[u] {
		if m&(1<<i) != 0 {
			cs.Add(int(c))
		}
	}
	return cs
}

// crosses reports whether units a and b share cells.
func crosses(a, b int) bool { return !UnitSet[a].Intersect(UnitSet[b]).Empty() }

// sePairs are the (first, second) unit kinds of the intersections in
// Sudoku Explainer's order: box/column, box/row, column/box, row/box.
var sePairs = [4][2]int{{18, 9}, {18, 0}, {9, 18}, {0, 18}}

// lockings calls f for every digit confined to the intersection of unit u1
// with a unit u2, in Sudoku Explainer's order, until f returns true.
func (s *seGrid) lockings(f func(u1, u2 int, d uint8) bool) bool {
	for _, pr := range sePairs {
		for d := uint8(1); d <= 9; d++ {
			for i1 := 0; i1 < 9; i1++ {
				u1 := pr[0] + i1
				p := s.positions(u1, d)
				if bits.OnesCount16(p) < 2 {
					continue
				}
				cells := unitCells(u1, p)
				for i2 := 0; i2 < 9; i2++ {
					u2 := pr[1] + i2
					if crosses(u1, u2) && cells.Minus(UnitSet[u2]).Empty() && f(u1, u2, d) {
						return true
					}
				}
			}
		}
	}
	return false
}

// directLocking: pointing (1.7) or claiming (1.9) that leaves a hidden
// single in another unit of the first unit's kind; only the digit is placed.
func (s *seGrid) directLocking(h *seHint) bool {
	return s.lockings(func(u1, u2 int, d uint8) bool {
		base := u1 / 9 * 9
		for i3 := 0; i3 < 9; i3++ {
			u3 := base + i3
			if u3 == u1 || !crosses(u3, u2) {
				continue
			}
			p := s.positions(u3, d)
			if bits.OnesCount16(p) < 2 {
				continue
			}
			rest := unitCells(u3, p).Minus(UnitSet[u2])
			if rest.Len() == 1 {
				r := SERating(19)
				if u1 >= 18 {
					r = 17
				}
				h.placeDigit(r, "direct locking", rest.First(), d)
				return true
			}
		}
		return false
	})
}

// locking: pointing (2.6) or claiming (2.8).
func (s *seGrid) locking(h *seHint) bool {
	return s.lockings(func(u1, u2 int, d uint8) bool {
		for c := range UnitSet[u2].Minus(UnitSet[u1]).All() {
			if s.has(c, d) {
				h.remove(c, d)
			}
		}
		if len(h.elim) == 0 {
			return false
		}
		if u1 >= 18 {
			h.set(26, "pointing")
		} else {
			h.set(28, "claiming")
		}
		return true
	})
}

// combos calls f with every k-subset of 0..n-1 as a bit mask, until f
// returns true.
func combos(n, k int, f func(m uint16) bool) bool {
	var rec func(start, left int, m uint16) bool
	rec = func(start, left int, m uint16) bool {
		if left == 0 {
			return f(m)
		}
		for i := start; i <= n-left; i++ {
			if rec(i+1, left-1, m|1<<i) {
				return true
			}
		}
		return false
	}
	return rec(0, k, 0)
}

var hiddenSetNames = [5]string{"", "", "hidden pair", "hidden triple", "hidden quad"}
var hiddenSetRatings = [5]SERating{0, 0, 34, 40, 54}
var directHiddenRatings = [5]SERating{0, 0, 20, 25, 43}

// hiddenSet: degree digits confined to degree cells of a unit. Direct, it
// counts only when it leaves a hidden single in the unit (2.0, 2.5).
func (s *seGrid) hiddenSet(h *seHint, degree int, direct bool) bool {
	for _, u := range seUnitOrder {
		n := s.empty(u)
		if !(n > degree*2 || (direct && n > degree)) {
			continue
		}
		var pos [10]uint16
		for d := uint8(1); d <= 9; d++ {
			pos[d] = s.positions(u, d)
		}
		if combos(9, degree, func(dm uint16) bool {
			var common uint16
			for i := 0; i < 9; i++ {
				if dm&(1<<i) != 0 {
					p := pos[i+1]
					if bits.OnesCount16(p) < 2 {
						return false
					}
					common |= p
				}
			}
			if bits.OnesCount16(common) != degree {
				return false
			}
			digits := dm << 1
			if direct {
				for d := uint8(1); d <= 9; d++ {
					if digits&(1<<d) != 0 || bits.OnesCount16(pos[d]) < 2 {
						continue
					}
					if rest := pos[d] &^ common; bits.OnesCount16(rest) == 1 {
						h.placeDigit(directHiddenRatings[degree], "direct "+hiddenSetNames[degree], int(Units[u][bits.TrailingZeros16(rest)]), d)
						return true
					}
				}
				return false
			}
			for i, c := range Units[u] {
				if common&(1<<i) == 0 {
					continue
				}
				for d := uint8(1); d <= 9; d++ {
					if digits&(1<<d) == 0 && s.has(int(c), d) {
						h.remove(int(c), d)
					}
				}
			}
			if len(h.elim) == 0 {
				return false
			}
			h.set(hiddenSetRatings[degree], hiddenSetNames[degree])
			return true
		}) {
			return true
		}
	}
	return false
}

var nakedSetNames = [5]string{"", "", "naked pair", "naked triple", "naked quad"}
var nakedSetRatings = [5]SERating{0, 0, 30, 36, 50}

// nakedSet: degree cells of a unit holding only degree digits.
func (s *seGrid) nakedSet(h *seHint, degree int) bool {
	for _, u := range seUnitOrder {
		if s.empty(u) < degree*2 {
			continue
		}
		if combos(9, degree, func(cm uint16) bool {
			var common uint16
			for i, c := range Units[u] {
				if cm&(1<<i) != 0 {
					if s.count(int(c)) < 2 {
						return false
					}
					common |= s.cand[c]
				}
			}
			if bits.OnesCount16(common) != degree {
				return false
			}
			for i, c := range Units[u] {
				if cm&(1<<i) != 0 {
					continue
				}
				for d := uint8(1); d <= 9; d++ {
					if common&(1<<d) != 0 && s.has(int(c), d) {
						h.remove(int(c), d)
					}
				}
			}
			if len(h.elim) == 0 {
				return false
			}
			h.set(nakedSetRatings[degree], nakedSetNames[degree])
			return true
		}) {
			return true
		}
	}
	return false
}

var fishNames = [5]string{"", "", "X-Wing", "Swordfish", "Jellyfish"}
var fishRatings = [5]SERating{0, 0, 32, 38, 52}

// fish: a digit confined in degree columns (then rows) to degree rows
// (columns).
func (s *seGrid) fish(h *seHint, degree int) bool {
	var placed [10]int
	for c := 0; c < NumCells; c++ {
		placed[s.val[c]]++
	}
	for _, base := range [2]int{9, 0} {
		cover := 9 - base
		if combos(9, degree, func(lm uint16) bool {
			for d := uint8(1); d <= 9; d++ {
				if placed[d]+degree*2 > 9 {
					continue
				}
				var common uint16
				ok := true
				for i := 0; i < 9 && ok; i++ {
					if lm&(1<<i) != 0 {
						p := s.positions(base+i, d)
						if bits.OnesCount16(p) < 2 {
							ok = false
						}
						common |= p
					}
				}
				if !ok || bits.OnesCount16(common) != degree {
					continue
				}
				for j := 0; j < 9; j++ {
					if common&(1<<j) == 0 {
						continue
					}
					for i, c := range Units[cover+j] {
						if lm&(1<<i) == 0 && s.has(int(c), d) {
							h.remove(int(c), d)
						}
					}
				}
				if len(h.elim) > 0 {
					h.set(fishRatings[degree], fishNames[degree])
					return true
				}
			}
			return false
		}) {
			return true
		}
	}
	return false
}
