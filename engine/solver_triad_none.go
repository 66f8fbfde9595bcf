//go:build !(goexperiment.simd && amd64)

package engine

// Without GOEXPERIMENT=simd on amd64 there is no triad solver: the band
// solver (solver_bits.go) counts every puzzle.
func triadSolve(*Grid, int, bool) (count int, first Grid, guesses int, ok bool) {
	return 0, Grid{}, 0, false
}

// triadName is empty: this build has no triad solver.
func triadName() string { return "" }
