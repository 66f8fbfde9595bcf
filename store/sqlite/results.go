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
		if err := store.ValidResultDays(r); err != nil {
			return fmt.Errorf("sqlite: save results: %w", err)
		}
	}
	if len(rs) == 0 {
		return nil
	}
	return s.inTx(ctx, fmt.Sprintf("save %d results", len(rs)), func(tx *sql.Tx) error {
		if rs[0].Epoch > 0 {
			if err := s.fence(ctx, tx, store.RoomOf(rs[0].RoomID), rs[0].Epoch); err != nil {
				return fmt.Errorf("in room %s: %w", rs[0].RoomID, err)
			}
		}
		for _, r := range rs {
			_, err := tx.ExecContext(ctx,
				`INSERT INTO results (room_id, player_id, puzzle_id, mode, level, elapsed_ms, mistakes, hints, score, finished_at, day, flagged,
				                      played_day, all_time, review, reason, held_day, room_rank)
				 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
				 ON CONFLICT (room_id, player_id) DO NOTHING`,
				r.RoomID, r.PlayerID, r.PuzzleID, r.Mode, r.Level, r.Elapsed.Milliseconds(), r.Mistakes, r.Hints, r.Score,
				micros(r.FinishedAt), nullDay(r.Day), r.Flagged, nullDay(r.PlayedDay), r.AllTime, r.Review, r.Reason, nullDay(r.HeldDay), r.RoomRank)
			if err != nil {
				return fmt.Errorf("result of %s in room %s: %w", r.PlayerID, r.RoomID, err)
			}
		}
		return nil
	})
}

// resultCols are a result's columns, in the order scanResult reads them.
const resultCols = `id, room_id, player_id, puzzle_id, mode, level, elapsed_ms, mistakes, hints, score, finished_at,
	coalesce(day, ''), flagged, coalesce(played_day, ''), all_time, review, reason, coalesce(held_day, ''), room_rank`

func scanResult(row scanner) (store.Result, error) {
	var r store.Result
	var ms int64
	var fin sql.NullInt64
	err := row.Scan(&r.ID, &r.RoomID, &r.PlayerID, &r.PuzzleID, &r.Mode, &r.Level, &ms, &r.Mistakes, &r.Hints, &r.Score, &fin,
		&r.Day, &r.Flagged, &r.PlayedDay, &r.AllTime, &r.Review, &r.Reason, &r.HeldDay, &r.RoomRank)
	r.Elapsed, r.FinishedAt = time.Duration(ms)*time.Millisecond, fromMicros(fin)
	return r, err
}

// limitArg is a LIMIT's argument: -1, no limit, for limit <= 0.
func limitArg(limit int) int {
	if limit <= 0 {
		return -1
	}
	return limit
}

// PlayerHistory is the player's results, newest first.
func (s *Store) PlayerHistory(ctx context.Context, playerID string, limit int) ([]store.Result, error) {
	return queryAll(ctx, s.r, "history of "+playerID, scanResult,
		`SELECT `+resultCols+` FROM results WHERE player_id = ? ORDER BY finished_at DESC, id DESC LIMIT ?`, playerID, limitArg(limit))
}

// PlayerHistoryBefore is the player's results older than (at, id),
// newest first: a range of results_player (finished_at <= at is what
// lets the planner start from at, which the OR alone does not).
func (s *Store) PlayerHistoryBefore(ctx context.Context, playerID string, at time.Time, id int64, limit int) ([]store.Result, error) {
	return queryAll(ctx, s.r, "history of "+playerID, scanResult,
		`SELECT `+resultCols+` FROM results WHERE player_id = ? AND finished_at <= ? AND (finished_at < ? OR id < ?)
		 ORDER BY finished_at DESC, id DESC LIMIT ?`, playerID, micros(at), micros(at), id, limitArg(limit))
}

// PlayerBest is the player's fastest finish of each level that counts on
// the all-time boards.
func (s *Store) PlayerBest(ctx context.Context, playerID string) ([]store.Result, error) {
	return queryAll(ctx, s.r, "best of "+playerID, scanResult,
		`SELECT `+resultCols+` FROM (
		   SELECT *, row_number() OVER (PARTITION BY level ORDER BY elapsed_ms, finished_at, id) AS n
		   FROM results WHERE player_id = ? AND all_time AND NOT flagged
		 ) WHERE n = 1`, playerID)
}

// PlayedOn is the player's finishes of the day's dailies played on it.
func (s *Store) PlayedOn(ctx context.Context, playerID, day string) ([]store.Result, error) {
	if err := store.ValidDay(day, false); err != nil {
		return nil, fmt.Errorf("sqlite: played on: %w", err)
	}
	return queryAll(ctx, s.r, "results of "+playerID+" on "+day, scanResult,
		`SELECT `+resultCols+` FROM results WHERE player_id = ? AND played_day = ? ORDER BY finished_at, id`, playerID, day)
}

// PlayerStreak counts consecutive days with a finish of the day's daily on
// its day.
func (s *Store) PlayerStreak(ctx context.Context, playerID, today string) (store.Streak, error) {
	if err := store.ValidDay(today, false); err != nil {
		return store.Streak{}, fmt.Errorf("sqlite: streak: %w", err)
	}
	days, err := queryAll(ctx, s.r, "streak of "+playerID, func(row scanner) (string, error) {
		var d string
		return d, row.Scan(&d)
	}, `SELECT DISTINCT played_day FROM results WHERE player_id = ? AND played_day IS NOT NULL AND played_day <= ? ORDER BY played_day`,
		playerID, today)
	if err != nil {
		return store.Streak{}, err
	}
	return store.StreakOf(days, today), nil
}
