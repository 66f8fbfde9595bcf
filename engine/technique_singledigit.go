package engine

import "math/bits"

// findSkyscraper finds two rows (or columns) in which a digit has exactly
// two candidates each, one of each pair in the same column (row): the two
// cannot both be the digit, so one of the other two ends is, and no cell
// that sees both ends can be.
func findSkyscraper(c *Candidates, st *Step, dv *derived) bool {
	um := dv.masks(c)
	for d := uint8(1); d <= 9; d++ {
		p := c.pos[d-1]
		for _, byRow := range [2]bool{true, false} {
			lines := lineSlice(um, d, byRow)
			for i1 := 0; i1 < 9; i1++ {
				if bits.OnesCount16(lines[i1]) != 2 {
					continue
				}
				for i2 := i1 + 1; i2 < 9; i2++ {
					if bits.OnesCount16(lines[i2]) != 2 {
						continue
					}
					common := lines[i1] & lines[i2]
					if bits.OnesCount16(common) != 1 {
						continue // unlinked, or an X-Wing
					}
					s := bits.TrailingZeros16(common)
					a1, b1 := lineCell(i1, s, byRow), lineCell(i2, s, byRow)
					a2 := lineCell(i1, bits.TrailingZeros16(lines[i1]&^common), byRow)
					b2 := lineCell(i2, bits.TrailingZeros16(lines[i2]&^common), byRow)
					targets := PeerSet[a2].Intersect(PeerSet[b2]).Intersect(p)
					targets.Remove(a1)
					targets.Remove(b1)
					if targets.Empty() {
						continue
					}
					st.Eliminate = appendElims(st.Eliminate, targets, d)
					st.Cells = append(st.Cells, a2, a1, b1, b2)
					st.Digits = append(st.Digits, d)
					if byRow {
						st.Units = append(st.Units, i1, i2)
					} else {
						st.Units = append(st.Units, 9+i1, 9+i2)
					}
					return true
				}
			}
		}
	}
	return false
}

// findTwoStringKite finds a row and a column in which a digit has exactly
// two candidates each, one end of each in the same box (different cells):
// those two cannot both be the digit, so the row's other end or the
// column's other end is, and the cell that sees both (in the other end's
// row and column) cannot be.
func findTwoStringKite(c *Candidates, st *Step, dv *derived) bool {
	um := dv.masks(c)
	for d := uint8(1); d <= 9; d++ {
		m := &um[d-1]
		p := c.pos[d-1]
		for r := 0; r < 9; r++ {
			if bits.OnesCount16(m[r]) != 2 {
				continue
			}
			rc := [2]int{r*9 + bits.TrailingZeros16(m[r]), r*9 + 15 - bits.LeadingZeros16(m[r])}
			for col := 0; col < 9; col++ {
				if bits.OnesCount16(m[9+col]) != 2 {
					continue
				}
				cc := [2]int{bits.TrailingZeros16(m[9+col])*9 + col, (15-bits.LeadingZeros16(m[9+col]))*9 + col}
				for a := 0; a < 2; a++ {
					for b := 0; b < 2; b++ {
						r1, r2, c1, c2 := rc[a], rc[1-a], cc[b], cc[1-b]
						box := Box(r1)
						if r1 == c1 || Box(c1) != box || Box(r2) == box || Box(c2) == box {
							continue
						}
						target := Row(c2)*9 + Col(r2)
						if !p.Has(target) {
							continue
						}
						st.Eliminate = append(st.Eliminate, Candidate{target, d})
						st.Cells = append(st.Cells, r2, r1, c1, c2)
						st.Digits = append(st.Digits, d)
						st.Units = append(st.Units, r, 9+col, 18+box)
						return true
					}
				}
			}
		}
	}
	return false
}
