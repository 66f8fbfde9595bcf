package engine

import (
	"math/rand/v2"
	"testing"
)

// benchCollection solves every puzzle of a collection once per b.N with the
// uniqueness check (limit 2), so ns/op is the time for the whole collection;
// it reports puzzles/s, µs/puzzle and the guesses per puzzle.
func benchCollection(b *testing.B, name string) {
	puzzles := loadPuzzles(b, name, 0)
	var guesses, solved int
	b.ResetTimer()
	for b.Loop() {
		for _, p := range puzzles {
			res := Solve(p, 2)
			guesses += res.Stats.Guesses
			solved += res.Count
		}
	}
	b.StopTimer()
	n := float64(b.N) * float64(len(puzzles))
	if solved == 0 {
		b.Fatal("nothing solved")
	}
	b.ReportMetric(n/b.Elapsed().Seconds(), "puzzles/s")
	b.ReportMetric(b.Elapsed().Seconds()*1e6/n, "µs/puzzle")
	b.ReportMetric(float64(guesses)/n, "guesses/puzzle")
}

func BenchmarkSolve17Clue(b *testing.B) { benchCollection(b, "17-clue.txt") }

func BenchmarkSolveTop1465(b *testing.B) { benchCollection(b, "magictour-top1465.txt") }

// BenchmarkSolveHardest is the hardest public benchmark set: a sample of
// the forum's list of the hardest puzzles, where guessing dominates.
func BenchmarkSolveHardest(b *testing.B) { benchCollection(b, "forum-hardest-1106-sample.txt") }

func BenchmarkSolveSerg(b *testing.B) { benchCollection(b, "serg-benchmark.txt") }

// benchCount is benchCollection through CountSolutions, the fast path
// without clock reads and statistics (and, where it is built in, the
// triad solver for puzzles that need many guesses).
func benchCount(b *testing.B, name string) {
	puzzles := loadPuzzles(b, name, 0)
	b.ResetTimer()
	for b.Loop() {
		for _, p := range puzzles {
			CountSolutions(p, 2)
		}
	}
	b.ReportMetric(float64(b.N)*float64(len(puzzles))/b.Elapsed().Seconds(), "puzzles/s")
}

func BenchmarkCountSolutions17Clue(b *testing.B) { benchCount(b, "17-clue.txt") }

func BenchmarkCountSolutionsTop1465(b *testing.B) { benchCount(b, "magictour-top1465.txt") }

func BenchmarkCountSolutionsHardest(b *testing.B) {
	benchCount(b, "forum-hardest-1106-sample.txt")
}

func BenchmarkRandomSolution(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	var sink Grid
	for b.Loop() {
		sink = RandomSolution(rng)
	}
	_ = sink
}
