package store

import (
	"context"
	"fmt"
	"time"
)

// Tournament statuses as stored.
const (
	TournamentUpcoming = "upcoming"
	TournamentRunning  = "running"
	TournamentFinished = "finished"
)

// Tournament is an arena tournament: scheduled (upcoming), running, or
// finished with its standings. A running one lives on its node, which
// stores each player's line as it changes (SaveTournamentLines), and the
// whole standings when it ends.
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

// Standing is a player's line in a tournament: Games is the
// tournament's own JSON of their races (opaque to the store). Joined is
// the order the player joined in (from 0) and Withdrawn says they have
// withdrawn: what a running tournament needs to come back after a
// restart. A running tournament's Rank is the player's when their line
// was saved last.
type Standing struct {
	PlayerID  string
	Name      string
	Rank      int
	Score     int
	Wins      int
	Games     []byte
	Joined    int
	Withdrawn bool
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
	// SaveTournamentLines stores the players' lines of a stored
	// tournament, each in place of the player's line stored, and leaves
	// the other players' as they are (in one transaction). A tournament
	// not stored is ErrNotFound; a line with an empty player id or name,
	// a rank under 1 or a negative Joined is ErrInvalid, and nothing is
	// stored.
	SaveTournamentLines(ctx context.Context, id string, lines []Standing) error
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

// CheckStandings is SaveTournamentLines' check of the lines' values:
// ErrInvalid for the first bad one.
func CheckStandings(lines []Standing) error {
	for _, st := range lines {
		if st.PlayerID == "" || st.Name == "" || st.Rank < 1 || st.Joined < 0 {
			return fmt.Errorf("line of %q: %w", st.PlayerID, ErrInvalid)
		}
	}
	return nil
}

// SaveLineSQL stores a player's line in place of theirs (both stores:
// SQLite reads $1… in order as its parameters); LineArgs are its values.
const SaveLineSQL = `INSERT INTO tournament_players (tournament_id, player_id, name, rank, score, wins, games, joined, withdrawn)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
	ON CONFLICT (tournament_id, player_id) DO UPDATE SET name = excluded.name, rank = excluded.rank,
	score = excluded.score, wins = excluded.wins, games = excluded.games, joined = excluded.joined,
	withdrawn = excluded.withdrawn`

// SaveLines stores each line with exec, which runs SaveLineSQL in the
// store's transaction.
func SaveLines(id string, lines []Standing, exec func(query string, args ...any) error) error {
	for _, st := range lines {
		if err := exec(SaveLineSQL, LineArgs(id, st)...); err != nil {
			return fmt.Errorf("standing of %s: %w", st.PlayerID, err)
		}
	}
	return nil
}

// LineArgs are SaveLineSQL's values for the tournament's line: its games
// [] when it has none.
func LineArgs(id string, st Standing) []any {
	games := string(st.Games)
	if games == "" {
		games = "[]"
	}
	return []any{id, st.PlayerID, st.Name, st.Rank, st.Score, st.Wins, games, st.Joined, st.Withdrawn}
}
