package engine

import "math/bits"

// patternBranch picks a digit-band to branch on: in the unsolved band with
// the fewest patterns left over all its digits, a digit down to two
// patterns. It returns the digit-band's index and the two patterns'
// minirows; ok is false when no band has such a digit.
func (b *bitBoard) patternBranch() (i uint, p1, p2 uint16, ok bool) {
	best := 1 << 30
	for band := uint(0); band < 3; band++ {
		if b.unsolved[band] == 0 {
			continue
		}
		// Bits 0..3 of a patternCount entry count the patterns; bit 4
		// is set when there are two, at the digit's place in twos.
		shape := (*[9]uint32)(b.shape[band*9 : band*9+9])
		total, twos := uint32(0), uint32(0)
		for d, x := range shape {
			n := uint32(patternCount[x&511])
			total += n & 15
			twos |= n >> 4 << d
		}
		if twos != 0 && int(total) < best {
			best, i, ok = int(total), band*9+uint(bits.TrailingZeros32(twos)), true
		}
	}
	if ok {
		pp := patternPair[b.shape[i&31]&511]
		p1, p2 = pp[0], pp[1]
	}
	return i, p1, p2, ok
}
