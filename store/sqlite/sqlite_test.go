package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-migrate/migrate/v4"
	sqlitemigrate "github.com/golang-migrate/migrate/v4/database/sqlite"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/migrations"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/storetest"
)

func open(t *testing.T) store.Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "arena.db"))
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

func TestContract(t *testing.T) {
	t.Parallel()
	storetest.Run(t, open)
}

func TestMigrationsUpDownUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sub", "dir", "arena.db")
	s, err := Open(ctx, path)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	v, dirty, err := Migrate(ctx, path, store.MigrateVersion)
	require.NoError(t, err)
	assert.Equal(t, migrations.Latest(migrations.SQLite()), v)
	assert.False(t, dirty)
	v, _, err = Migrate(ctx, path, store.MigrateDown)
	require.NoError(t, err)
	assert.Equal(t, uint(0), v)
	v, _, err = Migrate(ctx, path, store.MigrateUp)
	require.NoError(t, err)
	assert.Equal(t, migrations.Latest(migrations.SQLite()), v)
	s, err = Open(ctx, path)
	require.NoError(t, err)
	defer s.Close()
	_, err = s.PoolSize(ctx, "easy")
	require.NoError(t, err)
}

// migrateTo migrates the store at path, up or down, to the version
// given, and returns its database and the migration, for a test to look
// at the rows as that version has them.
func migrateTo(t *testing.T, path string, version uint) (*sql.DB, *migrate.Migrate) {
	t.Helper()
	db, err := sql.Open("sqlite", dsn(path, writer))
	require.NoError(t, err)
	drv, err := sqlitemigrate.WithInstance(db, &sqlitemigrate.Config{})
	require.NoError(t, err)
	return db, storetest.MigrateTo(t, migrations.SQLite(), "sqlite", drv, version)
}

// TestWALStartsOver: under a steady stream of event batches, with the
// checkpointer copying beside the writer, the WAL still starts over from
// its beginning now and then, so its file stays near walRestartPages
// instead of growing with everything ever written.
func TestWALStartsOver(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("writes 30,000 events")
	}
	g := newLogRig(t, 250)
	g.appendMoves(t, 15_000, 250)
	fi, err := os.Stat(g.s.path + "-wal")
	require.NoError(t, err)
	// A batch's moves are in as many rooms, so each move dirties a page:
	// 15,000 pages went through the WAL, near twice what it may hold
	// before it starts over.
	assert.LessOrEqual(t, fi.Size(), int64(walRestartPages+1000)*(4096+24), "the WAL started over")
	n, err := g.s.Events(context.Background(), g.rooms[7], 0, 0)
	require.NoError(t, err)
	assert.Len(t, n, 120, "every event of a room is kept: 60 moves of two events")
}

// TestPoolPragmas: each pool's connections have the settings their work
// needs: the writer a page cache for every live room's index page and its
// statement journals in memory, the readers no way to write.
func TestPoolPragmas(t *testing.T) {
	t.Parallel()
	s := open(t).(*Store)
	ctx := context.Background()
	pragma := func(db *sql.DB, name string) int64 {
		var v int64
		require.NoError(t, db.QueryRowContext(ctx, "PRAGMA "+name).Scan(&v), name)
		return v
	}
	assert.Equal(t, int64(2), pragma(s.w, "temp_store"), "writer: temporary files in memory")
	assert.Equal(t, int64(-writerCacheKiB), pragma(s.w, "cache_size"), "writer: page cache in KiB")
	assert.Equal(t, int64(walRestartPages), pragma(s.w, "wal_autocheckpoint"), "writer: checkpoint at")
	assert.Equal(t, int64(0), pragma(s.r, "temp_store"), "reader: the default")
	assert.Equal(t, int64(1), pragma(s.r, "query_only"), "reader: no writes")
}

// TestEventsSurviveTheMoveToARowidTable: events stored while room_events
// was a WITHOUT ROWID table (schema 4) read back the same after the
// migration that makes it a rowid table, and appending one of them again
// still stores nothing.
func TestEventsSurviveTheMoveToARowidTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "arena.db")
	db, m := migrateTo(t, path, 4)
	_, err := db.ExecContext(ctx, `INSERT INTO puzzles (id, givens, solution, level, score, seed, created_at)
		VALUES (1, ?, ?, 'easy', 1, 1, 0)`, "1"+strings.Repeat(".", 80), strings.Repeat("1", 81))
	require.NoError(t, err)
	var want []store.Event
	for _, r := range []string{"a", "b"} {
		_, err = db.ExecContext(ctx, `INSERT INTO rooms (id, mode, puzzle_id, host_id, state, created_at) VALUES (?, 'coop', 1, 'h', 'running', 0)`, r)
		require.NoError(t, err)
	}
	for i := range 40 {
		r := []string{"a", "b"}[i%2]
		e := store.Event{RoomID: r, Seq: int64(i/2 + 1), Type: "move", PlayerID: "p",
			Data: json.RawMessage(fmt.Sprintf(`{"type":"move","seq":%d,"cell":%d}`, i/2+1, i)), At: time.UnixMicro(int64(1000 + i))}
		_, err = db.ExecContext(ctx, `INSERT INTO room_events (room_id, seq, type, player_id, data, at) VALUES (?, ?, ?, ?, ?, ?)`,
			e.RoomID, e.Seq, e.Type, e.PlayerID, string(e.Data), e.At.UnixMicro())
		require.NoError(t, err)
		if r == "a" {
			want = append(want, e)
		}
	}
	storetest.CloseMigrate(t, m)

	s, err := Open(ctx, path) // migrates to the rowid table
	require.NoError(t, err)
	defer s.Close()
	var withoutRowid int
	require.NoError(t, s.r.QueryRowContext(ctx,
		`SELECT count(*) FROM sqlite_schema WHERE name = 'room_events' AND sql LIKE '%WITHOUT ROWID%'`).Scan(&withoutRowid))
	assert.Zero(t, withoutRowid, "room_events is a rowid table now")
	got, err := s.Events(ctx, "a", 0, 0)
	require.NoError(t, err)
	require.Len(t, got, len(want))
	for i := range want {
		assert.Equal(t, want[i].Seq, got[i].Seq)
		assert.JSONEq(t, string(want[i].Data), string(got[i].Data))
		assert.True(t, want[i].At.Equal(got[i].At), "at of seq %d", want[i].Seq)
	}
	again := want[3]
	again.Data = json.RawMessage(`{"type":"move","seq":4,"cell":999}`)
	require.NoError(t, s.AppendEvents(ctx, []store.Event{again}))
	got, err = s.Events(ctx, "a", 3, 1)
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.JSONEq(t, string(want[3].Data), string(got[0].Data), "the event stored first stays")
}

// TestAccountsBackfill: the rows stored before the accounts migration
// (schema 5) come out of it as storetest.CheckAccountsBackfill expects.
func TestAccountsBackfill(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "arena.db")
	db, m := migrateTo(t, path, 5)
	_, err := db.ExecContext(ctx, `
		INSERT INTO players (id, name, token_hash, created_at, last_seen) VALUES ('old1', 'Old 1', x'01', 0, 0), ('old2', 'Old 2', x'02', 0, 0);
		INSERT INTO puzzles (id, givens, solution, level, score, seed, created_at) VALUES (1, '1'||substr(printf('%081d', 0), 2), printf('%081d', 1), 'easy', 1, 1, 0);
		INSERT INTO rooms (id, mode, puzzle_id, host_id, state, created_at) VALUES
			('daily', 'daily', 1, 'old1', 'finished', 0), ('coop', 'coop', 1, 'old1', 'finished', 0),
			('flagged', 'daily', 1, 'old1', 'finished', 0), ('race', 'race', 1, 'old1', 'finished', 0);
		INSERT INTO results (room_id, player_id, puzzle_id, mode, level, elapsed_ms, mistakes, hints, score, finished_at, day, flagged) VALUES
			('daily', 'old1', 1, 'daily', 'easy', 60000, 0, 0, 900, 1, '`+storetest.BackfillDay+`', 0),
			('coop', 'old1', 1, 'coop', 'easy', 10000, 0, 0, 900, 2, NULL, 0),
			('flagged', 'old1', 1, 'daily', 'easy', 1000, 0, 0, 900, 3, NULL, 1),
			('race', 'old1', 1, 'race', 'easy', 50000, 0, 0, 900, 4, NULL, 0);`)
	require.NoError(t, err)
	storetest.CloseMigrate(t, m)

	s, err := Open(ctx, path)
	require.NoError(t, err)
	defer s.Close()
	storetest.CheckAccountsBackfill(t, s)
}

// TestRoomRankBackfill: the results stored before the room rank migration
// (schema 6) come out of it as storetest.CheckRoomRankBackfill expects.
func TestRoomRankBackfill(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "arena.db")
	db, m := migrateTo(t, path, 6)
	_, err := db.ExecContext(ctx, `
		INSERT INTO players (id, name, token_hash, created_at, last_seen) VALUES ('old1', 'Old 1', x'01', 0, 0), ('old2', 'Old 2', x'02', 0, 0);
		INSERT INTO puzzles (id, givens, solution, level, score, seed, created_at) VALUES (1, '1'||substr(printf('%081d', 0), 2), printf('%081d', 1), 'easy', 1, 1, 0);
		INSERT INTO rooms (id, mode, puzzle_id, host_id, state, created_at) VALUES
			('race2', 'race', 1, 'old1', 'finished', 0), ('coop2', 'coop', 1, 'old1', 'finished', 0);
		INSERT INTO results (room_id, player_id, puzzle_id, mode, level, elapsed_ms, mistakes, hints, score, finished_at) VALUES
			('race2', 'old1', 1, 'race', 'easy', 70000, 0, 0, 900, 20),
			('race2', 'old2', 1, 'race', 'easy', 60000, 0, 0, 900, 10),
			('coop2', 'old1', 1, 'coop', 'easy', 50000, 0, 0, 900, 30),
			('coop2', 'old2', 1, 'coop', 'easy', 50000, 0, 0, 900, 30);`)
	require.NoError(t, err)
	storetest.CloseMigrate(t, m)

	s, err := Open(ctx, path)
	require.NoError(t, err)
	defer s.Close()
	storetest.CheckRoomRankBackfill(t, s)
}

// TestPackedEventsComeApartOnTheWayDown: a flush's events are one row of
// room_events (schema 8); the migration down gives each event its own
// row again, and the way up reads them all back.
func TestPackedEventsComeApartOnTheWayDown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "arena.db")
	s, err := Open(ctx, path)
	require.NoError(t, err)
	want := storetest.PackedEvents(t, s)
	var rows, packed int
	require.NoError(t, s.r.QueryRowContext(ctx,
		`SELECT count(*), count(last_seq) FROM room_events WHERE room_id = 'packed'`).Scan(&rows, &packed))
	assert.Equal(t, 4, rows, "a row a flush")
	assert.Equal(t, 3, packed)
	require.NoError(t, s.Close())

	db, m := migrateTo(t, path, 7)
	got, err := db.QueryContext(ctx, `SELECT seq, type, player_id, data, at FROM room_events WHERE room_id = 'packed' ORDER BY seq`)
	require.NoError(t, err)
	storetest.CheckUnpacked(t, got, want)
	storetest.CloseMigrate(t, m)

	s, err = Open(ctx, path)
	require.NoError(t, err)
	defer s.Close()
	storetest.CheckPackedEvents(t, s, want)
}

// TestEventInsertsKeepNothingOfABatch: once a batch is written, the
// inserts kept for the next one hold none of its strings or data (every
// chunk's arguments cleared, not only the last, shorter one's), which
// would keep the batch's packed rows from the collector.
func TestEventInsertsKeepNothingOfABatch(t *testing.T) {
	t.Parallel()
	g := newLogRig(t, 100)
	g.appendMoves(t, 101, 101) // 101 rows: chunks of 64, 16, 16, 4 and 1
	ins := &g.s.inserts
	ins.mu.Lock()
	defer ins.mu.Unlock()
	require.NotZero(t, cap(ins.args))
	for i, a := range ins.args[:cap(ins.args)] {
		assert.Nil(t, a.Value, "argument %d", i)
	}
	for i, r := range ins.rows[:cap(ins.rows)] {
		assert.Zero(t, r, "row %d", i)
	}
	assert.Zero(t, len(ins.packs))
}
