package engine

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkHint checks a hint for a board of correct digits: its path starts at
// Step, every step fits the solution, only the last one places a digit,
// and the path replayed from the board is consistent.
func checkHint(t *testing.T, board, sol Grid, h Hint) {
	t.Helper()
	require.Empty(t, h.Wrong)
	require.False(t, h.Solved)
	require.NotNil(t, h.Step)
	require.NotEmpty(t, h.Path)
	assert.Equal(t, h.Path[0], *h.Step)
	c := NewCandidates(board)
	for i, st := range h.Path {
		checkStep(t, sol, st, board.String())
		if i < len(h.Path)-1 {
			assert.Empty(t, st.Place, "only the last step of the path places a digit")
		} else {
			assert.NotEmpty(t, st.Place, "the path ends with a placement")
		}
		if st.Technique == TechniqueTrial {
			// The trial cell has the fewest candidates on the board it was
			// taken from, and its explanation says what it is.
			cell := st.Cells[0]
			for other := 0; other < NumCells; other++ {
				if c.Value(other) == 0 {
					assert.LessOrEqual(t, c.Count(cell), c.Count(other), "trial cell %s vs %s", CellName(cell), CellName(other))
				}
			}
			assert.Contains(t, st.Explanation(), "contradiction")
		}
		assert.True(t, c.Apply(&st))
		assert.NotEmpty(t, st.Explanation())
	}
}

func TestNextHintOnRandomPartialBoards(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 14))
	puzzles := append([]Grid{MustParse(easyPuzzle), MustParse(easterMonster)}, loadPuzzles(t, "magictour-top1465.txt", 40)...)
	trials := 0
	kinds := map[Level]int{}
	for _, p := range puzzles {
		sol := uniqueSolution(t, p)
		for k := 0; k < 5; k++ {
			board := p
			// Fill a random share of the empty cells with their solution
			// digits: none at first, then mostly few, so that the hard
			// positions near the start are well covered.
			share := float64(k) / 4 * rng.Float64() * rng.Float64()
			for cell := range board {
				if board[cell] == 0 && rng.Float64() < share {
					board[cell] = sol[cell]
				}
			}
			if board == sol {
				continue
			}
			h, err := NextHint(p, board)
			require.NoError(t, err)
			checkHint(t, board, sol, h)
			trials++
			kinds[h.Path[len(h.Path)-1].Technique.Level()]++
		}
	}
	// Where the techniques got stuck grading a puzzle, the hint must fall
	// back on a trial (possibly after some eliminations).
	for _, p := range puzzles {
		gr, err := GradePuzzle(p)
		require.NoError(t, err)
		if gr.Solved {
			continue
		}
		h, err := NextHint(p, gr.Board)
		require.NoError(t, err)
		checkHint(t, gr.Board, uniqueSolution(t, p), h)
		kinds[h.Path[len(h.Path)-1].Technique.Level()]++
		trials++
	}
	assert.Greater(t, trials, 150)
	// The boards reach every kind of ending: singles, harder placements
	// and the trial fallback.
	assert.Positive(t, kinds[LevelEasy])
	assert.Positive(t, kinds[LevelBeyond])
	t.Logf("path endings by level: %v", kinds)
}

func TestNextHintNamesWrongCells(t *testing.T) {
	p := MustParse(easyPuzzle)
	sol := MustParse(easySolution)
	board := p
	board[2] = sol[2]     // r1c3, right
	board[3] = sol[3] + 1 // r1c4 = 7, wrong (sol is 6)
	h, err := NextHint(p, board)
	require.NoError(t, err)
	assert.Equal(t, []int{3}, h.Wrong)
	assert.Nil(t, h.Step)
	assert.Equal(t, "r1c4 is wrong: the solution has a different digit there.", h.Explanation())

	board[10] = 1 // r2c2 is 7 in the solution
	h, err = NextHint(p, board)
	require.NoError(t, err)
	assert.Equal(t, []int{3, 10}, h.Wrong)
	assert.Equal(t, "r1c4 and r2c2 are wrong: the solution has different digits there.", h.Explanation())
}

func TestNextHintSolvedAndErrors(t *testing.T) {
	p := MustParse(easyPuzzle)
	sol := MustParse(easySolution)
	h, err := NextHint(p, sol)
	require.NoError(t, err)
	assert.True(t, h.Solved)
	assert.Nil(t, h.Step)
	assert.Equal(t, "The board is solved.", h.Explanation())

	changed := p
	changed[0] = 6 // r1c1 is the given 5
	_, err = NextHint(p, changed)
	assert.ErrorIs(t, err, ErrBoardMismatch)
	assert.Contains(t, err.Error(), "r1c1")

	_, err = NextHint(MustParse(strings.Repeat(".", 81)), sol)
	assert.ErrorIs(t, err, ErrMultipleSolutions)
	_, err = NextHint(MustParse("55"+easyPuzzle[2:]), p)
	assert.ErrorIs(t, err, ErrConflict)
}

func TestNextHintFirstStep(t *testing.T) {
	// From the givens of the easy puzzle the first step is the naked
	// single in r5c5, which is also the whole path.
	p := MustParse(easyPuzzle)
	h, err := NextHint(p, p)
	require.NoError(t, err)
	require.NotNil(t, h.Step)
	assert.Equal(t, TechniqueNakedSingle, h.Step.Technique)
	assert.Equal(t, []Candidate{{40, 5}}, h.Step.Place)
	assert.Len(t, h.Path, 1)
	assert.Equal(t, "r5c5 must be 5: it is the only digit r5c5 can still hold.", h.Explanation())
}

func TestNextHintFallsBackToTrial(t *testing.T) {
	// The techniques here cannot crack Easter Monster: the path ends in a
	// trial that reveals a cell with the fewest candidates.
	p := MustParse(easterMonster)
	sol := uniqueSolution(t, p)
	h, err := NextHint(p, p)
	require.NoError(t, err)
	checkHint(t, p, sol, h)
	last := h.Path[len(h.Path)-1]
	require.Equal(t, TechniqueTrial, last.Technique)
	cell := last.Cells[0]
	assert.Equal(t, []Candidate{{cell, sol[cell]}}, last.Place)
	assert.NotContains(t, []uint8(last.Digits), sol[cell], "the other candidates exclude the solution digit")
	assert.NotEmpty(t, last.Digits)
	assert.True(t, strings.HasPrefix(last.Explanation(), CellName(cell)+" must be "), last.Explanation())
}
