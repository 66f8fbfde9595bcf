//go:build race

package engine

// raceEnabled is true under the race detector, which makes sync.Pool drop
// items at random, so allocation counts are not meaningful.
const raceEnabled = true

// raceSample says whether a check of pure computation runs its case i
// under the race detector: one case in four. Such loops share nothing
// between goroutines (TestSolveConcurrent covers the engine's pools), and
// the detector makes them ten times slower; `make test` runs every case
// again without it (its second pass runs the whole package).
func raceSample(i int) bool { return i%4 == 0 }
