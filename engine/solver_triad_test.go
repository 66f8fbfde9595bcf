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

// TestTriadRepeatedGivens holds the triad solver to no solution for givens
// that repeat a digit in a row, a column or a box, alone on an empty grid
// (where nothing else fails first) and beside the givens of a puzzle, with
// each propagation this processor runs: load leaves these to the first
// propagation.
func TestTriadRepeatedGivens(t *testing.T) {
	requireTriad(t)
	impls := triadAsmImpls()
	impls["Go"] = triadGo
	puzzle := MustParse(inkala)
	for name, impl := range impls {
		t.Run(name, func(t *testing.T) {
			useTriadImpl(t, impl)
			for _, pair := range [][2]int{
				{0, 8}, {0, 4}, {3, 5}, // a row: across boxes, and in one box
				{0, 72}, {0, 27}, {40, 49}, // a column
				{0, 10}, {30, 50}, {80, 60}, // a box, in no common row or column
			} {
				for _, base := range []Grid{{}, puzzle} {
					g := base
					for _, v := range []uint8{1, 5, 9} {
						if g[pair[0]] != 0 && g[pair[0]] != v || g[pair[1]] != 0 && g[pair[1]] != v {
							continue
						}
						g[pair[0]], g[pair[1]] = v, v
						n, _, _, ok := triadSolve(&g, 2, true)
						require.True(t, ok)
						require.Zero(t, n, "%d and %d both %d: %s", pair[0], pair[1], v, g)
						g = base
					}
				}
			}
		})
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

// The triad solver alone, as CountSolutions runs it where it is built in.
func BenchmarkTriad17Clue(b *testing.B)  { benchTriad(b, "17-clue.txt") }
func BenchmarkTriadTop1465(b *testing.B) { benchTriad(b, "magictour-top1465.txt") }
func BenchmarkTriadHardest(b *testing.B) { benchTriad(b, "forum-hardest-1106-sample.txt") }
