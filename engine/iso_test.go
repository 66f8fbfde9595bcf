package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// isomorph maps a grid to an equivalent one: digits relabelled, rows
// permuted within their bands, bands permuted, columns within stacks and
// stacks permuted, and optionally transposed. Every Sudoku property that
// does not depend on where a cell is or which digit is which is invariant.
type isomorph struct {
	digit     [10]uint8
	row, col  [9]int
	transpose bool
}

func randomIsomorph(rng *rand.Rand) isomorph {
	var m isomorph
	perm := rng.Perm(9)
	for d := 1; d <= 9; d++ {
		m.digit[d] = uint8(perm[d-1] + 1)
	}
	lines := func() [9]int {
		var out [9]int
		bands := rng.Perm(3)
		for b := 0; b < 3; b++ {
			within := rng.Perm(3)
			for i := 0; i < 3; i++ {
				out[b*3+i] = bands[b]*3 + within[i]
			}
		}
		return out
	}
	m.row, m.col = lines(), lines()
	m.transpose = rng.IntN(2) == 1
	return m
}

func (m isomorph) apply(g Grid) Grid {
	var out Grid
	for r := 0; r < 9; r++ {
		for c := 0; c < 9; c++ {
			v := g[m.row[r]*9+m.col[c]]
			rr, cc := r, c
			if m.transpose {
				rr, cc = c, r
			}
			out[rr*9+cc] = m.digit[v]
		}
	}
	return out
}

func TestIsomorphicPuzzlesSolveAlike(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	puzzles := append(loadPuzzles(t, "magictour-top1465.txt", 40), loadPuzzles(t, "serg-benchmark.txt", 40)...)
	puzzles = append(puzzles, loadPuzzles(t, "17-clue.txt", 40)...)
	for _, p := range puzzles {
		want := Solve(p, 2)
		for k := 0; k < 5; k++ {
			m := randomIsomorph(rng)
			q := m.apply(p)
			got := Solve(q, 2)
			require.Equal(t, want.Count, got.Count, "puzzle %s as %s", p, q)
			if want.Count == 1 {
				assert.Equal(t, m.apply(want.Solution), got.Solution, "puzzle %s", p)
			}
		}
	}
}

func TestIsomorphKeepsValidity(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sol := Solve(MustParse(inkala), 2)
	require.Equal(t, 1, sol.Count)
	for k := 0; k < 100; k++ {
		q := randomIsomorph(rng).apply(sol.Solution)
		require.True(t, q.Complete(), "isomorph of a solution is a solution: %s", q)
	}
}

// TestIsomorphicPuzzlesGradeAlike: a puzzle and its isomorphs get the same
// level and hardest technique, always. The score is the same too but for
// rare puzzles where two equal patterns lead to different rounds of harder
// techniques; the test allows 1% of those and says how many it saw.
func TestIsomorphicPuzzlesGradeAlike(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	puzzles := loadPuzzles(t, "magictour-top1465.txt", 500)
	puzzles = append(puzzles, loadPuzzles(t, "17-clue.txt", 300)...)
	for _, level := range []Level{LevelEasy, LevelMedium, LevelHard, LevelExpert} {
		for seed := uint64(1); seed <= 10; seed++ {
			g, err := Generate(GenerateOptions{Level: level, Seed: seed})
			require.NoError(t, err)
			puzzles = append(puzzles, g.Givens)
		}
	}
	compared, scoreDiffers := 0, 0
	for _, p := range puzzles {
		want, err := GradePuzzle(p)
		require.NoError(t, err)
		for k := 0; k < 2; k++ {
			q := randomIsomorph(rng).apply(p)
			got, err := GradePuzzle(q)
			require.NoError(t, err)
			require.Equal(t, want.Level, got.Level, "level of %s and its isomorph %s", p, q)
			require.Equal(t, want.Solved, got.Solved, "%s", p)
			require.Equal(t, want.Hardest, got.Hardest, "hardest technique of %s and its isomorph %s", p, q)
			compared++
			if want.Score != got.Score {
				scoreDiffers++
				t.Logf("score %d vs %d: %s (%v) and its isomorph %s", want.Score, got.Score, p, want.Level, q)
			}
		}
	}
	t.Logf("%d isomorph pairs: level and hardest technique always equal, score differed in %d", compared, scoreDiffers)
	assert.LessOrEqual(t, scoreDiffers*100, compared, "score differs in more than 1%% of isomorph pairs")
}
