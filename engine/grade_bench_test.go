package engine

import (
	"sync"
	"testing"
)

// benchPuzzlesByLevel is up to 300 puzzles of each level from the first
// 2000 of the 17-clue collection (minimal puzzles, like a generator's) and
// the top1465 collection, graded once.
func benchPuzzlesByLevel(b *testing.B) map[Level][]Grid {
	b.Helper()
	benchLevelsOnce.Do(func() {
		benchLevels = map[Level][]Grid{}
		pool := append(loadPuzzles(b, "17-clue.txt", 2000), loadPuzzles(b, "magictour-top1465.txt", 0)...)
		for _, p := range pool {
			gr, err := GradePuzzle(p)
			if err != nil {
				b.Fatal(err)
			}
			if len(benchLevels[gr.Level]) < 300 {
				benchLevels[gr.Level] = append(benchLevels[gr.Level], p)
			}
		}
	})
	return benchLevels
}

var (
	benchLevelsOnce sync.Once
	benchLevels     map[Level][]Grid
)

// BenchmarkGradeTop1465 grades the first 200 top1465 puzzles in turn (one
// puzzle per op), explanations not included.
func BenchmarkGradeTop1465(b *testing.B) {
	puzzles := loadPuzzles(b, "magictour-top1465.txt", 200)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := GradePuzzle(puzzles[i%len(puzzles)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkSolvableWithin runs the generator's fast path on puzzles of each
// level, with that level as the limit (the puzzle passes), and on hard
// puzzles with a medium limit (it is rejected).
func BenchmarkSolvableWithin(b *testing.B) {
	levels := benchPuzzlesByLevel(b)
	cases := []struct {
		name    string
		puzzles []Grid
		max     Level
		want    bool
	}{
		{"easy", levels[LevelEasy], LevelEasy, true},
		{"medium", levels[LevelMedium], LevelMedium, true},
		{"hard", levels[LevelHard], LevelHard, true},
		{"expert", levels[LevelExpert], LevelExpert, true},
		{"hard-rejected-at-medium", levels[LevelHard], LevelMedium, false},
		{"beyond-rejected-at-expert", levels[LevelBeyond], LevelExpert, false},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			if len(tc.puzzles) == 0 {
				b.Skip("no puzzles of this level")
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if ok, _ := SolvableWithin(tc.puzzles[i%len(tc.puzzles)], tc.max); ok != tc.want {
					b.Fatalf("puzzle %d: solvable %v, want %v", i%len(tc.puzzles), ok, tc.want)
				}
				i++
			}
			b.ReportMetric(float64(len(tc.puzzles)), "puzzles")
		})
	}
}

// BenchmarkNextHint asks for a hint on the givens of top1465 puzzles.
func BenchmarkNextHint(b *testing.B) {
	puzzles := loadPuzzles(b, "magictour-top1465.txt", 100)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p := puzzles[i%len(puzzles)]
		if _, err := NextHint(p, p); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
