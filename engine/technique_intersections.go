package engine

import "math/bits"

// boxLines lists, for each box, its three rows and three columns (unit
// indexes).
var boxLines = func() (o [9][6]int) {
	for b := 0; b < 9; b++ {
		r0, c0 := b/3*3, b%3*3
		o[b] = [6]int{r0, r0 + 1, r0 + 2, 9 + c0, 9 + c0 + 1, 9 + c0 + 2}
	}
	return o
}()

// findPointing finds locked candidates of type 1: within a box, a digit's
// candidates all lie in one row or column, so the digit is in that part of
// the line and can be removed from the rest of the line.
func findPointing(c *Candidates, st *Step) bool {
	for b := 0; b < 9; b++ {
		box := UnitSet[18+b]
		for d := uint8(1); d <= 9; d++ {
			in := c.pos[d-1].Intersect(box)
			if n := in.Len(); n < 2 || n > 3 {
				continue // none, a hidden single, or too many for one line
			}
			for _, line := range boxLines[b] {
				if !in.Minus(UnitSet[line]).Empty() {
					continue
				}
				out := c.pos[d-1].Intersect(UnitSet[line]).Minus(box)
				if out.Empty() {
					break
				}
				st.Cells = in.Cells(st.Cells)
				st.Digits = append(st.Digits, d)
				st.Units = append(st.Units, 18+b, line)
				st.Eliminate = appendElims(st.Eliminate, out, d)
				return true
			}
		}
	}
	return false
}

// findClaiming finds locked candidates of type 2: within a row or column, a
// digit's candidates all lie in one box, so the digit can be removed from
// the rest of that box.
func findClaiming(c *Candidates, st *Step) bool {
	for line := 0; line < 18; line++ {
		ls := UnitSet[line]
		for d := uint8(1); d <= 9; d++ {
			in := c.pos[d-1].Intersect(ls)
			if n := in.Len(); n < 2 || n > 3 {
				continue // none, a hidden single, or too many for one box
			}
			first := in.First()
			b := Box(first)
			box := UnitSet[18+b]
			if !in.Minus(box).Empty() {
				continue
			}
			out := c.pos[d-1].Intersect(box).Minus(ls)
			if out.Empty() {
				continue
			}
			st.Cells = in.Cells(st.Cells)
			st.Digits = append(st.Digits, d)
			st.Units = append(st.Units, line, 18+b)
			st.Eliminate = appendElims(st.Eliminate, out, d)
			return true
		}
	}
	return false
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
