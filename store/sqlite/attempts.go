package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/sudoku-arena/arena/store"
)

// StartAttempt records the player's first view of a day's daily of a level
// unless one is recorded, and returns the one that is (read on the writer,
// after its insert).
func (s *Store) StartAttempt(ctx context.Context, a store.Attempt) (store.Attempt, error) {
	if err := store.ValidDay(a.Day, false); err != nil {
		return store.Attempt{}, fmt.Errorf("sqlite: start attempt: %w", err)
	}
	_, err := s.w.ExecContext(ctx,
		`INSERT INTO daily_attempts (player_id, day, level, started_at, finished_at) VALUES (?, ?, ?, ?, ?)
		 ON CONFLICT (player_id, day, level) DO NOTHING`, a.PlayerID, a.Day, a.Level, micros(a.StartedAt), micros(a.FinishedAt))
	if err != nil {
		return store.Attempt{}, mapErr(err, "start attempt of "+a.PlayerID)
	}
	return s.attempt(ctx, s.w, a.PlayerID, a.Day, a.Level)
}

// Attempt is the player's attempt of a day and level.
func (s *Store) Attempt(ctx context.Context, playerID, day, level string) (store.Attempt, error) {
	if err := store.ValidDay(day, false); err != nil {
		return store.Attempt{}, fmt.Errorf("sqlite: attempt: %w", err)
	}
	return s.attempt(ctx, s.r, playerID, day, level)
}

func (s *Store) attempt(ctx context.Context, db *sql.DB, playerID, day, level string) (store.Attempt, error) {
	a := store.Attempt{PlayerID: playerID, Day: day, Level: level}
	var started, finished sql.NullInt64
	err := db.QueryRowContext(ctx,
		`SELECT started_at, finished_at FROM daily_attempts WHERE player_id = ? AND day = ? AND level = ?`,
		playerID, day, level).Scan(&started, &finished)
	if err != nil {
		return store.Attempt{}, mapErr(err, fmt.Sprintf("attempt of %s on %s %s", playerID, day, level))
	}
	a.StartedAt, a.FinishedAt = fromMicros(started), fromMicros(finished)
	return a, nil
}

// FinishAttempt marks the attempt finished unless it is, and reports
// whether this call did.
func (s *Store) FinishAttempt(ctx context.Context, playerID, day, level string, at time.Time) (bool, error) {
	if err := store.ValidDay(day, false); err != nil {
		return false, fmt.Errorf("sqlite: finish attempt: %w", err)
	}
	res, err := s.w.ExecContext(ctx,
		`UPDATE daily_attempts SET finished_at = ? WHERE player_id = ? AND day = ? AND level = ? AND finished_at IS NULL`,
		micros(at), playerID, day, level)
	if err != nil {
		return false, mapErr(err, "finish attempt of "+playerID)
	}
	if n, err := res.RowsAffected(); err != nil {
		return false, mapErr(err, "finish attempt of "+playerID)
	} else if n == 1 {
		return true, nil
	}
	_, err = s.attempt(ctx, s.w, playerID, day, level) // finished already, or none
	return false, err
}
