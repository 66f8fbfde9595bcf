// Package backend picks the store a database URL names: PostgreSQL for
// postgres://… URLs, the embedded SQLite store for sqlite:PATH or no URL at
// all. It is the one place that knows both drivers, and so the one that
// tells a database that cannot be reached (ErrConnect) from one that failed
// after, and waits for one that is not up yet (Wait). It does not read the
// environment: internal/config reads DATABASE_URL and parses it here, once,
// at start.
package backend

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/postgres"
	"github.com/sudoku-arena/arena/store/sqlite"
)

// DefaultSQLitePath is where the embedded store keeps its data when no URL
// is given.
const DefaultSQLitePath = "./data/arena.db"

// Kind is which store a URL selects, and where it points.
type Kind struct {
	Driver string // "postgres" or "sqlite"
	Target string // the PostgreSQL URL, or the SQLite file path
}

// Default is the store used when no URL is given: the embedded SQLite
// store at DefaultSQLitePath.
func Default() Kind { return Kind{Driver: "sqlite", Target: DefaultSQLitePath} }

// URL is the URL that selects k, as Parse reads it.
func (k Kind) URL() string {
	if k.Driver == "sqlite" {
		return "sqlite:" + k.Target
	}
	return k.Target
}

// Parse reads a database URL; empty selects Default. Its errors wrap
// store.ErrInvalid and say what is wanted; the caller names the setting.
func Parse(rawURL string) (Kind, error) {
	u := strings.TrimSpace(rawURL)
	switch {
	case u == "":
		return Default(), nil
	case strings.HasPrefix(u, "postgres://"), strings.HasPrefix(u, "postgresql://"):
		// Read as the driver will, without connecting: a URL it cannot
		// read is a bad setting before anything is opened. The driver's
		// message leaves the password out.
		if _, err := pgconn.ParseConfig(u); err != nil {
			return Kind{}, fmt.Errorf("%w: want postgres://user:password@host:port/database: %v", store.ErrInvalid, err)
		}
		return Kind{Driver: "postgres", Target: u}, nil
	case strings.HasPrefix(u, "sqlite://"):
		return sqliteKind(strings.TrimPrefix(u, "sqlite://"))
	case strings.HasPrefix(u, "sqlite:"):
		return sqliteKind(strings.TrimPrefix(u, "sqlite:"))
	}
	return Kind{}, fmt.Errorf("%w: want postgres://user:password@host:port/database, sqlite:PATH, or nothing for %s",
		store.ErrInvalid, DefaultSQLitePath)
}

func sqliteKind(path string) (Kind, error) {
	if path == "" || strings.ContainsAny(path, "?#") {
		return Kind{}, fmt.Errorf("%w: sqlite: wants a file path, as in sqlite:%s", store.ErrInvalid, DefaultSQLitePath)
	}
	return Kind{Driver: "sqlite", Target: path}, nil
}

// Open opens the store k names and applies its pending migrations: the one
// call a server needs at start, which migrates once.
func Open(ctx context.Context, k Kind) (store.Store, error) {
	var (
		s   store.Store
		err error
	)
	switch k.Driver {
	case "postgres":
		s, err = postgres.Open(ctx, k.Target)
	case "sqlite":
		s, err = sqlite.Open(ctx, k.Target)
	default:
		return nil, fmt.Errorf("store: %w: unknown driver %q", store.ErrInvalid, k.Driver)
	}
	if err != nil {
		return nil, fmt.Errorf("open store: %w", markConnect(err))
	}
	return s, nil
}

// Migrate runs a migration action (store.MigrateUp, MigrateDown,
// MigrateVersion) on the database k names, without opening the store: what
// `arena migrate` does.
func Migrate(ctx context.Context, k Kind, action string) (version uint, dirty bool, err error) {
	switch k.Driver {
	case "postgres":
		version, dirty, err = postgres.Migrate(ctx, k.Target, action)
		return version, dirty, markConnect(err)
	case "sqlite":
		return sqlite.Migrate(ctx, k.Target, action)
	}
	return 0, false, fmt.Errorf("store: %w: unknown driver %q", store.ErrInvalid, k.Driver)
}
