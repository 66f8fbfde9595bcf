package engine

// Strong links (Sudoku Explainer's Skyscraper, 2-String Kite, Turbot
// Fish, Empty Rectangle and their 3 and 4 link versions): n strong links
// on one digit joined by weak links; the digit goes from the cells that
// see both ends. A strong link is a unit with two places for the digit, or
// a box whose places lie in one row and one column (a grouped link).

// seLink is a strong link: the digit is in group a or in group b.
type seLink struct {
	a, b    CellSet
	kind    int // 0 box, 1 row, 2 column
	grouped bool
}

// links lists the strong links of digit d: a unit whose places for d
// fall in two groups (single cells, or cells of a row, column or box
// crossing the unit), or a box whose places lie in one row and one column.
func (s *seGrid) links(d uint8) []seLink {
	var out []seLink
	for u := 0; u < 27; u++ {
		var pos CellSet
		for _, c := range Units[u] {
			if s.has(int(c), d) {
				pos.Add(int(c))
			}
		}
		if pos.Len() < 2 {
			continue
		}
		kind := 1 + u/9
		if u >= 18 {
			kind = 0
		}
		// The crossing units that split the places into groups: boxes
		// for a row or column; rows, then columns for a box.
		var splits [][]int
		if u < 18 {
			splits = [][]int{boxUnits()}
		} else {
			splits = [][]int{rowUnits(), colUnits()}
		}
		seen := map[[2]CellSet]bool{}
		for _, split := range splits {
			var groups []CellSet
			for _, v := range split {
				if g := pos.Intersect(UnitSet[v]); !g.Empty() {
					groups = append(groups, g)
				}
			}
			if len(groups) != 2 || seen[[2]CellSet{groups[0], groups[1]}] {
				continue
			}
			seen[[2]CellSet{groups[0], groups[1]}] = true
			out = append(out, seLink{groups[0], groups[1], kind, groups[0].Len() > 1 || groups[1].Len() > 1})
		}
		if u < 18 || pos.Len() < 3 {
			continue
		}
		box := u - 18
		for i := 0; i < 3; i++ {
			row := box/3*3 + i
			for j := 0; j < 3; j++ {
				col := box%3*3 + j
				R := pos.Intersect(UnitSet[row])
				C := pos.Intersect(UnitSet[9+col])
				// Places in one row or column only make an
				// intersection, not a link.
				if !pos.Minus(R.Union(C)).Empty() || R.Minus(C).Empty() || C.Minus(R).Empty() {
					continue
				}
				out = append(out, seLink{R, C, 0, true})
			}
		}
	}
	return out
}

func rowUnits() []int { return []int{0, 1, 2, 3, 4, 5, 6, 7, 8} }
func colUnits() []int { return []int{9, 10, 11, 12, 13, 14, 15, 16, 17} }
func boxUnits() []int { return []int{18, 19, 20, 21, 22, 23, 24, 25, 26} }

// seesAll is the set of cells that see every cell of g.
func seesAll(g CellSet) CellSet {
	all := CellSet{^uint64(0), (1 << (NumCells - 64)) - 1}
	for c := range g.All() {
		all = all.Intersect(PeerSet[c])
	}
	return all
}

// weak reports whether groups x and y are disjoint and every cell of x
// sees every cell of y.
func weak(x, y CellSet) bool {
	if !x.Intersect(y).Empty() {
		return false
	}
	return y.Minus(seesAll(x)).Empty()
}

// strongLinks finds the chain of n strong links with the lowest rating
// and, among those, the most eliminations.
func (s *seGrid) strongLinks(h *seHint, n int) bool {
	base := [5]SERating{0, 0, 40, 54, 58}[n]
	bestR, bestN := SERating(0), 0
	var best []Candidate
	var bestName string
	for d := uint8(1); d <= 9; d++ {
		ls := s.links(d)
		type end struct {
			l   int
			rev bool
		}
		path := make([]end, 0, n)
		var used CellSet
		group := func(e end, first bool) CellSet {
			l := ls[e.l]
			if first != e.rev {
				return l.a
			}
			return l.b
		}
		var rec func()
		rec = func() {
			if len(path) == n {
				start, stop := group(path[0], true), group(path[n-1], false)
				victims := seesAll(start).Intersect(seesAll(stop)).Minus(used)
				var elim []Candidate
				add := func(v CellSet) {
					for c := range v.All() {
						if s.has(c, d) {
							dup := false
							for _, e := range elim {
								dup = dup || e.Cell == c
							}
							if !dup {
								elim = append(elim, Candidate{Cell: c, Digit: d})
							}
						}
					}
				}
				add(victims)
				if weak(stop, start) {
					for i := 0; i+1 < n; i++ {
						x, y := group(path[i], false), group(path[i+1], true)
						add(seesAll(x).Intersect(seesAll(y)).Minus(used))
					}
					add(seesAll(stop).Intersect(seesAll(start)).Minus(used))
				}
				if len(elim) == 0 {
					return
				}
				grouped, box, rows, cols := false, false, false, false
				for _, e := range path {
					l := ls[e.l]
					grouped = grouped || l.grouped
					box = box || l.kind == 0
					rows = rows || l.kind == 1
					cols = cols || l.kind == 2
				}
				r, name := base, "skyscraper"
				switch {
				case grouped:
					r, name = r+3, "grouped strong links"
				case box && rows && cols:
					r, name = r+2, "strong links"
				case box:
					r, name = r+1, "turbot fish"
				case rows && cols:
					r, name = r+1, "string kite"
				}
				if bestN == 0 || r < bestR || (r == bestR && len(elim) > bestN) {
					bestR, bestN, best, bestName = r, len(elim), elim, name
				}
				return
			}
			for i := range ls {
				for _, rev := range [2]bool{false, true} {
					e := end{i, rev}
					l := ls[i]
					if !used.Intersect(l.a.Union(l.b)).Empty() {
						continue
					}
					if len(path) > 0 && !weak(group(path[len(path)-1], false), group(e, true)) {
						continue
					}
					path = append(path, e)
					saved := used
					used = used.Union(l.a).Union(l.b)
					rec()
					used = saved
					path = path[:len(path)-1]
				}
			}
		}
		rec()
	}
	if bestN == 0 {
		return false
	}
	h.elim = best
	h.set(bestR, bestName)
	return true
}
