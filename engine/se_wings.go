package engine

import "math/bits"

// xyWing: a pivot with candidates xy (XY-Wing, 4.2) or xyz (XYZ-Wing,
// 4.4) seeing two bivalue cells xz and yz; z goes from the cells that see
// both wings (and the pivot, for XYZ).
func (s *seGrid) xyWing(h *seHint, xyz bool) bool {
	want := 2
	if xyz {
		want = 3
	}
	for xy := 0; xy < NumCells; xy++ {
		if s.val[xy] != 0 || s.count(xy) != want {
			continue
		}
		cxy := s.cand[xy]
		for _, xz := range Peers[xy] {
			cxz := s.cand[xz]
			if bits.OnesCount16(cxz) != 2 || bits.OnesCount16(cxy&^cxz) != 1 {
				continue
			}
			for _, yz := range Peers[xy] {
				cyz := s.cand[yz]
				if bits.OnesCount16(cyz) != 2 || bits.OnesCount16(cxy|cxz|cyz) != 3 {
					continue
				}
				inter := bits.OnesCount16(cxy & cxz & cyz)
				if (xyz && inter != 1) || (!xyz && inter != 0) {
					continue
				}
				z := uint8(bits.TrailingZeros16(cxz & cyz))
				victims := PeerSet[xz].Intersect(PeerSet[yz])
				if xyz {
					victims = victims.Intersect(PeerSet[xy])
				}
				victims.Remove(xy)
				for c := range victims.All() {
					if s.has(c, z) {
						h.remove(c, z)
					}
				}
				if len(h.elim) > 0 {
					if xyz {
						h.set(44, "XYZ-Wing")
					} else {
						h.set(42, "XY-Wing")
					}
					return true
				}
			}
		}
	}
	return false
}

// wing is Sudoku Explainer's WXYZ-Wing (n=4 digits, 5.5-5.6), VWXYZ-Wing
// (5, 6.2-6.4), UVWXYZ-Wing (6, 6.6) and TUVWXYZ-Wing (7, 7.5): n-1 cells
// of one unit holding n digits (an almost locked set) and a bivalue cell
// xz outside it whose x, wherever it is in the set, sees the bivalue cell.
// Then z goes from the cells that see the bivalue cell and the set's z;
// when z is linked the same way, each digit of the set goes from the cells
// that see all its places (x and z with the bivalue cell too). Among
// several the lowest rating wins, then the most eliminations.
func (s *seGrid) wing(h *seHint, digits int) bool {
	size := digits - 1
	bestR, bestN := SERating(0), 0
	var best []Candidate
	seenSets := map[CellSet]bool{}
	for u := 0; u < 27; u++ {
		var free []int
		for _, c := range Units[u] {
			if s.val[c] == 0 {
				free = append(free, int(c))
			}
		}
		if len(free) <= size {
			continue
		}
		combos(len(free), size, func(m uint16) bool {
			var set CellSet
			var union uint16
			big := 0
			for i, c := range free {
				if m&(1<<i) != 0 {
					set.Add(c)
					union |= s.cand[c]
					if n := s.count(c); n > big {
						big = n
					}
				}
			}
			if bitsCount(union) != digits || seenSets[set] {
				return false
			}
			seenSets[set] = true
			var reach CellSet
			for c := range set.All() {
				reach = reach.Union(PeerSet[c])
			}
			reach = reach.Minus(set)
			for yz := range reach.All() {
				if s.count(yz) != 2 || s.cand[yz]&union != s.cand[yz] {
					continue
				}
				elim := s.wingElims(set, union, yz)
				if len(elim) == 0 {
					continue
				}
				r := wingRating(digits, big)
				if bestN == 0 || r < bestR || (r == bestR && len(elim) > bestN) {
					bestR, bestN, best = r, len(elim), elim
				}
			}
			return false
		})
	}
	if bestN == 0 {
		return false
	}
	h.elim = best
	h.set(bestR, "ALS wing")
	return true
}

// wingRating is Sudoku Explainer's rating of a wing of the given digits
// whose biggest cell has big candidates.
func wingRating(digits, big int) SERating {
	abs := func(v int) int {
		if v < 0 {
			return -v
		}
		return v
	}
	switch digits {
	case 4:
		return SERating(55 + 1 - abs(3-big))
	case 5:
		return SERating(62 + 2 - abs(3-big))
	case 6:
		return 66
	default:
		return 75
	}
}

// wingElims is what the wing of set (digits union) and bivalue cell yz
// removes.
func (s *seGrid) wingElims(set CellSet, union uint16, yz int) []Candidate {
	holders := func(d uint8) CellSet {
		var hs CellSet
		for c := range set.All() {
			if s.has(c, d) {
				hs.Add(c)
			}
		}
		return hs
	}
	restricted := func(d uint8) bool { return holders(d).Minus(PeerSet[yz]).Empty() }
	var ds []uint8
	for d := uint8(1); d <= 9; d++ {
		if s.cand[yz]&(1<<d) != 0 {
			ds = append(ds, d)
		}
	}
	var elim []Candidate
	add := func(v CellSet, d uint8) {
		for c := range v.Minus(set).All() {
			if c != yz && s.has(c, d) {
				elim = append(elim, Candidate{Cell: c, Digit: d})
			}
		}
	}
	rx, rz := restricted(ds[0]), restricted(ds[1])
	switch {
	case rx && rz:
		for d := uint8(1); d <= 9; d++ {
			if union&(1<<d) == 0 {
				continue
			}
			v := seesAll(holders(d))
			if s.cand[yz]&(1<<d) != 0 {
				v = v.Intersect(PeerSet[yz])
			}
			add(v, d)
		}
	case rx:
		add(seesAll(holders(ds[1])).Intersect(PeerSet[yz]), ds[1])
	case rz:
		add(seesAll(holders(ds[0])).Intersect(PeerSet[yz]), ds[0])
	}
	return elim
}
