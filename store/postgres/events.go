package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sudoku-arena/arena/store"
)

// AppendEvents stores a batch of events, all or nothing, skipping any
// already stored. A batch goes in with COPY, which streams its rows; one
// of which some event is stored already (a retry whose first write did
// land) fails as a whole on the table's key, and goes in again as one
// INSERT of arrays that skips those (appendEvents), as fenced events do.
func (s *Store) AppendEvents(ctx context.Context, events []store.Event) error {
	if len(events) == 0 {
		return nil
	}
	if fencedEvents(events) {
		return s.appendFenced(ctx, events)
	}
	_, err := s.pool.CopyFrom(ctx, pgx.Identifier{"room_events"}, eventColumns, &eventRows{events: events})
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" {
		return s.appendEvents(ctx, s.pool, events)
	}
	return mapErr(err, fmt.Sprintf("append %d events", len(events)))
}

// eventColumns are room_events' columns in the order eventRows gives them.
var eventColumns = []string{"room_id", "seq", "type", "player_id", "data", "at"}

// eventRows hands events to COPY, a row at a time. A batch through
// appendEvents' arrays made about 1.6 KB of garbage an event (pgx grows
// each array's bytes and the message from a small buffer for every
// statement); a row here makes its six values' boxes.
type eventRows struct {
	events []store.Event
	i      int
	row    [6]any
}

func (r *eventRows) Next() bool {
	r.i++
	return r.i <= len(r.events)
}

// Values is the current row, in a slice that the next call reuses: COPY
// encodes a row before it asks for the next.
func (r *eventRows) Values() ([]any, error) {
	e := &r.events[r.i-1]
	data := []byte(e.Data)
	if len(data) == 0 {
		data = emptyObject
	}
	r.row = [6]any{e.RoomID, e.Seq, e.Type, e.PlayerID, data, e.At}
	return r.row[:], nil
}

func (r *eventRows) Err() error { return nil }

var emptyObject = []byte("{}")

// appendEvents is AppendEvents' insert, on the pool or in the fencing
// transaction.
func (s *Store) appendEvents(ctx context.Context, q querier, events []store.Event) error {
	if len(events) == 0 {
		return nil
	}
	n := len(events)
	rooms, types, players, data := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	seqs, ats := make([]int64, n), make([]time.Time, n)
	for i, e := range events {
		rooms[i], seqs[i], types[i], players[i], data[i], ats[i] = e.RoomID, e.Seq, e.Type, e.PlayerID, jsonText(e.Data), e.At
	}
	_, err := q.Exec(ctx,
		`INSERT INTO room_events (room_id, seq, type, player_id, data, at)
		 SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::json[], $6::timestamptz[])
		 ON CONFLICT (room_id, seq) DO NOTHING`,
		rooms, seqs, types, players, data, ats)
	return mapErr(err, fmt.Sprintf("append %d events", n))
}

// Events returns a room's events after a sequence number, in order.
func (s *Store) Events(ctx context.Context, roomID string, afterSeq int64, limit int) ([]store.Event, error) {
	var lim *int
	if limit > 0 {
		lim = &limit
	}
	rows, err := s.pool.Query(ctx,
		`SELECT room_id, seq, type, player_id, data::text, at FROM room_events WHERE room_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
		roomID, afterSeq, lim)
	if err != nil {
		return nil, mapErr(err, "events of room "+roomID)
	}
	evs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Event, error) {
		var e store.Event
		var data string
		err := row.Scan(&e.RoomID, &e.Seq, &e.Type, &e.PlayerID, &data, &e.At)
		e.Data, e.At = json.RawMessage(data), e.At.UTC()
		return e, err
	})
	return evs, mapErr(err, "events of room "+roomID)
}

// DeleteFinishedEvents deletes the events of up to maxRooms rooms that
// finished before before, oldest first, in one statement. The rooms come
// from the rooms_finished index; a room whose events are gone already is
// skipped by a probe of room_events' primary key.
func (s *Store) DeleteFinishedEvents(ctx context.Context, before time.Time, maxRooms int) (int64, error) {
	tag, err := s.pool.Exec(ctx,
		`DELETE FROM room_events WHERE room_id IN (
		   SELECT r.id FROM rooms r
		   WHERE r.state = 'finished' AND r.finished_at < $1
		     AND EXISTS (SELECT 1 FROM room_events e WHERE e.room_id = r.id)
		   ORDER BY r.finished_at LIMIT $2)`,
		before, maxRooms)
	if err != nil {
		return 0, mapErr(err, "delete events of rooms finished before "+before.Format(time.RFC3339))
	}
	return tag.RowsAffected(), nil
}
