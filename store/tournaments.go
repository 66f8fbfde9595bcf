package store

import (
	"context"
	"time"
)

// Tournament statuses as stored.
const (
	TournamentUpcoming = "upcoming"
	TournamentRunning  = "running"
	TournamentFinished = "finished"
)

// Tournament is an arena tournament: scheduled (upcoming), or finished
// with its standings. A running one lives on its node and is stored when
// it ends.
type Tournament struct {
	ID       string
	Name     string
	Level    string
	StartsAt time.Time
	Duration time.Duration
	Status   string
	// Players is how many took part (Tournaments and PlayerTournaments
	// count them; Standings is not read there).
	Players   int
	Standings []Standing
}

// Standing is a player's line in a finished tournament: Games is the
// tournament's own JSON of their races (opaque to the store).
type Standing struct {
	PlayerID string
	Name     string
	Rank     int
	Score    int
	Wins     int
	Games    []byte
}

// TournamentResult is a player's place in a finished tournament, for
// their page.
type TournamentResult struct {
	Tournament Tournament
	Rank       int
	Score      int
}

// Tournaments is the store of arena tournaments.
type Tournaments interface {
	// SaveTournament stores the tournament and, when given, its standings
	// in place of those stored (in one transaction); saving it again with
	// the same values changes nothing. An empty id, name or level, a
	// duration under a second or an unknown status is ErrInvalid.
	SaveTournament(ctx context.Context, t Tournament) error
	// Tournament is the tournament with its standings by rank (then the
	// player's id); ErrNotFound when there is none.
	Tournament(ctx context.Context, id string) (Tournament, error)
	// TournamentsByStatus lists the tournaments of the status, without
	// their standings but with how many players: finished ones latest
	// start first, the others earliest start first; at most limit.
	TournamentsByStatus(ctx context.Context, status string, limit int) ([]Tournament, error)
	// PlayerTournaments are the player's places in finished tournaments,
	// latest start first; at most limit.
	PlayerTournaments(ctx context.Context, playerID string, limit int) ([]TournamentResult, error)
}

// CheckTournament is SaveTournament's check of its values.
func CheckTournament(t Tournament) bool {
	switch t.Status {
	case TournamentUpcoming, TournamentRunning, TournamentFinished:
	default:
		return false
	}
	return t.ID != "" && t.Name != "" && t.Level != "" && t.Duration >= time.Second && !t.StartsAt.IsZero()
}
