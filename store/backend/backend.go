// Package backend picks the store a DATABASE_URL names: PostgreSQL for
// postgres://… URLs, the embedded SQLite store for sqlite:PATH or no URL at
// all. It is the one place that knows both drivers.
package backend

import (
	"context"
	"fmt"
	"strings"

	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/postgres"
	"github.com/sudoku-arena/arena/store/sqlite"
)

// EnvDatabaseURL is the variable that selects the store.
const EnvDatabaseURL = "DATABASE_URL"

// DefaultSQLitePath is where the embedded store keeps its data when
// DATABASE_URL is unset.
const DefaultSQLitePath = "./data/arena.db"

// Kind is which store a URL selects, and where it points.
type Kind struct {
	Driver string // "postgres" or "sqlite"
	Target string // the PostgreSQL URL, or the SQLite file path
}

// Parse reads a DATABASE_URL value. Errors name the variable.
func Parse(rawURL string) (Kind, error) {
	u := strings.TrimSpace(rawURL)
	switch {
	case u == "":
		return Kind{Driver: "sqlite", Target: DefaultSQLitePath}, nil
	case strings.HasPrefix(u, "postgres://"), strings.HasPrefix(u, "postgresql://"):
		return Kind{Driver: "postgres", Target: u}, nil
	case strings.HasPrefix(u, "sqlite://"):
		return sqliteKind(strings.TrimPrefix(u, "sqlite://"), rawURL)
	case strings.HasPrefix(u, "sqlite:"):
		return sqliteKind(strings.TrimPrefix(u, "sqlite:"), rawURL)
	}
	return Kind{}, fmt.Errorf("%s=%q: %w: want postgres://user:password@host:port/database, sqlite:PATH, or nothing for %s",
		EnvDatabaseURL, rawURL, store.ErrInvalid, DefaultSQLitePath)
}

func sqliteKind(path, raw string) (Kind, error) {
	if path == "" || strings.ContainsAny(path, "?#") {
		return Kind{}, fmt.Errorf("%s=%q: %w: sqlite: wants a file path, as in sqlite:./data/arena.db", EnvDatabaseURL, raw, store.ErrInvalid)
	}
	return Kind{Driver: "sqlite", Target: path}, nil
}

// Open opens (and migrates) the store DATABASE_URL names.
func Open(ctx context.Context, rawURL string) (store.Store, Kind, error) {
	k, err := Parse(rawURL)
	if err != nil {
		return nil, k, err
	}
	var s store.Store
	switch k.Driver {
	case "postgres":
		s, err = postgres.Open(ctx, k.Target)
	default:
		s, err = sqlite.Open(ctx, k.Target)
	}
	if err != nil {
		return nil, k, fmt.Errorf("%s: open %s store: %w", EnvDatabaseURL, k.Driver, err)
	}
	return s, k, nil
}

// Migrate runs a migration action (store.MigrateUp, MigrateDown,
// MigrateVersion) on the database DATABASE_URL names.
func Migrate(ctx context.Context, rawURL, action string) (version uint, dirty bool, err error) {
	k, err := Parse(rawURL)
	if err != nil {
		return 0, false, err
	}
	if k.Driver == "postgres" {
		return postgres.Migrate(ctx, k.Target, action)
	}
	return sqlite.Migrate(ctx, k.Target, action)
}
