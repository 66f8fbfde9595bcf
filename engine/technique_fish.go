package engine

import "math/bits"

// lineSlice is a digit's unit masks for the rows (bit c for column c) when
// byRow, or the columns (bit r for row r).
func lineSlice(um *unitMasks, d uint8, byRow bool) (m [9]uint16) {
	if byRow {
		copy(m[:], um[d-1][0:9])
	} else {
		copy(m[:], um[d-1][9:18])
	}
	return m
}

// lineCell is the cell at position j of base line i: row i, column j when
// byRow, else column i, row j.
func lineCell(i, j int, byRow bool) int {
	if byRow {
		return i*9 + j
	}
	return j*9 + i
}

// findFish finds a basic fish of size n (X-Wing 2, Swordfish 3, Jellyfish
// 4): n rows in which a digit's candidates all lie in the same n columns
// (or n columns and n rows). Each of those rows needs the digit in one of
// those columns, which fills them, so no other cell of the columns can
// hold it.
func findFish(c *Candidates, st *Step, dv *derived, n int) bool {
	var base [9]int
	var masks [9]uint16
	var it subsetIter
	um := dv.masks(c)
	for d := uint8(1); d <= 9; d++ {
		p := c.pos[d-1]
		if p.Len() < 2*n {
			continue
		}
		for _, byRow := range [2]bool{true, false} {
			lines := lineSlice(um, d, byRow)
			k := 0
			for i := 0; i < 9; i++ {
				if cnt := bits.OnesCount16(lines[i]); cnt >= 2 && cnt <= n {
					base[k] = i
					masks[k] = lines[i]
					k++
				}
			}
			for it.start(masks[:k], n); it.next(); {
				cover, inBase := it.union[n], uint16(0)
				for i := 0; i < n; i++ {
					inBase |= 1 << base[it.idx[i]]
				}
				hit := false
				for i := 0; i < 9 && !hit; i++ {
					hit = inBase&(1<<i) == 0 && lines[i]&cover != 0
				}
				if !hit {
					continue
				}
				for i := 0; i < 9; i++ {
					if inBase&(1<<i) != 0 {
						continue
					}
					for m := lines[i] & cover; m != 0; m &= m - 1 {
						st.Eliminate = append(st.Eliminate, Candidate{lineCell(i, bits.TrailingZeros16(m), byRow), d})
					}
				}
				sortCandidates(st.Eliminate)
				for i := 0; i < n; i++ {
					bi := base[it.idx[i]]
					for m := lines[bi]; m != 0; m &= m - 1 {
						st.Cells = append(st.Cells, lineCell(bi, bits.TrailingZeros16(m), byRow))
					}
				}
				sortInts(st.Cells)
				st.Digits = append(st.Digits, d)
				off, coverOff := 0, 9
				if !byRow {
					off, coverOff = 9, 0
				}
				for i := 0; i < n; i++ {
					st.Units = append(st.Units, off+base[it.idx[i]])
				}
				for m := cover; m != 0; m &= m - 1 {
					st.Units = append(st.Units, coverOff+bits.TrailingZeros16(m))
				}
				return true
			}
		}
	}
	return false
}

// sortCandidates sorts by cell, then digit (insertion sort: no allocation).
func sortCandidates(s []Candidate) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && (s[j].Cell < s[j-1].Cell || (s[j].Cell == s[j-1].Cell && s[j].Digit < s[j-1].Digit)); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
