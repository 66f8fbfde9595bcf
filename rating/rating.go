// Package rating is the Glicko-2 rating system (Mark E. Glickman,
// "Example of the Glicko-2 system", 2013) as the rated races use it: one
// rating per account, a race is one rating period, and a race of several
// players counts as each pair's result.
//
// A rating has three numbers: the rating itself (r, 1500 for a new
// player), its deviation (RD, 350 for a new player: how unsure the
// system is of r; a rating is provisional while RD is above
// ProvisionalRD) and its volatility (sigma, 0.06 for a new player: how
// erratic the player's results are). The system constant Tau (0.5)
// bounds how fast the volatility may change: smaller values keep it
// steadier; Glickman advises 0.3 to 1.2.
//
// The package is pure: no I/O, no clock, only the standard library, so
// the server, the store and a tournament can all use it.
package rating

import (
	"errors"
	"math"
)

// Defaults for a player who has never played a rated race, and the
// system's constants.
const (
	DefaultRating     = 1500.0
	DefaultRD         = 350.0
	DefaultVolatility = 0.06
	// Tau is the system constant: it limits the change of volatility in
	// one rating period.
	Tau = 0.5
	// ProvisionalRD is the deviation above which a rating is shown as
	// provisional.
	ProvisionalRD = 110.0
	// scale converts between the Glicko scale and Glicko-2's (step 2).
	scale = 173.7178
	// epsilon is the convergence tolerance of the volatility iteration
	// (step 5).
	epsilon = 0.000001
)

// ErrPlaces: a race's places do not match its players.
var ErrPlaces = errors.New("rating: one place per player")

// Rating is a player's Glicko-2 rating on the Glicko scale.
type Rating struct {
	Rating     float64 `json:"rating"`
	RD         float64 `json:"rd"`
	Volatility float64 `json:"volatility"`
}

// New is the rating of a player who has not played yet.
func New() Rating {
	return Rating{Rating: DefaultRating, RD: DefaultRD, Volatility: DefaultVolatility}
}

// Provisional reports whether the deviation is still high enough that
// the rating should be shown with a provisional mark.
func (r Rating) Provisional() bool { return r.RD > ProvisionalRD }

// Outcome is one game of a rating period: the opponent's rating before
// the period and the score against them (1 a win, 0.5 a draw, 0 a loss).
type Outcome struct {
	Opponent Rating
	Score    float64
}

// Update is the player's rating after a rating period with the outcomes
// given, by the steps of Glickman's paper, with system constant tau. A
// period without games only widens the deviation (step 6). The deviation
// never grows past DefaultRD.
func Update(r Rating, outcomes []Outcome, tau float64) Rating {
	mu := (r.Rating - DefaultRating) / scale
	phi := r.RD / scale
	sigma := r.Volatility
	if len(outcomes) == 0 {
		return Rating{Rating: r.Rating, RD: capRD(math.Sqrt(phi*phi+sigma*sigma) * scale), Volatility: sigma}
	}
	// Steps 3 and 4: the estimated variance v and the improvement delta.
	var invV, sum float64
	for _, o := range outcomes {
		muJ := (o.Opponent.Rating - DefaultRating) / scale
		g := g(o.Opponent.RD / scale)
		e := 1 / (1 + math.Exp(-g*(mu-muJ)))
		invV += g * g * e * (1 - e)
		sum += g * (o.Score - e)
	}
	v := 1 / invV
	delta := v * sum
	// Step 5: the new volatility.
	sigma = volatility(phi, sigma, v, delta, tau)
	// Steps 6 and 7: the new deviation and rating.
	phiStar := math.Sqrt(phi*phi + sigma*sigma)
	phiNew := 1 / math.Sqrt(1/(phiStar*phiStar)+1/v)
	muNew := mu + phiNew*phiNew*sum
	// Step 8: back to the Glicko scale.
	return Rating{Rating: muNew*scale + DefaultRating, RD: capRD(phiNew * scale), Volatility: sigma}
}

func capRD(rd float64) float64 { return math.Min(rd, DefaultRD) }

func g(phi float64) float64 { return 1 / math.Sqrt(1+3*phi*phi/(math.Pi*math.Pi)) }

// volatility is step 5: the root of f by the Illinois algorithm.
func volatility(phi, sigma, v, delta, tau float64) float64 {
	a := math.Log(sigma * sigma)
	f := func(x float64) float64 {
		ex := math.Exp(x)
		d := phi*phi + v + ex
		return ex*(delta*delta-phi*phi-v-ex)/(2*d*d) - (x-a)/(tau*tau)
	}
	A := a
	var B float64
	if delta*delta > phi*phi+v {
		B = math.Log(delta*delta - phi*phi - v)
	} else {
		k := 1.0
		for f(a-k*tau) < 0 {
			k++
		}
		B = a - k*tau
	}
	fA, fB := f(A), f(B)
	for i := 0; math.Abs(B-A) > epsilon && i < 100; i++ {
		C := A + (A-B)*fA/(fB-fA)
		fC := f(C)
		if fC*fB <= 0 {
			A, fA = B, fB
		} else {
			fA /= 2
		}
		B, fB = C, fC
	}
	return math.Exp(A / 2)
}

// Race is every player's rating after one race, a rating period of its
// own: each pair of players counts as one game, won by the better place
// (1 first; equal places draw). Place 0 is a player who did not finish
// (abandoned, or still solving when the race ended): they lose to every
// finisher and draw with one another. ratings and places are in the same
// order; the result is too.
func Race(ratings []Rating, places []int) ([]Rating, error) {
	if len(ratings) != len(places) {
		return nil, ErrPlaces
	}
	out := make([]Rating, len(ratings))
	for i, r := range ratings {
		outcomes := make([]Outcome, 0, len(ratings)-1)
		for j, o := range ratings {
			if j != i {
				outcomes = append(outcomes, Outcome{Opponent: o, Score: Score(places[i], places[j])})
			}
		}
		out[i] = Update(r, outcomes, Tau)
	}
	return out, nil
}

// Score is the result of a player placed a against one placed b (1 first,
// 0 did not finish): 1 a win, 0.5 a draw, 0 a loss.
func Score(a, b int) float64 {
	switch {
	case a == b:
		return 0.5
	case b == 0, a != 0 && a < b:
		return 1
	default:
		return 0
	}
}
