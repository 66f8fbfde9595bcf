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
package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unsafe"

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

// eventChunks are the numbers of rows an events' INSERT takes, largest
// first: a batch goes in as few statements as they make up (a 400-event
// batch in 6 rather than 400). Each statement costs database/sql and the
// driver a dozen allocations whatever its rows, and under load that
// garbage was most of what the server made.
var eventChunks = [...]int{64, 16, 4, 1}

// insertEventsSQL is the INSERT of n events.
func insertEventsSQL(n int) string {
	var b strings.Builder
	b.WriteString(`INSERT INTO room_events (room_id, seq, type, player_id, data, at) VALUES `)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`(?, ?, ?, ?, ?, ?)`)
	}
	b.WriteString(` ON CONFLICT (room_id, seq) DO NOTHING`)
	return b.String()
}

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

// CreatePlayer stores a new player.
func (s *Store) CreatePlayer(ctx context.Context, p store.Player) error {
	_, err := s.w.ExecContext(ctx,
		`INSERT INTO players (id, name, token_hash, created_at, last_seen) VALUES (?, ?, ?, ?, ?)`,
		p.ID, p.Name, p.TokenHash, micros(p.CreatedAt), micros(p.LastSeen))
	return mapErr(err, "create player "+p.ID)
}

const playerCols = `id, name, token_hash, created_at, last_seen`

func scanPlayer(row *sql.Row, what string) (store.Player, error) {
	var p store.Player
	var created, seen sql.NullInt64
	if err := row.Scan(&p.ID, &p.Name, &p.TokenHash, &created, &seen); err != nil {
		return store.Player{}, mapErr(err, what)
	}
	p.CreatedAt, p.LastSeen = fromMicros(created), fromMicros(seen)
	return p, nil
}

// Player finds a player by id.
func (s *Store) Player(ctx context.Context, id string) (store.Player, error) {
	return scanPlayer(s.r.QueryRowContext(ctx, `SELECT `+playerCols+` FROM players WHERE id = ?`, id), "player "+id)
}

// PlayerByToken finds a player by the hash of their token.
func (s *Store) PlayerByToken(ctx context.Context, tokenHash []byte) (store.Player, error) {
	return scanPlayer(s.r.QueryRowContext(ctx, `SELECT `+playerCols+` FROM players WHERE token_hash = ?`, tokenHash), "player by token")
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

// TouchPlayer records when the player was last seen.
func (s *Store) TouchPlayer(ctx context.Context, id string, at time.Time) error {
	return s.execOne(ctx, "touch player "+id, `UPDATE players SET last_seen = ? WHERE id = ?`, micros(at), id)
}

// RenamePlayer changes a player's display name.
func (s *Store) RenamePlayer(ctx context.Context, id, name string) error {
	return s.execOne(ctx, "rename player "+id, `UPDATE players SET name = ? WHERE id = ?`, name, id)
}

// SavePuzzle stores a puzzle unless its givens are stored already.
func (s *Store) SavePuzzle(ctx context.Context, p store.Puzzle) (store.Puzzle, error) {
	tech, err := json.Marshal(p.Techniques)
	if err != nil {
		return store.Puzzle{}, fmt.Errorf("sqlite: save puzzle: techniques: %w", err)
	}
	if p.Techniques == nil {
		tech = []byte("{}")
	}
	_, err = s.w.ExecContext(ctx,
		`INSERT INTO puzzles (givens, solution, level, score, techniques, seed, created_at)
		 VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (givens) DO NOTHING`,
		p.Givens, p.Solution, p.Level, p.Score, string(tech), int64(p.Seed), micros(p.CreatedAt))
	if err != nil {
		return store.Puzzle{}, mapErr(err, "save puzzle")
	}
	return scanPuzzle(s.w.QueryRowContext(ctx, `SELECT `+puzzleCols+` FROM puzzles WHERE givens = ?`, p.Givens), "saved puzzle")
}

const puzzleCols = `id, givens, solution, level, score, techniques, seed, created_at`

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

func scanPuzzle(row scanner, what string) (store.Puzzle, error) {
	var p store.Puzzle
	var tech string
	var seed int64
	var created sql.NullInt64
	if err := row.Scan(&p.ID, &p.Givens, &p.Solution, &p.Level, &p.Score, &tech, &seed, &created); err != nil {
		return store.Puzzle{}, mapErr(err, what)
	}
	if err := json.Unmarshal([]byte(tech), &p.Techniques); err != nil {
		return store.Puzzle{}, fmt.Errorf("sqlite: %s: techniques: %w", what, err)
	}
	p.Seed, p.CreatedAt = uint64(seed), fromMicros(created)
	return p, nil
}

// Puzzle finds a puzzle by id.
func (s *Store) Puzzle(ctx context.Context, id int64) (store.Puzzle, error) {
	return scanPuzzle(s.r.QueryRowContext(ctx, `SELECT `+puzzleCols+` FROM puzzles WHERE id = ?`, id), fmt.Sprintf("puzzle %d", id))
}

// AddToPool puts puzzles in the pool of their level, once ever.
func (s *Store) AddToPool(ctx context.Context, puzzleIDs ...int64) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return mapErr(err, "add to pool")
	}
	defer tx.Rollback()
	now := micros(time.Now())
	for _, id := range puzzleIDs {
		res, err := tx.ExecContext(ctx,
			`INSERT INTO puzzle_pool (puzzle_id, level, added_at)
			 SELECT id, level, ? FROM puzzles WHERE id = ? ON CONFLICT (puzzle_id) DO NOTHING`, now, id)
		if err != nil {
			return mapErr(err, fmt.Sprintf("add puzzle %d to pool", id))
		}
		if n, _ := res.RowsAffected(); n == 0 {
			var exists int
			if err := tx.QueryRowContext(ctx, `SELECT 1 FROM puzzles WHERE id = ?`, id).Scan(&exists); err != nil {
				return mapErr(err, fmt.Sprintf("add puzzle %d to pool", id))
			}
		}
	}
	return mapErr(tx.Commit(), "add to pool")
}

// TakeFromPool hands out the oldest pooled puzzle of the level. The write
// pool's single connection and IMMEDIATE transactions serialize takers.
func (s *Store) TakeFromPool(ctx context.Context, level string) (store.Puzzle, error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return store.Puzzle{}, mapErr(err, "take from pool")
	}
	defer tx.Rollback()
	var id int64
	err = tx.QueryRowContext(ctx,
		`UPDATE puzzle_pool SET taken_at = ?
		 WHERE puzzle_id = (SELECT puzzle_id FROM puzzle_pool WHERE level = ? AND taken_at IS NULL ORDER BY puzzle_id LIMIT 1)
		 RETURNING puzzle_id`, micros(time.Now()), level).Scan(&id)
	if err != nil {
		return store.Puzzle{}, mapErr(err, "take "+level+" puzzle from pool")
	}
	p, err := scanPuzzle(tx.QueryRowContext(ctx, `SELECT `+puzzleCols+` FROM puzzles WHERE id = ?`, id), "pooled puzzle")
	if err != nil {
		return store.Puzzle{}, err
	}
	return p, mapErr(tx.Commit(), "take from pool")
}

// PoolSize counts the puzzles of the level waiting in the pool.
func (s *Store) PoolSize(ctx context.Context, level string) (int, error) {
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM puzzle_pool WHERE level = ? AND taken_at IS NULL`, level).Scan(&n)
	return n, mapErr(err, "pool size")
}

// dataText is an event's data as the TEXT it is stored as, read in place
// rather than copied: the driver copies a string it binds, and an event's
// data does not change while AppendEvents has it.
func dataText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	return unsafe.String(unsafe.SliceData(raw), len(raw))
}

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

func nullDay(day string) any {
	if day == "" {
		return nil
	}
	return day
}

// SaveResults stores one finish in one transaction; results already stored
// for their room and player are skipped.
func (s *Store) SaveResults(ctx context.Context, rs []store.Result) error {
	for _, r := range rs {
		if err := store.ValidDay(r.Day, true); err != nil {
			return fmt.Errorf("sqlite: save results: %w", err)
		}
	}
	if len(rs) == 0 {
		return nil
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return mapErr(err, "save results: begin")
	}
	defer tx.Rollback()
	if rs[0].Epoch > 0 {
		if err := s.fence(ctx, tx, store.RoomOf(rs[0].RoomID), rs[0].Epoch); err != nil {
			return mapErr(err, "save results in room "+rs[0].RoomID)
		}
	}
	for _, r := range rs {
		_, err := tx.ExecContext(ctx,
			`INSERT INTO results (room_id, player_id, puzzle_id, mode, level, elapsed_ms, mistakes, hints, score, finished_at, day, flagged)
			 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			 ON CONFLICT (room_id, player_id) DO NOTHING`,
			r.RoomID, r.PlayerID, r.PuzzleID, r.Mode, r.Level, r.Elapsed.Milliseconds(), r.Mistakes, r.Hints, r.Score,
			micros(r.FinishedAt), nullDay(r.Day), r.Flagged)
		if err != nil {
			return mapErr(err, "save result of "+r.PlayerID+" in room "+r.RoomID)
		}
	}
	return mapErr(tx.Commit(), fmt.Sprintf("save %d results: commit", len(rs)))
}

// PlayerHistory is the player's results, newest first.
func (s *Store) PlayerHistory(ctx context.Context, playerID string, limit int) ([]store.Result, error) {
	if limit <= 0 {
		limit = -1
	}
	return queryAll(ctx, s.r, "history of "+playerID, func(row scanner) (store.Result, error) {
		var r store.Result
		var ms int64
		var fin sql.NullInt64
		err := row.Scan(&r.ID, &r.RoomID, &r.PlayerID, &r.PuzzleID, &r.Mode, &r.Level, &ms, &r.Mistakes, &r.Hints, &r.Score, &fin, &r.Day, &r.Flagged)
		r.Elapsed, r.FinishedAt = time.Duration(ms)*time.Millisecond, fromMicros(fin)
		return r, err
	}, `SELECT id, room_id, player_id, puzzle_id, mode, level, elapsed_ms, mistakes, hints, score, finished_at, coalesce(day, ''), flagged
		 FROM results WHERE player_id = ? ORDER BY finished_at DESC, id DESC LIMIT ?`, playerID, limit)
}

// PlayerBest is the player's fastest finish of each level.
func (s *Store) PlayerBest(ctx context.Context, playerID string) ([]store.Result, error) {
	return queryAll(ctx, s.r, "best of "+playerID, func(row scanner) (store.Result, error) {
		var r store.Result
		var ms int64
		var fin sql.NullInt64
		err := row.Scan(&r.ID, &r.RoomID, &r.Mode, &r.Level, &ms, &r.Mistakes, &r.Hints, &fin)
		r.PlayerID, r.Elapsed, r.FinishedAt = playerID, time.Duration(ms)*time.Millisecond, fromMicros(fin)
		return r, err
	}, `SELECT id, room_id, mode, level, elapsed_ms, mistakes, hints, finished_at FROM (
		   SELECT *, row_number() OVER (PARTITION BY level ORDER BY elapsed_ms, finished_at, id) AS n
		   FROM results WHERE player_id = ? AND mode <> 'coop' AND NOT flagged
		 ) WHERE n = 1`, playerID)
}

// PlayerStreak counts consecutive days with a daily result.
func (s *Store) PlayerStreak(ctx context.Context, playerID, today string) (store.Streak, error) {
	if err := store.ValidDay(today, false); err != nil {
		return store.Streak{}, fmt.Errorf("sqlite: streak: %w", err)
	}
	days, err := queryAll(ctx, s.r, "streak of "+playerID, func(row scanner) (string, error) {
		var d string
		return d, row.Scan(&d)
	}, `SELECT DISTINCT day FROM results WHERE player_id = ? AND day IS NOT NULL AND day <= ? ORDER BY day`, playerID, today)
	if err != nil {
		return store.Streak{}, err
	}
	return store.StreakOf(days, today), nil
}

// SetDaily records the puzzle of a day and level unless one is recorded.
func (s *Store) SetDaily(ctx context.Context, d store.Daily) (store.Daily, error) {
	if err := store.ValidDay(d.Day, false); err != nil {
		return store.Daily{}, fmt.Errorf("sqlite: set daily: %w", err)
	}
	if _, err := s.w.ExecContext(ctx,
		`INSERT INTO daily_puzzles (day, level, puzzle_id) VALUES (?, ?, ?) ON CONFLICT (day, level) DO NOTHING`,
		d.Day, d.Level, d.PuzzleID); err != nil {
		return store.Daily{}, mapErr(err, "set daily "+d.Day)
	}
	return s.daily(ctx, s.w, d.Day, d.Level)
}

// Daily finds the puzzle of a day and level.
func (s *Store) Daily(ctx context.Context, day, level string) (store.Daily, error) {
	return s.daily(ctx, s.r, day, level)
}

func (s *Store) daily(ctx context.Context, db *sql.DB, day, level string) (store.Daily, error) {
	d := store.Daily{Day: day, Level: level}
	err := db.QueryRowContext(ctx, `SELECT puzzle_id FROM daily_puzzles WHERE day = ? AND level = ?`, day, level).Scan(&d.PuzzleID)
	return d, mapErr(err, "daily "+day+" "+level)
}

const entryCols = `r.player_id, p.name, r.score, r.elapsed_ms, r.mistakes, r.hints, r.finished_at`

// entries runs a leaderboard query selecting entryCols and numbers its rows
// from firstRank.
func (s *Store) entries(ctx context.Context, what string, firstRank int, query string, args ...any) ([]store.Entry, error) {
	es, err := queryAll(ctx, s.r, what, func(row scanner) (store.Entry, error) {
		var e store.Entry
		var ms int64
		var fin sql.NullInt64
		err := row.Scan(&e.PlayerID, &e.Name, &e.Score, &ms, &e.Mistakes, &e.Hints, &fin)
		e.Elapsed, e.FinishedAt = time.Duration(ms)*time.Millisecond, fromMicros(fin)
		return e, err
	}, query, args...)
	for i := range es {
		es[i].Rank = firstRank + i
	}
	return es, err
}

// DailyTop is the head of a day's leaderboard.
func (s *Store) DailyTop(ctx context.Context, day, level string, limit int) ([]store.Entry, error) {
	return s.entries(ctx, "daily top "+day, 1,
		`SELECT `+entryCols+` FROM results r JOIN players p ON p.id = r.player_id
		 WHERE r.day = ? AND r.level = ? ORDER BY r.score DESC, r.finished_at, r.player_id LIMIT ?`, day, level, limit)
}

// DailyCount is how many results a day's leaderboard holds.
func (s *Store) DailyCount(ctx context.Context, day, level string) (int, error) {
	if err := store.ValidDay(day, false); err != nil {
		return 0, fmt.Errorf("sqlite: daily count: %w", err)
	}
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM results WHERE day = ? AND level = ?`, day, level).Scan(&n)
	return n, mapErr(err, "daily count "+day)
}

// DailyAround is the player's row with n rows on either side.
func (s *Store) DailyAround(ctx context.Context, day, level, playerID string, n int) ([]store.Entry, error) {
	var score int
	var fin int64
	err := s.r.QueryRowContext(ctx,
		`SELECT score, finished_at FROM results WHERE day = ? AND level = ? AND player_id = ?`, day, level, playerID).Scan(&score, &fin)
	if err != nil {
		return nil, mapErr(err, "daily rank of "+playerID)
	}
	var ahead int
	if err := s.r.QueryRowContext(ctx,
		`SELECT count(*) FROM results WHERE day = ? AND level = ?
		 AND (score > ? OR (score = ? AND (finished_at < ? OR (finished_at = ? AND player_id < ?))))`,
		day, level, score, score, fin, fin, playerID).Scan(&ahead); err != nil {
		return nil, mapErr(err, "daily rank of "+playerID)
	}
	first := max(ahead-n, 0)
	return s.entries(ctx, "daily around "+playerID, first+1,
		`SELECT `+entryCols+` FROM results r JOIN players p ON p.id = r.player_id
		 WHERE r.day = ? AND r.level = ? ORDER BY r.score DESC, r.finished_at, r.player_id LIMIT ? OFFSET ?`,
		day, level, ahead-first+n+1, first)
}

// BestTimes is each player's fastest finish of a level, fastest first.
func (s *Store) BestTimes(ctx context.Context, level string, limit int) ([]store.Entry, error) {
	return s.entries(ctx, "best times "+level, 1,
		`SELECT `+entryCols+` FROM (
		   SELECT *, row_number() OVER (PARTITION BY player_id ORDER BY elapsed_ms, finished_at, id) AS n
		   FROM results WHERE level = ? AND mode <> 'coop' AND NOT flagged
		 ) r JOIN players p ON p.id = r.player_id
		 WHERE r.n = 1 ORDER BY r.elapsed_ms, r.finished_at, r.player_id LIMIT ?`, level, limit)
}
