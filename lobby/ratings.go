package lobby

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/sudoku-arena/arena/rating"
	"github.com/sudoku-arena/arena/store"
)

// RatingJSON is an account's rating as the API shows it: Provisional
// while its deviation is above rating.ProvisionalRD.
type RatingJSON struct {
	Rating      float64 `json:"rating"`
	RD          float64 `json:"rd"`
	Provisional bool    `json:"provisional"`
	Races       int     `json:"races"`
}

// ChangeJSON is what one rated race did to a player's rating.
type ChangeJSON struct {
	Room        string    `json:"room"`
	Player      string    `json:"player"`
	Before      float64   `json:"before"`
	After       float64   `json:"after"`
	Delta       float64   `json:"delta"`
	RD          float64   `json:"rd"`
	Provisional bool      `json:"provisional"`
	At          time.Time `json:"at"`
}

// PlayerRatingJSON is a player's rating (nil when never rated) and its
// history, oldest first.
type PlayerRatingJSON struct {
	Rating  *RatingJSON  `json:"rating"`
	History []ChangeJSON `json:"history"`
}

// BoardRowJSON is one row of the all-time rating board.
type BoardRowJSON struct {
	Rank   int     `json:"rank"`
	Player string  `json:"player"`
	Name   string  `json:"name"`
	Rating float64 `json:"rating"`
	RD     float64 `json:"rd"`
	Races  int     `json:"races"`
}

// round2 keeps two decimals: what a client shows is rounded further.
func round2(v float64) float64 { return math.Round(v*100) / 100 }

func changeJSON(c store.RatingChange) ChangeJSON {
	return ChangeJSON{Room: c.RoomID, Player: c.PlayerID, Before: round2(c.Before.Rating), After: round2(c.After.Rating),
		Delta: round2(c.After.Rating - c.Before.Rating), RD: round2(c.After.RD), Provisional: c.After.RD > rating.ProvisionalRD, At: c.At}
}

func changesJSON(cs []store.RatingChange) []ChangeJSON {
	out := make([]ChangeJSON, len(cs))
	for i, c := range cs {
		out[i] = changeJSON(c)
	}
	return out
}

// Board is the all-time rating board: accounts whose rating is not
// provisional, highest first.
func (l *Lobby) Board(ctx context.Context, limit int) ([]BoardRowJSON, error) {
	rs, err := l.st.TopRatings(ctx, rating.ProvisionalRD, limit)
	if err != nil {
		return nil, fmt.Errorf("lobby: rating board: %w", err)
	}
	out := make([]BoardRowJSON, len(rs))
	for i, r := range rs {
		out[i] = BoardRowJSON{Rank: i + 1, Player: r.PlayerID, Name: r.Name, Rating: round2(r.Rating), RD: round2(r.RD), Races: r.Races}
	}
	return out, nil
}

// Player is the player's rating and their last limit changes.
func (l *Lobby) Player(ctx context.Context, playerID string, limit int) (PlayerRatingJSON, error) {
	rs, err := l.st.Ratings(ctx, []string{playerID})
	if err != nil {
		return PlayerRatingJSON{}, fmt.Errorf("lobby: rating of %s: %w", playerID, err)
	}
	hist, err := l.st.RatingHistory(ctx, playerID, limit)
	if err != nil {
		return PlayerRatingJSON{}, fmt.Errorf("lobby: rating history of %s: %w", playerID, err)
	}
	out := PlayerRatingJSON{History: changesJSON(hist)}
	if r, ok := rs[playerID]; ok {
		out.Rating = &RatingJSON{Rating: round2(r.Rating), RD: round2(r.RD), Provisional: r.RD > rating.ProvisionalRD, Races: r.Races}
	}
	return out, nil
}

// Race is what the rated race played in the room did to its players'
// ratings: empty until it is rated (or when it was not a rated race).
func (l *Lobby) Race(ctx context.Context, roomID string) ([]ChangeJSON, error) {
	cs, err := l.st.RoomRatings(ctx, roomID)
	if err != nil {
		return nil, fmt.Errorf("lobby: ratings of room %s: %w", roomID, err)
	}
	return changesJSON(cs), nil
}
