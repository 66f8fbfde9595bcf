package engine

// Sudoku Explainer's nishio forcing chains (7.5 plus the length penalty):
// a candidate assumed true, or false, whose consequences on its own digit
// contradict each other. The chain is dynamic: each candidate turned off is
// removed from the board it works on, so a unit left with one place for
// the digit puts it there, and the candidates whose removal left it count
// in the chain's length.

// seDyn is the state of one dynamic chain.
type seDyn struct {
	on, off [NumCells * 18]bool
	parents map[seNode][]seNode
}

// ancestors is the number of distinct nodes n comes from, n included.
func (d *seDyn) ancestors(n seNode, extra []seNode) int {
	seen := map[seNode]bool{n: true}
	todo := append([]seNode(nil), extra...)
	if extra == nil {
		todo = append(todo, d.parents[n]...)
	}
	for len(todo) > 0 {
		p := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if !seen[p] {
			seen[p] = true
			todo = append(todo, d.parents[p]...)
		}
	}
	return len(seen)
}

// nishioFrom follows start with single-digit implications on a board of
// its own; it returns the length of the contradiction it reaches, or 0.
func (s *seGrid) nishioFrom(start seNode) int {
	t := *s
	d := &seDyn{parents: map[seNode][]seNode{}}
	var on, off []seNode
	if start.on() {
		d.on[start], on = true, []seNode{start}
	} else {
		d.off[start], off = true, []seNode{start}
	}
	var buf []seNode
	for len(on) > 0 || len(off) > 0 {
		if len(on) > 0 {
			p := on[0]
			on = on[1:]
			buf = t.onToOff(p, false, buf[:0])
			for _, q := range buf {
				if d.on[q.flip()] {
					return d.ancestors(q.flip(), nil) + d.ancestors(q, []seNode{p})
				}
				if !d.off[q] {
					d.off[q] = true
					d.parents[q] = []seNode{p}
					off = append(off, q)
				}
			}
			continue
		}
		p := off[0]
		off = off[1:]
		c, dg := p.cell(), p.digit()
		var made []seNode
		for _, u := range [3]uint8{CellUnits[c][2], CellUnits[c][0], CellUnits[c][1]} {
			other := t.otherPlace(u, c, dg)
			if other < 0 {
				continue
			}
			q := seNodeOf(other, dg, true)
			ps := []seNode{p}
			for _, o := range Units[u] {
				if s.has(int(o), dg) && !t.has(int(o), dg) {
					ps = append(ps, seNodeOf(int(o), dg, false))
				}
			}
			if d.off[q.flip()] {
				return d.ancestors(q, ps) + d.ancestors(q.flip(), nil)
			}
			if !d.on[q] {
				d.on[q] = true
				d.parents[q] = ps
				made = append(made, q)
			}
		}
		t.cand[c] &^= 1 << dg
		on = append(on, made...)
	}
	return 0
}

// nishio finds the shortest nishio forcing chain.
func (s *seGrid) nishio(h *seHint) bool {
	best := 0
	var elim []Candidate
	for c := 0; c < NumCells; c++ {
		if s.val[c] != 0 || s.count(c) < 2 {
			continue
		}
		for d := uint8(1); d <= 9; d++ {
			if !s.has(c, d) {
				continue
			}
			if n := s.nishioFrom(seNodeOf(c, d, true)); n > 0 && (best == 0 || n < best) {
				best, elim = n, []Candidate{{Cell: c, Digit: d}}
			}
			if n := s.nishioFrom(seNodeOf(c, d, false)); n > 0 && (best == 0 || n < best) {
				best, elim = n, nil
				for e := uint8(1); e <= 9; e++ {
					if e != d && s.has(c, e) {
						elim = append(elim, Candidate{Cell: c, Digit: e})
					}
				}
			}
		}
	}
	if best == 0 {
		return false
	}
	h.elim = elim
	h.set(75+chainPenalty(best), "nishio forcing chain")
	return true
}
