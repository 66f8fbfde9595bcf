package engine

import "math/bits"

// combos walks the k-element subsets of {0..n-1} in lexicographic order
// without allocating: start with first, move on with next.
type combos struct {
	n, k int
	idx  [4]int
}

func (cb *combos) first(n, k int) bool {
	cb.n, cb.k = n, k
	for i := 0; i < k; i++ {
		cb.idx[i] = i
	}
	return k <= n
}

func (cb *combos) next() bool {
	i := cb.k - 1
	for i >= 0 && cb.idx[i] == cb.n-cb.k+i {
		i--
	}
	if i < 0 {
		return false
	}
	cb.idx[i]++
	for j := i + 1; j < cb.k; j++ {
		cb.idx[j] = cb.idx[j-1] + 1
	}
	return true
}

// findNakedSubset finds n cells of a unit whose candidates together are n
// digits: those digits must go in those cells, so no other cell of the unit
// can hold them.
func findNakedSubset(c *Candidates, st *Step, n int) bool {
	var cells [9]int
	for u := 0; u < 27; u++ {
		k, empty := 0, 0
		for _, cell := range &Units[u] {
			if c.value[cell] != 0 {
				continue
			}
			empty++
			if cnt := bits.OnesCount16(c.mask[cell]); cnt >= 2 && cnt <= n {
				cells[k] = int(cell)
				k++
			}
		}
		if k < n || empty <= n {
			continue
		}
		var cb combos
		for ok := cb.first(k, n); ok; ok = cb.next() {
			var union uint16
			for i := 0; i < n; i++ {
				union |= c.mask[cells[cb.idx[i]]]
			}
			if bits.OnesCount16(union) != n {
				continue
			}
			var in CellSet
			for i := 0; i < n; i++ {
				in.Add(cells[cb.idx[i]])
			}
			others := c.unsolved.Intersect(UnitSet[u]).Minus(in)
			hit := false
			for cell := others.First(); cell >= 0; cell = nextCell(others, cell) {
				if c.mask[cell]&union != 0 {
					hit = true
					break
				}
			}
			if !hit {
				continue
			}
			st.Cells = in.Cells(st.Cells)
			st.Digits = appendMaskDigits(st.Digits, union)
			st.Units = append(st.Units, u)
			for m := union; m != 0; m &= m - 1 {
				d := uint8(bits.TrailingZeros16(m))
				st.Eliminate = appendElims(st.Eliminate, others.Intersect(c.pos[d-1]), d)
			}
			return true
		}
	}
	return false
}

// findHiddenSubset finds n digits that, within a unit, can only go in the
// same n cells: those cells must hold those digits, so their other
// candidates go.
func findHiddenSubset(c *Candidates, st *Step, n int) bool {
	var digits [9]uint8
	var where [10]uint16 // where[d]: bit j set when Units[u][j] has candidate d
	for u := 0; u < 27; u++ {
		where = [10]uint16{}
		empty := 0
		for j, cell := range &Units[u] {
			if c.value[cell] != 0 {
				continue
			}
			empty++
			for m := c.mask[cell]; m != 0; m &= m - 1 {
				where[bits.TrailingZeros16(m)] |= 1 << j
			}
		}
		if empty <= n {
			continue
		}
		k := 0
		for d := uint8(1); d <= 9; d++ {
			if cnt := bits.OnesCount16(where[d]); cnt >= 2 && cnt <= n {
				digits[k] = d
				k++
			}
		}
		var cb combos
		for ok := cb.first(k, n); ok; ok = cb.next() {
			var union, dm uint16
			for i := 0; i < n; i++ {
				d := digits[cb.idx[i]]
				union |= where[d]
				dm |= 1 << d
			}
			if bits.OnesCount16(union) != n {
				continue
			}
			hit := false
			for m := union; m != 0; m &= m - 1 {
				if c.mask[Units[u][bits.TrailingZeros16(m)]]&^dm != 0 {
					hit = true
					break
				}
			}
			if !hit {
				continue
			}
			for m := union; m != 0; m &= m - 1 {
				cell := int(Units[u][bits.TrailingZeros16(m)])
				st.Cells = append(st.Cells, cell)
			}
			sortInts(st.Cells)
			for _, cell := range st.Cells {
				for x := c.mask[cell] &^ dm; x != 0; x &= x - 1 {
					st.Eliminate = append(st.Eliminate, Candidate{cell, uint8(bits.TrailingZeros16(x))})
				}
			}
			st.Digits = appendMaskDigits(st.Digits, dm)
			st.Units = append(st.Units, u)
			return true
		}
	}
	return false
}

// appendMaskDigits appends the digits of a candidate mask, ascending.
func appendMaskDigits(dst DigitList, m uint16) DigitList {
	for ; m != 0; m &= m - 1 {
		dst = append(dst, uint8(bits.TrailingZeros16(m)))
	}
	return dst
}

// sortInts sorts a short slice in place (insertion sort: no allocation).
func sortInts(s []int) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
