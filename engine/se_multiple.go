package engine

// Sudoku Explainer's multiple forcing chains (8.0 plus the length
// penalty): every digit of a cell with three or more candidates (cell
// forcing chains), or every place of a digit in a unit (unit forcing
// chains), implies the same candidate on or off. The implications are
// followed as Sudoku Explainer's chaining follows them: an "on" candidate
// is always expanded before an "off" one.

// seImplied is what one candidate being on implies: for each node, the
// length of the chain that reaches it (0 when not reached).
type seImplied struct {
	depth [NumCells * 18]int16
}

// implications follows start (on) as Sudoku Explainer's doChaining does,
// stopping at the first contradiction.
func (s *seGrid) implications(start seNode, out *seImplied) {
	*out = seImplied{}
	out.depth[start] = 1
	on := []seNode{start}
	var off []seNode
	var buf []seNode
	for len(on) > 0 || len(off) > 0 {
		var p seNode
		if len(on) > 0 {
			p, on = on[0], on[1:]
			buf = s.onToOff(p, true, buf[:0])
		} else {
			p, off = off[0], off[1:]
			buf = s.offToOn(p, true, true, buf[:0])
		}
		for _, q := range buf {
			if out.depth[q.flip()] > 0 {
				return
			}
			if out.depth[q] == 0 {
				out.depth[q] = out.depth[p] + 1
				if q.on() {
					on = append(on, q)
				} else {
					off = append(off, q)
				}
			}
		}
	}
}

// multiple finds the easiest cell or unit forcing chain.
func (s *seGrid) multiple(h *seHint) bool {
	cache := map[seNode]*seImplied{}
	implied := func(n seNode) *seImplied {
		if r, ok := cache[n]; ok {
			return r
		}
		r := &seImplied{}
		s.implications(n, r)
		cache[n] = r
		return r
	}
	bestR, bestN := SERating(0), 0
	var best []Candidate
	bestName := ""
	consider := func(name string, branches []*seImplied) {
		for n := range branches[0].depth {
			total := 0
			for _, b := range branches {
				if b.depth[n] == 0 {
					total = -1
					break
				}
				total += int(b.depth[n])
			}
			if total <= 0 {
				continue
			}
			node := seNode(n)
			c, d := node.cell(), node.digit()
			var elim []Candidate
			if node.on() {
				for e := uint8(1); e <= 9; e++ {
					if e != d && s.has(c, e) {
						elim = append(elim, Candidate{Cell: c, Digit: e})
					}
				}
			} else if s.has(c, d) {
				elim = []Candidate{{Cell: c, Digit: d}}
			}
			if len(elim) == 0 {
				continue
			}
			r := 80 + chainPenalty(total)
			if bestN == 0 || r < bestR || (r == bestR && total < bestN) {
				bestR, bestN, best, bestName = r, total, elim, name
			}
		}
	}
	for c := 0; c < NumCells; c++ {
		if s.val[c] != 0 || s.count(c) <= 2 {
			continue
		}
		var cellBranches []*seImplied
		for d := uint8(1); d <= 9; d++ {
			if !s.has(c, d) {
				continue
			}
			cellBranches = append(cellBranches, implied(seNodeOf(c, d, true)))
			for _, u := range [3]uint8{CellUnits[c][2], CellUnits[c][0], CellUnits[c][1]} {
				p := s.positions(int(u), d)
				if bitsCount(p) < 2 || int(Units[u][firstBit(p)]) != c {
					continue
				}
				var branches []*seImplied
				for i, o := range Units[u] {
					if p&(1<<i) != 0 {
						branches = append(branches, implied(seNodeOf(int(o), d, true)))
					}
				}
				consider("unit forcing chains", branches)
			}
		}
		consider("cell forcing chains", cellBranches)
	}
	if bestN == 0 {
		return false
	}
	h.elim = best
	h.set(bestR, bestName)
	return true
}

func firstBit(m uint16) int {
	for i := 0; i < 16; i++ {
		if m&(1<<i) != 0 {
			return i
		}
	}
	return -1
}
