// Package sqlite is the embedded store: SQLite through modernc.org/sqlite
// (pure Go, no cgo), the zero-setup default. It keeps its data in one file
// (./data/arena.db unless told otherwise) and passes the same contract suite
// as the PostgreSQL store.
//
// SQLite allows one writer at a time, so writes go through a pool of one
// connection whose transactions begin IMMEDIATE (no upgrade deadlocks) while
// reads use a pool of their own; WAL mode lets the readers run beside the
// writer. A connection of its own copies the WAL back into the database
// file (checkpoints) beside the writer, so that a write never waits for
// one.
//
// One file per entity: players.go, puzzles.go (the pool and the daily
// puzzles), rooms.go, events.go (with inserts.go, the events' prepared
// INSERTs), results.go, leaderboards.go, accounts.go (with passkeys),
// sessions.go (with sign-in and recovery codes and ceremonies),
// attempts.go, review.go, and fence.go (the epochs writes carry); this
// file opens, migrates and closes the store.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	sqlitemigrate "github.com/golang-migrate/migrate/v4/database/sqlite"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/sudoku-arena/arena/migrations"
	"github.com/sudoku-arena/arena/store"
)

// Store is the SQLite store.
type Store struct {
	w, r *sql.DB
	path string
	// ckpt is the checkpointer's connection; stopCkpt stops it and
	// ckptDone is closed once it has.
	ckpt     *sql.DB
	stopCkpt context.CancelFunc
	ckptDone chan struct{}
	// inserts are the events' INSERTs, prepared once on the write pool's
	// one connection rather than for every batch.
	inserts rawInserts
	// updateRoom saves a room's state and roomEpoch reads a room's
	// epoch, prepared once like the inserts: each room saves every 30 s,
	// and preparing the statement took a third of a save's time.
	updateRoom, roomEpoch *sql.Stmt
}

// The statements prepared once.
const (
	updateRoomSQL = `UPDATE rooms SET puzzle_id = ?, host_id = ?, state = ?, started_at = ?, finished_at = ?, settings = ? WHERE id = ?`
	roomEpochSQL  = `SELECT epoch FROM rooms WHERE id = ?`
)

var _ store.Store = (*Store)(nil)

// role is what a pool's connections are for: each has its pragmas.
type role int

const (
	writer role = iota
	reader
	checkpointer
)

// Checkpoints: the checkpointer copies the WAL back into the database
// file every checkpointEvery, beside the writer: a page changed many
// times in between (a room's last page of the events' index takes an
// entry every few hundred milliseconds) is copied once, and the copying
// happens outside the writer's commits. The WAL can only start over from its
// beginning once a checkpoint has copied all of it with no write in
// between, which one beside a busy writer never does: so once the WAL
// holds walRestartPages the writer checkpoints at the end of a commit
// (SQLite's auto-checkpoint), copying the little the checkpointer has not
// yet, and the next write starts the WAL over. journalSizeLimit is what
// the WAL file is cut back to then.
const (
	checkpointEvery  = 250 * time.Millisecond
	walRestartPages  = 8192     // 4 KiB pages: 32 MiB
	journalSizeLimit = 32 << 20 // bytes
	// writerCacheKiB is the writer's page cache: room for the page of
	// the events' index (room_id, seq) that every live room's next event
	// goes into (about 16,000 rooms), and the tables' inner pages.
	// SQLite's default of 2 MiB sends most inserts to the file system for
	// a page.
	writerCacheKiB = 16 << 10
)

func dsn(path string, r role) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	switch r {
	case reader:
		q.Add("_pragma", "query_only(1)")
	case writer:
		q.Add("_txlock", "immediate")
		q.Add("_pragma", fmt.Sprintf("wal_autocheckpoint(%d)", walRestartPages))
		q.Add("_pragma", fmt.Sprintf("journal_size_limit(%d)", journalSizeLimit))
		q.Add("_pragma", fmt.Sprintf("cache_size(%d)", -writerCacheKiB))
		// A statement that inserts many rows keeps the pages it changes
		// in a statement journal, so that a failure undoes that statement
		// alone; past 64 KiB SQLite spills it to a temporary file, with a
		// write system call a page. In memory it costs no call.
		q.Add("_pragma", "temp_store(MEMORY)")
	case checkpointer:
		q.Add("_pragma", "wal_autocheckpoint(0)")
	}
	return "file:" + path + "?" + q.Encode()
}

// Open opens (creating it and its directory if need be) the database file at
// path and applies pending migrations.
func Open(ctx context.Context, path string) (*Store, error) {
	if path == "" {
		return nil, fmt.Errorf("sqlite: %w: empty database path", store.ErrInvalid)
	}
	if _, _, err := Migrate(ctx, path, store.MigrateUp); err != nil {
		return nil, err
	}
	s := &Store{path: path}
	var err error
	for _, p := range []struct {
		db    **sql.DB
		role  role
		conns int
	}{{&s.w, writer, 1}, {&s.r, reader, 4}, {&s.ckpt, checkpointer, 1}} {
		if *p.db, err = sql.Open("sqlite", dsn(path, p.role)); err != nil {
			s.Close()
			return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
		}
		(*p.db).SetMaxOpenConns(p.conns)
	}
	if err := s.Ping(ctx); err != nil {
		s.Close()
		return nil, err
	}
	for _, p := range []struct {
		stmt **sql.Stmt
		sql  string
	}{{&s.updateRoom, updateRoomSQL}, {&s.roomEpoch, roomEpochSQL}} {
		if *p.stmt, err = s.w.PrepareContext(ctx, p.sql); err != nil {
			s.Close()
			return nil, mapErr(err, "prepare "+p.sql)
		}
	}
	ckptCtx, stop := context.WithCancel(context.Background())
	s.stopCkpt, s.ckptDone = stop, make(chan struct{})
	go s.checkpoints(ckptCtx)
	return s, nil
}

// checkpoints runs a passive checkpoint every checkpointEvery until ctx
// ends. A passive checkpoint copies what no reader still needs and never
// waits on the writer or the readers. One that fails (the disk is full,
// say) is not fatal: the next tries again, and past walRestartPages the
// writer checkpoints itself.
func (s *Store) checkpoints(ctx context.Context) {
	defer close(s.ckptDone)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		_, _ = s.ckpt.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`)
	}
}

// Migrate runs a migration action (store.MigrateUp, MigrateDown,
// MigrateVersion) on the database file at path.
func Migrate(ctx context.Context, path, action string) (version uint, dirty bool, err error) {
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return 0, false, fmt.Errorf("sqlite: create directory for %s: %w", path, err)
		}
	}
	db, err := sql.Open("sqlite", dsn(path, writer))
	if err != nil {
		return 0, false, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	drv, err := sqlitemigrate.WithInstance(db, &sqlitemigrate.Config{})
	if err != nil {
		db.Close()
		return 0, false, fmt.Errorf("sqlite: migrations on %s: %w", path, err)
	}
	return store.Migrate(migrations.SQLite(), "sqlite", drv, action)
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.r.PingContext(ctx); err != nil {
		return fmt.Errorf("sqlite: ping %s: %w", s.path, err)
	}
	return nil
}

// Close stops the checkpointer and closes the pools.
func (s *Store) Close() error {
	if s.stopCkpt != nil {
		s.stopCkpt()
		<-s.ckptDone
	}
	var errs []error
	if s.w != nil {
		errs = append(errs, s.inserts.close(s.w))
	}
	for _, stmt := range []*sql.Stmt{s.updateRoom, s.roomEpoch} {
		if stmt != nil {
			errs = append(errs, stmt.Close())
		}
	}
	for _, db := range []*sql.DB{s.w, s.r, s.ckpt} {
		if db != nil {
			errs = append(errs, db.Close())
		}
	}
	return errors.Join(errs...)
}

// micros and fromMicros convert times to and from the stored form: Unix
// microseconds, UTC. The zero time is stored as NULL.
func micros(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMicro()
}

func fromMicros(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return time.UnixMicro(v.Int64).UTC()
}

// mapErr turns driver errors into the store's kinds.
func mapErr(err error, what string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("sqlite: %s: %w", what, store.ErrNotFound)
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return fmt.Errorf("sqlite: %s: %w: %v", what, store.ErrConflict, err)
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY, sqlite3.SQLITE_CONSTRAINT_CHECK, sqlite3.SQLITE_CONSTRAINT_NOTNULL:
			return fmt.Errorf("sqlite: %s: %w: %v", what, store.ErrInvalid, err)
		}
	}
	return fmt.Errorf("sqlite: %s: %w", what, err)
}

func (s *Store) execOne(ctx context.Context, what, query string, args ...any) error {
	res, err := s.w.ExecContext(ctx, query, args...)
	if err != nil {
		return mapErr(err, what)
	}
	if n, err := res.RowsAffected(); err != nil {
		return mapErr(err, what)
	} else if n == 0 {
		return fmt.Errorf("sqlite: %s: %w", what, store.ErrNotFound)
	}
	return nil
}

type scanner interface{ Scan(dest ...any) error }

// queryAll runs a read query and scans every row with scan, so that each
// list query says only its SQL and its columns.
func queryAll[T any](ctx context.Context, db *sql.DB, what string, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, mapErr(err, what)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, mapErr(err, what)
		}
		out = append(out, v)
	}
	return out, mapErr(rows.Err(), what)
}

// inTx runs fn in a transaction on the writer and commits it unless fn
// fails.
func (s *Store) inTx(ctx context.Context, what string, fn func(tx *sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return mapErr(err, what+": begin")
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return mapErr(err, what)
	}
	return mapErr(tx.Commit(), what+": commit")
}
