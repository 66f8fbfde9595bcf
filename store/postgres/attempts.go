package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/sudoku-arena/arena/store"
)

// StartAttempt records the player's first view of a day's daily of a level
// unless one is recorded, and returns the one that is. The read is a
// statement of its own, after the insert: a row a racing caller inserted
// first is committed by then (the insert waits for it) and visible to it.
func (s *Store) StartAttempt(ctx context.Context, a store.Attempt) (store.Attempt, error) {
	if err := store.ValidDay(a.Day, false); err != nil {
		return store.Attempt{}, fmt.Errorf("postgres: start attempt: %w", err)
	}
	_, err := s.pool.Exec(ctx,
		`INSERT INTO daily_attempts (player_id, day, level, started_at, finished_at) VALUES ($1, $2::date, $3, $4, $5)
		 ON CONFLICT (player_id, day, level) DO NOTHING`, a.PlayerID, a.Day, a.Level, a.StartedAt, ts(a.FinishedAt))
	if err != nil {
		return store.Attempt{}, mapErr(err, "start attempt of "+a.PlayerID)
	}
	return s.Attempt(ctx, a.PlayerID, a.Day, a.Level)
}

// Attempt is the player's attempt of a day and level.
func (s *Store) Attempt(ctx context.Context, playerID, day, level string) (store.Attempt, error) {
	if err := store.ValidDay(day, false); err != nil {
		return store.Attempt{}, fmt.Errorf("postgres: attempt: %w", err)
	}
	a := store.Attempt{PlayerID: playerID, Day: day, Level: level}
	var finished *time.Time
	err := s.pool.QueryRow(ctx,
		`SELECT started_at, finished_at FROM daily_attempts WHERE player_id = $1 AND day = $2::date AND level = $3`,
		playerID, day, level).Scan(&a.StartedAt, &finished)
	if err != nil {
		return store.Attempt{}, mapErr(err, fmt.Sprintf("attempt of %s on %s %s", playerID, day, level))
	}
	a.StartedAt, a.FinishedAt = a.StartedAt.UTC(), fromTS(finished)
	return a, nil
}

// FinishAttempt marks the attempt finished unless it is, and reports
// whether this call did.
func (s *Store) FinishAttempt(ctx context.Context, playerID, day, level string, at time.Time) (bool, error) {
	if err := store.ValidDay(day, false); err != nil {
		return false, fmt.Errorf("postgres: finish attempt: %w", err)
	}
	tag, err := s.pool.Exec(ctx,
		`UPDATE daily_attempts SET finished_at = $4 WHERE player_id = $1 AND day = $2::date AND level = $3 AND finished_at IS NULL`,
		playerID, day, level, at)
	if err != nil {
		return false, mapErr(err, "finish attempt of "+playerID)
	}
	if tag.RowsAffected() == 1 {
		return true, nil
	}
	_, err = s.Attempt(ctx, playerID, day, level) // finished already, or none
	return false, err
}
