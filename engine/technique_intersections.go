package engine

import "math/bits"

// unitMasks is, for each digit and unit, where in the unit the digit is
// still a candidate: bit j set when the unit's j-th cell (in Units order)
// has it. For rows that is the column, for columns the row, for boxes the
// position in reading order.
type unitMasks [9][27]uint16

// unitMasks fills um from the per-digit cell sets: rows are cut straight out
// of the bitmap, boxes from three rows, columns by transposing the rows.
func (c *Candidates) unitMasks(um *unitMasks) {
	for d := 0; d < 9; d++ {
		p := c.pos[d]
		m := &um[d]
		for r := 0; r < 7; r++ {
			m[r] = uint16(p[0]>>(9*r)) & 0x1FF
		}
		m[7] = uint16(p[0]>>63) | uint16(p[1]&0xFF)<<1
		m[8] = uint16(p[1]>>8) & 0x1FF
		for c := 9; c < 18; c++ {
			m[c] = 0
		}
		for r := 0; r < 9; r++ {
			for b := m[r]; b != 0; b &= b - 1 {
				m[9+bits.TrailingZeros16(b)] |= 1 << r
			}
		}
		for b := 0; b < 9; b++ {
			r0, c0 := b/3*3, b%3*3
			m[18+b] = m[r0]>>c0&7 | (m[r0+1]>>c0&7)<<3 | (m[r0+2]>>c0&7)<<6
		}
	}
}

// findPointing finds locked candidates of type 1: within a box, a digit's
// candidates all lie in one row or column, so the digit is in that part of
// the line and can be removed from the rest of the line.
func findPointing(c *Candidates, st *Step, dv *derived) bool {
	um := dv.masks(c)
	for b := 0; b < 9; b++ {
		r0, c0 := b/3*3, b%3*3
		for d := uint8(1); d <= 9; d++ {
			m := &um[d-1]
			bm := m[18+b]
			if n := bits.OnesCount16(bm); n < 2 || n > 3 {
				continue // none, a hidden single, or too many for one line
			}
			line, out := -1, uint16(0)
			for i := 0; i < 3 && line < 0; i++ {
				if bm&^(7<<(3*i)) == 0 {
					line, out = r0+i, m[r0+i]&^(7<<c0)
				}
			}
			for j := 0; j < 3 && line < 0; j++ {
				if bm&^(0x49<<j) == 0 {
					line, out = 9+c0+j, m[9+c0+j]&^(7<<r0)
				}
			}
			if out == 0 {
				continue
			}
			if dv.batch {
				st.Eliminate = appendElims(st.Eliminate, c.pos[d-1].Intersect(UnitSet[line]).Minus(UnitSet[18+b]), d)
				continue
			}
			st.Cells = c.pos[d-1].Intersect(UnitSet[18+b]).Cells(st.Cells)
			st.Digits = append(st.Digits, d)
			st.Units = append(st.Units, 18+b, line)
			st.Eliminate = appendElims(st.Eliminate, c.pos[d-1].Intersect(UnitSet[line]).Minus(UnitSet[18+b]), d)
			return true
		}
	}
	return len(st.Eliminate) > 0
}

// findClaiming finds locked candidates of type 2: within a row or column, a
// digit's candidates all lie in one box, so the digit can be removed from
// the rest of that box.
func findClaiming(c *Candidates, st *Step, dv *derived) bool {
	um := dv.masks(c)
	for line := 0; line < 18; line++ {
		for d := uint8(1); d <= 9; d++ {
			lm := um[d-1][line]
			if n := bits.OnesCount16(lm); n < 2 || n > 3 {
				continue // none, a hidden single, or too many for one box
			}
			k := -1
			for i := 0; i < 3; i++ {
				if lm&^(7<<(3*i)) == 0 {
					k = i
				}
			}
			if k < 0 {
				continue
			}
			var b int
			if line < 9 {
				b = line/3*3 + k
			} else {
				b = k*3 + (line-9)/3
			}
			box := UnitSet[18+b]
			ls := UnitSet[line]
			out := c.pos[d-1].Intersect(box).Minus(ls)
			if out.Empty() {
				continue
			}
			if dv.batch {
				st.Eliminate = appendElims(st.Eliminate, out, d)
				continue
			}
			st.Cells = c.pos[d-1].Intersect(ls).Cells(st.Cells)
			st.Digits = append(st.Digits, d)
			st.Units = append(st.Units, line, 18+b)
			st.Eliminate = appendElims(st.Eliminate, out, d)
			return true
		}
	}
	return len(st.Eliminate) > 0
}

// appendElims appends the elimination of d from every cell of s.
func appendElims(dst []Candidate, s CellSet, d uint8) []Candidate {
	for cell := s.First(); cell >= 0; cell = nextCell(s, cell) {
		dst = append(dst, Candidate{cell, d})
	}
	return dst
}

// nextCell is the lowest cell of s above after, or -1: iteration without
// the closures of CellSet.All, which would move the solver's state to the
// heap.
func nextCell(s CellSet, after int) int {
	after++
	if after < 64 {
		if w := s[0] &^ (1<<uint(after) - 1); w != 0 {
			return bits.TrailingZeros64(w)
		}
		after = 64
	}
	if after < NumCells {
		if w := s[1] &^ (1<<uint(after-64) - 1); w != 0 {
			return 64 + bits.TrailingZeros64(w)
		}
	}
	return -1
}
