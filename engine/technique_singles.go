package engine

import "math/bits"

// singleUnitOrder is the order the singles look at units in: boxes first,
// then rows, then columns, the order most players scan a board in.
var singleUnitOrder = func() (o [27]int) {
	for i := 0; i < 9; i++ {
		o[i], o[9+i], o[18+i] = 18+i, i, 9+i
	}
	return o
}()

// findFullHouse finds a unit with one empty cell left: that cell takes the
// unit's missing digit.
func findFullHouse(c *Candidates, st *Step) bool {
	for _, u := range singleUnitOrder {
		empty := c.unsolved.Intersect(UnitSet[u])
		if empty.Len() != 1 {
			continue
		}
		cell := empty.First()
		m := c.mask[cell]
		if bits.OnesCount16(m) != 1 {
			continue // a contradiction: leave it to the caller to get stuck
		}
		d := uint8(bits.TrailingZeros16(m))
		st.Place = append(st.Place, Candidate{cell, d})
		st.Cells = append(st.Cells, cell)
		st.Digits = append(st.Digits, d)
		st.Units = append(st.Units, u)
		return true
	}
	return false
}

// findNakedSingle finds an empty cell with one candidate left.
func findNakedSingle(c *Candidates, st *Step) bool {
	for cell := c.unsolved.First(); cell >= 0; cell = nextCell(c.unsolved, cell) {
		m := c.mask[cell]
		if m != 0 && m&(m-1) == 0 {
			d := uint8(bits.TrailingZeros16(m))
			st.Place = append(st.Place, Candidate{cell, d})
			st.Cells = append(st.Cells, cell)
			st.Digits = append(st.Digits, d)
			return true
		}
	}
	return false
}

// findHiddenSingle finds a digit with one place left in a unit.
func findHiddenSingle(c *Candidates, st *Step) bool {
	for _, u := range singleUnitOrder {
		once, twice := uint16(0), uint16(0)
		for _, cell := range &Units[u] {
			m := c.mask[cell]
			twice |= once & m
			once |= m
		}
		hidden := once &^ twice
		if hidden == 0 {
			continue
		}
		d := uint8(bits.TrailingZeros16(hidden))
		cell := c.pos[d-1].Intersect(UnitSet[u]).First()
		st.Place = append(st.Place, Candidate{cell, d})
		st.Cells = append(st.Cells, cell)
		st.Digits = append(st.Digits, d)
		st.Units = append(st.Units, u)
		return true
	}
	return false
}

// propagateSingles places naked and hidden singles (full houses are naked
// singles) until none is left, all at once rather than one step at a time:
// singles only ever become more available as digits are placed, so the
// board they reach is the same whatever the order, and it is the board the
// step-by-step solver reaches too. It returns false when it meets a
// contradiction: an empty cell with no candidate, a digit with no place in
// a unit, or two singles that want the same cell or the same digit twice in
// a unit.
func (c *Candidates) propagateSingles() bool {
	for {
		progress := false
		for w := 0; w < 2; w++ {
			for b := c.unsolved[w]; b != 0; b &= b - 1 {
				cell := w<<6 | bits.TrailingZeros64(b)
				m := c.mask[cell]
				if m == 0 {
					return false
				}
				if m&(m-1) == 0 {
					c.Place(cell, uint8(bits.TrailingZeros16(m)))
					progress = true
				}
			}
		}
		for u := range Units {
			once, twice, placed := uint16(0), uint16(0), uint16(0)
			for _, cell := range &Units[u] {
				m := c.mask[cell]
				twice |= once & m
				once |= m
				placed |= 1 << c.value[cell]
			}
			if (once|placed)&allDigits != allDigits {
				return false
			}
			for hidden := once &^ twice; hidden != 0; hidden &= hidden - 1 {
				d := uint8(bits.TrailingZeros16(hidden))
				cell := c.pos[d-1].Intersect(UnitSet[u]).First()
				if cell < 0 {
					return false // placed by another single of this unit just now
				}
				if c.value[cell] != 0 {
					return false
				}
				c.Place(cell, d)
				progress = true
			}
		}
		if !progress {
			return true
		}
	}
}
