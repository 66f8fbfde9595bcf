package engine

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
		shape := (*[9]uint32)(b.shape[band*9 : band*9+9])
		total, two := 0, -1
		for d, x := range shape {
			n := int(patternCount[x&511])
			total += n
			if n == 2 && two < 0 {
				two = d
			}
		}
		if two >= 0 && total < best {
			best, i, ok = total, band*9+uint(two), true
		}
	}
	if ok {
		pp := patternPair[b.shape[i&31]&511]
		p1, p2 = pp[0], pp[1]
	}
	return i, p1, p2, ok
}
