package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sudoku-arena/arena/store"
)

// SaveTournament stores the tournament and its standings.
func (s *Store) SaveTournament(ctx context.Context, t store.Tournament) error {
	what := "save tournament " + t.ID
	if !store.CheckTournament(t) {
		return fmt.Errorf("postgres: %s: %w", what, store.ErrInvalid)
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx,
			`INSERT INTO tournaments (id, name, level, starts_at, duration_ms, status) VALUES ($1, $2, $3, $4, $5, $6)
			 ON CONFLICT (id) DO UPDATE SET name = excluded.name, level = excluded.level, starts_at = excluded.starts_at,
			 duration_ms = excluded.duration_ms, status = excluded.status`,
			t.ID, t.Name, t.Level, t.StartsAt, t.Duration.Milliseconds(), t.Status)
		if err != nil || t.Standings == nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM tournament_players WHERE tournament_id = $1`, t.ID); err != nil {
			return err
		}
		return saveLines(ctx, tx, t.ID, t.Standings)
	})
	return mapErr(err, what)
}

func saveLines(ctx context.Context, tx pgx.Tx, id string, lines []store.Standing) error {
	return store.SaveLines(id, lines, func(query string, args ...any) error {
		_, err := tx.Exec(ctx, query, args...)
		return err
	})
}

// SaveTournamentLines stores the players' lines of a stored tournament.
func (s *Store) SaveTournamentLines(ctx context.Context, id string, lines []store.Standing) error {
	what := "save tournament lines " + id
	if err := store.CheckStandings(lines); err != nil {
		return fmt.Errorf("postgres: %s: %w", what, err)
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var one int
		if err := tx.QueryRow(ctx, `SELECT 1 FROM tournaments WHERE id = $1`, id).Scan(&one); err != nil {
			return err
		}
		return saveLines(ctx, tx, id, lines)
	})
	return mapErr(err, what)
}

const tournamentCols = `t.id, t.name, t.level, t.starts_at, t.duration_ms, t.status,
	(SELECT count(*) FROM tournament_players p WHERE p.tournament_id = t.id)`

func scanTournament(row pgx.Row, more ...any) (store.Tournament, error) {
	var t store.Tournament
	var ms int64
	err := row.Scan(append([]any{&t.ID, &t.Name, &t.Level, &t.StartsAt, &ms, &t.Status, &t.Players}, more...)...)
	t.StartsAt = t.StartsAt.UTC()
	t.Duration = time.Duration(ms) * time.Millisecond
	return t, err
}

// Tournament is the tournament with its standings.
func (s *Store) Tournament(ctx context.Context, id string) (store.Tournament, error) {
	what := "tournament " + id
	t, err := scanTournament(s.pool.QueryRow(ctx, `SELECT `+tournamentCols+` FROM tournaments t WHERE t.id = $1`, id))
	if err != nil {
		return store.Tournament{}, mapErr(err, what)
	}
	rows, err := s.pool.Query(ctx,
		`SELECT player_id, name, rank, score, wins, games, joined, withdrawn FROM tournament_players WHERE tournament_id = $1 ORDER BY rank, player_id`, id)
	if err != nil {
		return store.Tournament{}, mapErr(err, what)
	}
	t.Standings, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Standing, error) {
		var st store.Standing
		var games string
		err := row.Scan(&st.PlayerID, &st.Name, &st.Rank, &st.Score, &st.Wins, &games, &st.Joined, &st.Withdrawn)
		st.Games = []byte(games)
		return st, err
	})
	return t, mapErr(err, what)
}

// TournamentsByStatus lists the tournaments of the status.
func (s *Store) TournamentsByStatus(ctx context.Context, status string, limit int) ([]store.Tournament, error) {
	what := "tournaments " + status
	order := "ASC"
	if status == store.TournamentFinished {
		order = "DESC"
	}
	rows, err := s.pool.Query(ctx,
		`SELECT `+tournamentCols+` FROM tournaments t WHERE t.status = $1 ORDER BY t.starts_at `+order+`, t.id LIMIT $2`, status, limit)
	if err != nil {
		return nil, mapErr(err, what)
	}
	ts, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Tournament, error) { return scanTournament(row) })
	return ts, mapErr(err, what)
}

// PlayerTournaments are the player's places in finished tournaments.
func (s *Store) PlayerTournaments(ctx context.Context, playerID string, limit int) ([]store.TournamentResult, error) {
	what := "tournaments of " + playerID
	rows, err := s.pool.Query(ctx,
		`SELECT `+tournamentCols+`, me.rank, me.score FROM tournament_players me JOIN tournaments t ON t.id = me.tournament_id
		 WHERE me.player_id = $1 AND t.status = 'finished' ORDER BY t.starts_at DESC, t.id LIMIT $2`, playerID, limit)
	if err != nil {
		return nil, mapErr(err, what)
	}
	rs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.TournamentResult, error) {
		var r store.TournamentResult
		t, err := scanTournament(row, &r.Rank, &r.Score)
		r.Tournament = t
		return r, err
	})
	return rs, mapErr(err, what)
}
