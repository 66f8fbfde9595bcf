package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"time"

	"github.com/sudoku-arena/arena/store"
)

// The event log's two tables. room_events holds each room's events
// together (its primary key is room_id, seq), so a batch of events from
// hundreds of rooms, inserted there straight, would change about a page
// of it per event: a page written to the WAL and again by the
// checkpoint. New events go to room_events_hot instead, in arrival order
// within one of hotBuckets parts of it (a batch fills a few sequential
// pages of each), and every moveEventsEvery one transaction moves a part's
// events into room_events sorted by room, so that each room's page there
// is written once for the many events the room had in between. A part is
// moved at a time, in turn, so that a move holds the one writer for a
// sixteenth of what moving all would; Close and a retention pass move them
// all.
//
// The parts are ranges of the hot table's rowid: an event's id is its
// room's part (bucketOf) in the top bits and the store's running count of
// events (hotN) below, so each part's events are together and in arrival
// order, and a room's are all in one part, which a read of them scans
// alone.
//
// room_events_hot has no index by room, so it does not refuse an event
// stored already: a retried batch may leave an event twice there, or
// there and in room_events. The move keeps the first of each (room_id,
// seq) (ON CONFLICT DO NOTHING, in the order they came), and Events reads
// both tables and takes each (room_id, seq) once, so appending an event
// that is stored stays a no-op to every reader.

// moveEventsEvery is how long a room's new events wait in the hot table:
// a room of four players logs about twenty events in that time, so its
// page of room_events is written once for twenty of them, while the hot
// table holds a few seconds of the server's events.
const moveEventsEvery = 5 * time.Second

// hotBuckets is how many parts the hot table is moved in; bucketShift
// puts an event's part above the count in its id.
const (
	hotBuckets  = 16
	bucketShift = 48
	hotNMask    = 1<<bucketShift - 1
)

// bucketOf is the part of the hot table a room's events go to. It is
// stored in the ids, so it must not change while events wait there.
func bucketOf(roomID string) int64 {
	h := fnv.New32a()
	h.Write([]byte(roomID))
	return int64(h.Sum32() % hotBuckets)
}

// bucketIDs is the range of ids of a part of the hot table.
func bucketIDs(bucket int64) (lo, hi int64) {
	return bucket << bucketShift, bucket<<bucketShift | hotNMask
}

const insertHotEvent = `INSERT INTO room_events_hot (id, room_id, seq, type, player_id, data, at) VALUES (?, ?, ?, ?, ?, ?, ?)`

// AppendEvents stores a batch of events in one transaction, skipping any
// already stored.
func (s *Store) AppendEvents(ctx context.Context, events []store.Event) error {
	if len(events) == 0 {
		return nil
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return mapErr(err, "append events")
	}
	defer tx.Rollback()
	events, fenced, err := fenceEvents(ctx, tx, events)
	if err != nil {
		return mapErr(err, "append events")
	}
	if err := s.insertEventRows(ctx, tx, events); err != nil {
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

// insertEventRows inserts events into room_events_hot within tx, each in
// its room's part of it, numbered in the order of the writer's
// transactions. It only inserts: what decides which events are to be
// inserted is the caller's.
// (One prepared single-row INSERT is as cheap here as multi-row ones: a
// batch's cost is the pages it dirties, not the statements.)
func (s *Store) insertEventRows(ctx context.Context, tx *sql.Tx, events []store.Event) error {
	stmt := tx.StmtContext(ctx, s.insertEvent)
	for _, e := range events {
		id := bucketOf(e.RoomID)<<bucketShift | s.hotN.Add(1)&hotNMask
		if _, err := stmt.ExecContext(ctx, id, e.RoomID, e.Seq, e.Type, e.PlayerID, settingsText(e.Data), micros(e.At)); err != nil {
			return mapErr(err, fmt.Sprintf("append event %s/%d", e.RoomID, e.Seq))
		}
	}
	return nil
}

// allHot is the range of every id of the hot table.
const allHot, allHotEnd = 0, math.MaxInt64

// moveBuckets moves the events of the hot table's parts in turn, one
// part every interval, until ctx ends.
func (s *Store) moveBuckets(ctx context.Context, interval time.Duration) {
	next := int64(0)
	s.every(ctx, interval, func(ctx context.Context) {
		lo, hi := bucketIDs(next)
		next = (next + 1) % hotBuckets
		// A move that fails leaves the events where readers see them
		// too: the part's next move takes them along.
		_ = s.moveEvents(ctx, lo, hi)
	})
}

// moveEvents moves the events of room_events_hot whose ids are in
// [lo, hi] into room_events in one transaction.
func (s *Store) moveEvents(ctx context.Context, lo, hi int64) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return mapErr(err, "move new events")
	}
	defer tx.Rollback()
	if err := moveEventsIn(ctx, tx, lo, hi); err != nil {
		return err
	}
	return mapErr(tx.Commit(), "move new events: commit")
}

// moveEventsIn moves the events of room_events_hot whose ids are in
// [lo, hi] into room_events within tx, sorted by room so that each
// room's page is written once, keeping the first of each (room_id, seq),
// and deletes them from the hot table. The writer's transactions run one
// at a time, so nothing is added to the range between the copy and the
// delete.
func moveEventsIn(ctx context.Context, tx *sql.Tx, lo, hi int64) error {
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO room_events (room_id, seq, type, player_id, data, at)
		 SELECT room_id, seq, type, player_id, data, at FROM room_events_hot WHERE id BETWEEN ? AND ? ORDER BY room_id, seq, id
		 ON CONFLICT (room_id, seq) DO NOTHING`, lo, hi); err != nil {
		return mapErr(err, "move new events")
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM room_events_hot WHERE id BETWEEN ? AND ?`, lo, hi)
	return mapErr(err, "move new events: delete the moved")
}

// DeleteFinishedEvents deletes the events of up to maxRooms rooms that
// finished before before, oldest first, in one transaction that first
// moves the new events into room_events, so that one statement finds
// them all there. The rooms come from the rooms_finished index; a room
// whose events are gone already is skipped by a probe of room_events'
// primary key.
func (s *Store) DeleteFinishedEvents(ctx context.Context, before time.Time, maxRooms int) (int64, error) {
	what := "delete events of rooms finished before " + before.Format(time.RFC3339)
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return 0, mapErr(err, what)
	}
	defer tx.Rollback()
	if err := moveEventsIn(ctx, tx, allHot, allHotEnd); err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	res, err := tx.ExecContext(ctx,
		`DELETE FROM room_events WHERE room_id IN (
		   SELECT r.id FROM rooms r
		   WHERE r.state = 'finished' AND r.finished_at < ?
		     AND EXISTS (SELECT 1 FROM room_events e WHERE e.room_id = r.id)
		   ORDER BY r.finished_at LIMIT ?)`,
		before.UnixMicro(), maxRooms)
	if err != nil {
		return 0, mapErr(err, what)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, mapErr(err, what+": rows affected")
	}
	return n, mapErr(tx.Commit(), what+": commit")
}

// Events returns a room's events after a sequence number, in order, from
// both tables (of the hot one, the room's part), each (room_id, seq) once:
// the one in room_events if it is there, else the first appended (SQLite
// takes a bare column's value from the row that min() picks).
func (s *Store) Events(ctx context.Context, roomID string, afterSeq int64, limit int) ([]store.Event, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	lo, hi := bucketIDs(bucketOf(roomID))
	return queryAll(ctx, s.r, "events of room "+roomID, func(row scanner) (store.Event, error) {
		var e store.Event
		var data string
		var at sql.NullInt64
		var first int64
		err := row.Scan(&e.RoomID, &e.Seq, &e.Type, &e.PlayerID, &data, &at, &first)
		e.Data, e.At = json.RawMessage(data), fromMicros(at)
		return e, err
	}, `SELECT room_id, seq, type, player_id, data, at, min(src) FROM (
		   SELECT room_id, seq, type, player_id, data, at, 0 AS src FROM room_events WHERE room_id = ?1 AND seq > ?2
		   UNION ALL
		   SELECT room_id, seq, type, player_id, data, at, id FROM room_events_hot
		   WHERE id BETWEEN ?4 AND ?5 AND room_id = ?1 AND seq > ?2
		 ) GROUP BY seq ORDER BY seq LIMIT ?3`,
		roomID, afterSeq, limit, lo, hi)
}
