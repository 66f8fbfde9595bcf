package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sudoku-arena/arena/store"
)

func nullDay(day string) *string {
	if day == "" {
		return nil
	}
	return &day
}

// SaveResults stores one finish in one transaction; results already stored
// for their room and player are skipped.
func (s *Store) SaveResults(ctx context.Context, rs []store.Result) error {
	for _, r := range rs {
		if err := store.ValidResultDays(r); err != nil {
			return fmt.Errorf("postgres: save results: %w", err)
		}
	}
	if len(rs) == 0 {
		return nil
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return mapErr(err, "save results: begin")
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if rs[0].Epoch > 0 {
		if err := fence(ctx, tx, store.RoomOf(rs[0].RoomID), rs[0].Epoch); err != nil {
			return mapErr(err, "save results in room "+rs[0].RoomID)
		}
	}
	for _, r := range rs {
		_, err := tx.Exec(ctx,
			`INSERT INTO results (room_id, player_id, puzzle_id, mode, level, elapsed_ms, mistakes, hints, score, finished_at, day, flagged,
			                      played_day, all_time, review, reason, held_day, room_rank)
			 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::date, $12, $13::date, $14, $15, $16, $17::date, $18)
			 ON CONFLICT (room_id, player_id) DO NOTHING`,
			r.RoomID, r.PlayerID, r.PuzzleID, r.Mode, r.Level, r.Elapsed.Milliseconds(), r.Mistakes, r.Hints, r.Score,
			r.FinishedAt, nullDay(r.Day), r.Flagged, nullDay(r.PlayedDay), r.AllTime, r.Review, r.Reason, nullDay(r.HeldDay), r.RoomRank)
		if err != nil {
			return mapErr(err, "save result of "+r.PlayerID+" in room "+r.RoomID)
		}
	}
	return mapErr(tx.Commit(ctx), fmt.Sprintf("save %d results: commit", len(rs)))
}

// resultCols are a result's columns, in the order scanResult reads them.
const resultCols = `id, room_id, player_id, puzzle_id, mode, level, elapsed_ms, mistakes, hints, score, finished_at,
	coalesce(to_char(day, 'YYYY-MM-DD'), ''), flagged, coalesce(to_char(played_day, 'YYYY-MM-DD'), ''), all_time,
	review, reason, coalesce(to_char(held_day, 'YYYY-MM-DD'), ''), room_rank`

func scanResult(row pgx.Row) (store.Result, error) {
	var r store.Result
	var ms int64
	err := row.Scan(&r.ID, &r.RoomID, &r.PlayerID, &r.PuzzleID, &r.Mode, &r.Level, &ms, &r.Mistakes, &r.Hints, &r.Score, &r.FinishedAt,
		&r.Day, &r.Flagged, &r.PlayedDay, &r.AllTime, &r.Review, &r.Reason, &r.HeldDay, &r.RoomRank)
	r.Elapsed, r.FinishedAt = time.Duration(ms)*time.Millisecond, r.FinishedAt.UTC()
	return r, err
}

// results runs a query selecting resultCols and reads every row.
func (s *Store) results(ctx context.Context, what, query string, args ...any) ([]store.Result, error) {
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, mapErr(err, what)
	}
	res, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Result, error) { return scanResult(row) })
	return res, mapErr(err, what)
}

// limitArg is a LIMIT's argument: NULL, no limit, for limit <= 0.
func limitArg(limit int) *int {
	if limit <= 0 {
		return nil
	}
	return &limit
}

// PlayerHistory is the player's results, newest first.
func (s *Store) PlayerHistory(ctx context.Context, playerID string, limit int) ([]store.Result, error) {
	return s.results(ctx, "history of "+playerID,
		`SELECT `+resultCols+` FROM results WHERE player_id = $1 ORDER BY finished_at DESC, id DESC LIMIT $2`,
		playerID, limitArg(limit))
}

// PlayerHistoryBefore is the player's results older than (at, id),
// newest first.
func (s *Store) PlayerHistoryBefore(ctx context.Context, playerID string, at time.Time, id int64, limit int) ([]store.Result, error) {
	return s.results(ctx, "history of "+playerID,
		`SELECT `+resultCols+` FROM results WHERE player_id = $1 AND (finished_at, id) < ($2, $3)
		 ORDER BY finished_at DESC, id DESC LIMIT $4`,
		playerID, at, id, limitArg(limit))
}

// PlayerBest is the player's fastest finish of each level that counts on
// the all-time boards.
func (s *Store) PlayerBest(ctx context.Context, playerID string) ([]store.Result, error) {
	return s.results(ctx, "best of "+playerID,
		`SELECT DISTINCT ON (level) `+resultCols+`
		 FROM results WHERE player_id = $1 AND all_time AND NOT flagged
		 ORDER BY level, elapsed_ms, finished_at, id`, playerID)
}

// PlayedOn is the player's finishes of the day's dailies played on it.
func (s *Store) PlayedOn(ctx context.Context, playerID, day string) ([]store.Result, error) {
	if err := store.ValidDay(day, false); err != nil {
		return nil, fmt.Errorf("postgres: played on: %w", err)
	}
	return s.results(ctx, "results of "+playerID+" on "+day,
		`SELECT `+resultCols+` FROM results WHERE player_id = $1 AND played_day = $2::date ORDER BY finished_at, id`,
		playerID, day)
}

// PlayerStreak counts consecutive days with a finish of the day's daily on
// its day.
func (s *Store) PlayerStreak(ctx context.Context, playerID, today string) (store.Streak, error) {
	if err := store.ValidDay(today, false); err != nil {
		return store.Streak{}, fmt.Errorf("postgres: streak: %w", err)
	}
	rows, err := s.pool.Query(ctx,
		`SELECT DISTINCT to_char(played_day, 'YYYY-MM-DD') AS d FROM results
		 WHERE player_id = $1 AND played_day IS NOT NULL AND played_day <= $2::date ORDER BY d`, playerID, today)
	if err != nil {
		return store.Streak{}, mapErr(err, "streak of "+playerID)
	}
	days, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return store.Streak{}, mapErr(err, "streak of "+playerID)
	}
	return store.StreakOf(days, today), nil
}
