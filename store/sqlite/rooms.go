package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/sudoku-arena/arena/store"
)

func settingsText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	return string(raw)
}

// CreateRoom stores a new room. A first round made with an owner gets
// epoch 1; a later round with an Epoch is fenced by its room's.
func (s *Store) CreateRoom(ctx context.Context, r store.Room) error {
	epoch := r.Epoch
	if store.RoomOf(r.ID) == r.ID {
		epoch = 0 // the first round's row is the one that holds the epoch
	}
	return s.fenced(ctx, "create room "+r.ID, r.ID, epoch, func(ex execer) error {
		_, err := ex.ExecContext(ctx,
			`INSERT INTO rooms (id, mode, puzzle_id, host_id, state, created_at, started_at, finished_at, settings, owner, epoch)
			 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.ID, r.Mode, r.PuzzleID, r.HostID, r.State, micros(r.CreatedAt), micros(r.StartedAt), micros(r.FinishedAt), settingsText(r.Settings),
			store.NullString(r.Owner), store.FirstEpoch(r))
		return err
	})
}

const roomCols = `id, mode, puzzle_id, host_id, state, created_at, started_at, finished_at, settings, coalesce(owner, ''), epoch`

func scanRoom(row scanner, what string) (store.Room, error) {
	var r store.Room
	var created, started, finished sql.NullInt64
	var settings string
	if err := row.Scan(&r.ID, &r.Mode, &r.PuzzleID, &r.HostID, &r.State, &created, &started, &finished, &settings, &r.Owner, &r.Epoch); err != nil {
		return store.Room{}, mapErr(err, what)
	}
	r.CreatedAt, r.StartedAt, r.FinishedAt = fromMicros(created), fromMicros(started), fromMicros(finished)
	r.Settings = json.RawMessage(settings)
	return r, nil
}

// Room finds a room by id.
func (s *Store) Room(ctx context.Context, id string) (store.Room, error) {
	return scanRoom(s.r.QueryRowContext(ctx, `SELECT `+roomCols+` FROM rooms WHERE id = ?`, id), "room "+id)
}

// UpdateRoom stores a room's changing fields, fenced by its Epoch.
func (s *Store) UpdateRoom(ctx context.Context, r store.Room) error {
	what := "update room " + r.ID
	return s.fenced(ctx, what, r.ID, r.Epoch, func(ex execer) error {
		res, err := stmtIn(ctx, ex, s.updateRoom).ExecContext(ctx,
			r.PuzzleID, r.HostID, r.State, micros(r.StartedAt), micros(r.FinishedAt), settingsText(r.Settings), r.ID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return sql.ErrNoRows // ErrNotFound, by mapErr
		}
		return nil
	})
}

// LiveRooms lists the rooms not finished, oldest first.
func (s *Store) LiveRooms(ctx context.Context) ([]store.Room, error) {
	return queryAll(ctx, s.r, "live rooms", func(row scanner) (store.Room, error) { return scanRoom(row, "live rooms") },
		`SELECT `+roomCols+` FROM rooms WHERE state <> 'finished' ORDER BY created_at, id`)
}
