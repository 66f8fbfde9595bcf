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
// step-by-step solver reaches too. Cells left with one candidate are kept
// on a stack as placements create them, so a chain of naked singles costs
// one visit per cell; hidden singles take a scan of the units. It returns
// false when it meets a contradiction: an empty cell with no candidate, or
// a digit with no place left in a unit.
func (c *Candidates) propagateSingles() bool {
	return c.propagate(1<<27-1, c.unsolved)
}

// propagate is propagateSingles for a board that was closed under singles
// before some candidates went: only the units in dirty can hold a new
// hidden single and only the cells in check a new naked single.
func (c *Candidates) propagate(dirty uint32, check CellSet) bool {
	var stack [NumCells]int8
	sp := 0
	check = check.Intersect(c.unsolved)
	for w := 0; w < 2; w++ {
		for b := check[w]; b != 0; b &= b - 1 {
			cell := w<<6 | bits.TrailingZeros64(b)
			m := c.mask[cell]
			if m == 0 {
				return false
			}
			if m&(m-1) == 0 {
				stack[sp] = int8(cell)
				sp++
			}
		}
	}
	for {
		for sp > 0 {
			sp--
			cell := int(stack[sp])
			if c.value[cell] != 0 {
				continue
			}
			m := c.mask[cell]
			if m == 0 {
				return false
			}
			if !c.placeSingle(cell, uint8(bits.TrailingZeros16(m)), &stack, &sp, &dirty) {
				return false
			}
		}
		if c.unsolved.Empty() {
			return true
		}
		found := false
		for scan := dirty; scan != 0; scan &= scan - 1 {
			u := bits.TrailingZeros32(scan)
			dirty &^= 1 << u
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
					return false // another single of this unit took its cell
				}
				if !c.placeSingle(cell, d, &stack, &sp, &dirty) {
					return false
				}
				found = true
			}
		}
		if !found && sp == 0 && dirty == 0 {
			return true
		}
	}
}

// placeSingle is Place for propagateSingles: it pushes the peers left with
// one candidate onto the stack, marks the units whose candidates changed as
// dirty, and reports false when a peer is left with none.
func (c *Candidates) placeSingle(cell int, d uint8, stack *[NumCells]int8, sp *int, dirty *uint32) bool {
	c.value[cell] = d
	for m := c.mask[cell]; m != 0; m &= m - 1 {
		c.pos[bits.TrailingZeros16(m)-1].Remove(cell)
	}
	c.mask[cell] = 0
	c.unsolved.Remove(cell)
	u := &CellUnits[cell]
	*dirty |= 1<<u[0] | 1<<u[1] | 1<<u[2]
	bit := uint16(1) << d
	ps := &c.pos[d-1]
	hit := ps.Intersect(PeerSet[cell])
	*ps = ps.Minus(PeerSet[cell])
	for w := 0; w < 2; w++ {
		for b := hit[w]; b != 0; b &= b - 1 {
			p := w<<6 | bits.TrailingZeros64(b)
			m := c.mask[p] &^ bit
			c.mask[p] = m
			pu := &CellUnits[p]
			*dirty |= 1<<pu[0] | 1<<pu[1] | 1<<pu[2]
			if m == 0 {
				return false
			}
			if m&(m-1) == 0 && *sp < NumCells {
				stack[*sp] = int8(p)
				*sp++
			}
		}
	}
	return true
}
