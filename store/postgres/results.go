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
		if err := store.ValidDay(r.Day, true); err != nil {
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
			`INSERT INTO results (room_id, player_id, puzzle_id, mode, level, elapsed_ms, mistakes, hints, score, finished_at, day, flagged)
			 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::date, $12)
			 ON CONFLICT (room_id, player_id) DO NOTHING`,
			r.RoomID, r.PlayerID, r.PuzzleID, r.Mode, r.Level, r.Elapsed.Milliseconds(), r.Mistakes, r.Hints, r.Score,
			r.FinishedAt, nullDay(r.Day), r.Flagged)
		if err != nil {
			return mapErr(err, "save result of "+r.PlayerID+" in room "+r.RoomID)
		}
	}
	return mapErr(tx.Commit(ctx), fmt.Sprintf("save %d results: commit", len(rs)))
}

// PlayerHistory is the player's results, newest first.
func (s *Store) PlayerHistory(ctx context.Context, playerID string, limit int) ([]store.Result, error) {
	var lim *int
	if limit > 0 {
		lim = &limit
	}
	rows, err := s.pool.Query(ctx,
		`SELECT id, room_id, player_id, puzzle_id, mode, level, elapsed_ms, mistakes, hints, score, finished_at,
		        coalesce(to_char(day, 'YYYY-MM-DD'), ''), flagged
		 FROM results WHERE player_id = $1 ORDER BY finished_at DESC, id DESC LIMIT $2`, playerID, lim)
	if err != nil {
		return nil, mapErr(err, "history of "+playerID)
	}
	res, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Result, error) {
		var r store.Result
		var ms int64
		err := row.Scan(&r.ID, &r.RoomID, &r.PlayerID, &r.PuzzleID, &r.Mode, &r.Level, &ms, &r.Mistakes, &r.Hints, &r.Score, &r.FinishedAt, &r.Day, &r.Flagged)
		r.Elapsed, r.FinishedAt = time.Duration(ms)*time.Millisecond, r.FinishedAt.UTC()
		return r, err
	})
	return res, mapErr(err, "history of "+playerID)
}

// PlayerBest is the player's fastest finish of each level.
func (s *Store) PlayerBest(ctx context.Context, playerID string) ([]store.Result, error) {
	rows, err := s.pool.Query(ctx,
		`SELECT DISTINCT ON (level) id, room_id, mode, level, elapsed_ms, mistakes, hints, finished_at
		 FROM results WHERE player_id = $1 AND mode <> 'coop' AND NOT flagged
		 ORDER BY level, elapsed_ms, finished_at, id`, playerID)
	if err != nil {
		return nil, mapErr(err, "best of "+playerID)
	}
	res, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Result, error) {
		var r store.Result
		var ms int64
		err := row.Scan(&r.ID, &r.RoomID, &r.Mode, &r.Level, &ms, &r.Mistakes, &r.Hints, &r.FinishedAt)
		r.PlayerID, r.Elapsed, r.FinishedAt = playerID, time.Duration(ms)*time.Millisecond, r.FinishedAt.UTC()
		return r, err
	})
	return res, mapErr(err, "best of "+playerID)
}

// PlayerStreak counts consecutive days with a daily result.
func (s *Store) PlayerStreak(ctx context.Context, playerID, today string) (store.Streak, error) {
	if err := store.ValidDay(today, false); err != nil {
		return store.Streak{}, fmt.Errorf("postgres: streak: %w", err)
	}
	rows, err := s.pool.Query(ctx,
		`SELECT DISTINCT to_char(day, 'YYYY-MM-DD') AS d FROM results
		 WHERE player_id = $1 AND day IS NOT NULL AND day <= $2::date ORDER BY d`, playerID, today)
	if err != nil {
		return store.Streak{}, mapErr(err, "streak of "+playerID)
	}
	days, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return store.Streak{}, mapErr(err, "streak of "+playerID)
	}
	return store.StreakOf(days, today), nil
}
