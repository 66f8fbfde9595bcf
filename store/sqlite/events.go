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
// skipped by a probe of room_events' primary key. It counts the events of
// the rows deleted, a packed row's all.
func (s *Store) DeleteFinishedEvents(ctx context.Context, before time.Time, maxRooms int) (int64, error) {
	what := "delete events of rooms finished before " + before.Format(time.RFC3339)
	rows, err := s.w.QueryContext(ctx,
		`DELETE FROM room_events WHERE room_id IN (
		   SELECT r.id FROM rooms r
		   WHERE r.state = 'finished' AND r.finished_at < ?
		     AND EXISTS (SELECT 1 FROM room_events e WHERE e.room_id = r.id)
		   ORDER BY r.finished_at LIMIT ?)
		 RETURNING coalesce(last_seq - seq + 1, 1)`,
		before.UnixMicro(), maxRooms)
	if err != nil {
		return 0, mapErr(err, what)
	}
	defer rows.Close()
	var n int64
	for rows.Next() {
		var k int64
		if err := rows.Scan(&k); err != nil {
			return 0, mapErr(err, what)
		}
		n += k
	}
	return n, mapErr(rows.Err(), what)
}

// Events returns a room's events after a sequence number, in order: the
// rows from the one that may hold the first of them (a packed row begins
// up to store.PackMax-1 seqs before it), taken apart by store.EventPage,
// read until the page is full.
func (s *Store) Events(ctx context.Context, roomID string, afterSeq int64, limit int) ([]store.Event, error) {
	page := store.EventPage{After: afterSeq, Limit: limit}
	for {
		want := page.Want()
		rowLimit := want
		if rowLimit == 0 {
			rowLimit = -1 // SQLite: no limit
		}
		n, err := s.eventRows(ctx, &page, roomID, rowLimit)
		if err != nil {
			return nil, err
		}
		// A read that gave fewer rows than asked read them all; one that
		// gave as many may have left some whose events the page wants
		// (rows that held only events taken already).
		if page.Full() || want == 0 || n < want {
			return page.Events, nil
		}
	}
}

// eventRows reads up to limit (-1: all) of the rows that may hold events
// after page.After into the page, stopping once it is full, and returns
// how many it read.
func (s *Store) eventRows(ctx context.Context, page *store.EventPage, roomID string, limit int) (int, error) {
	what := "events of room " + roomID
	rows, err := s.r.QueryContext(ctx,
		`SELECT seq, last_seq, type, player_id, data, at FROM room_events
		 WHERE room_id = ? AND seq > ? AND coalesce(last_seq, seq) > ? ORDER BY seq LIMIT ?`,
		roomID, page.After-store.PackMax, page.After, limit)
	if err != nil {
		return 0, mapErr(err, what)
	}
	defer rows.Close()
	n := 0
	for rows.Next() && !page.Full() {
		r := store.EventRow{RoomID: roomID}
		var last, at sql.NullInt64
		if err := rows.Scan(&r.Seq, &last, &r.Type, &r.PlayerID, &r.Data, &at); err != nil {
			return n, mapErr(err, what)
		}
		r.Last, r.At = last.Int64, fromMicros(at)
		if err := page.Add(r); err != nil {
			return n, fmt.Errorf("sqlite: %s: %w", what, err)
		}
		n++
	}
	return n, mapErr(rows.Err(), what)
}
