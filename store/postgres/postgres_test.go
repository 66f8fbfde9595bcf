package postgres

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/golang-migrate/migrate/v4"
	pgxmigrate "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/migrations"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/pgtest"
	"github.com/sudoku-arena/arena/store/storetest"
)

var server *pgtest.Server

func TestMain(m *testing.M) {
	srv, err := pgtest.Start(context.Background(), pgtest.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	server = srv
	code := m.Run()
	srv.Stop()
	os.Exit(code)
}

func open(t *testing.T) store.Store {
	t.Helper()
	s, err := Open(context.Background(), server.NewDatabase(t))
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

func TestContract(t *testing.T) {
	storetest.Run(t, open)
}

func TestMigrationsUpDownUp(t *testing.T) {
	ctx := context.Background()
	url := server.NewDatabase(t)
	v, _, err := Migrate(ctx, url, store.MigrateVersion)
	require.NoError(t, err)
	assert.Equal(t, uint(0), v)
	v, dirty, err := Migrate(ctx, url, store.MigrateUp)
	require.NoError(t, err)
	assert.Equal(t, uint(11), v)
	assert.False(t, dirty)
	v, _, err = Migrate(ctx, url, store.MigrateDown)
	require.NoError(t, err)
	assert.Equal(t, uint(0), v)
	s, err := Open(ctx, url) // up again
	require.NoError(t, err)
	defer s.Close()
	v, _, err = Migrate(ctx, url, store.MigrateVersion)
	require.NoError(t, err)
	assert.Equal(t, uint(11), v)
	n, err := s.PoolSize(ctx, "easy")
	require.NoError(t, err)
	assert.Zero(t, n)
}

func TestBadURL(t *testing.T) {
	_, err := Open(context.Background(), "postgres://[::1")
	assert.ErrorIs(t, err, store.ErrInvalid)
}

// TestAccountsBackfill: the rows stored before the accounts migration
// (schema 8) come out of it as storetest.CheckAccountsBackfill expects.
func TestAccountsBackfill(t *testing.T) {
	ctx := context.Background()
	url := server.NewDatabase(t)
	cfg, err := pgx.ParseConfig(url)
	require.NoError(t, err)
	db := stdlib.OpenDB(*cfg)
	src, err := iofs.New(migrations.Postgres(), ".")
	require.NoError(t, err)
	drv, err := pgxmigrate.WithInstance(db, &pgxmigrate.Config{})
	require.NoError(t, err)
	m, err := migrate.NewWithInstance("iofs", src, "postgres", drv)
	require.NoError(t, err)
	require.NoError(t, m.Migrate(8))
	_, err = db.ExecContext(ctx, `
		INSERT INTO players (id, name, token_hash, created_at, last_seen) VALUES
			('old1', 'Old 1', '\x01', now(), now()), ('old2', 'Old 2', '\x02', now(), now());
		INSERT INTO puzzles (id, givens, solution, level, score, seed, created_at) OVERRIDING SYSTEM VALUE
			VALUES (1, '1' || repeat('0', 80), repeat('1', 81), 'easy', 1, 1, now());
		INSERT INTO rooms (id, mode, puzzle_id, host_id, state, created_at) VALUES
			('daily', 'daily', 1, 'old1', 'finished', now()), ('coop', 'coop', 1, 'old1', 'finished', now()),
			('flagged', 'daily', 1, 'old1', 'finished', now()), ('race', 'race', 1, 'old1', 'finished', now());
		INSERT INTO results (room_id, player_id, puzzle_id, mode, level, elapsed_ms, mistakes, hints, score, finished_at, day, flagged) VALUES
			('daily', 'old1', 1, 'daily', 'easy', 60000, 0, 0, 900, now(), '`+storetest.BackfillDay+`', false),
			('coop', 'old1', 1, 'coop', 'easy', 10000, 0, 0, 900, now(), NULL, false),
			('flagged', 'old1', 1, 'daily', 'easy', 1000, 0, 0, 900, now(), NULL, true),
			('race', 'old1', 1, 'race', 'easy', 50000, 0, 0, 900, now(), NULL, false);`)
	require.NoError(t, err)
	srcErr, dbErr := m.Close()
	require.NoError(t, srcErr)
	require.NoError(t, dbErr)

	s, err := Open(ctx, url)
	require.NoError(t, err)
	defer s.Close()
	storetest.CheckAccountsBackfill(t, s)
}

// TestRoomRankBackfill: the results stored before the room rank migration
// (schema 9) come out of it as storetest.CheckRoomRankBackfill expects.
func TestRoomRankBackfill(t *testing.T) {
	ctx := context.Background()
	url := server.NewDatabase(t)
	cfg, err := pgx.ParseConfig(url)
	require.NoError(t, err)
	db := stdlib.OpenDB(*cfg)
	src, err := iofs.New(migrations.Postgres(), ".")
	require.NoError(t, err)
	drv, err := pgxmigrate.WithInstance(db, &pgxmigrate.Config{})
	require.NoError(t, err)
	m, err := migrate.NewWithInstance("iofs", src, "postgres", drv)
	require.NoError(t, err)
	require.NoError(t, m.Migrate(9))
	_, err = db.ExecContext(ctx, `
		INSERT INTO players (id, name, token_hash, created_at, last_seen) VALUES
			('old1', 'Old 1', '\x01', now(), now()), ('old2', 'Old 2', '\x02', now(), now());
		INSERT INTO puzzles (id, givens, solution, level, score, seed, created_at) OVERRIDING SYSTEM VALUE
			VALUES (1, '1' || repeat('0', 80), repeat('1', 81), 'easy', 1, 1, now());
		INSERT INTO rooms (id, mode, puzzle_id, host_id, state, created_at) VALUES
			('race2', 'race', 1, 'old1', 'finished', now()), ('coop2', 'coop', 1, 'old1', 'finished', now());
		INSERT INTO results (room_id, player_id, puzzle_id, mode, level, elapsed_ms, mistakes, hints, score, finished_at) VALUES
			('race2', 'old1', 1, 'race', 'easy', 70000, 0, 0, 900, now()),
			('race2', 'old2', 1, 'race', 'easy', 60000, 0, 0, 900, now() - interval '10 seconds'),
			('coop2', 'old1', 1, 'coop', 'easy', 50000, 0, 0, 900, now()),
			('coop2', 'old2', 1, 'coop', 'easy', 50000, 0, 0, 900, now());`)
	require.NoError(t, err)
	srcErr, dbErr := m.Close()
	require.NoError(t, srcErr)
	require.NoError(t, dbErr)

	s, err := Open(ctx, url)
	require.NoError(t, err)
	defer s.Close()
	storetest.CheckRoomRankBackfill(t, s)
}
