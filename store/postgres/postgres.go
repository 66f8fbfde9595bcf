// Package postgres is the PostgreSQL store, through pgx and its connection
// pool: where a real deployment keeps its data. It passes the same contract
// suite as the embedded SQLite store.
package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	pgxmigrate "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/sudoku-arena/arena/migrations"
	"github.com/sudoku-arena/arena/store"
)

// Store is the PostgreSQL store.
type Store struct {
	pool *pgxpool.Pool
}

var _ store.Store = (*Store)(nil)

// Open connects to the database at url (postgres://…), applies pending
// migrations and returns the store.
func Open(ctx context.Context, url string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w: %v", store.ErrInvalid, err)
	}
	if _, _, err := Migrate(ctx, url, store.MigrateUp); err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	s := &Store{pool: pool}
	if err := s.Ping(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// Migrate runs a migration action (store.MigrateUp, MigrateDown,
// MigrateVersion) on the database at url.
func Migrate(ctx context.Context, url, action string) (version uint, dirty bool, err error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return 0, false, fmt.Errorf("postgres: %w: %v", store.ErrInvalid, err)
	}
	db := stdlib.OpenDB(*cfg)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return 0, false, fmt.Errorf("postgres: connect for migrations: %w", err)
	}
	drv, err := pgxmigrate.WithInstance(db, &pgxmigrate.Config{})
	if err != nil {
		db.Close()
		return 0, false, fmt.Errorf("postgres: migrations: %w", err)
	}
	return store.Migrate(migrations.Postgres(), "postgres", drv, action)
}

// Pool is the connection pool, for benchmarks and operations tooling.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("postgres: ping: %w", err)
	}
	return nil
}

// Close closes the pool.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// mapErr turns driver errors into the store's kinds.
func mapErr(err error, what string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) || errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("postgres: %s: %w", what, store.ErrNotFound)
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "23505": // unique_violation
			return fmt.Errorf("postgres: %s: %w: %s", what, store.ErrConflict, pe.ConstraintName)
		case "23503", "23514", "23502", "22007", "22008", "22P02": // foreign key, check, not null, bad date or text
			return fmt.Errorf("postgres: %s: %w: %s", what, store.ErrInvalid, pe.Message)
		}
	}
	return fmt.Errorf("postgres: %s: %w", what, err)
}

// ts maps the zero time to NULL.
func ts(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func fromTS(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

func jsonText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	return string(raw)
}

// CreatePlayer stores a new player.
func (s *Store) CreatePlayer(ctx context.Context, p store.Player) error {
	_, err := s.pool.Exec(ctx,
		`INSERT INTO players (id, name, token_hash, created_at, last_seen) VALUES ($1, $2, $3, $4, $5)`,
		p.ID, p.Name, p.TokenHash, p.CreatedAt, p.LastSeen)
	return mapErr(err, "create player "+p.ID)
}

const playerCols = `id, name, token_hash, created_at, last_seen`

func (s *Store) player(ctx context.Context, what, where string, arg any) (store.Player, error) {
	var p store.Player
	err := s.pool.QueryRow(ctx, `SELECT `+playerCols+` FROM players WHERE `+where+` = $1`, arg).
		Scan(&p.ID, &p.Name, &p.TokenHash, &p.CreatedAt, &p.LastSeen)
	p.CreatedAt, p.LastSeen = p.CreatedAt.UTC(), p.LastSeen.UTC()
	return p, mapErr(err, what)
}

// Player finds a player by id.
func (s *Store) Player(ctx context.Context, id string) (store.Player, error) {
	return s.player(ctx, "player "+id, "id", id)
}

// PlayerByToken finds a player by the hash of their token.
func (s *Store) PlayerByToken(ctx context.Context, tokenHash []byte) (store.Player, error) {
	return s.player(ctx, "player by token", "token_hash", tokenHash)
}

func (s *Store) execOne(ctx context.Context, what, query string, args ...any) error {
	tag, err := s.pool.Exec(ctx, query, args...)
	if err != nil {
		return mapErr(err, what)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("postgres: %s: %w", what, store.ErrNotFound)
	}
	return nil
}

// TouchPlayer records when the player was last seen.
func (s *Store) TouchPlayer(ctx context.Context, id string, at time.Time) error {
	return s.execOne(ctx, "touch player "+id, `UPDATE players SET last_seen = $1 WHERE id = $2`, at, id)
}

// RenamePlayer changes a player's display name.
func (s *Store) RenamePlayer(ctx context.Context, id, name string) error {
	return s.execOne(ctx, "rename player "+id, `UPDATE players SET name = $1 WHERE id = $2`, name, id)
}

const puzzleCols = `id, givens, solution, level, score, techniques, seed, created_at`

func scanPuzzle(row pgx.Row, what string) (store.Puzzle, error) {
	var p store.Puzzle
	var seed int64
	if err := row.Scan(&p.ID, &p.Givens, &p.Solution, &p.Level, &p.Score, &p.Techniques, &seed, &p.CreatedAt); err != nil {
		return store.Puzzle{}, mapErr(err, what)
	}
	p.Seed, p.CreatedAt = uint64(seed), p.CreatedAt.UTC()
	return p, nil
}

// SavePuzzle stores a puzzle unless its givens are stored already.
func (s *Store) SavePuzzle(ctx context.Context, p store.Puzzle) (store.Puzzle, error) {
	tech := p.Techniques
	if tech == nil {
		tech = map[string]int{}
	}
	// The no-op update makes RETURNING yield the stored row on a conflict.
	return scanPuzzle(s.pool.QueryRow(ctx,
		`INSERT INTO puzzles (givens, solution, level, score, techniques, seed, created_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7)
		 ON CONFLICT (givens) DO UPDATE SET givens = EXCLUDED.givens
		 RETURNING `+puzzleCols,
		p.Givens, p.Solution, p.Level, p.Score, tech, int64(p.Seed), p.CreatedAt), "save puzzle")
}

// Puzzle finds a puzzle by id.
func (s *Store) Puzzle(ctx context.Context, id int64) (store.Puzzle, error) {
	return scanPuzzle(s.pool.QueryRow(ctx, `SELECT `+puzzleCols+` FROM puzzles WHERE id = $1`, id), fmt.Sprintf("puzzle %d", id))
}

// AddToPool puts puzzles in the pool of their level, once ever.
func (s *Store) AddToPool(ctx context.Context, puzzleIDs ...int64) error {
	var missing []int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT x FROM unnest($1::bigint[]) AS x WHERE NOT EXISTS (SELECT 1 FROM puzzles WHERE id = x)`, puzzleIDs)
		if err != nil {
			return err
		}
		missing, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil || len(missing) > 0 {
			return err
		}
		_, err = tx.Exec(ctx,
			`INSERT INTO puzzle_pool (puzzle_id, level, added_at)
			 SELECT id, level, now() FROM puzzles WHERE id = ANY($1) ON CONFLICT (puzzle_id) DO NOTHING`, puzzleIDs)
		return err
	})
	if err == nil && len(missing) > 0 {
		return fmt.Errorf("postgres: add to pool: puzzles %v: %w", missing, store.ErrNotFound)
	}
	return mapErr(err, "add to pool")
}

// TakeFromPool hands out the oldest pooled puzzle of the level. SKIP LOCKED
// lets concurrent takers pass each other's rows instead of queueing on them,
// and no row is handed out twice.
func (s *Store) TakeFromPool(ctx context.Context, level string) (store.Puzzle, error) {
	return scanPuzzle(s.pool.QueryRow(ctx,
		`WITH taken AS (
		   UPDATE puzzle_pool SET taken_at = now()
		   WHERE puzzle_id = (SELECT puzzle_id FROM puzzle_pool WHERE level = $1 AND taken_at IS NULL
		                      ORDER BY puzzle_id LIMIT 1 FOR UPDATE SKIP LOCKED)
		   RETURNING puzzle_id)
		 SELECT `+puzzleCols+` FROM puzzles WHERE id = (SELECT puzzle_id FROM taken)`, level), "take "+level+" puzzle from pool")
}

// PoolSize counts the puzzles of the level waiting in the pool.
func (s *Store) PoolSize(ctx context.Context, level string) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM puzzle_pool WHERE level = $1 AND taken_at IS NULL`, level).Scan(&n)
	return n, mapErr(err, "pool size")
}

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

func nullDay(day string) *string {
	if day == "" {
		return nil
	}
	return &day
}

// SaveResults stores one finish in one transaction; results already stored
// for their room and player are skipped.
func (s *Store) SaveResults(ctx context.Context, rs []store.Result) error {
	for _, r := range rs {
		if err := store.ValidDay(r.Day, true); err != nil {
			return fmt.Errorf("postgres: save results: %w", err)
		}
	}
	if len(rs) == 0 {
		return nil
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return mapErr(err, "save results: begin")
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if rs[0].Epoch > 0 {
		if err := fence(ctx, tx, store.RoomOf(rs[0].RoomID), rs[0].Epoch); err != nil {
			return mapErr(err, "save results in room "+rs[0].RoomID)
		}
	}
	for _, r := range rs {
		_, err := tx.Exec(ctx,
			`INSERT INTO results (room_id, player_id, puzzle_id, mode, level, elapsed_ms, mistakes, hints, score, finished_at, day, flagged)
			 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::date, $12)
			 ON CONFLICT (room_id, player_id) DO NOTHING`,
			r.RoomID, r.PlayerID, r.PuzzleID, r.Mode, r.Level, r.Elapsed.Milliseconds(), r.Mistakes, r.Hints, r.Score,
			r.FinishedAt, nullDay(r.Day), r.Flagged)
		if err != nil {
			return mapErr(err, "save result of "+r.PlayerID+" in room "+r.RoomID)
		}
	}
	return mapErr(tx.Commit(ctx), fmt.Sprintf("save %d results: commit", len(rs)))
}

// PlayerHistory is the player's results, newest first.
func (s *Store) PlayerHistory(ctx context.Context, playerID string, limit int) ([]store.Result, error) {
	var lim *int
	if limit > 0 {
		lim = &limit
	}
	rows, err := s.pool.Query(ctx,
		`SELECT id, room_id, player_id, puzzle_id, mode, level, elapsed_ms, mistakes, hints, score, finished_at,
		        coalesce(to_char(day, 'YYYY-MM-DD'), ''), flagged
		 FROM results WHERE player_id = $1 ORDER BY finished_at DESC, id DESC LIMIT $2`, playerID, lim)
	if err != nil {
		return nil, mapErr(err, "history of "+playerID)
	}
	res, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Result, error) {
		var r store.Result
		var ms int64
		err := row.Scan(&r.ID, &r.RoomID, &r.PlayerID, &r.PuzzleID, &r.Mode, &r.Level, &ms, &r.Mistakes, &r.Hints, &r.Score, &r.FinishedAt, &r.Day, &r.Flagged)
		r.Elapsed, r.FinishedAt = time.Duration(ms)*time.Millisecond, r.FinishedAt.UTC()
		return r, err
	})
	return res, mapErr(err, "history of "+playerID)
}

// PlayerBest is the player's fastest finish of each level.
func (s *Store) PlayerBest(ctx context.Context, playerID string) ([]store.Result, error) {
	rows, err := s.pool.Query(ctx,
		`SELECT DISTINCT ON (level) id, room_id, mode, level, elapsed_ms, mistakes, hints, finished_at
		 FROM results WHERE player_id = $1 AND mode <> 'coop' AND NOT flagged
		 ORDER BY level, elapsed_ms, finished_at, id`, playerID)
	if err != nil {
		return nil, mapErr(err, "best of "+playerID)
	}
	res, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Result, error) {
		var r store.Result
		var ms int64
		err := row.Scan(&r.ID, &r.RoomID, &r.Mode, &r.Level, &ms, &r.Mistakes, &r.Hints, &r.FinishedAt)
		r.PlayerID, r.Elapsed, r.FinishedAt = playerID, time.Duration(ms)*time.Millisecond, r.FinishedAt.UTC()
		return r, err
	})
	return res, mapErr(err, "best of "+playerID)
}

// PlayerStreak counts consecutive days with a daily result.
func (s *Store) PlayerStreak(ctx context.Context, playerID, today string) (store.Streak, error) {
	if err := store.ValidDay(today, false); err != nil {
		return store.Streak{}, fmt.Errorf("postgres: streak: %w", err)
	}
	rows, err := s.pool.Query(ctx,
		`SELECT DISTINCT to_char(day, 'YYYY-MM-DD') AS d FROM results
		 WHERE player_id = $1 AND day IS NOT NULL AND day <= $2::date ORDER BY d`, playerID, today)
	if err != nil {
		return store.Streak{}, mapErr(err, "streak of "+playerID)
	}
	days, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return store.Streak{}, mapErr(err, "streak of "+playerID)
	}
	return store.StreakOf(days, today), nil
}

// SetDaily records the puzzle of a day and level unless one is recorded.
func (s *Store) SetDaily(ctx context.Context, d store.Daily) (store.Daily, error) {
	if err := store.ValidDay(d.Day, false); err != nil {
		return store.Daily{}, fmt.Errorf("postgres: set daily: %w", err)
	}
	err := s.pool.QueryRow(ctx,
		`WITH ins AS (
		   INSERT INTO daily_puzzles (day, level, puzzle_id) VALUES ($1::date, $2, $3)
		   ON CONFLICT (day, level) DO NOTHING RETURNING puzzle_id)
		 SELECT puzzle_id FROM ins
		 UNION ALL
		 SELECT puzzle_id FROM daily_puzzles WHERE day = $1::date AND level = $2
		 LIMIT 1`, d.Day, d.Level, d.PuzzleID).Scan(&d.PuzzleID)
	return d, mapErr(err, "set daily "+d.Day)
}

// Daily finds the puzzle of a day and level.
func (s *Store) Daily(ctx context.Context, day, level string) (store.Daily, error) {
	if err := store.ValidDay(day, false); err != nil {
		return store.Daily{}, fmt.Errorf("postgres: daily: %w", err)
	}
	d := store.Daily{Day: day, Level: level}
	err := s.pool.QueryRow(ctx, `SELECT puzzle_id FROM daily_puzzles WHERE day = $1::date AND level = $2`, day, level).Scan(&d.PuzzleID)
	return d, mapErr(err, "daily "+day+" "+level)
}

const entryCols = `r.player_id, p.name, r.score, r.elapsed_ms, r.mistakes, r.hints, r.finished_at`

func collectEntries(rows pgx.Rows, err error, firstRank int, what string) ([]store.Entry, error) {
	if err != nil {
		return nil, mapErr(err, what)
	}
	i := 0
	es, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Entry, error) {
		var e store.Entry
		var ms int64
		err := row.Scan(&e.PlayerID, &e.Name, &e.Score, &ms, &e.Mistakes, &e.Hints, &e.FinishedAt)
		e.Elapsed, e.FinishedAt, e.Rank = time.Duration(ms)*time.Millisecond, e.FinishedAt.UTC(), firstRank+i
		i++
		return e, err
	})
	return es, mapErr(err, what)
}

// DailyTop is the head of a day's leaderboard.
func (s *Store) DailyTop(ctx context.Context, day, level string, limit int) ([]store.Entry, error) {
	if err := store.ValidDay(day, false); err != nil {
		return nil, fmt.Errorf("postgres: daily top: %w", err)
	}
	rows, err := s.pool.Query(ctx,
		`SELECT `+entryCols+` FROM results r JOIN players p ON p.id = r.player_id
		 WHERE r.day = $1::date AND r.level = $2 ORDER BY r.score DESC, r.finished_at, r.player_id LIMIT $3`, day, level, limit)
	return collectEntries(rows, err, 1, "daily top "+day)
}

// DailyCount is how many results a day's leaderboard holds: one row of
// the totals the count trigger keeps (migration 000006), not a count.
func (s *Store) DailyCount(ctx context.Context, day, level string) (int, error) {
	if err := store.ValidDay(day, false); err != nil {
		return 0, fmt.Errorf("postgres: daily count: %w", err)
	}
	var n int64
	err := s.pool.QueryRow(ctx,
		`SELECT coalesce(sum(n), 0)::bigint FROM leaderboard_totals WHERE day = $1::date AND level = $2`, day, level).Scan(&n)
	return int(n), mapErr(err, "daily count "+day)
}

// dailyAroundSQL is DailyAround in one round trip, through the function of
// migration 000003 (see there why a function).
const dailyAroundSQL = `SELECT side, ahead, player_id, name, score, elapsed_ms, mistakes, hints, finished_at
  FROM daily_around($1::date, $2, $3, $4)`

// DailyAround is the player's row with n rows on either side.
func (s *Store) DailyAround(ctx context.Context, day, level, playerID string, n int) ([]store.Entry, error) {
	if err := store.ValidDay(day, false); err != nil {
		return nil, fmt.Errorf("postgres: daily around: %w", err)
	}
	what := "daily around " + playerID
	rows, err := s.pool.Query(ctx, dailyAroundSQL, day, level, playerID, n)
	if err != nil {
		return nil, mapErr(err, what)
	}
	var before, after []store.Entry
	var ahead int
	for rows.Next() {
		var e store.Entry
		var side int
		var ms int64
		if err := rows.Scan(&side, &ahead, &e.PlayerID, &e.Name, &e.Score, &ms, &e.Mistakes, &e.Hints, &e.FinishedAt); err != nil {
			rows.Close()
			return nil, mapErr(err, what)
		}
		e.Elapsed, e.FinishedAt = time.Duration(ms)*time.Millisecond, e.FinishedAt.UTC()
		if side < 0 {
			before = append(before, e)
		} else {
			after = append(after, e)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr(err, what)
	}
	if len(after) == 0 || after[0].PlayerID != playerID {
		return nil, fmt.Errorf("postgres: %s: %w", what, store.ErrNotFound)
	}
	slices.Reverse(before)
	out := append(before, after...)
	for i := range out {
		out[i].Rank = ahead - len(before) + 1 + i
	}
	return out, nil
}

// BestTimes is each player's fastest finish of a level, fastest first.
func (s *Store) BestTimes(ctx context.Context, level string, limit int) ([]store.Entry, error) {
	rows, err := s.pool.Query(ctx,
		`SELECT `+entryCols+` FROM (
		   SELECT DISTINCT ON (player_id) * FROM results
		   WHERE level = $1 AND mode <> 'coop' AND NOT flagged
		   ORDER BY player_id, elapsed_ms, finished_at, id
		 ) r JOIN players p ON p.id = r.player_id
		 ORDER BY r.elapsed_ms, r.finished_at, r.player_id LIMIT $2`, level, limit)
	return collectEntries(rows, err, 1, "best times "+level)
}
