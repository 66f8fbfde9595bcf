// Package ladder rates rated races: it reads a race's results from the
// store, turns them into places (package rating's Race) and stores every
// player's new rating in one transaction. The matchmaking queue's races
// use it, and so can anything else that plays rated races (a tournament's
// rounds): all it needs is the race's game ID and who was in it.
package ladder

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sudoku-arena/arena/rating"
	"github.com/sudoku-arena/arena/store"
)

// Store is what rating a race needs of the store.
type Store interface {
	Ratings(ctx context.Context, playerIDs []string) (map[string]store.Rating, error)
	ApplyRatings(ctx context.Context, changes []store.RatingChange) error
	RoomRatings(ctx context.Context, roomID string) ([]store.RatingChange, error)
	RoomResults(ctx context.Context, roomID string) ([]store.Result, error)
}

// attempts bounds how often a race is computed again when another race
// moved one of its players' ratings in between.
const attempts = 5

// Rate rates the race played as gameID by the roster (the accounts that
// were matched into it), at the time given, and returns the changes. Each
// player's place is their finish's place in the room; a player of the
// roster without a finish did not finish (left, or abandoned: a loss to
// every finisher). A player whose finish is flagged (held for review,
// removed, or on an own puzzle) is left out of the race: their rating does
// not move, nor does anyone's by them. With fewer than two players left
// nothing is rated. A race rated already returns its stored changes.
func Rate(ctx context.Context, st Store, gameID string, roster []string, at time.Time) ([]store.RatingChange, error) {
	if done, err := st.RoomRatings(ctx, gameID); err != nil || len(done) > 0 {
		return done, err
	}
	results, err := st.RoomResults(ctx, gameID)
	if err != nil {
		return nil, fmt.Errorf("ladder: rate %s: %w", gameID, err)
	}
	places := Places(roster, results)
	if len(places) < 2 {
		return nil, nil
	}
	ids := make([]string, 0, len(places))
	for _, p := range places {
		ids = append(ids, p.PlayerID)
	}
	for try := 1; ; try++ {
		changes, err := rate(ctx, st, gameID, ids, places, at)
		if err == nil {
			return changes, nil
		}
		if !errors.Is(err, store.ErrConflict) || try == attempts {
			return nil, fmt.Errorf("ladder: rate %s: %w", gameID, err)
		}
	}
}

func rate(ctx context.Context, st Store, gameID string, ids []string, places []Place, at time.Time) ([]store.RatingChange, error) {
	stored, err := st.Ratings(ctx, ids)
	if err != nil {
		return nil, err
	}
	before := make([]store.Rating, len(places))
	rs := make([]rating.Rating, len(places))
	ps := make([]int, len(places))
	for i, p := range places {
		b, ok := stored[p.PlayerID]
		if !ok {
			n := rating.New()
			b = store.Rating{PlayerID: p.PlayerID, Rating: n.Rating, RD: n.RD, Volatility: n.Volatility}
		}
		before[i], ps[i] = b, p.Place
		rs[i] = rating.Rating{Rating: b.Rating, RD: b.RD, Volatility: b.Volatility}
	}
	after, err := rating.Race(rs, ps)
	if err != nil {
		return nil, err
	}
	changes := make([]store.RatingChange, len(places))
	for i, a := range after {
		changes[i] = store.RatingChange{RoomID: gameID, PlayerID: places[i].PlayerID, Before: before[i], At: at,
			After: store.Rating{PlayerID: places[i].PlayerID, Rating: a.Rating, RD: a.RD, Volatility: a.Volatility, Races: before[i].Races + 1, UpdatedAt: at}}
	}
	return changes, st.ApplyRatings(ctx, changes)
}

// Place is a player's place in a rated race: 1 first, 0 did not finish.
type Place struct {
	PlayerID string
	Place    int
}

// Places are the places of the roster's players in the race whose
// results are given, in the roster's order; a player whose finish is
// flagged is left out (see Rate).
func Places(roster []string, results []store.Result) []Place {
	byPlayer := make(map[string]store.Result, len(results))
	for _, r := range results {
		byPlayer[r.PlayerID] = r
	}
	out := make([]Place, 0, len(roster))
	for _, id := range roster {
		r, ok := byPlayer[id]
		switch {
		case !ok:
			out = append(out, Place{PlayerID: id})
		case !r.Flagged:
			out = append(out, Place{PlayerID: id, Place: r.RoomRank})
		}
	}
	return out
}
