package engine

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Puzzles from testdata/se-rated.txt's source, each rated by Sukaku
// Explainer at the rating of the technique its hardest step needs.
var seExamples = []struct {
	puzzle string
	want   SERating
	step   string // the rater's name for the hardest step
}{
	{"............6.37.9....7865.91...453..6.159.7..427...98.7924....4.83.7............", 12, "hidden single"},
	{"..........5472916..2.4.1.7..398.652.............934...7..3.2..1.8.....9.1.......4", 25, "direct hidden triple"},
	{"..........2.5.3.9..349.752.4.......75.......6...182.....9...3..7...6...4....9....", 26, "pointing"},
	{".........6.38.41.5..5.1.2.....9.3...9.......7.42.7.89....7.9...8.......6.19.2.73.", 28, "claiming"},
	{".........85..342.99..75.6...6...1.2...25.61...7.8...4...6.85..15.146..92.........", 30, "naked pair"},
	{"...........48193..8..4.3..9.5.....6..69...53.1..7.6..4..2.8.1....1.9.7..39.....45", 32, "X-Wing"},
	{"...........7.9.4.....213.....5...9...46...15.3.......68...6...2..95476...7..8..9.", 34, "hidden pair"},
	{".....2.8.4.6..12...21...46.69..1.......7.4.......9..15.68...52...95..1.6.7.6.....", 36, "naked triple"},
	{"....4....7..8...3..6...37.1.8..1.2..3.......7..2.6..9.8.59...7..3...4..6....2....", 38, "Swordfish"},
	{".........529...4161.......9.4.2.1.6...3...1..6..8.9..4.6..2..3....3.6...2...1...8", 40, "skyscraper"},
	{".........7.6.2.4.3..15748..26.9.3.74..3...2......5.......398...3...4...2..4...6..", 41, "string kite"},
	{".2.1...4.5..6..3.2.97.2.1.........69..4...5..87.........6.9.41.7.3..8..5.5...6.2.", 41, "turbot fish"},
	{"......4...83.7.9......53.17..2..8...9..162..8...4..3..54.38......8.1.75...6......", 42, "XY-Wing"},
	{"..........7.6.3.2.2.19.56.8.6..5..9...7.6.2....5...8...3.....5.6.......7...4.2...", 43, "grouped strong links"},
	{"....5....87.....394...2...89...8...4...576....684.952..8.....6...27.58....9...4..", 44, "XYZ-Wing"},
	{"............836...8.7...5.39...2...4.75.4.63..4.9.7.2...9...2.....589...56.....97", 45, "unique rectangle"},
	{"...6.8......924...5.......965.7.2.312.......83...9...4.........7.9...4.6.21...75.", 46, "unique loop"},
	{"....7...5.37..8.948.6..4....8....5.7.5.7.2.1.7.9....6....4..2.692.5..87.3...2....", 54, "skyscraper"},
	{".....5.7.6.38.94...8.14..3.96....38...8...7...47....69.3..51.9...52.61.7.1.9.....", 55, "ALS wing"},
	{"...3.9.6.4.31.6......72..4.64....391..1...8..839....24.1..92......4.12.9.8.5.3...", 55, "string kite"},
	{".........5..1.3..71.4.7.5.32.3...9.197..2..54.4..3..7.....4.......5.9.....62874..", 56, "ALS wing"},
	{"....4....51.....27.4..2..6.35.2.1.86..8...3..69..8..12............6.4...4..795..8", 56, "BUG+1"},
	{"4.....6.5..654.3.7...7...4.....1..5..4.3.5.8..3..8.....2...4...6.1.579..7.4.....1", 56, "strong links"},
	{"...36.5.4.5.4...7.43...8.....2..1.....3.4.7.....2..4.....1...27.7...9.8.5.9.83...", 57, "BUG type 2"},
	{"...3.5.6.6...493...37...4..92......3.8..2..9.7......21..8...21...368...7.7.2.4...", 57, "grouped strong links"},
	{"............159...6...4...279.....45.8.....9...4...3...7.6.2.3..164.582..5..9..7.", 63, "ALS wing"},
	{".......9.7.63.......3.1672...98.3.6...7.6.4...8.1.59...3145.6.......85.3.6.......", 64, "ALS wing"},
	{"..3.6.4...6..1..5.7.......6..4...9..27.....84.1.....6..46...57....895...1...4...9", 66, "Y-cycle"},
	{"...1.2....2.....5.6..598..1.9.....8....9.6...24.7.3.6918..7..23....5......9...7..", 68, "Y-cycle"},
	{"...........52893..2..7.4..8..........4.1.5.8..3.6.7.4.9..453..1.1.....2...79.26..", 71, "forcing chain"},
	{"..........24...83.3.9...4.2.9..5..2....2.7...7.24.19.8.1..7..8.97..2..45..5...6..", 72, "forcing chain"},
	{"......978.81.3..2....2.....4....576...5.2.8...387....4.....6....4..9.68.296......", 74, "forcing chain"},
	{".6.....9.7.8...4.5.9.5.4.6...9.8.6.....9.1.....2.7.8...8.7.6.4.6.5...9.7.4.....5.", 78, "nishio forcing chain"},
	{"...3......8.2..6..63.8...5..4...23..3.......9..17...6..5...3.47..9..5.1......8...", 83, "unit forcing chains"},
	{"...6.28.7....5.12..27....63.9...8.....2.9.6.....5...1.24....73..63.7....7.98.4...", 83, "cell forcing chains"},
	{"...9...424.2...........65..82...54..6.......1..43...25..87...........3.951...8...", 84, "cell forcing chains"},
}

// TestSERatingByTechnique rates one puzzle per technique and checks the
// rating and the technique of the step that sets it (one in four under the
// race detector: raceSample).
func TestSERatingByTechnique(t *testing.T) {
	t.Parallel()
	for i, ex := range seExamples {
		if !raceSample(i) {
			continue
		}
		var log []seStep
		got, ok := rateSE(MustParse(ex.puzzle), &log)
		require.True(t, ok, ex.puzzle)
		assert.Equal(t, ex.want, got, ex.puzzle)
		hardest := ""
		for _, s := range log {
			if s.rating == got {
				hardest = s.name
				break
			}
		}
		assert.Equal(t, ex.step, hardest, ex.puzzle)
	}
}

// seStepRatings are the ratings each step of the rater may have.
var seStepRatings = map[string][]SERating{
	"full house": {10}, "hidden single": {12, 15}, "direct locking": {17, 19},
	"direct hidden pair": {20}, "naked single": {23}, "direct hidden triple": {25},
	"pointing": {26}, "claiming": {28}, "naked pair": {30}, "X-Wing": {32},
	"hidden pair": {34}, "naked triple": {36}, "Swordfish": {38}, "hidden triple": {40},
	"skyscraper": {40, 54, 58}, "string kite": {41, 55, 59}, "turbot fish": {41, 55, 59},
	"strong links": {56, 60}, "grouped strong links": {43, 57, 61},
	"XY-Wing": {42}, "XYZ-Wing": {44}, "unique rectangle": {45}, "unique loop": {46, 47, 50}, "naked quad": {50},
	"Jellyfish": {52}, "hidden quad": {54}, "BUG+1": {56}, "BUG type 2": {57},
	"ALS wing": {55, 56, 62, 63, 64, 75},
}

// TestSEStepRatings rates the first puzzles of the sample step by step:
// every step of the singles to the wings has its technique's rating, every
// chain at least its base, and the singles and direct techniques all occur.
func TestSEStepRatings(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, r := range loadSERated(t, "testdata/se-rated.txt")[:400] {
		var log []seStep
		rateSE(r.puzzle, &log)
		for _, s := range log {
			seen[s.name] = true
			if allowed, ok := seStepRatings[s.name]; ok {
				assert.Contains(t, allowed, s.rating, "%s in %s", s.name, r.puzzle)
				continue
			}
			base := map[string]SERating{
				"X-cycle": 65, "Y-cycle": 65, "XY-cycle": 70, "forcing X-chain": 66, "forcing chain": 70,
				"nishio forcing chain": 75,
				"cell forcing chains":  80, "unit forcing chains": 80,
			}[s.name]
			require.NotZero(t, base, "unknown step %q", s.name)
			assert.GreaterOrEqual(t, s.rating, base, "%s in %s", s.name, r.puzzle)
		}
	}
	for _, name := range []string{"full house", "hidden single", "direct locking", "direct hidden pair",
		"naked single", "direct hidden triple", "pointing", "claiming", "hidden triple"} {
		assert.True(t, seen[name], "no %s step in the sample", name)
	}
}

// TestChainPenalty checks Sudoku Explainer's length penalty: 0.1 for each
// of 4, 6, 8, 12, 16, 24, ... implications the chain goes past.
func TestChainPenalty(t *testing.T) {
	for nodes, want := range map[int]SERating{3: 0, 6: 0, 7: 1, 8: 1, 9: 2, 10: 2, 11: 3, 14: 3, 15: 4, 18: 4, 19: 5, 26: 5, 27: 6} {
		assert.Equal(t, want, chainPenalty(nodes), "%d nodes", nodes)
	}
}

// TestWingRating checks the ALS wings' ratings by size and biggest cell.
func TestWingRating(t *testing.T) {
	assert.Equal(t, SERating(55), wingRating(4, 2))
	assert.Equal(t, SERating(56), wingRating(4, 3))
	assert.Equal(t, SERating(55), wingRating(4, 4))
	assert.Equal(t, SERating(63), wingRating(5, 2))
	assert.Equal(t, SERating(64), wingRating(5, 3))
	assert.Equal(t, SERating(62), wingRating(5, 5))
	assert.Equal(t, SERating(66), wingRating(6, 4))
	assert.Equal(t, SERating(75), wingRating(7, 4))
}

func TestSERatingText(t *testing.T) {
	assert.Equal(t, "7.1", SERating(71).String())
	assert.Equal(t, "1.0", SERating(10).String())
	b, err := json.Marshal(struct {
		SE SERating `json:"se"`
	}{83})
	require.NoError(t, err)
	assert.JSONEq(t, `{"se":8.3}`, string(b))
	var r SERating
	require.NoError(t, json.Unmarshal([]byte("5.6"), &r))
	assert.Equal(t, SERating(56), r)
	assert.Error(t, json.Unmarshal([]byte(`"x"`), &r))
}

// TestRateSEStuck: a puzzle that needs more than multiple forcing chains
// is not rated.
func TestRateSEStuck(t *testing.T) {
	// Easter Monster, SE 11.6.
	_, ok := RateSE(MustParse("1.......2.9.4...5...6...7...5.9.3.......7.......85..4.7.....6...3...9.8...2.....1"))
	assert.False(t, ok)
	r, ok := RateSE(MustParse(seExamples[0].puzzle))
	assert.True(t, ok)
	assert.Equal(t, SERating(12), r)
}

// BenchmarkRateSE rates the sample's puzzles, one per iteration in turn.
func BenchmarkRateSE(b *testing.B) {
	rated := loadSERated(b, "testdata/se-rated.txt")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		RateSE(rated[i%len(rated)].puzzle)
	}
}

// TestRateSEOnPuzzlesWithSeveralSolutions: the rater assumes one solution,
// but a puzzle with several must still end, without a panic, either
// unrated or rated.
func TestRateSEOnPuzzlesWithSeveralSolutions(t *testing.T) {
	t.Parallel()
	n := 300
	if raceEnabled {
		n = 60
	}
	for _, g := range loadPuzzles(t, "serg-benchmark.txt", n) {
		r, ok := RateSE(g)
		if ok {
			assert.Positive(t, int(r), "%s", g)
		}
	}
}
