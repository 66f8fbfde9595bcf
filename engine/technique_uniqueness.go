package engine

import "math/bits"

// The uniqueness techniques assume the puzzle has exactly one solution, as
// every puzzle GradePuzzle and NextHint accept does. A deadly pattern is
// four empty cells at the corners of a rectangle that spans two rows, two
// columns and two boxes, all holding only the same two digits: the two
// digits could then be swapped in a second solution. The techniques
// eliminate whatever would leave such a pattern.

// findUniqueRectangle finds a unique rectangle of type 1, 2 or 4:
//
//	type 1: three corners are exactly {a,b}; the fourth cannot be a or b.
//	type 2: two corners on one side are exactly {a,b}; the other two are
//	        {a,b,x}; one of them is x, so cells that see both are not x.
//	type 4: two corners on one side are exactly {a,b}; in a unit holding
//	        the other two, a can only go in those two: one of them is a,
//	        so neither can be b.
func findUniqueRectangle(c *Candidates, st *Step, typ int) bool {
	for r1 := 0; r1 < 9; r1++ {
		for r2 := r1 + 1; r2 < 9; r2++ {
			sameBand := r1/3 == r2/3
			for c1 := 0; c1 < 9; c1++ {
				for c2 := c1 + 1; c2 < 9; c2++ {
					if sameBand == (c1/3 == c2/3) {
						continue // four boxes, or one: not a deadly pattern
					}
					corners := [4]int{r1*9 + c1, r1*9 + c2, r2*9 + c1, r2*9 + c2}
					common := allDigits
					for _, k := range corners {
						common &= c.mask[k] // 0 for a filled cell
					}
					if bits.OnesCount16(common) < 2 {
						continue
					}
					for m := common; m != 0; m &= m - 1 {
						a := uint8(bits.TrailingZeros16(m))
						for m2 := m & (m - 1); m2 != 0; m2 &= m2 - 1 {
							b := uint8(bits.TrailingZeros16(m2))
							if urCheck(c, st, typ, corners, a, b) {
								return true
							}
						}
					}
				}
			}
		}
	}
	return false
}

// urCheck looks for a unique rectangle of the given type on four corners
// (r1c1, r1c2, r2c1, r2c2 order) that all hold a and b.
func urCheck(c *Candidates, st *Step, typ int, k [4]int, a, b uint8) bool {
	pair := uint16(1)<<a | uint16(1)<<b
	var exact [4]bool
	n := 0
	for i, cell := range k {
		if c.mask[cell] == pair {
			exact[i] = true
			n++
		}
	}
	switch typ {
	case 1:
		if n != 3 {
			return false
		}
		roof := 0
		for i := range k {
			if !exact[i] {
				roof = i
			}
		}
		for i := range k {
			if i != roof {
				st.Cells = append(st.Cells, k[i])
			}
		}
		st.Cells = append(st.Cells, k[roof])
		st.Digits = append(st.Digits, a, b)
		st.Eliminate = append(st.Eliminate, Candidate{k[roof], a}, Candidate{k[roof], b})
		return true
	case 2, 4:
		if n != 2 {
			return false
		}
		// The two exact corners must be on one side (same row or column);
		// the sides are (0,1), (2,3), (0,2), (1,3).
		for _, side := range [4][4]int{{0, 1, 2, 3}, {2, 3, 0, 1}, {0, 2, 1, 3}, {1, 3, 0, 2}} {
			f1, f2, q1, q2 := k[side[0]], k[side[1]], k[side[2]], k[side[3]]
			if !exact[side[0]] || !exact[side[1]] {
				continue
			}
			if typ == 2 {
				extra := c.mask[q1] &^ pair
				if c.mask[q2] != c.mask[q1] || bits.OnesCount16(extra) != 1 {
					return false
				}
				x := uint8(bits.TrailingZeros16(extra))
				targets := PeerSet[q1].Intersect(PeerSet[q2]).Intersect(c.pos[x-1])
				if targets.Empty() {
					return false
				}
				st.Cells = append(st.Cells, f1, f2, q1, q2)
				st.Digits = append(st.Digits, a, b, x)
				st.Eliminate = appendElims(st.Eliminate, targets, x)
				return true
			}
			// Type 4: a unit holding both roof cells where one of the pair
			// digits has no other place.
			for i := 0; i < 3; i++ {
				u := int(CellUnits[q1][i])
				if CellUnits[q2][i] != CellUnits[q1][i] {
					continue
				}
				for _, dd := range [2][2]uint8{{a, b}, {b, a}} {
					strong, weak := dd[0], dd[1]
					in := c.pos[strong-1].Intersect(UnitSet[u])
					if in.Len() != 2 || !in.Has(q1) || !in.Has(q2) {
						continue
					}
					st.Cells = append(st.Cells, f1, f2, q1, q2)
					st.Digits = append(st.Digits, strong, weak)
					st.Units = append(st.Units, u)
					st.Eliminate = append(st.Eliminate, Candidate{q1, weak}, Candidate{q2, weak})
					return true
				}
			}
			return false
		}
	}
	return false
}

// findBUG finds a bivalue universal grave plus one: every empty cell has two
// candidates except one with three, and every digit appears twice in each
// unit except one digit, three times in each unit of that cell. Without that
// digit in that cell the board would be a BUG, which has no solution or
// several, so the cell must take it.
func findBUG(c *Candidates, st *Step) bool {
	extra := -1
	for cell := c.unsolved.First(); cell >= 0; cell = nextCell(c.unsolved, cell) {
		switch bits.OnesCount16(c.mask[cell]) {
		case 2:
		case 3:
			if extra >= 0 {
				return false
			}
			extra = cell
		default:
			return false
		}
	}
	if extra < 0 {
		return false
	}
	var digit uint8
	for m := c.mask[extra]; m != 0; m &= m - 1 {
		d := uint8(bits.TrailingZeros16(m))
		three := true
		for _, u := range CellUnits[extra] {
			if c.pos[d-1].Intersect(UnitSet[u]).Len() != 3 {
				three = false
			}
		}
		if three {
			if digit != 0 {
				return false
			}
			digit = d
		}
	}
	if digit == 0 {
		return false
	}
	for u := 0; u < 27; u++ {
		for d := uint8(1); d <= 9; d++ {
			n := c.pos[d-1].Intersect(UnitSet[u]).Len()
			if d == digit && UnitSet[u].Has(extra) {
				if n != 3 {
					return false
				}
			} else if n != 0 && n != 2 {
				return false
			}
		}
	}
	st.Place = append(st.Place, Candidate{extra, digit})
	st.Cells = append(st.Cells, extra)
	st.Digits = append(st.Digits, digit)
	return true
}
