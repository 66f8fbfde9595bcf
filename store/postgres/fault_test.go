package postgres

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
)

// TestEventLogSurvivesKilledBackend kills the server process that is in the
// middle of inserting a batch (pg_terminate_backend) and shows the event log
// retries the batch: every event lands, none twice.
func TestEventLogSurvivesKilledBackend(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	url := server.NewDatabase(t)
	s, err := Open(ctx, url)
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.CreatePlayer(ctx, store.Player{ID: "a", Name: "A", TokenHash: []byte("a"), CreatedAt: time.Now(), LastSeen: time.Now()}))
	pz, err := s.SavePuzzle(ctx, store.Puzzle{Givens: "1" + strings.Repeat(".", 80), Solution: strings.Repeat("1", 81), Level: "easy", CreatedAt: time.Now()})
	require.NoError(t, err)
	require.NoError(t, s.CreateRoom(ctx, store.Room{ID: "r", Mode: room.ModeRace, PuzzleID: pz.ID, HostID: "a", State: store.StateRunning, CreatedAt: time.Now()}))

	// Make the batch holding seq 300 slow, so that it can be caught in the
	// act: the row holding it (the events go in rows of a run each).
	admin, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer admin.Close(ctx)
	_, err = admin.Exec(ctx, `
		CREATE FUNCTION slow_event() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN IF NEW.seq <= 300 AND coalesce(NEW.last_seq, NEW.seq) >= 300 THEN PERFORM pg_sleep(0.5); END IF; RETURN NEW; END $$;
		CREATE TRIGGER slow_event BEFORE INSERT ON room_events FOR EACH ROW EXECUTE FUNCTION slow_event();`)
	require.NoError(t, err)

	l := store.NewEventLog(s, store.EventLogOptions{Interval: 5 * time.Millisecond, MaxBatch: 100, RetryMin: 5 * time.Millisecond})
	const n = 1000
	for i := 1; i <= n; i++ {
		l.Append(store.Event{RoomID: "r", Seq: int64(i), Type: "move", PlayerID: "a", At: time.Now()})
	}

	// Wait for the slow batch to be running, then kill its backend.
	var killed bool
	deadline := time.Now().Add(20 * time.Second)
	for !killed && time.Now().Before(deadline) {
		err := admin.QueryRow(ctx, `
			SELECT coalesce(bool_or(pg_terminate_backend(pid)), false) FROM pg_stat_activity
			WHERE datname = current_database() AND pid <> pg_backend_pid()
			  AND state = 'active' AND (query LIKE 'INSERT INTO room_events%' OR query ILIKE 'copy "room_events"%')`).Scan(&killed)
		require.NoError(t, err)
		if !killed {
			time.Sleep(2 * time.Millisecond)
		}
	}
	require.True(t, killed, "caught a batch insert in the act")

	require.NoError(t, l.Close(ctx))
	assert.GreaterOrEqual(t, l.Stats().Retries, int64(1), "the killed batch was retried")
	evs, err := s.Events(ctx, "r", 0, 0)
	require.NoError(t, err)
	require.Len(t, evs, n, "nothing lost, nothing written twice")
	for i, e := range evs {
		require.Equal(t, int64(i+1), e.Seq)
	}
}
