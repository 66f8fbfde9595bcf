package store

import (
	"context"
	"time"
)

// Rating is an account's rating for rated races (package rating computes
// it; the store keeps the numbers): Races is how many rated races moved
// it, which is also its version (ApplyRatings).
type Rating struct {
	PlayerID   string
	Rating     float64
	RD         float64
	Volatility float64
	Races      int
	UpdatedAt  time.Time
	// Name is the account's handle, on the rows of TopRatings.
	Name string
}

// RatingChange is what one rated race did to one account's rating:
// Before as it was (Races 0 for an account never rated) and After.
type RatingChange struct {
	RoomID   string
	PlayerID string
	Before   Rating
	After    Rating
	At       time.Time
}

// RatedRace is a rated race still to rate: its room's game, the accounts
// matched into it and when it was made.
type RatedRace struct {
	RoomID string
	Roster []string
	At     time.Time
}

// Ratings is the persistence of the rated races' ratings.
type Ratings interface {
	// Ratings are the stored ratings of the players given, by player; a
	// player never rated has none.
	Ratings(ctx context.Context, playerIDs []string) (map[string]Rating, error)
	// ApplyRatings stores one race's changes in one transaction: each
	// player's After as their rating (its Races one more than Before's)
	// and the change in their history. A change is applied only on the
	// rating it was computed from: when a player's stored rating is no
	// longer at Before.Races (another race moved it in between) it is
	// ErrConflict and none of the race's changes is stored, for the
	// caller to compute again. A race stored already (its room and a
	// player's change) stores nothing again and is not an error, so a
	// retried write is safe.
	ApplyRatings(ctx context.Context, changes []RatingChange) error
	// RoomRatings are the changes one race (a room's game) made, by the
	// player ID.
	RoomRatings(ctx context.Context, roomID string) ([]RatingChange, error)
	// RoomResults are the results of one room's game (its id, or
	// "ROOM.N" for round N), by the place in the room, then the player:
	// what a rated race is rated from.
	RoomResults(ctx context.Context, roomID string) ([]Result, error)
	// RatingHistory is the player's last limit changes, oldest first.
	RatingHistory(ctx context.Context, playerID string, limit int) ([]RatingChange, error)
	// TopRatings is the all-time rating leaderboard: accounts by rating,
	// highest first (ties: fewer RD, then the player ID), with Name;
	// only ratings whose RD is at most maxRD count (the provisional ones
	// are left off).
	TopRatings(ctx context.Context, maxRD float64, limit int) ([]Rating, error)
	// AddRatedRace records a rated race to rate once it is over, so that
	// a restart (or another node) still rates it; adding a room twice
	// keeps the first.
	AddRatedRace(ctx context.Context, r RatedRace) error
	// RatedRaces are the races still to rate, oldest first, at most limit.
	RatedRaces(ctx context.Context, limit int) ([]RatedRace, error)
	// DropRatedRace forgets a race once it is rated (or has nobody left to
	// rate); dropping one that is not there does nothing.
	DropRatedRace(ctx context.Context, roomID string) error
}
