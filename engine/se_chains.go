package engine

// Sudoku Explainer's "forcing chains and cycles": bidirectional X-cycles
// (6.5), Y-cycles (6.5) and XY-cycles (7.0), forcing X-chains (6.6) and
// forcing chains (7.0), each plus a penalty for its length. From every
// candidate assumed true (and, for forcing chains, false) the rater
// follows the direct implications breadth first, as Sudoku Explainer does,
// so the chains it finds and their lengths are the same.

// A chain node is a candidate being on or off: (cell*9+digit-1)*2+on.
type seNode int

func seNodeOf(cell int, d uint8, on bool) seNode {
	n := seNode((cell*9 + int(d) - 1) * 2)
	if on {
		n++
	}
	return n
}

func (n seNode) cell() int    { return int(n) / 18 }
func (n seNode) digit() uint8 { return uint8(int(n)/2%9 + 1) }
func (n seNode) on() bool     { return n&1 == 1 }
func (n seNode) flip() seNode { return n ^ 1 }

// seInst is one occurrence of a node in a search, with its parent.
type seInst struct {
	node   seNode
	parent int32 // index in the search's instances, -1 for the source
}

// chainPenalty is Sudoku Explainer's addition for a chain of complexity
// nodes: 0.1 for each step past 4, 6, 8, 12, 16, 24, ... implications.
func chainPenalty(nodes int) SERating {
	var added SERating
	ceil, odd := 4, false
	for length := nodes - 2; length > ceil; odd = !odd {
		added++
		if !odd {
			ceil = ceil * 3 / 2
		} else {
			ceil = ceil * 4 / 3
		}
	}
	return added
}

// onToOff lists what p on turns off: with y, the cell's other digits; then
// the digit in the box, row and column (each cell once).
func (s *seGrid) onToOff(p seNode, y bool, dst []seNode) []seNode {
	c, d := p.cell(), p.digit()
	if y {
		for e := uint8(1); e <= 9; e++ {
			if e != d && s.has(c, e) {
				dst = append(dst, seNodeOf(c, e, false))
			}
		}
	}
	var seen CellSet
	seen.Add(c)
	for _, u := range [3]uint8{CellUnits[c][2], CellUnits[c][0], CellUnits[c][1]} {
		for _, o := range Units[u] {
			if !seen.Has(int(o)) && s.has(int(o), d) {
				seen.Add(int(o))
				dst = append(dst, seNodeOf(int(o), d, false))
			}
		}
	}
	return dst
}

// offToOn lists what p off turns on: with y, the other digit of a
// bivalue cell; with x, the other place of the digit in a box, row or
// column that has two.
func (s *seGrid) offToOn(p seNode, y, x bool, dst []seNode) []seNode {
	c, d := p.cell(), p.digit()
	if y && s.count(c) == 2 {
		other := s.cand[c] &^ (1 << d)
		for e := uint8(1); e <= 9; e++ {
			if other&(1<<e) != 0 {
				dst = append(dst, seNodeOf(c, e, true))
			}
		}
	}
	if x {
		for _, u := range [3]uint8{CellUnits[c][2], CellUnits[c][0], CellUnits[c][1]} {
			if other := s.otherPlace(u, c, d); other >= 0 {
				dst = append(dst, seNodeOf(other, d, true))
			}
		}
	}
	return dst
}

// otherPlace is the one place for d in unit u besides cell c, or -1 when
// there are none or several.
func (s *seGrid) otherPlace(u uint8, c int, d uint8) int {
	other := -1
	for _, o := range Units[u] {
		if int(o) == c || !s.has(int(o), d) {
			continue
		}
		if other >= 0 {
			return -1
		}
		other = int(o)
	}
	return other
}

// seChain is a chain step found: its rating, length and eliminations.
type seChain struct {
	name    string
	rating  SERating
	nodes   int
	sortKey int
	elim    []Candidate
}

func (a *seChain) better(b *seChain) bool {
	if a.rating != b.rating {
		return a.rating < b.rating
	}
	if a.nodes != b.nodes {
		return a.nodes < b.nodes
	}
	return a.sortKey < b.sortKey
}

// chains finds the easiest cycle or forcing chain, as Sudoku Explainer
// sorts them: by rating, then length, then kind.
func (s *seGrid) chains(h *seHint) bool {
	var best *seChain
	consider := func(c *seChain) {
		if len(c.elim) > 0 && (best == nil || c.better(best)) {
			best = c
		}
	}
	for _, mode := range [3][2]bool{{false, true}, {true, false}, {true, true}} {
		y, x := mode[0], mode[1]
		key := 2
		if y && x {
			key = 4
		} else if y {
			key = 3
		}
		for c := 0; c < NumCells; c++ {
			if s.val[c] != 0 || s.count(c) < 2 {
				continue
			}
			if !x && s.count(c) > 2 {
				continue
			}
			for d := uint8(1); d <= 9; d++ {
				if !s.has(c, d) {
					continue
				}
				src := seNodeOf(c, d, true)
				for _, ch := range s.cycles(src, y, x) {
					ch.name = [...]string{2: "X-cycle", 3: "Y-cycle", 4: "XY-cycle"}[key]
					base := SERating(65)
					if y && x {
						base = 70
					}
					ch.rating = base + chainPenalty(ch.nodes)
					ch.sortKey = key
					consider(ch)
				}
				if !x {
					continue
				}
				base := SERating(66)
				if y {
					base = 70
				}
				for _, from := range [2]seNode{src, src.flip()} {
					if ch := s.forcing(from, y); ch != nil {
						ch.name = "forcing X-chain"
						if y {
							ch.name = "forcing chain"
						}
						ch.rating = base + chainPenalty(ch.nodes)
						ch.sortKey = key
						consider(ch)
					}
				}
			}
		}
	}
	if best == nil {
		return false
	}
	h.elim = best.elim
	h.set(best.rating, best.name)
	return true
}

// forcing follows the implications of from breadth first until one of
// them contradicts from; it returns that chain or nil.
func (s *seGrid) forcing(from seNode, y bool) *seChain {
	var seen [NumCells * 18]bool
	insts := []seInst{{from, -1}}
	seen[from] = true
	var buf []seNode
	for lo := 0; lo < len(insts); {
		hi := len(insts)
		for i := lo; i < hi; i++ {
			p := insts[i].node
			buf = buf[:0]
			if p.on() {
				buf = s.onToOff(p, y, buf)
			} else {
				buf = s.offToOn(p, y, true, buf)
			}
			for _, q := range buf {
				if q == from.flip() {
					n := 2
					for j := i; insts[j].parent >= 0; j = int(insts[j].parent) {
						n++
					}
					ch := &seChain{nodes: n}
					c, d := from.cell(), from.digit()
					if from.on() {
						ch.elim = []Candidate{{Cell: c, Digit: d}}
					} else {
						for e := uint8(1); e <= 9; e++ {
							if e != d && s.has(c, e) {
								ch.elim = append(ch.elim, Candidate{Cell: c, Digit: e})
							}
						}
					}
					return ch
				}
				if !seen[q] {
					seen[q] = true
					insts = append(insts, seInst{q, int32(i)})
				}
			}
		}
		lo = hi
	}
	return nil
}

// cycles follows the implications of src (on) breadth first and returns
// the cycles that come back to it with what each removes.
func (s *seGrid) cycles(src seNode, y, x bool) []*seChain {
	var onSeen [NumCells * 18]bool
	insts := []seInst{{src, -1}}
	onSeen[src] = true
	var out []*seChain
	var buf []seNode
	isAncestor := func(i int, n seNode) bool {
		for j := i; j >= 0; j = int(insts[j].parent) {
			if insts[j].node == n {
				return true
			}
		}
		return false
	}
	length := 0
	for lo := 0; lo < len(insts); {
		hi := len(insts)
		length++ // on to off, then off to on in the same round
		if insts[lo].node.on() {
			length--
		}
		for i := lo; i < hi; i++ {
			p := insts[i].node
			buf = buf[:0]
			if p.on() {
				buf = s.onToOff(p, y, buf)
				for _, q := range buf {
					if !isAncestor(i, q) {
						insts = append(insts, seInst{q, int32(i)})
					}
				}
				continue
			}
			buf = s.offToOn(p, y, x, buf)
			for _, q := range buf {
				if q == src && length >= 2 {
					out = append(out, s.cycleChain(insts, i))
				}
				if !onSeen[q] {
					onSeen[q] = true
					insts = append(insts, seInst{q, int32(i)})
				}
			}
		}
		lo = hi
	}
	return out
}

// cycleChain builds the cycle that closes at instance last (an off node
// whose child is the source): a candidate seen by an on node and an off
// node of the same digit goes.
func (s *seGrid) cycleChain(insts []seInst, last int) *seChain {
	var cells CellSet
	var nodes []seNode
	for j := last; j >= 0; j = int(insts[j].parent) {
		nodes = append(nodes, insts[j].node)
		cells.Add(insts[j].node.cell())
	}
	ch := &seChain{nodes: len(nodes)}
	var onSee, offSee [10]CellSet
	for _, n := range nodes {
		if n.on() {
			onSee[n.digit()] = onSee[n.digit()].Union(PeerSet[n.cell()])
		} else {
			offSee[n.digit()] = offSee[n.digit()].Union(PeerSet[n.cell()])
		}
	}
	for d := uint8(1); d <= 9; d++ {
		for c := range onSee[d].Intersect(offSee[d]).Minus(cells).All() {
			if s.has(c, d) {
				ch.elim = append(ch.elim, Candidate{Cell: c, Digit: d})
			}
		}
	}
	return ch
}
