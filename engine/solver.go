package engine

import (
	"math/bits"
	"time"
)

// SolveStats describes the work one Solve call did.
type SolveStats struct {
	Iterations   int           // propagation rounds
	Guesses      int           // branches taken on a guessed digit
	Propagations int           // digits placed by propagation, not by guessing
	Elapsed      time.Duration // wall time of the call
}

// SolveResult is what Solve found: Count solutions, capped at the limit it
// was given, and the first solution found when Count > 0.
type SolveResult struct {
	Count    int
	Solution Grid
	Stats    SolveStats
}

// Solve counts the solutions of g up to limit (limit 2 answers "is it
// unique?") and returns the first one found. A grid whose givens conflict has
// no solution.
//
// PLACEHOLDER: a plain candidate-mask depth-first search, to be replaced by
// the bitboard solver with the same signature.
func Solve(g Grid, limit int) SolveResult {
	start := time.Now()
	var res SolveResult
	if limit < 1 {
		limit = 1
	}
	if g.HasConflict() {
		res.Stats.Elapsed = time.Since(start)
		return res
	}
	var w Grid = g
	var rec func() bool
	rec = func() bool {
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
			if res.Count == 0 {
				res.Solution = w
			}
			res.Count++
			return res.Count >= limit
		}
		if bestN > 1 {
			res.Stats.Guesses++
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
	res.Stats.Elapsed = time.Since(start)
	return res
}
