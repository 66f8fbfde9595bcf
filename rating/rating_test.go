package rating

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGlickmanExample is the worked example of Glickman's paper: a player
// rated 1500 (RD 200, volatility 0.06) wins against 1400/30 and loses to
// 1550/100 and 1700/300, with tau 0.5.
func TestGlickmanExample(t *testing.T) {
	got := Update(Rating{Rating: 1500, RD: 200, Volatility: 0.06}, []Outcome{
		{Opponent: Rating{Rating: 1400, RD: 30, Volatility: 0.06}, Score: 1},
		{Opponent: Rating{Rating: 1550, RD: 100, Volatility: 0.06}, Score: 0},
		{Opponent: Rating{Rating: 1700, RD: 300, Volatility: 0.06}, Score: 0},
	}, 0.5)
	assert.InDelta(t, 1464.06, got.Rating, 0.01)
	assert.InDelta(t, 151.52, got.RD, 0.01)
	assert.InDelta(t, 0.05999, got.Volatility, 0.00001) // the paper rounds 0.059996 down
}

func TestNoGamesWidensTheDeviation(t *testing.T) {
	r := Rating{Rating: 1600, RD: 100, Volatility: 0.06}
	got := Update(r, nil, Tau)
	assert.Equal(t, 1600.0, got.Rating)
	assert.InDelta(t, math.Sqrt(100*100+0.06*0.06*scale*scale), got.RD, 1e-9)
	assert.Equal(t, DefaultRD, Update(New(), nil, Tau).RD, "the deviation is capped")
}

func randomRating(rng *rand.Rand) Rating {
	return Rating{Rating: 800 + rng.Float64()*1600, RD: 30 + rng.Float64()*320, Volatility: 0.03 + rng.Float64()*0.06}
}

// TestTwoPlayerSymmetry: between two players of the same rating, what the
// winner gains the loser loses, and swapping who won mirrors it.
func TestTwoPlayerSymmetry(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		r := randomRating(rng)
		got, err := Race([]Rating{r, r}, []int{1, 2})
		require.NoError(t, err)
		assert.InDelta(t, got[0].Rating-r.Rating, r.Rating-got[1].Rating, 1e-9)
		assert.InDelta(t, got[0].RD, got[1].RD, 1e-9)
		assert.InDelta(t, got[0].Volatility, got[1].Volatility, 1e-12)

		a, b := randomRating(rng), randomRating(rng)
		ab, err := Race([]Rating{a, b}, []int{1, 2})
		require.NoError(t, err)
		ba, err := Race([]Rating{b, a}, []int{2, 1})
		require.NoError(t, err)
		assert.Equal(t, ab[0], ba[1])
		assert.Equal(t, ab[1], ba[0])
	}
}

// TestWinNeverLowersLossNeverRaises holds for any ratings.
func TestWinNeverLowersLossNeverRaises(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		r, o := randomRating(rng), randomRating(rng)
		win := Update(r, []Outcome{{Opponent: o, Score: 1}}, Tau)
		loss := Update(r, []Outcome{{Opponent: o, Score: 0}}, Tau)
		assert.GreaterOrEqual(t, win.Rating, r.Rating, "win %+v vs %+v", r, o)
		assert.LessOrEqual(t, loss.Rating, r.Rating, "loss %+v vs %+v", r, o)
		assert.LessOrEqual(t, win.RD, math.Sqrt(r.RD*r.RD+win.Volatility*win.Volatility*scale*scale)+1e-9)
	}
}

func TestRaceOfFour(t *testing.T) {
	rs := []Rating{New(), New(), New(), New()}
	got, err := Race(rs, []int{2, 1, 0, 3})
	require.NoError(t, err)
	// 1st beat three, 2nd beat two, 3rd beat the one who did not finish.
	assert.Greater(t, got[1].Rating, got[0].Rating)
	assert.Greater(t, got[0].Rating, got[3].Rating)
	assert.Greater(t, got[3].Rating, got[2].Rating)
	assert.Less(t, got[2].Rating, DefaultRating, "not finishing is a loss")
	var sum float64
	for _, r := range got {
		sum += r.Rating - DefaultRating
	}
	assert.InDelta(t, 0, sum, 1e-6, "equal ratings: the race moves no points in or out")

	_, err = Race(rs, []int{1})
	assert.ErrorIs(t, err, ErrPlaces)
}

func TestScore(t *testing.T) {
	tests := []struct {
		a, b int
		want float64
	}{{1, 2, 1}, {2, 1, 0}, {1, 1, 0.5}, {3, 0, 1}, {0, 3, 0}, {0, 0, 0.5}}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Score(tt.a, tt.b), "%d vs %d", tt.a, tt.b)
	}
}

func TestProvisional(t *testing.T) {
	assert.True(t, New().Provisional())
	assert.False(t, Rating{Rating: 1500, RD: 110, Volatility: 0.06}.Provisional())
}
