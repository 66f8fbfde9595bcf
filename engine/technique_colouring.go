package engine

// conjugates is, for each cell, the cells it forms a conjugate pair with for
// one digit: the two only places for the digit in some unit.
func (c *Candidates) conjugates(d uint8, links *[NumCells]CellSet) {
	*links = [NumCells]CellSet{}
	p := c.pos[d-1]
	for u := 0; u < 27; u++ {
		in := p.Intersect(UnitSet[u])
		if in.Len() != 2 {
			continue
		}
		a := in.First()
		b := nextCell(in, a)
		links[a].Add(b)
		links[b].Add(a)
	}
}

// findColouring colours, for one digit, each cluster of cells joined by
// conjugate pairs in two alternating colours: one colour holds the digit in
// all its cells, the other in none. A colour wrap (wrap true) is a colour
// with two cells that see each other: it cannot be the true one, so the
// digit goes from all its cells. A colour trap is a cell outside the
// cluster that sees cells of both colours: it cannot hold the digit.
func findColouring(c *Candidates, st *Step, wrap bool) bool {
	var links [NumCells]CellSet
	var queue [NumCells]int
	for d := uint8(1); d <= 9; d++ {
		p := c.pos[d-1]
		c.conjugates(d, &links)
		var done CellSet
		for start := p.First(); start >= 0; start = nextCell(p, start) {
			if done.Has(start) || links[start].Empty() {
				continue
			}
			var colour [2]CellSet
			colour[0].Add(start)
			done.Add(start)
			queue[0] = start
			head, tail := 0, 1
			for head < tail {
				cur := queue[head]
				head++
				side := 0
				if colour[1].Has(cur) {
					side = 1
				}
				for n := links[cur].First(); n >= 0; n = nextCell(links[cur], n) {
					if done.Has(n) {
						continue
					}
					done.Add(n)
					colour[1-side].Add(n)
					queue[tail] = n
					tail++
				}
			}
			if colour[0].Len()+colour[1].Len() < 4 {
				continue // one link, or two: locked candidates or a kite at most
			}
			if wrap {
				for side := 0; side < 2; side++ {
					if !sameColourSees(colour[side]) {
						continue
					}
					st.Eliminate = appendElims(st.Eliminate, colour[side], d)
					st.Cells = colour[side].Cells(st.Cells)
					st.Opposite = colour[1-side].Cells(st.Opposite)
					st.Digits = append(st.Digits, d)
					return true
				}
				continue
			}
			var seeA, seeB CellSet
			for x := colour[0].First(); x >= 0; x = nextCell(colour[0], x) {
				seeA = seeA.Union(PeerSet[x])
			}
			for x := colour[1].First(); x >= 0; x = nextCell(colour[1], x) {
				seeB = seeB.Union(PeerSet[x])
			}
			targets := p.Intersect(seeA).Intersect(seeB).Minus(colour[0]).Minus(colour[1])
			if targets.Empty() {
				continue
			}
			st.Eliminate = appendElims(st.Eliminate, targets, d)
			st.Cells = colour[0].Cells(st.Cells)
			st.Opposite = colour[1].Cells(st.Opposite)
			st.Digits = append(st.Digits, d)
			return true
		}
	}
	return false
}

// sameColourSees reports whether two cells of the set see each other.
func sameColourSees(s CellSet) bool {
	for x := s.First(); x >= 0; x = nextCell(s, x) {
		if !PeerSet[x].Intersect(s).Empty() {
			return true
		}
	}
	return false
}
