package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sudoku-arena/arena/store"
)

// PlayerTallies counts the player's finishes by mode and level: a race
// is won when it was first and another player finished the room too
// (one probe of the room's results by their unique index), and contested
// when another player finished it, first or not.
func (s *Store) PlayerTallies(ctx context.Context, playerID string) ([]store.Tally, error) {
	what := "tallies of " + playerID
	rows, err := s.pool.Query(ctx,
		`SELECT r.mode, r.level, count(*),
		        count(*) FILTER (WHERE r.mode = 'race' AND r.room_rank = 1
		                 AND EXISTS (SELECT 1 FROM results o WHERE o.room_id = r.room_id AND o.player_id <> r.player_id)),
		        count(*) FILTER (WHERE r.mode = 'race'
		                 AND EXISTS (SELECT 1 FROM results o WHERE o.room_id = r.room_id AND o.player_id <> r.player_id)),
		        count(*) FILTER (WHERE r.mode <> 'coop' AND NOT r.flagged),
		        coalesce(min(r.elapsed_ms) FILTER (WHERE r.mode <> 'coop' AND NOT r.flagged), 0),
		        coalesce(sum(r.elapsed_ms) FILTER (WHERE r.mode <> 'coop' AND NOT r.flagged), 0)::bigint
		 FROM results r WHERE r.player_id = $1 GROUP BY r.mode, r.level`, playerID)
	if err != nil {
		return nil, mapErr(err, what)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Tally, error) {
		var t store.Tally
		var best, total int64
		err := row.Scan(&t.Mode, &t.Level, &t.Finished, &t.Won, &t.Contested, &t.Timed, &best, &total)
		t.Best, t.Total = time.Duration(best)*time.Millisecond, time.Duration(total)*time.Millisecond
		return t, err
	})
	return out, mapErr(err, what)
}

// DailiesSolved is the player's finishes of the span's daily puzzles: the
// span's dailies by their key, each looked up among the player's results
// by results_player_puzzle.
func (s *Store) DailiesSolved(ctx context.Context, playerID, from, to string) ([]store.SolvedDaily, error) {
	if err := store.ValidSpan(from, to); err != nil {
		return nil, fmt.Errorf("postgres: dailies solved: %w", err)
	}
	what := "dailies solved by " + playerID
	rows, err := s.pool.Query(ctx,
		`SELECT to_char(d.day, 'YYYY-MM-DD'), d.level, r.elapsed_ms, r.mistakes, r.hints,
		        coalesce(r.played_day = d.day, false), r.finished_at
		 FROM daily_puzzles d JOIN results r ON r.player_id = $1 AND r.puzzle_id = d.puzzle_id
		 WHERE d.day BETWEEN $2::date AND $3::date
		 ORDER BY d.day, d.level, r.finished_at, r.id`, playerID, from, to)
	if err != nil {
		return nil, mapErr(err, what)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.SolvedDaily, error) {
		var d store.SolvedDaily
		var ms int64
		err := row.Scan(&d.Day, &d.Level, &ms, &d.Mistakes, &d.Hints, &d.OnDay, &d.FinishedAt)
		d.Elapsed, d.FinishedAt = time.Duration(ms)*time.Millisecond, d.FinishedAt.UTC()
		return d, err
	})
	return out, mapErr(err, what)
}
