package engine

import "math/bits"

// refSolve is the reference the fast solver is checked against: the plain
// candidate-mask depth-first search that stood in for Solve before the
// bitboard solver existed. It is slow but obviously right: at each step it
// takes the empty cell with the fewest candidates (computed afresh from its
// peers) and tries each candidate in turn. It returns the number of
// solutions, capped at limit (at least 1), and the first solution found.
// Cells holding a value outside 0..9 make the grid unsolvable.
func refSolve(g Grid, limit int) (count int, first Grid) {
	count, first, _ = refSolveBudget(g, limit, -1)
	return count, first
}

// refSolveBudget is refSolve that gives up after visiting budget search
// nodes (no limit when budget < 0); done is false when it gave up, and the
// count is then only a lower bound. The fuzz target uses it because the
// plain search can take seconds on a hard 17-clue puzzle.
func refSolveBudget(g Grid, limit, budget int) (count int, first Grid, done bool) {
	if limit < 1 {
		limit = 1
	}
	for _, v := range g {
		if v > 9 {
			return 0, Grid{}, true
		}
	}
	if g.HasConflict() {
		return 0, Grid{}, true
	}
	w := g
	done = true
	var rec func() bool
	rec = func() bool {
		if budget == 0 {
			done = false
			return true // stop the search
		}
		budget--
		best, bestMask, bestN := -1, uint16(0), 10
		for c := 0; c < NumCells; c++ {
			if w[c] != 0 {
				continue
			}
			var used uint16
			for _, p := range &Peers[c] {
				used |= 1 << w[p]
			}
			m := ^used & 0x3FE
			n := bits.OnesCount16(m)
			if n < bestN {
				best, bestMask, bestN = c, m, n
				if n == 0 {
					return false
				}
			}
		}
		if best < 0 {
			if count == 0 {
				first = w
			}
			count++
			return count >= limit
		}
		for m := bestMask; m != 0; m &= m - 1 {
			w[best] = uint8(bits.TrailingZeros16(m))
			if rec() {
				return true
			}
		}
		w[best] = 0
		return false
	}
	rec()
	return count, first, done
}
