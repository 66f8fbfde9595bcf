package engine

// Conflicts returns the peers of cell (same row, column or box) that already
// hold digit. It is the check rooms run on every move: it reads 20 cells and
// allocates nothing. A digit out of 1..9 or a cell out of 0..80 has no
// conflicts; callers validate ranges before they get here.
func (g *Grid) Conflicts(cell int, digit uint8) CellSet {
	var s CellSet
	if uint(cell) >= NumCells || digit == 0 || digit > 9 {
		return s
	}
	for _, p := range &Peers[cell] {
		if g[p] == digit {
			s.Add(int(p))
		}
	}
	return s
}

// Conflict is a pair of peer cells, A < B, that hold the same digit.
type Conflict struct {
	A, B  int
	Digit uint8
}

// AllConflicts returns every pair of peers that hold the same digit, ordered
// by A then B (Peers lists each cell's peers in ascending order).
func (g *Grid) AllConflicts() []Conflict {
	var out []Conflict
	for a := 0; a < NumCells; a++ {
		d := g[a]
		if d == 0 {
			continue
		}
		for _, p := range &Peers[a] {
			if int(p) > a && g[p] == d {
				out = append(out, Conflict{A: a, B: int(p), Digit: d})
			}
		}
	}
	return out
}

// HasConflict reports whether any two peers hold the same digit.
func (g *Grid) HasConflict() bool {
	for u := range Units {
		var seen uint16
		for _, c := range &Units[u] {
			if d := g[c]; d != 0 {
				if seen&(1<<d) != 0 {
					return true
				}
				seen |= 1 << d
			}
		}
	}
	return false
}
