package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/sudoku-arena/arena/store"
)

// SaveTournament stores the tournament and its standings.
func (s *Store) SaveTournament(ctx context.Context, t store.Tournament) error {
	what := "save tournament " + t.ID
	if !store.CheckTournament(t) {
		return fmt.Errorf("sqlite: %s: %w", what, store.ErrInvalid)
	}
	return s.inTx(ctx, what, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx,
			`INSERT INTO tournaments (id, name, level, starts_at, duration_ms, status) VALUES (?, ?, ?, ?, ?, ?)
			 ON CONFLICT (id) DO UPDATE SET name = excluded.name, level = excluded.level, starts_at = excluded.starts_at,
			 duration_ms = excluded.duration_ms, status = excluded.status`,
			t.ID, t.Name, t.Level, micros(t.StartsAt), t.Duration.Milliseconds(), t.Status)
		if err != nil || t.Standings == nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM tournament_players WHERE tournament_id = ?`, t.ID); err != nil {
			return err
		}
		return saveLines(ctx, tx, t.ID, t.Standings)
	})
}

func saveLines(ctx context.Context, tx *sql.Tx, id string, lines []store.Standing) error {
	return store.SaveLines(id, lines, func(query string, args ...any) error {
		_, err := tx.ExecContext(ctx, query, args...)
		return err
	})
}

// SaveTournamentLines stores the players' lines of a stored tournament.
func (s *Store) SaveTournamentLines(ctx context.Context, id string, lines []store.Standing) error {
	what := "save tournament lines " + id
	if err := store.CheckStandings(lines); err != nil {
		return fmt.Errorf("sqlite: %s: %w", what, err)
	}
	return s.inTx(ctx, what, func(tx *sql.Tx) error {
		var one int
		if err := tx.QueryRowContext(ctx, `SELECT 1 FROM tournaments WHERE id = ?`, id).Scan(&one); err != nil {
			return err
		}
		return saveLines(ctx, tx, id, lines)
	})
}

const tournamentCols = `t.id, t.name, t.level, t.starts_at, t.duration_ms, t.status,
	(SELECT count(*) FROM tournament_players p WHERE p.tournament_id = t.id)`

func scanTournament(row scanner, more ...any) (store.Tournament, error) {
	var t store.Tournament
	var starts, ms int64
	err := row.Scan(append([]any{&t.ID, &t.Name, &t.Level, &starts, &ms, &t.Status, &t.Players}, more...)...)
	t.StartsAt = fromMicros(sql.NullInt64{Int64: starts, Valid: true})
	t.Duration = time.Duration(ms) * time.Millisecond
	return t, err
}

// Tournament is the tournament with its standings.
func (s *Store) Tournament(ctx context.Context, id string) (store.Tournament, error) {
	what := "tournament " + id
	t, err := scanTournament(s.r.QueryRowContext(ctx, `SELECT `+tournamentCols+` FROM tournaments t WHERE t.id = ?`, id))
	if err != nil {
		return store.Tournament{}, mapErr(err, what)
	}
	t.Standings, err = queryAll(ctx, s.r, what, func(row scanner) (store.Standing, error) {
		var st store.Standing
		var games string
		err := row.Scan(&st.PlayerID, &st.Name, &st.Rank, &st.Score, &st.Wins, &games, &st.Joined, &st.Withdrawn)
		st.Games = []byte(games)
		return st, err
	}, `SELECT player_id, name, rank, score, wins, games, joined, withdrawn FROM tournament_players WHERE tournament_id = ? ORDER BY rank, player_id`, id)
	return t, err
}

// TournamentsByStatus lists the tournaments of the status.
func (s *Store) TournamentsByStatus(ctx context.Context, status string, limit int) ([]store.Tournament, error) {
	order := "ASC"
	if status == store.TournamentFinished {
		order = "DESC"
	}
	return queryAll(ctx, s.r, "tournaments "+status, func(row scanner) (store.Tournament, error) { return scanTournament(row) },
		`SELECT `+tournamentCols+` FROM tournaments t WHERE t.status = ? ORDER BY t.starts_at `+order+`, t.id LIMIT ?`, status, limit)
}

// PlayerTournaments are the player's places in finished tournaments.
func (s *Store) PlayerTournaments(ctx context.Context, playerID string, limit int) ([]store.TournamentResult, error) {
	return queryAll(ctx, s.r, "tournaments of "+playerID, func(row scanner) (store.TournamentResult, error) {
		var r store.TournamentResult
		t, err := scanTournament(row, &r.Rank, &r.Score)
		r.Tournament = t
		return r, err
	}, `SELECT `+tournamentCols+`, me.rank, me.score FROM tournament_players me JOIN tournaments t ON t.id = me.tournament_id
		WHERE me.player_id = ? AND t.status = 'finished' ORDER BY t.starts_at DESC, t.id LIMIT ?`, playerID, limit)
}
