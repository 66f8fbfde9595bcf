package engine

import (
	"iter"
	"math/bits"
)

// CellSet is a set of cells as an 81-bit bitmap; it is a value, copied
// freely, and none of its methods allocate.
type CellSet [2]uint64

// CellSetOf returns the set holding the given cells.
func CellSetOf(cells ...int) CellSet {
	var s CellSet
	for _, c := range cells {
		s.Add(c)
	}
	return s
}

// Add puts cell c in the set.
func (s *CellSet) Add(c int) { s[c>>6] |= 1 << (uint(c) & 63) }

// Remove takes cell c out of the set.
func (s *CellSet) Remove(c int) { s[c>>6] &^= 1 << (uint(c) & 63) }

// Has reports whether cell c is in the set.
func (s CellSet) Has(c int) bool { return s[c>>6]&(1<<(uint(c)&63)) != 0 }

// Len is the number of cells in the set.
func (s CellSet) Len() int { return bits.OnesCount64(s[0]) + bits.OnesCount64(s[1]) }

// Empty reports whether the set has no cells.
func (s CellSet) Empty() bool { return s[0]|s[1] == 0 }

// Union, Intersect and Minus are the set operations.
func (s CellSet) Union(t CellSet) CellSet { return CellSet{s[0] | t[0], s[1] | t[1]} }

// Intersect is the cells in both sets.
func (s CellSet) Intersect(t CellSet) CellSet { return CellSet{s[0] & t[0], s[1] & t[1]} }

// Minus is the cells in s but not in t.
func (s CellSet) Minus(t CellSet) CellSet { return CellSet{s[0] &^ t[0], s[1] &^ t[1]} }

// First is the lowest cell in the set, or -1 when it is empty.
func (s CellSet) First() int {
	if s[0] != 0 {
		return bits.TrailingZeros64(s[0])
	}
	if s[1] != 0 {
		return 64 + bits.TrailingZeros64(s[1])
	}
	return -1
}

// All iterates over the cells in ascending order.
func (s CellSet) All() iter.Seq[int] {
	return func(yield func(int) bool) {
		for w := 0; w < 2; w++ {
			for b := s[w]; b != 0; b &= b - 1 {
				if !yield(w<<6 | bits.TrailingZeros64(b)) {
					return
				}
			}
		}
	}
}

// Cells appends the cells in ascending order to dst and returns it; with a
// dst of enough capacity it does not allocate.
func (s CellSet) Cells(dst []int) []int {
	for w := 0; w < 2; w++ {
		for b := s[w]; b != 0; b &= b - 1 {
			dst = append(dst, w<<6|bits.TrailingZeros64(b))
		}
	}
	return dst
}
