package engine

import "math/bits"

// bivalueCells is the set of empty cells with exactly two candidates.
func (c *Candidates) bivalueCells() CellSet {
	var s CellSet
	for w := 0; w < 2; w++ {
		for b := c.unsolved[w]; b != 0; b &= b - 1 {
			cell := w<<6 | bits.TrailingZeros64(b)
			if bits.OnesCount16(c.mask[cell]) == 2 {
				s.Add(cell)
			}
		}
	}
	return s
}

// findXYWing finds a pivot with candidates {a,b} that sees two pincers
// {a,c} and {b,c}: whichever of a and b the pivot takes, one pincer is c,
// so no cell that sees both pincers can be c.
func findXYWing(c *Candidates, st *Step, dv *derived) bool {
	bv := dv.bivalue(c)
	for p := bv.First(); p >= 0; p = nextCell(bv, p) {
		mp := c.mask[p]
		peers := bv.Intersect(PeerSet[p])
		for x := peers.First(); x >= 0; x = nextCell(peers, x) {
			mx := c.mask[x]
			a := mx & mp
			if bits.OnesCount16(a) != 1 {
				continue
			}
			cz := mx &^ mp
			want := (mp &^ a) | cz
			for y := peers.First(); y >= 0; y = nextCell(peers, y) {
				if y == x || c.mask[y] != want {
					continue
				}
				z := uint8(bits.TrailingZeros16(cz))
				targets := PeerSet[x].Intersect(PeerSet[y]).Intersect(c.pos[z-1])
				targets.Remove(p)
				if targets.Empty() {
					continue
				}
				st.Eliminate = appendElims(st.Eliminate, targets, z)
				st.Cells = append(st.Cells, p, x, y)
				st.Digits = append(st.Digits, uint8(bits.TrailingZeros16(a)), uint8(bits.TrailingZeros16(mp&^a)), z)
				return true
			}
		}
	}
	return false
}

// findXYZWing finds a pivot with candidates {x,y,z} that sees two pincers
// {x,z} and {y,z}: one of the three cells is z, so no cell that sees all
// three can be.
func findXYZWing(c *Candidates, st *Step, dv *derived) bool {
	bv := dv.bivalue(c)
	for p := c.unsolved.First(); p >= 0; p = nextCell(c.unsolved, p) {
		mp := c.mask[p]
		if bits.OnesCount16(mp) != 3 {
			continue
		}
		peers := bv.Intersect(PeerSet[p])
		for x := peers.First(); x >= 0; x = nextCell(peers, x) {
			mx := c.mask[x]
			if mx&^mp != 0 {
				continue
			}
			for y := peers.First(); y >= 0; y = nextCell(peers, y) {
				my := c.mask[y]
				if y <= x || my&^mp != 0 || my == mx {
					continue
				}
				zm := mx & my
				z := uint8(bits.TrailingZeros16(zm))
				targets := PeerSet[p].Intersect(PeerSet[x]).Intersect(PeerSet[y]).Intersect(c.pos[z-1])
				if targets.Empty() {
					continue
				}
				st.Eliminate = appendElims(st.Eliminate, targets, z)
				st.Cells = append(st.Cells, p, x, y)
				st.Digits = append(st.Digits, uint8(bits.TrailingZeros16(mx&^zm)), uint8(bits.TrailingZeros16(my&^zm)), z)
				return true
			}
		}
	}
	return false
}

// findWWing finds two cells that can both only be {a,b}, do not see each
// other, and are joined by a strong link on a: a unit where a can only go
// in two cells, one seeing each of them. If the first is not b it is a, so
// its link cell is not a, the other link cell is, and the second cell is b:
// one of the two is b, and no cell that sees both can be.
func findWWing(c *Candidates, st *Step, dv *derived) bool {
	bv := dv.bivalue(c)
	if bv.Len() < 2 {
		return false
	}
	// The strong links of each digit: units where it has two places.
	um := dv.masks(c)
	var links [9][27][2]int
	var nlinks [9]int
	for d := 0; d < 9; d++ {
		for u := 0; u < 27; u++ {
			m := um[d][u]
			if bits.OnesCount16(m) != 2 {
				continue
			}
			links[d][nlinks[d]] = [2]int{int(Units[u][bits.TrailingZeros16(m)]), int(Units[u][15-bits.LeadingZeros16(m)])}
			links[d][nlinks[d]][0] |= u << 8 // keep the unit with the first cell
			nlinks[d]++
		}
	}
	for x := bv.First(); x >= 0; x = nextCell(bv, x) {
		mx := c.mask[x]
		for y := nextCell(bv, x); y >= 0; y = nextCell(bv, y) {
			if c.mask[y] != mx || PeerSet[x].Has(y) {
				continue
			}
			for m := mx; m != 0; m &= m - 1 {
				link := uint8(bits.TrailingZeros16(m))
				other := uint8(bits.TrailingZeros16(mx &^ (1 << link)))
				targets := PeerSet[x].Intersect(PeerSet[y]).Intersect(c.pos[other-1])
				if targets.Empty() {
					continue
				}
				for i := 0; i < nlinks[link-1]; i++ {
					l := links[link-1][i]
					u, a, b := l[0]>>8, l[0]&0xFF, l[1]
					if a == x || a == y || b == x || b == y {
						continue
					}
					if !(PeerSet[x].Has(a) && PeerSet[y].Has(b)) {
						if !(PeerSet[x].Has(b) && PeerSet[y].Has(a)) {
							continue
						}
						a, b = b, a
					}
					st.Eliminate = appendElims(st.Eliminate, targets, other)
					st.Cells = append(st.Cells, x, y, a, b)
					st.Digits = append(st.Digits, link, other)
					st.Units = append(st.Units, u)
					return true
				}
			}
		}
	}
	return false
}
