//go:build goexperiment.simd && amd64

package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The triad solver is built only with GOEXPERIMENT=simd on amd64 (as
// `make` builds and tests); `make test`'s second pass of this package runs
// without it, so the band solver alone is tested there too.

func requireTriad(t *testing.T) {
	t.Helper()
	if !triadReady {
		t.Skip("the processor has no AVX2: CountSolutions uses the band solver alone")
	}
}

// checkTriad holds the triad solver to the band solver's count on p, and
// its first solution to a completion of p (the band solver's own where
// there is only one).
func checkTriad(t *testing.T, p Grid, limit int) {
	t.Helper()
	want := Solve(p, limit)
	n, first, _, ok := triadSolve(&p, limit, true)
	require.True(t, ok)
	require.Equal(t, want.Count, n, "%s, limit %d", p, limit)
	if n == 0 {
		require.Equal(t, Grid{}, first)
		return
	}
	require.True(t, first.Complete() && givensKept(p, first), "%s: %s", p, first)
	if limit > 1 && n == 1 {
		require.Equal(t, want.Solution, first, "%s", p)
	}
}

func TestTriadAgreesWithBandSolver(t *testing.T) {
	requireTriad(t)
	for _, tt := range []struct {
		name string
		n    int
	}{
		{"magictour-top1465.txt", 0},
		{"serg-benchmark.txt", 0},
		{"forum-hardest-1106-sample.txt", 0},
		{"17-clue.txt", 4000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for i, p := range loadPuzzles(t, tt.name, tt.n) {
				if raceSample(i) {
					checkTriad(t, p, 1+i%3)
				}
			}
		})
	}
}

// TestTriadPopcountWithoutBitalg runs the triad solver's Go propagation
// with the AVX2 count of candidates, where the processor has AVX-512's
// instead.
func TestTriadPopcountWithoutBitalg(t *testing.T) {
	requireTriad(t)
	if !triadBitalg {
		t.Skip("the processor has no AVX-512 BITALG: the other tests use the AVX2 count")
	}
	useTriadImpl(t, triadGo)
	triadBitalg = false
	t.Cleanup(func() { triadBitalg = true })
	for i, p := range loadPuzzles(t, "magictour-top1465.txt", 400) {
		checkTriad(t, p, 1+i%3)
	}
}

// TestTriadAVX2WithoutAVX512 runs the triad solver with the AVX2
// assembly, where the processor has AVX-512 and would run that instead.
func TestTriadAVX2WithoutAVX512(t *testing.T) {
	requireTriad(t)
	if triadBestImpl() != triadAVX512 {
		t.Skip("the processor has no AVX-512 BITALG: the other tests run the AVX2 assembly")
	}
	useTriadImpl(t, triadAVX2)
	for i, p := range loadPuzzles(t, "magictour-top1465.txt", 400) {
		checkTriad(t, p, 1+i%3)
	}
}

func TestTriadAgainstReference(t *testing.T) {
	requireTriad(t)
	rng := rand.New(rand.NewPCG(7, 7))
	for _, tt := range []struct {
		name               string
		kind               puzzleKind
		minBlank, maxBlank int
	}{
		{"holes", holes, 20, 81},
		{"wrong given", wrongGiven, 30, 60},
		{"conflicting givens", conflict, 10, 70},
	} {
		t.Run(tt.name, func(t *testing.T) {
			seen := map[int]int{}
			for i := range 1200 {
				p := randomPuzzle(rng, tt.kind, tt.minBlank, tt.maxBlank)
				if !raceSample(i) {
					continue
				}
				limit := 1 + i%3
				want, _ := refSolve(p, limit)
				seen[want]++
				n, first, _, _ := triadSolve(&p, limit, true)
				require.Equal(t, want, n, "%s, limit %d", p, limit)
				if n > 0 {
					require.True(t, first.Complete() && givensKept(p, first), "%s: %s", p, first)
				}
			}
			t.Logf("reference counts: %v", seen)
			if tt.kind != holes {
				assert.NotZero(t, seen[0], "some have no solution")
			}
		})
	}
}

// TestCountSolutionsHandsOver makes CountSolutions hand puzzles to the
// triad solver after one of the band solver's guesses (a search cut short
// with a solution found), and holds it to Solve.
func TestCountSolutionsHandsOver(t *testing.T) {
	requireTriad(t)
	old := triadAfter
	triadAfter = 1
	t.Cleanup(func() { triadAfter = old })
	for _, name := range []string{"magictour-top1465.txt", "serg-benchmark.txt"} {
		for i, p := range loadPuzzles(t, name, 400) {
			limit := 1 + i%3
			require.Equal(t, Solve(p, limit).Count, CountSolutions(p, limit), "%s, limit %d", p, limit)
		}
	}
	assert.Equal(t, 5, CountSolutions(Grid{}, 5))
}

func TestCountSolutionsAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("under the race detector sync.Pool drops items on purpose")
	}
	hard := loadPuzzles(t, "forum-hardest-1106-sample.txt", 1)[0]
	CountSolutions(hard, 2) // warm the pools
	assert.Zero(t, testing.AllocsPerRun(50, func() { CountSolutions(hard, 2) }))
}

func benchTriad(b *testing.B, name string) {
	if !triadReady {
		b.Skip("the processor has no AVX2")
	}
	puzzles := loadPuzzles(b, name, 0)
	var guesses int
	for b.Loop() {
		for _, p := range puzzles {
			_, _, g, _ := triadSolve(&p, 2, false)
			guesses += g
		}
	}
	n := float64(b.N) * float64(len(puzzles))
	b.ReportMetric(n/b.Elapsed().Seconds(), "puzzles/s")
	b.ReportMetric(float64(guesses)/n, "guesses/puzzle")
}

// The triad solver alone, every puzzle (CountSolutions gives it only those
// the band solver has not settled within triadAfter guesses).
func BenchmarkTriad17Clue(b *testing.B)  { benchTriad(b, "17-clue.txt") }
func BenchmarkTriadTop1465(b *testing.B) { benchTriad(b, "magictour-top1465.txt") }
func BenchmarkTriadHardest(b *testing.B) { benchTriad(b, "forum-hardest-1106-sample.txt") }
