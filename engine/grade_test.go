package engine

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkGrade replays a grade's steps from the puzzle and checks each one
// against the solution, the bookkeeping (counts, score, hardest, level)
// against the steps, and SolvableWithin against the level. Steps come in
// rounds, runs of one technique: the first step of a round is the easiest
// available, and a round ends when its technique has nothing left.
func checkGrade(t *testing.T, p Grid, gr Grade) {
	t.Helper()
	sol := uniqueSolution(t, p)
	c := NewCandidates(p)
	counts := map[Technique]int{}
	score := 0
	hardest := TechniqueNone
	prev := TechniqueNone
	for i, st := range gr.Steps {
		checkStep(t, sol, st, p.String())
		var buf stepBuf
		if st.Technique != prev {
			if prev != TechniqueNone && findStep(prev, &c, buf.init()) {
				t.Fatalf("%s step %d: the %s round ended with %s left to do", p, i, prev, prev)
			}
			// A new round: no easier technique finds anything here.
			for e := TechniqueFullHouse; e < st.Technique; e++ {
				if findStep(e, &c, buf.init()) {
					t.Fatalf("%s step %d: %s was taken while %s was available", p, i, st.Technique, e)
				}
			}
			if st.Technique.Level() != LevelEasy {
				counts[st.Technique]++
				score += st.Technique.Score()
			}
		}
		if st.Technique.Level() == LevelEasy {
			counts[st.Technique] += len(st.Place)
			score += singleScore * len(st.Place)
		}
		prev = st.Technique
		require.True(t, c.Apply(&st), "step %d changes nothing", i)
		if st.Technique.Score() > hardest.Score() || (st.Technique.Score() == hardest.Score() && st.Technique > hardest) {
			hardest = st.Technique
		}
		_ = st.Explanation()
	}
	assert.Equal(t, counts, gr.Counts)
	assert.Equal(t, score, gr.Score)
	assert.Equal(t, hardest, gr.Hardest)
	assert.Equal(t, c.Grid(), gr.Board)
	assert.Equal(t, c, gr.Candidates)
	assert.Equal(t, c.Solved(), gr.Solved)
	if gr.Solved {
		assert.Equal(t, sol, gr.Board)
		assert.Equal(t, hardest.Level(), gr.Level)
	} else {
		assert.Equal(t, LevelBeyond, gr.Level)
		var buf stepBuf
		assert.False(t, nextStep(&c, buf.init(), LevelExpert), "stuck means no technique applies")
	}
	// The fast path agrees at every level.
	for max := LevelEasy; max <= LevelBeyond; max++ {
		solved, lvl := SolvableWithin(p, max)
		if gr.Solved && gr.Level <= max {
			assert.True(t, solved, "%s: level %s, SolvableWithin(%s)", p, gr.Level, max)
			assert.Equal(t, gr.Level, lvl, "%s: SolvableWithin(%s)", p, max)
		} else {
			assert.False(t, solved, "%s: level %s, SolvableWithin(%s)", p, gr.Level, max)
			assert.LessOrEqual(t, lvl, max)
		}
	}
}

func TestGradeKnownPuzzles(t *testing.T) {
	tests := []struct {
		name    string
		puzzle  string
		level   Level
		solved  bool
		hardest Technique
	}{
		{"wikipedia example: singles only", easyPuzzle, LevelEasy, true, TechniqueNakedSingle},
		{"easter monster", easterMonster, LevelBeyond, false, TechniqueNone},
		{"ai escargot", "1....7.9..3..2...8..96..5....53..9...1..8...26....4...3......1..4......7..7...3..", LevelBeyond, false, TechniqueNone},
		{"golden nugget", ".......39.....1..5..3.5.8....8.9...6.7...2...1..4.......9.8..5..2....6..4..7.....", LevelBeyond, false, TechniqueNone},
		{"inkala 2012", inkala, LevelBeyond, false, TechniqueNone},
		{"hodoku w02: a w-wing", hodokuW02Puzzle, LevelHard, true, TechniqueWWing},
		{"hodoku sk01: a skyscraper", hodokuSK01Puzzle, LevelHard, true, TechniqueSkyscraper},
		{"top1465 #45: an xy-chain", top1465No45, LevelExpert, true, TechniqueXYChain},
		{"top1465 #4: hidden pairs", "3.7.4...........918........4.....7.....16.......25..........38..9....5...2.6.....", LevelMedium, true, TechniqueHiddenPair},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := MustParse(tt.puzzle)
			gr, err := GradePuzzle(p)
			require.NoError(t, err)
			assert.Equal(t, tt.level, gr.Level)
			assert.Equal(t, tt.solved, gr.Solved)
			if tt.hardest != TechniqueNone {
				assert.Equal(t, tt.hardest, gr.Hardest)
			}
			checkGrade(t, p, gr)
		})
	}
}

func TestGradeEasyCounts(t *testing.T) {
	p := MustParse(easyPuzzle)
	gr, err := GradePuzzle(p)
	require.NoError(t, err)
	empty := NumCells - p.Filled()
	assert.Len(t, gr.Steps, empty, "a singles-only puzzle takes one step per empty cell")
	total := 0
	for tech, n := range gr.Counts {
		assert.Equal(t, LevelEasy, tech.Level(), tech.String())
		total += n
	}
	assert.Equal(t, empty, total)
	assert.Equal(t, MustParse(easySolution), gr.Board)
}

func TestGradeErrors(t *testing.T) {
	noSolution := []byte(easyPuzzle)
	noSolution[2] = '1' // r1c3 is 4 in the only solution; 1 clashes with no given
	tests := []struct {
		name   string
		puzzle string
		want   error
		msg    string
	}{
		{"conflict", "55" + easyPuzzle[2:], ErrConflict, "r1c1 and r1c2 both hold 5"},
		{"no solution", string(noSolution), ErrNoSolution, ""},
		{"empty grid", strings.Repeat(".", 81), ErrMultipleSolutions, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := GradePuzzle(MustParse(tt.puzzle))
			require.ErrorIs(t, err, tt.want)
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
}

func TestGradeStable(t *testing.T) {
	for _, p := range loadPuzzles(t, "magictour-top1465.txt", 20) {
		a, err := GradePuzzle(p)
		require.NoError(t, err)
		b, err := GradePuzzle(p)
		require.NoError(t, err)
		require.Equal(t, a, b, "%s", p)
		ja, err := json.Marshal(a)
		require.NoError(t, err)
		jb, err := json.Marshal(b)
		require.NoError(t, err)
		require.JSONEq(t, string(ja), string(jb))
	}
}

func TestGradeJSON(t *testing.T) {
	gr, err := GradePuzzle(MustParse(easyPuzzle))
	require.NoError(t, err)
	b, err := json.Marshal(gr)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	assert.Equal(t, "easy", m["level"])
	assert.Equal(t, "naked-single", m["hardest"])
	placed := 0.0
	for _, n := range m["counts"].(map[string]any) {
		placed += n.(float64)
	}
	g := MustParse(easyPuzzle)
	assert.Equal(t, float64(81-g.Filled()), placed, "singles count the digits they place")
	assert.Equal(t, true, m["solved"])
}

// TestGradeTop1465 grades the hard collection: no step may contradict the
// solution, and the fast path must agree with the grade. Under -short it
// takes every 10th puzzle, under the race detector every 4th.
func TestGradeTop1465(t *testing.T) {
	puzzles := loadPuzzles(t, "magictour-top1465.txt", 0)
	require.Len(t, puzzles, 1465)
	stride := 1
	if testing.Short() {
		stride = 10
	} else if raceEnabled {
		stride = 4
	}
	levels := map[Level]int{}
	for i := 0; i < len(puzzles); i += stride {
		p := puzzles[i]
		gr, err := GradePuzzle(p)
		require.NoError(t, err, "puzzle %d", i+1)
		checkGrade(t, p, gr)
		levels[gr.Level]++
		if t.Failed() {
			t.Fatalf("puzzle %d: %s", i+1, p)
		}
	}
	t.Logf("levels: %v", levels)
}

func TestSolvableWithinDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	tests := []struct {
		name   string
		puzzle string
		max    Level
	}{
		{"singles", easyPuzzle, LevelEasy},
		{"medium", "3.7.4...........918........4.....7.....16.......25..........38..9....5...2.6.....", LevelMedium},
		{"stuck at expert", easterMonster, LevelExpert},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := MustParse(tt.puzzle)
			allocs := testing.AllocsPerRun(20, func() { SolvableWithin(p, tt.max) })
			assert.Zero(t, allocs)
		})
	}
}

func TestSolvableWithinConflict(t *testing.T) {
	solved, lvl := SolvableWithin(MustParse("55"+easyPuzzle[2:]), LevelExpert)
	assert.False(t, solved)
	assert.Equal(t, LevelEasy, lvl)
	// A full, valid grid needs nothing.
	solved, lvl = SolvableWithin(MustParse(easySolution), LevelEasy)
	assert.True(t, solved)
	assert.Equal(t, LevelEasy, lvl)
}

// TestGrade17Clue grades minimal puzzles, the kind a generator makes: every
// step must fit the solution and SolvableWithin must agree with the grade.
func TestGrade17Clue(t *testing.T) {
	levels := map[Level]int{}
	for i, p := range loadPuzzles(t, "17-clue.txt", 400) {
		gr, err := GradePuzzle(p)
		require.NoError(t, err, "puzzle %d", i+1)
		checkGrade(t, p, gr)
		levels[gr.Level]++
		if t.Failed() {
			t.Fatalf("puzzle %d: %s", i+1, p)
		}
	}
	t.Logf("levels: %v", levels)
	assert.Positive(t, levels[LevelEasy])
	assert.Positive(t, levels[LevelMedium])
	assert.Positive(t, levels[LevelHard])
}

// Unlocked: every cell it names is placed by a single that follows a
// harder step, none of them was placeable before that step, and an easy
// puzzle has none.
func TestUnlocked(t *testing.T) {
	easy, err := Generate(GenerateOptions{Level: LevelEasy, Seed: 7})
	require.NoError(t, err)
	gr, err := GradePuzzle(easy.Givens)
	require.NoError(t, err)
	assert.Empty(t, Unlocked(gr.Steps), "singles only")

	hard, err := Generate(GenerateOptions{Level: LevelHard, Seed: 7})
	require.NoError(t, err)
	gr, err = GradePuzzle(hard.Givens)
	require.NoError(t, err)
	groups := Unlocked(gr.Steps)
	require.NotEmpty(t, groups)
	c := NewCandidates(hard.Givens)
	seen := map[int]bool{}
	for i, st := range gr.Steps {
		// Before a run of harder steps (the solver repeats a technique
		// while it finds one, and goes back to the singles after) no cell
		// of the groups still to come is a naked single.
		if st.Technique.Level() != LevelEasy && (i == 0 || gr.Steps[i-1].Technique.Level() == LevelEasy) {
			for _, cells := range groups {
				for _, cell := range cells {
					if !seen[cell] && c.Grid()[cell] == 0 {
						assert.NotEqual(t, 1, c.Count(cell), "cell %d placeable before its step", cell)
					}
				}
			}
		}
		for _, p := range st.Place {
			seen[p.Cell] = true
		}
		require.True(t, c.Apply(&st))
	}
	n := 0
	for _, cells := range groups {
		n += len(cells)
	}
	assert.LessOrEqual(t, n, NumCells-hard.Givens.Filled())
}
