package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/sudoku-arena/arena/store"
)

// HeldResults are the results held for review, oldest first.
func (s *Store) HeldResults(ctx context.Context, limit int) ([]store.Result, error) {
	return queryAll(ctx, s.r, "held results", scanResult,
		`SELECT `+resultCols+` FROM results WHERE review = 'held' ORDER BY finished_at, id LIMIT ?`, limitArg(limit))
}

// ReviewResult confirms or removes a held result, in one statement.
// Confirming gives the result its held day: the unique index of one daily
// result per day, level and player refuses a second (ErrConflict, and
// nothing changes).
func (s *Store) ReviewResult(ctx context.Context, id int64, confirm bool, at time.Time) (store.Result, error) {
	set := `review = 'removed'`
	if confirm {
		set = `review = 'confirmed', flagged = 0, day = held_day`
	}
	r, err := scanResult(s.w.QueryRowContext(ctx,
		`UPDATE results SET `+set+`, reviewed_at = ? WHERE id = ? AND review = 'held' RETURNING `+resultCols, micros(at), id))
	if err != nil {
		return store.Result{}, mapErr(err, fmt.Sprintf("review result %d", id))
	}
	return r, nil
}
