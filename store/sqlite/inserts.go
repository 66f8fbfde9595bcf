package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/sudoku-arena/arena/store"
)

// rawInserts are the events' INSERTs (eventChunks' sizes, skipping the
// events stored already), prepared on the write pool's driver connection
// itself and executed with their arguments in one slice kept from batch
// to batch. Through database/sql each execution converted its arguments
// into a new slice (448 values for 64 rows), a quarter of what the
// server allocated under load.
type rawInserts struct {
	mu sync.Mutex
	// conn is the driver connection stmts were prepared on: another one
	// (the pool gave up on a broken connection) prepares them again.
	conn  any
	stmts [len(eventChunks)]execStmt
	args  []driver.NamedValue
	// rows and packs are a batch's rows and its packed rows' data
	// (store.EventRows), kept for the next batch.
	rows  []store.EventRow
	packs []byte
}

// execStmt is a driver's statement that executes with a context.
type execStmt interface {
	driver.Stmt
	driver.StmtExecContext
}

// insert inserts events within the transaction open on conn, as the rows
// store.EventRows makes of them (a room's flush in one), in as few
// statements as eventChunks allow. It only inserts: what decides which
// events are to be inserted is the caller's. The rows go at the end of
// room_events, in the order written (a batch fills a few pages), and an
// entry of 20-odd bytes into its index by (room_id, seq), a page or so a
// room (see migration 000005). (The statements' number barely changes the
// CPU a batch takes; it changes the garbage.)
func (r *rawInserts) insert(ctx context.Context, conn *sql.Conn, events []store.Event) error {
	if len(events) == 0 {
		return nil
	}
	return conn.Raw(func(dc any) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		if err := r.prepare(ctx, dc); err != nil {
			return err
		}
		all, packs := store.EventRows(r.rows[:0], r.packs[:0], events)
		defer func() {
			// The events' strings and data are not kept (the arguments
			// of every chunk, not only the last, shorter one: a packed
			// row's data points into the batch's packs), nor a batch's
			// packs far past the usual size.
			clear(r.args[:cap(r.args)])
			clear(all)
			r.rows, r.packs = all[:0], packs[:0]
			if cap(all) > maxKeptRows {
				r.rows = nil
			}
			if cap(packs) > maxKeptPacks {
				r.packs = nil
			}
		}()
		rows := all
		for i, n := range eventChunks {
			for len(rows) >= n {
				args := r.args[:0]
				for k := range rows[:n] {
					e := &rows[k]
					var last any
					if e.Last > 0 {
						last = e.Last
					}
					o := len(args)
					args = append(args,
						driver.NamedValue{Ordinal: o + 1, Value: e.RoomID},
						driver.NamedValue{Ordinal: o + 2, Value: e.Seq},
						driver.NamedValue{Ordinal: o + 3, Value: last},
						driver.NamedValue{Ordinal: o + 4, Value: e.Type},
						driver.NamedValue{Ordinal: o + 5, Value: e.PlayerID},
						driver.NamedValue{Ordinal: o + 6, Value: dataText(e.Data)},
						driver.NamedValue{Ordinal: o + 7, Value: micros(e.At)})
				}
				r.args = args
				if _, err := r.stmts[i].ExecContext(ctx, args); err != nil {
					return mapErr(err, fmt.Sprintf("append events %s/%d and %d more rows", rows[0].RoomID, rows[0].Seq, n-1))
				}
				rows = rows[n:]
			}
		}
		return nil
	})
}

// maxKeptRows and maxKeptPacks are the most rows, and bytes of packed
// rows, kept for the next batch: the event log's batches of moves need
// up to 1,000 rows and about 200 KB; a larger batch (a test's, a
// benchmark's) leaves its own to the collector.
const (
	maxKeptRows  = 1000
	maxKeptPacks = 1 << 20
)

// prepare makes the statements on dc, unless they were made there.
func (r *rawInserts) prepare(ctx context.Context, dc any) error {
	if r.conn == dc {
		return nil
	}
	pc, ok := dc.(driver.ConnPrepareContext)
	if !ok {
		return fmt.Errorf("sqlite: the driver's connection %T cannot prepare with a context", dc)
	}
	r.conn, r.stmts = nil, [len(eventChunks)]execStmt{} // those of a connection given up
	for i, n := range eventChunks {
		stmt, err := pc.PrepareContext(ctx, insertEventsSQL(n))
		if err != nil {
			r.closeStmts()
			return mapErr(err, "prepare the events' insert")
		}
		es, ok := stmt.(execStmt)
		if !ok {
			_ = stmt.Close()
			r.closeStmts()
			return fmt.Errorf("sqlite: the driver's statement %T cannot execute with a context", stmt)
		}
		r.stmts[i] = es
	}
	r.conn = dc
	r.args = make([]driver.NamedValue, 0, eventColumns*eventChunks[0])
	return nil
}

// closeStmts closes the statements made. r.mu is held, on the
// connection's lock.
func (r *rawInserts) closeStmts() error {
	var errs []error
	for i, stmt := range r.stmts {
		if stmt != nil {
			errs = append(errs, stmt.Close())
			r.stmts[i] = nil
		}
	}
	r.conn = nil
	return errors.Join(errs...)
}

// close closes the statements, on the write pool's connection.
func (r *rawInserts) close(w *sql.DB) error {
	r.mu.Lock()
	prepared := r.conn != nil
	r.mu.Unlock()
	if !prepared {
		return nil
	}
	conn, err := w.Conn(context.Background())
	if err != nil {
		return fmt.Errorf("sqlite: close the events' inserts: %w", err)
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.conn != dc {
			return nil // prepared on a connection given up: gone with it
		}
		return r.closeStmts()
	})
}

// eventChunks are the numbers of rows an events' INSERT takes, largest
// first: a batch goes in as few statements as they make up (a 400-event
// batch in 6 rather than 400). Each statement costs database/sql and the
// driver a dozen allocations whatever its rows, and under load that
// garbage was most of what the server made.
var eventChunks = [...]int{64, 16, 4, 1}

// eventColumns is how many values a row of room_events takes.
const eventColumns = 7

// insertEventsSQL is the INSERT of n rows. A row whose (room_id, seq) is
// stored already is skipped, unless it packs more of the same run than
// the row stored (a batch retried after a part of it was stored, whose
// run was cut there): then it takes that row's place, every event of
// which it holds.
func insertEventsSQL(n int) string {
	var b strings.Builder
	b.WriteString(`INSERT INTO room_events (room_id, seq, last_seq, type, player_id, data, at) VALUES `)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`(?, ?, ?, ?, ?, ?, ?)`)
	}
	b.WriteString(` ON CONFLICT (room_id, seq) DO UPDATE SET
		last_seq = excluded.last_seq, type = excluded.type, player_id = excluded.player_id, data = excluded.data, at = excluded.at
		WHERE coalesce(excluded.last_seq, excluded.seq) > coalesce(room_events.last_seq, room_events.seq)`)
	return b.String()
}
