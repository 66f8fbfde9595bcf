//go:build goexperiment.simd && amd64

package engine

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

var triadImplFlag = flag.String("triad.impl", "", "the triad solver's propagation for the tests and benchmarks: go, avx2 or avx512 (default: the fastest the processor runs)")

func TestMain(m *testing.M) {
	flag.Parse()
	switch *triadImplFlag {
	case "":
	case "go":
		triadImpl = triadGo
	case "avx2":
		triadImpl = triadAVX2
	case "avx512":
		triadImpl = triadAVX512
	default:
		fmt.Fprintf(os.Stderr, "-triad.impl %q: want go, avx2 or avx512\n", *triadImplFlag)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// triadAsmImpls are the assembly propagations this processor runs, by name.
func triadAsmImpls() map[string]int {
	impls := map[string]int{"AVX2": triadAVX2}
	if triadBestImpl() == triadAVX512 {
		impls["AVX-512"] = triadAVX512
	}
	return impls
}

// useTriadImpl selects a propagation for the rest of the test.
func useTriadImpl(t testing.TB, impl int) {
	t.Helper()
	old := triadImpl
	triadImpl = impl
	t.Cleanup(func() { triadImpl = old })
}

// sameAsGo holds the propagation impl to the Go one on p: the same count,
// first solution and number of guesses, which it returns. The assembly
// runs on a new goroutine, whose small stack grows while it runs.
func sameAsGo(t *testing.T, impl int, p Grid, limit int) int {
	t.Helper()
	triadImpl = triadGo
	n, first, guesses, ok := triadSolve(&p, limit, true)
	require.True(t, ok)
	triadImpl = impl
	var an, aguesses int
	var afirst Grid
	done := make(chan struct{})
	go func() {
		an, afirst, aguesses, _ = triadSolve(&p, limit, true)
		close(done)
	}()
	<-done
	require.Equal(t, [2]int{n, guesses}, [2]int{an, aguesses}, "count and guesses, %s, limit %d", p, limit)
	require.Equal(t, first, afirst, "%s, limit %d", p, limit)
	return guesses
}

// TestTriadAsmAgreesWithGo runs the Go propagation and each assembly one
// the processor has on every collection of testdata/ and on random and
// spoiled grids, and requires the same counts and the same guesses.
func TestTriadAsmAgreesWithGo(t *testing.T) {
	requireTriad(t)
	for name, impl := range triadAsmImpls() {
		t.Run(name, func(t *testing.T) {
			useTriadImpl(t, impl)
			var guesses int
			for _, file := range append(puzzleCollections, "forum-hardest-1106-sample.txt") {
				for i, p := range loadPuzzles(t, file, 0) {
					if raceSample(i) {
						guesses += sameAsGo(t, impl, p, 1+i%3)
					}
				}
			}
			for i, r := range loadSERated(t, filepath.Join("testdata", "se-rated.txt")) {
				if raceSample(i) {
					guesses += sameAsGo(t, impl, r.puzzle, 1+i%3)
				}
			}
			rng := rand.New(rand.NewPCG(7, 7))
			for i := range 3000 {
				kind := puzzleKind(i % 3)
				p := randomPuzzle(rng, kind, []int{20, 30, 10}[kind], []int{81, 60, 70}[kind])
				if raceSample(i) {
					guesses += sameAsGo(t, impl, p, 1+i%3)
				}
			}
			t.Logf("%d guesses", guesses)
			require.Greater(t, guesses, 10000, "the searches branch")
		})
	}
}
