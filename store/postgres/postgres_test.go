package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"testing"

	"github.com/golang-migrate/migrate/v4"
	pgxmigrate "github.com/golang-migrate/migrate/v4/database/pgx/v5"
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
	assert.Equal(t, migrations.Latest(migrations.Postgres()), v)
	assert.False(t, dirty)
	v, _, err = Migrate(ctx, url, store.MigrateDown)
	require.NoError(t, err)
	assert.Equal(t, uint(0), v)
	s, err := Open(ctx, url) // up again
	require.NoError(t, err)
	defer s.Close()
	v, _, err = Migrate(ctx, url, store.MigrateVersion)
	require.NoError(t, err)
	assert.Equal(t, migrations.Latest(migrations.Postgres()), v)
	n, err := s.PoolSize(ctx, "easy")
	require.NoError(t, err)
	assert.Zero(t, n)
}

// migrateTo migrates the database at url, up or down, to the version
// given, and returns it and the migration, for a test to look at the
// rows as that version has them.
func migrateTo(t *testing.T, url string, version uint) (*sql.DB, *migrate.Migrate) {
	t.Helper()
	cfg, err := pgx.ParseConfig(url)
	require.NoError(t, err)
	db := stdlib.OpenDB(*cfg)
	drv, err := pgxmigrate.WithInstance(db, &pgxmigrate.Config{})
	require.NoError(t, err)
	return db, storetest.MigrateTo(t, migrations.Postgres(), "postgres", drv, version)
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
	db, m := migrateTo(t, url, 8)
	_, err := db.ExecContext(ctx, `
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
	storetest.CloseMigrate(t, m)

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
	db, m := migrateTo(t, url, 9)
	_, err := db.ExecContext(ctx, `
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
	storetest.CloseMigrate(t, m)

	s, err := Open(ctx, url)
	require.NoError(t, err)
	defer s.Close()
	storetest.CheckRoomRankBackfill(t, s)
}

// TestPackedEventsComeApartOnTheWayDown: a flush's events are one row of
// room_events (schema 12); the migration down gives each event its own
// row again, and the way up reads them all back.
func TestPackedEventsComeApartOnTheWayDown(t *testing.T) {
	ctx := context.Background()
	url := server.NewDatabase(t)
	s, err := Open(ctx, url)
	require.NoError(t, err)
	want := storetest.PackedEvents(t, s)
	var rows, packed int
	require.NoError(t, s.pool.QueryRow(ctx,
		`SELECT count(*), count(last_seq) FROM room_events WHERE room_id = 'packed'`).Scan(&rows, &packed))
	assert.Equal(t, 4, rows, "a row a flush")
	assert.Equal(t, 3, packed)
	s.Close()

	db, m := migrateTo(t, url, 11)
	got, err := db.QueryContext(ctx, `SELECT seq, type, player_id, data::text, (extract(epoch FROM at) * 1000000)::bigint
		FROM room_events WHERE room_id = 'packed' ORDER BY seq`)
	require.NoError(t, err)
	storetest.CheckUnpacked(t, got, want)
	storetest.CloseMigrate(t, m)

	s, err = Open(ctx, url)
	require.NoError(t, err)
	defer s.Close()
	storetest.CheckPackedEvents(t, s, want)
}
