package engine

import "math/bits"

// subsetIter walks, in lexicographic order, the n-element subsets of up to
// nine bitmasks whose union has exactly n bits (n <= 4), pruning every
// partial subset whose union already has more: the search behind naked
// and hidden subsets and basic fish. It allocates nothing.
type subsetIter struct {
	items    [9]uint16
	k, n     int
	depth    int
	idx      [4]int
	union    [5]uint16
	finished bool
}

func (it *subsetIter) start(items []uint16, n int) {
	it.k = copy(it.items[:], items)
	it.n = n
	it.depth = 0
	it.idx[0] = -1
	it.union[0] = 0
	it.finished = it.k < n
}

// next moves to the next subset; idx[:n] are its items, union[n] their union.
func (it *subsetIter) next() bool {
	if it.finished {
		return false
	}
	for it.depth >= 0 {
		d := it.depth
		it.idx[d]++
		if it.idx[d] > it.k-(it.n-d) {
			it.depth--
			continue
		}
		u := it.union[d] | it.items[it.idx[d]]
		cnt := bits.OnesCount16(u)
		if cnt > it.n {
			continue
		}
		it.union[d+1] = u
		if d == it.n-1 {
			if cnt == it.n {
				return true
			}
			continue
		}
		it.depth = d + 1
		it.idx[d+1] = it.idx[d]
	}
	it.finished = true
	return false
}

// findNakedSubset finds n cells of a unit whose candidates together are n
// digits: those digits must go in those cells, so no other cell of the unit
// can hold them.
func findNakedSubset(c *Candidates, st *Step, n int) bool {
	var cells [9]int
	var masks [9]uint16
	var it subsetIter
	for u := 0; u < 27; u++ {
		k, empty := 0, 0
		for _, cell := range &Units[u] {
			if c.value[cell] != 0 {
				continue
			}
			empty++
			if cnt := bits.OnesCount16(c.mask[cell]); cnt >= 2 && cnt <= n {
				cells[k] = int(cell)
				masks[k] = c.mask[cell]
				k++
			}
		}
		if k < n || empty <= n {
			continue
		}
		for it.start(masks[:k], n); it.next(); {
			union := it.union[n]
			var in CellSet
			for i := 0; i < n; i++ {
				in.Add(cells[it.idx[i]])
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
func findHiddenSubset(c *Candidates, st *Step, dv *derived, n int) bool {
	var digits [9]uint8
	um := dv.masks(c)
	var it subsetIter
	for u := 0; u < 27; u++ {
		var any uint16
		for d := 0; d < 9; d++ {
			any |= um[d][u]
		}
		if bits.OnesCount16(any) <= n {
			continue // no cell left for another digit to lose
		}
		k := 0
		var places [9]uint16
		for d := uint8(1); d <= 9; d++ {
			if cnt := bits.OnesCount16(um[d-1][u]); cnt >= 2 && cnt <= n {
				digits[k] = d
				places[k] = um[d-1][u]
				k++
			}
		}
		for it.start(places[:k], n); it.next(); {
			union := it.union[n]
			var dm uint16
			for i := 0; i < n; i++ {
				dm |= 1 << digits[it.idx[i]]
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
