package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/sudoku-arena/arena/store"
)

func nullDay(day string) any {
	if day == "" {
		return nil
	}
	return day
}

// SaveResults stores one finish in one transaction; results already stored
// for their room and player are skipped.
func (s *Store) SaveResults(ctx context.Context, rs []store.Result) error {
	for _, r := range rs {
		if err := store.ValidDay(r.Day, true); err != nil {
			return fmt.Errorf("sqlite: save results: %w", err)
		}
	}
	if len(rs) == 0 {
		return nil
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return mapErr(err, "save results: begin")
	}
	defer tx.Rollback()
	if rs[0].Epoch > 0 {
		if err := s.fence(ctx, tx, store.RoomOf(rs[0].RoomID), rs[0].Epoch); err != nil {
			return mapErr(err, "save results in room "+rs[0].RoomID)
		}
	}
	for _, r := range rs {
		_, err := tx.ExecContext(ctx,
			`INSERT INTO results (room_id, player_id, puzzle_id, mode, level, elapsed_ms, mistakes, hints, score, finished_at, day, flagged)
			 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			 ON CONFLICT (room_id, player_id) DO NOTHING`,
			r.RoomID, r.PlayerID, r.PuzzleID, r.Mode, r.Level, r.Elapsed.Milliseconds(), r.Mistakes, r.Hints, r.Score,
			micros(r.FinishedAt), nullDay(r.Day), r.Flagged)
		if err != nil {
			return mapErr(err, "save result of "+r.PlayerID+" in room "+r.RoomID)
		}
	}
	return mapErr(tx.Commit(), fmt.Sprintf("save %d results: commit", len(rs)))
}

// PlayerHistory is the player's results, newest first.
func (s *Store) PlayerHistory(ctx context.Context, playerID string, limit int) ([]store.Result, error) {
	if limit <= 0 {
		limit = -1
	}
	return queryAll(ctx, s.r, "history of "+playerID, func(row scanner) (store.Result, error) {
		var r store.Result
		var ms int64
		var fin sql.NullInt64
		err := row.Scan(&r.ID, &r.RoomID, &r.PlayerID, &r.PuzzleID, &r.Mode, &r.Level, &ms, &r.Mistakes, &r.Hints, &r.Score, &fin, &r.Day, &r.Flagged)
		r.Elapsed, r.FinishedAt = time.Duration(ms)*time.Millisecond, fromMicros(fin)
		return r, err
	}, `SELECT id, room_id, player_id, puzzle_id, mode, level, elapsed_ms, mistakes, hints, score, finished_at, coalesce(day, ''), flagged
		 FROM results WHERE player_id = ? ORDER BY finished_at DESC, id DESC LIMIT ?`, playerID, limit)
}

// PlayerBest is the player's fastest finish of each level.
func (s *Store) PlayerBest(ctx context.Context, playerID string) ([]store.Result, error) {
	return queryAll(ctx, s.r, "best of "+playerID, func(row scanner) (store.Result, error) {
		var r store.Result
		var ms int64
		var fin sql.NullInt64
		err := row.Scan(&r.ID, &r.RoomID, &r.Mode, &r.Level, &ms, &r.Mistakes, &r.Hints, &fin)
		r.PlayerID, r.Elapsed, r.FinishedAt = playerID, time.Duration(ms)*time.Millisecond, fromMicros(fin)
		return r, err
	}, `SELECT id, room_id, mode, level, elapsed_ms, mistakes, hints, finished_at FROM (
		   SELECT *, row_number() OVER (PARTITION BY level ORDER BY elapsed_ms, finished_at, id) AS n
		   FROM results WHERE player_id = ? AND mode <> 'coop' AND NOT flagged
		 ) WHERE n = 1`, playerID)
}

// PlayerStreak counts consecutive days with a daily result.
func (s *Store) PlayerStreak(ctx context.Context, playerID, today string) (store.Streak, error) {
	if err := store.ValidDay(today, false); err != nil {
		return store.Streak{}, fmt.Errorf("sqlite: streak: %w", err)
	}
	days, err := queryAll(ctx, s.r, "streak of "+playerID, func(row scanner) (string, error) {
		var d string
		return d, row.Scan(&d)
	}, `SELECT DISTINCT day FROM results WHERE player_id = ? AND day IS NOT NULL AND day <= ? ORDER BY day`, playerID, today)
	if err != nil {
		return store.Streak{}, err
	}
	return store.StreakOf(days, today), nil
}
