package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sudoku-arena/arena/store"
)

// AppendEvents stores a batch of events, all or nothing, skipping any
// already stored, as the rows store.EventRows makes of them (a room's
// flush in one). A batch goes in with COPY, which streams its rows; one
// of which some row is stored already (a retry whose first write did
// land) fails as a whole on the table's key, and goes in again as one
// INSERT of arrays that skips those (insertRows). A fenced batch does the
// same in its transaction (appendEvents).
func (s *Store) AppendEvents(ctx context.Context, events []store.Event) error {
	if len(events) == 0 {
		return nil
	}
	if fencedEvents(events) {
		return s.appendFenced(ctx, events)
	}
	b := rowBuffers.Get().(*rowBuffer)
	defer b.put()
	b.rows, b.packs = store.EventRows(b.rows[:0], b.packs[:0], events)
	_, err := s.pool.CopyFrom(ctx, pgx.Identifier{"room_events"}, eventColumns, &eventRows{rows: b.rows})
	if storedAlready(err) {
		return s.insertRows(ctx, s.pool, b.rows)
	}
	return mapErr(err, fmt.Sprintf("append %d events", len(events)))
}

// storedAlready reports whether a COPY of rows failed because one of
// them is stored already (unique_violation on the table's key).
func storedAlready(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// rowBuffer is a batch's rows and its packed rows' data, kept in
// rowBuffers for the next batch.
type rowBuffer struct {
	rows  []store.EventRow
	packs []byte
}

var rowBuffers = sync.Pool{New: func() any { return new(rowBuffer) }}

// put lets go of the events' strings and data and gives b back; a buffer
// grown past a few batches' packs is let go.
func (b *rowBuffer) put() {
	clear(b.rows)
	b.rows = b.rows[:0]
	if cap(b.packs) > 1<<20 {
		b.packs = nil
	}
	rowBuffers.Put(b)
}

// eventColumns are room_events' columns in the order eventRows gives them.
var eventColumns = []string{"room_id", "seq", "last_seq", "type", "player_id", "data", "at"}

// eventRows hands rows to COPY, one at a time. A batch through
// insertRows' arrays made about 1.6 KB of garbage an event (pgx grows
// each array's bytes and the message from a small buffer for every
// statement); a row here makes its values' boxes.
type eventRows struct {
	rows []store.EventRow
	i    int
	row  [7]any
}

func (r *eventRows) Next() bool {
	r.i++
	return r.i <= len(r.rows)
}

// Values is the current row, in a slice that the next call reuses: COPY
// encodes a row before it asks for the next.
func (r *eventRows) Values() ([]any, error) {
	e := &r.rows[r.i-1]
	data := e.Data
	if len(data) == 0 {
		data = emptyObject
	}
	var last any
	if e.Last > 0 {
		last = e.Last
	}
	r.row = [7]any{e.RoomID, e.Seq, last, e.Type, e.PlayerID, data, e.At}
	return r.row[:], nil
}

func (r *eventRows) Err() error { return nil }

var emptyObject = []byte("{}")

// appendEvents is AppendEvents' write in the fencing transaction q: COPY
// as on the pool, within a savepoint, so that a batch of which some row is
// stored already (a retry) can go in again as insertRows' INSERT in the
// same transaction. Against that INSERT for every batch, it took about a
// third off the CPU an event of a move cost the server and a fifth off
// this process's (docs/performance.md, 2026-11-26).
func (s *Store) appendEvents(ctx context.Context, q querier, events []store.Event) error {
	if len(events) == 0 {
		return nil
	}
	b := rowBuffers.Get().(*rowBuffer)
	defer b.put()
	b.rows, b.packs = store.EventRows(b.rows[:0], b.packs[:0], events)
	tx, ok := q.(pgx.Tx)
	if !ok {
		return s.insertRows(ctx, q, b.rows)
	}
	sp, err := tx.Begin(ctx)
	if err != nil {
		return err
	}
	_, err = sp.CopyFrom(ctx, pgx.Identifier{"room_events"}, eventColumns, &eventRows{rows: b.rows})
	if storedAlready(err) {
		if err := sp.Rollback(ctx); err != nil {
			return err
		}
		return s.insertRows(ctx, q, b.rows)
	}
	if err != nil {
		return err
	}
	return sp.Commit(ctx)
}

// insertRows inserts rows in one statement. A row whose (room_id, seq) is
// stored already is skipped, unless it packs more of the same run than
// the row stored (a batch retried after a part of it was stored, whose
// run was cut there): then it takes that row's place, every event of
// which it holds. Rows with the same key in the batch are one row first
// (the one holding most), since the statement may not update a row it
// inserted.
func (s *Store) insertRows(ctx context.Context, q querier, rows []store.EventRow) error {
	rows = distinctRows(rows)
	n := len(rows)
	rooms, types, players, data := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	seqs, lasts, ats := make([]int64, n), make([]int64, n), make([]time.Time, n)
	for i, e := range rows {
		rooms[i], seqs[i], lasts[i], types[i], players[i], data[i], ats[i] = e.RoomID, e.Seq, e.Last, e.Type, e.PlayerID, jsonText(e.Data), e.At
	}
	_, err := q.Exec(ctx,
		`INSERT INTO room_events AS e (room_id, seq, last_seq, type, player_id, data, at)
		 SELECT r, s, NULLIF(l, 0), t, p, d, a
		 FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::json[], $7::timestamptz[]) AS u (r, s, l, t, p, d, a)
		 ON CONFLICT (room_id, seq) DO UPDATE SET
		   last_seq = excluded.last_seq, type = excluded.type, player_id = excluded.player_id, data = excluded.data, at = excluded.at
		 WHERE coalesce(excluded.last_seq, excluded.seq) > coalesce(e.last_seq, e.seq)`,
		rooms, seqs, lasts, types, players, data, ats)
	return mapErr(err, fmt.Sprintf("append %d event rows", n))
}

// distinctRows is rows with one row for each (room, seq), the one that
// holds most events (the first of those), in the order they came.
func distinctRows(rows []store.EventRow) []store.EventRow {
	type key struct {
		room string
		seq  int64
	}
	at := make(map[key]int, len(rows))
	out := rows[:0:0]
	for _, r := range rows {
		k := key{r.RoomID, r.Seq}
		if i, ok := at[k]; ok {
			if r.Events() > out[i].Events() {
				out[i] = r
			}
			continue
		}
		at[k] = len(out)
		out = append(out, r)
	}
	return out
}

// Events returns a room's events after a sequence number, in order: the
// rows from the one that may hold the first of them (a packed row begins
// up to store.PackMax-1 seqs before it), taken apart by store.EventPage,
// read until the page is full.
func (s *Store) Events(ctx context.Context, roomID string, afterSeq int64, limit int) ([]store.Event, error) {
	page := store.EventPage{After: afterSeq, Limit: limit}
	for {
		want := page.Want()
		var lim *int
		if want > 0 {
			lim = &want
		}
		n, err := s.eventRows(ctx, &page, roomID, lim)
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

// eventRows reads up to limit (nil: all) of the rows that may hold events
// after page.After into the page, and returns how many it read.
func (s *Store) eventRows(ctx context.Context, page *store.EventPage, roomID string, limit *int) (int, error) {
	what := "events of room " + roomID
	rows, err := s.pool.Query(ctx,
		`SELECT seq, last_seq, type, player_id, data::text, at FROM room_events
		 WHERE room_id = $1 AND seq > $2 AND coalesce(last_seq, seq) > $3 ORDER BY seq LIMIT $4`,
		roomID, page.After-store.PackMax, page.After, limit)
	if err != nil {
		return 0, mapErr(err, what)
	}
	defer rows.Close()
	n := 0
	var last *int64
	var data []byte
	for rows.Next() {
		r := store.EventRow{RoomID: roomID}
		if err := rows.Scan(&r.Seq, &last, &r.Type, &r.PlayerID, &data, &r.At); err != nil {
			return n, mapErr(err, what)
		}
		r.At = r.At.UTC()
		if last != nil {
			r.Last = *last
		}
		r.Data, data = data, nil
		if err := page.Add(r); err != nil {
			return n, fmt.Errorf("postgres: %s: %w", what, err)
		}
		n++
	}
	return n, mapErr(rows.Err(), what)
}

// DeleteFinishedEvents deletes the events of up to maxRooms rooms that
// finished before before, oldest first, in one statement. The rooms come
// from the rooms_finished index; a room whose events are gone already is
// skipped by a probe of room_events' primary key. It counts the events of
// the rows deleted, a packed row's all.
func (s *Store) DeleteFinishedEvents(ctx context.Context, before time.Time, maxRooms int) (int64, error) {
	var n int64
	err := s.pool.QueryRow(ctx,
		`WITH gone AS (
		   DELETE FROM room_events WHERE room_id IN (
		     SELECT r.id FROM rooms r
		     WHERE r.state = 'finished' AND r.finished_at < $1
		       AND EXISTS (SELECT 1 FROM room_events e WHERE e.room_id = r.id)
		     ORDER BY r.finished_at LIMIT $2)
		   RETURNING coalesce(last_seq - seq + 1, 1) AS n)
		 SELECT coalesce(sum(n), 0)::bigint FROM gone`,
		before, maxRooms).Scan(&n)
	if err != nil {
		return 0, mapErr(err, "delete events of rooms finished before "+before.Format(time.RFC3339))
	}
	return n, nil
}
