package engine

import "math/bits"

// maxChainNodes bounds the chains the chain techniques look for (nodes,
// i.e. candidates): longer chains are found but not used, since no player
// follows them.
const maxChainNodes = 24

// chainSearch is the scratch state of a breadth-first chain search: for each
// state, the state it was reached from.
type chainSearch struct {
	prev  [NumCells * 10]int16
	depth [NumCells * 10]int8
	queue [NumCells * 10]int16
}

// findXChain finds an X-chain: for one digit, a chain of cells linked
// alternately by strong links (the two only places for the digit in a unit:
// if one is not the digit, the other is) and weak links (two cells that see
// each other: if one is the digit, the other is not), starting and ending
// with a strong link. One of its two ends holds the digit, so a cell that
// sees both ends cannot. The shortest productive chain (three links or
// more) over all digits and starts is taken.
func findXChain(c *Candidates, st *Step) bool {
	var links [NumCells]CellSet
	var cs chainSearch
	var path [maxChainNodes]int
	best, bestLen := -1, maxChainNodes+1
	var bestD uint8
	var bestPath [maxChainNodes]int
	for d := uint8(1); d <= 9; d++ {
		p := c.pos[d-1]
		c.conjugates(d, &links)
		for s := p.First(); s >= 0; s = nextCell(p, s) {
			if links[s].Empty() {
				continue
			}
			// State cell*2+k: at cell, reached through a strong link
			// (k=0: the cell is the digit if the start is not) or a weak
			// one (k=1). The start counts as reached through a weak link,
			// so the chain begins with a strong one.
			for i := range cs.prev[:NumCells*2] {
				cs.prev[i] = -2
			}
			start := s*2 + 1
			cs.prev[start] = -1
			cs.depth[start] = 0
			cs.queue[0] = int16(start)
			head, tail := 0, 1
			for head < tail {
				cur := int(cs.queue[head])
				head++
				cell, k := cur/2, cur%2
				if int(cs.depth[cur])+2 > min(bestLen, maxChainNodes) {
					continue // cannot beat the best chain found so far
				}
				var next CellSet
				if k == 1 {
					next = links[cell]
				} else {
					next = p.Intersect(PeerSet[cell])
				}
				for n := next.First(); n >= 0; n = nextCell(next, n) {
					ns := n*2 + (1 - k)
					if cs.prev[ns] != -2 {
						continue
					}
					cs.prev[ns] = int16(cur)
					cs.depth[ns] = cs.depth[cur] + 1
					cs.queue[tail] = int16(ns)
					tail++
					if k == 1 && n != s && cs.depth[ns] >= 3 {
						// An end: reached through a strong link.
						targets := p.Intersect(PeerSet[s]).Intersect(PeerSet[n])
						if targets.Empty() {
							continue
						}
						nodes := chainPath(&cs, ns, path[:0])
						if nodes == nil || len(nodes) >= bestLen {
							continue
						}
						best, bestLen, bestD = s, len(nodes), d
						copy(bestPath[:], nodes)
					}
				}
			}
		}
	}
	if best < 0 {
		return false
	}
	d := bestD
	nodes := bestPath[:bestLen]
	s, e := nodes[0], nodes[len(nodes)-1]
	targets := c.pos[d-1].Intersect(PeerSet[s]).Intersect(PeerSet[e])
	st.Eliminate = appendElims(st.Eliminate, targets, d)
	for _, n := range nodes {
		st.Chain = append(st.Chain, Candidate{n, d})
	}
	st.Cells = append(st.Cells, s, e)
	st.Digits = append(st.Digits, d)
	return true
}

// chainPath writes the cells of the chain ending in state end (states are
// cell*k+tag with k = len/NumCells) from its start, or returns nil when a
// cell repeats.
func chainPath(cs *chainSearch, end int, dst []int) []int {
	n := int(cs.depth[end]) + 1
	if n > cap(dst) {
		return nil
	}
	dst = dst[:n]
	var seen CellSet
	for i, st := n-1, end; i >= 0; i-- {
		cell := st / 2
		if seen.Has(cell) {
			return nil
		}
		seen.Add(cell)
		dst[i] = cell
		st = int(cs.prev[st])
	}
	return dst
}

// findXYChain finds an XY-chain: a chain of cells with two candidates each,
// each seeing the next and sharing a digit with it. If the first cell is not
// x it is its other digit, which the next cell then cannot be, and so on
// down the chain until the last cell is forced to x: so the first or the
// last cell is x, and a cell that sees both cannot be. The shortest
// productive chain of three cells or more is taken.
func findXYChain(c *Candidates, st *Step, dv *derived) bool {
	bv := dv.bivalue(c)
	var cs chainSearch
	var path [maxChainNodes]int
	bestLen := maxChainNodes/2 + 1
	var bestX uint8
	var bestPath [maxChainNodes]int
	var bestOut [maxChainNodes]uint8
	for s := bv.First(); s >= 0; s = nextCell(bv, s) {
		ms := c.mask[s]
		for xm := ms; xm != 0; xm &= xm - 1 {
			x := uint8(bits.TrailingZeros16(xm))
			if c.pos[x-1].Intersect(PeerSet[s]).Empty() {
				continue
			}
			a := uint8(bits.TrailingZeros16(ms &^ (1 << x)))
			// State cell*10+v: cell is forced to v.
			for i := range cs.prev {
				cs.prev[i] = -2
			}
			start := s*10 + int(a)
			cs.prev[start] = -1
			cs.depth[start] = 0
			cs.queue[0] = int16(start)
			head, tail := 0, 1
			for head < tail {
				cur := int(cs.queue[head])
				head++
				cell, v := cur/10, uint8(cur%10)
				if int(cs.depth[cur])+2 > bestLen {
					continue
				}
				next := bv.Intersect(PeerSet[cell]).Intersect(c.pos[v-1])
				for n := next.First(); n >= 0; n = nextCell(next, n) {
					w := uint8(bits.TrailingZeros16(c.mask[n] &^ (1 << v)))
					ns := n*10 + int(w)
					if cs.prev[ns] != -2 {
						continue
					}
					cs.prev[ns] = int16(cur)
					cs.depth[ns] = cs.depth[cur] + 1
					cs.queue[tail] = int16(ns)
					tail++
					if w != x || n == s || cs.depth[ns] < 2 {
						continue
					}
					targets := c.pos[x-1].Intersect(PeerSet[s]).Intersect(PeerSet[n])
					if targets.Empty() {
						continue
					}
					nodes, outs := xyPath(&cs, ns, path[:0])
					if nodes == nil || len(nodes) >= bestLen {
						continue
					}
					bestLen, bestX = len(nodes), x
					copy(bestPath[:], nodes)
					copy(bestOut[:], outs[:len(nodes)])
				}
			}
		}
	}
	if bestX == 0 {
		return false
	}
	x := bestX
	nodes := bestPath[:bestLen]
	s, e := nodes[0], nodes[len(nodes)-1]
	targets := c.pos[x-1].Intersect(PeerSet[s]).Intersect(PeerSet[e])
	st.Eliminate = appendElims(st.Eliminate, targets, x)
	for i, n := range nodes {
		out := bestOut[i]
		in := uint8(bits.TrailingZeros16(c.mask[n] &^ (1 << out)))
		st.Chain = append(st.Chain, Candidate{n, in}, Candidate{n, out})
	}
	st.Cells = append(st.Cells, s, e)
	st.Digits = append(st.Digits, x)
	return true
}

// xyPath writes the cells of the XY-chain ending in state end from its
// start, with the digit each is forced to, or returns nil when a cell
// repeats.
func xyPath(cs *chainSearch, end int, dst []int) ([]int, [maxChainNodes]uint8) {
	var outs [maxChainNodes]uint8
	n := int(cs.depth[end]) + 1
	if n > cap(dst) {
		return nil, outs
	}
	dst = dst[:n]
	var seen CellSet
	for i, st := n-1, end; i >= 0; i-- {
		cell := st / 10
		if seen.Has(cell) {
			return nil, outs
		}
		seen.Add(cell)
		dst[i] = cell
		outs[i] = uint8(st % 10)
		st = int(cs.prev[st])
	}
	return dst, outs
}
