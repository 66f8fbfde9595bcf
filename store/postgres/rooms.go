package postgres

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sudoku-arena/arena/store"
)

// CreateRoom stores a new room. A first round made with an owner gets
// epoch 1; a later round with an Epoch is fenced by its room's.
func (s *Store) CreateRoom(ctx context.Context, r store.Room) error {
	epoch := r.Epoch
	if store.RoomOf(r.ID) == r.ID {
		epoch = 0 // the first round's row is the one that holds the epoch
	}
	return s.fenced(ctx, "create room "+r.ID, r.ID, epoch, func(q querier) error {
		_, err := q.Exec(ctx,
			`INSERT INTO rooms (id, mode, puzzle_id, host_id, state, created_at, started_at, finished_at, settings, owner, epoch)
			 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
			r.ID, r.Mode, r.PuzzleID, r.HostID, r.State, r.CreatedAt, ts(r.StartedAt), ts(r.FinishedAt), jsonText(r.Settings),
			store.NullString(r.Owner), store.FirstEpoch(r))
		return err
	})
}

const roomCols = `id, mode, puzzle_id, host_id, state, created_at, started_at, finished_at, settings::text, coalesce(owner, ''), epoch`

func scanRoom(row pgx.Row, what string) (store.Room, error) {
	var r store.Room
	var started, finished *time.Time
	var settings string
	if err := row.Scan(&r.ID, &r.Mode, &r.PuzzleID, &r.HostID, &r.State, &r.CreatedAt, &started, &finished, &settings, &r.Owner, &r.Epoch); err != nil {
		return store.Room{}, mapErr(err, what)
	}
	r.CreatedAt, r.StartedAt, r.FinishedAt = r.CreatedAt.UTC(), fromTS(started), fromTS(finished)
	r.Settings = json.RawMessage(settings)
	return r, nil
}

// Room finds a room by id.
func (s *Store) Room(ctx context.Context, id string) (store.Room, error) {
	return scanRoom(s.pool.QueryRow(ctx, `SELECT `+roomCols+` FROM rooms WHERE id = $1`, id), "room "+id)
}

// UpdateRoom stores a room's changing fields, fenced by its Epoch.
func (s *Store) UpdateRoom(ctx context.Context, r store.Room) error {
	what := "update room " + r.ID
	return s.fenced(ctx, what, r.ID, r.Epoch, func(q querier) error {
		tag, err := q.Exec(ctx,
			`UPDATE rooms SET puzzle_id = $1, host_id = $2, state = $3, started_at = $4, finished_at = $5, settings = $6 WHERE id = $7`,
			r.PuzzleID, r.HostID, r.State, ts(r.StartedAt), ts(r.FinishedAt), jsonText(r.Settings), r.ID)
		if err == nil && tag.RowsAffected() == 0 {
			return pgx.ErrNoRows // ErrNotFound, by mapErr
		}
		return err
	})
}

// LiveRooms lists the rooms not finished, oldest first.
func (s *Store) LiveRooms(ctx context.Context) ([]store.Room, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+roomCols+` FROM rooms WHERE state <> 'finished' ORDER BY created_at, id`)
	if err != nil {
		return nil, mapErr(err, "live rooms")
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Room, error) { return scanRoom(row, "live rooms") })
}
