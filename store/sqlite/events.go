package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
	"unsafe"

	"github.com/sudoku-arena/arena/store"
)

// dataText is an event's data as the TEXT it is stored as, read in place
// rather than copied: the driver copies a string it binds, and an event's
// data does not change while AppendEvents has it.
func dataText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	return unsafe.String(unsafe.SliceData(raw), len(raw))
}

// AppendEvents stores a batch of events in one transaction, skipping any
// already stored.
func (s *Store) AppendEvents(ctx context.Context, events []store.Event) error {
	if len(events) == 0 {
		return nil
	}
	conn, err := s.w.Conn(ctx)
	if err != nil {
		return mapErr(err, "append events")
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return mapErr(err, "append events")
	}
	defer tx.Rollback()
	events, fenced, err := fenceEvents(ctx, tx, events)
	if err != nil {
		return mapErr(err, "append events")
	}
	if err := s.inserts.insert(ctx, conn, events); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return mapErr(err, fmt.Sprintf("append %d events: commit", len(events)))
	}
	if len(fenced) > 0 {
		return &store.FencedError{Rooms: fenced}
	}
	return nil
}

// DeleteFinishedEvents deletes the events of up to maxRooms rooms that
// finished before before, oldest first, in one statement. The rooms come
// from the rooms_finished index; a room whose events are gone already is
// skipped by a probe of room_events' primary key.
func (s *Store) DeleteFinishedEvents(ctx context.Context, before time.Time, maxRooms int) (int64, error) {
	res, err := s.w.ExecContext(ctx,
		`DELETE FROM room_events WHERE room_id IN (
		   SELECT r.id FROM rooms r
		   WHERE r.state = 'finished' AND r.finished_at < ?
		     AND EXISTS (SELECT 1 FROM room_events e WHERE e.room_id = r.id)
		   ORDER BY r.finished_at LIMIT ?)`,
		before.UnixMicro(), maxRooms)
	if err != nil {
		return 0, mapErr(err, "delete events of rooms finished before "+before.Format(time.RFC3339))
	}
	n, err := res.RowsAffected()
	return n, mapErr(err, "delete events: rows affected")
}

// Events returns a room's events after a sequence number, in order.
func (s *Store) Events(ctx context.Context, roomID string, afterSeq int64, limit int) ([]store.Event, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	return queryAll(ctx, s.r, "events of room "+roomID, func(row scanner) (store.Event, error) {
		var e store.Event
		var data string
		var at sql.NullInt64
		err := row.Scan(&e.RoomID, &e.Seq, &e.Type, &e.PlayerID, &data, &at)
		e.Data, e.At = json.RawMessage(data), fromMicros(at)
		return e, err
	}, `SELECT room_id, seq, type, player_id, data, at FROM room_events WHERE room_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
		roomID, afterSeq, limit)
}
