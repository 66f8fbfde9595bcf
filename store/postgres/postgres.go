// Package postgres is the PostgreSQL store, through pgx and its connection
// pool: where a real deployment keeps its data. It passes the same contract
// suite as the embedded SQLite store.
//
// One file per entity: players.go, puzzles.go (the pool and the daily
// puzzles), rooms.go, events.go, results.go, leaderboards.go, accounts.go
// (with passkeys), sessions.go (with sign-in and recovery codes and
// ceremonies), attempts.go, review.go, and cluster.go (nodes, room owners
// and the fenced writes); this file opens, migrates and closes the store
// and maps its errors.
package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	pgxmigrate "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/sudoku-arena/arena/migrations"
	"github.com/sudoku-arena/arena/store"
)

// idleInTx is how long a session of the store may sit idle inside a
// transaction before the server ends it (idle_in_transaction_session_timeout,
// unless DATABASE_URL sets it).
const idleInTx = 5 * time.Second

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
	// A transaction of the store's never waits on its process between
	// statements; one whose process stopped (SIGSTOP, a frozen VM) while it
	// held rows would hold them until the process went on, and a room
	// row a paused node holds FOR SHARE is one no other node can claim.
	// The server ends such a session, and its locks, after idleInTx.
	const idleParam = "idle_in_transaction_session_timeout"
	if _, ok := cfg.ConnConfig.RuntimeParams[idleParam]; !ok && !strings.Contains(cfg.ConnConfig.RuntimeParams["options"], idleParam) {
		cfg.ConnConfig.RuntimeParams[idleParam] = strconv.Itoa(int(idleInTx.Milliseconds()))
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
