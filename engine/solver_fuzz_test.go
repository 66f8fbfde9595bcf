package engine

import "testing"

// FuzzSolve feeds puzzles to Solve with the uniqueness check. Whatever
// parses must give a count of at most 2, and a solution that is complete,
// valid and keeps the givens whenever the count is positive. With 17 or
// more givens the plain reference search usually finishes quickly, and
// then the counts must agree; it is given a budget of search nodes because
// on hard puzzles it can take seconds, which the fuzzer would report as a
// hang.
func FuzzSolve(f *testing.F) {
	for _, s := range fuzzSeeds(f, 50) {
		f.Add(s)
	}
	for _, tt := range famousPuzzles {
		f.Add(tt.puzzle)
	}
	f.Add(inkalaSolution)
	// Pigeonholes: three digits with two cells in a row, which took the
	// search millions of guesses before the minirow rule and the Hall check.
	f.Add("020001070000000000080000000009000000000510030000030510000000000000000000000000006")
	f.Add(".1.2.3....3.1.......2.....................12.........3.2.3.......1..2.....3..1...")
	f.Add(Grid{}.String())
	f.Fuzz(func(t *testing.T, s string) {
		g, err := Parse(s)
		if err != nil {
			t.Skip()
		}
		res := Solve(g, 2)
		if res.Count < 0 || res.Count > 2 {
			t.Fatalf("%s: count %d with limit 2", g, res.Count)
		}
		if res.Count > 0 {
			if !res.Solution.Complete() {
				t.Fatalf("%s: solution %s is not a complete valid grid", g, res.Solution)
			}
			if !givensKept(g, res.Solution) {
				t.Fatalf("%s: solution %s changes a given", g, res.Solution)
			}
		} else if res.Solution != (Grid{}) {
			t.Fatalf("%s: no solution but a non-zero grid %s", g, res.Solution)
		}
		if n := CountSolutions(g, 2); n != res.Count {
			t.Fatalf("%s: CountSolutions %d, Solve %d", g, n, res.Count)
		}
		if g.Filled() >= 17 {
			want, _, done := refSolveBudget(g, 2, 1000)
			if done && want != res.Count {
				t.Fatalf("%s: count %d, reference %d", g, res.Count, want)
			}
		}
	})
}
