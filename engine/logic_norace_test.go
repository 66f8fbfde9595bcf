//go:build !race

package engine

// raceEnabled is true under the race detector, which makes sync.Pool drop
// items at random, so allocation counts are not meaningful.
const raceEnabled = false

// raceSample is true: without the race detector every case runs (see
// logic_race_test.go).
func raceSample(int) bool { return true }
