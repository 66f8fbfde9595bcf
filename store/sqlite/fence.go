package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/sudoku-arena/arena/store"
)

// With SQLite the server is one node and nothing claims rooms, so no
// epoch moves on; the writes still check the epochs they carry, as
// PostgreSQL's do, so that both stores keep one contract. The check runs
// in the writing transaction, and SQLite's one writer connection orders
// it with every other write.

// execer is the writer pool or a transaction.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// stmtIn is stmt, prepared on the writer, for ex: the writer itself or a
// transaction on it.
func stmtIn(ctx context.Context, ex execer, stmt *sql.Stmt) *sql.Stmt {
	if tx, ok := ex.(*sql.Tx); ok {
		return tx.StmtContext(ctx, stmt)
	}
	return stmt
}

// fenced runs write on the writer when epoch is 0 (an unfenced write), or
// else in a transaction that first checks the room's epoch (fence).
func (s *Store) fenced(ctx context.Context, what, gameID string, epoch int64, write func(ex execer) error) error {
	if epoch <= 0 {
		return mapErr(write(s.w), what)
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return mapErr(err, what)
	}
	defer tx.Rollback()
	if err := s.fence(ctx, tx, store.RoomOf(gameID), epoch); err != nil {
		return mapErr(err, what)
	}
	if err := write(tx); err != nil {
		return mapErr(err, what)
	}
	return mapErr(tx.Commit(), what)
}

// fence refuses with a *FencedError unless the room's epoch is the one
// given.
func (s *Store) fence(ctx context.Context, tx *sql.Tx, roomID string, epoch int64) error {
	var cur int64
	if err := tx.StmtContext(ctx, s.roomEpoch).QueryRowContext(ctx, roomID).Scan(&cur); err != nil {
		return err
	}
	if cur != epoch {
		return &store.FencedError{Rooms: []string{roomID}}
	}
	return nil
}

// fenceEvents drops, in the appending transaction, the events whose epoch
// is not their room's, and returns the rest and the rooms dropped.
func fenceEvents(ctx context.Context, tx *sql.Tx, events []store.Event) ([]store.Event, []string, error) {
	rooms := store.FencedRooms(events)
	if len(rooms) == 0 {
		return events, nil, nil
	}
	args := make([]any, len(rooms))
	for i, r := range rooms {
		args[i] = r
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, epoch FROM rooms WHERE id IN (?`+strings.Repeat(", ?", len(rooms)-1)+`)`, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("epochs of %d rooms: %w", len(rooms), err)
	}
	defer rows.Close()
	epochs := map[string]int64{}
	for rows.Next() {
		var id string
		var epoch int64
		if err := rows.Scan(&id, &epoch); err != nil {
			return nil, nil, err
		}
		epochs[id] = epoch
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	kept, fenced := store.SplitFenced(events, epochs)
	return kept, fenced, nil
}
