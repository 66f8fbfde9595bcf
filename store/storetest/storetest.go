// Package storetest is the contract every store.Store implementation must
// pass: one suite, run against the PostgreSQL and the SQLite store alike.
package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/store"
)

// Opener returns a fresh, empty, migrated store for one test; it registers
// its own cleanup.
type Opener func(t *testing.T) store.Store

// Run runs the whole contract against stores made by open.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"Players", testPlayers},
		{"Puzzles", testPuzzles},
		{"PoolTakeConcurrent", testPoolConcurrent},
		{"Rooms", testRooms},
		{"RoomOwner", testRoomOwner},
		{"FencedWrites", testFencedWrites},
		{"EventsOrderAndIdempotence", testEvents},
		{"EventsKeepTheirText", testEventText},
		{"EventRetention", testEventRetention},
		{"EventLogBatching", testEventLog},
		{"EventLogRetries", testEventLogRetries},
		{"ResultsUniqueness", testResults},
		{"FinishInOneTransaction", testSaveResults},
		{"DailyPuzzles", testDaily},
		{"LeaderboardOrderAndTies", testLeaderboard},
		{"LeaderboardAround", testAround},
		{"Streaks", testStreaks},
		{"BestTimes", testBestTimes},
		{"BadInput", testBadInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.fn(t, open(t))
		})
	}
}

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// Fixtures shared by the tests.

func mkPlayer(t *testing.T, s store.Store, id string) store.Player {
	t.Helper()
	p := store.Player{ID: id, Name: "Player " + id, TokenHash: []byte("hash-" + id), CreatedAt: t0, LastSeen: t0}
	require.NoError(t, s.CreatePlayer(context.Background(), p))
	return p
}

func mkPuzzle(t *testing.T, s store.Store, n int, level string) store.Puzzle {
	t.Helper()
	givens := []byte(fmt.Sprintf("%081d", n))
	for i := range givens {
		if givens[i] == '0' {
			givens[i] = '.'
		}
	}
	p, err := s.SavePuzzle(context.Background(), store.Puzzle{
		Givens: string(givens), Solution: fmt.Sprintf("%081d", n), Level: level, Score: 100 + n,
		Techniques: map[string]int{"naked-single": n}, Seed: uint64(n) << 40, CreatedAt: t0,
	})
	require.NoError(t, err)
	return p
}

func mkRoom(t *testing.T, s store.Store, id, mode string, puzzleID int64, host string) store.Room {
	t.Helper()
	r := store.Room{ID: id, Mode: mode, PuzzleID: puzzleID, HostID: host, State: store.StateWaiting, CreatedAt: t0,
		Settings: json.RawMessage(`{"countdown":3}`)}
	require.NoError(t, s.CreateRoom(context.Background(), r))
	return r
}

func testPlayers(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := mkPlayer(t, s, "p1")
	got, err := s.Player(ctx, "p1")
	require.NoError(t, err)
	assert.Equal(t, p.Name, got.Name)
	assert.Equal(t, p.TokenHash, got.TokenHash)
	assert.True(t, p.CreatedAt.Equal(got.CreatedAt), "created %v vs %v", p.CreatedAt, got.CreatedAt)

	byTok, err := s.PlayerByToken(ctx, []byte("hash-p1"))
	require.NoError(t, err)
	assert.Equal(t, "p1", byTok.ID)
	_, err = s.PlayerByToken(ctx, []byte("nope"))
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.Player(ctx, "nobody")
	assert.ErrorIs(t, err, store.ErrNotFound)

	// Same id, or same token: conflict, and the first player is unchanged.
	err = s.CreatePlayer(ctx, store.Player{ID: "p1", Name: "Other", TokenHash: []byte("x"), CreatedAt: t0, LastSeen: t0})
	assert.ErrorIs(t, err, store.ErrConflict)
	err = s.CreatePlayer(ctx, store.Player{ID: "p2", Name: "Other", TokenHash: []byte("hash-p1"), CreatedAt: t0, LastSeen: t0})
	assert.ErrorIs(t, err, store.ErrConflict)
	got, err = s.Player(ctx, "p1")
	require.NoError(t, err)
	assert.Equal(t, "Player p1", got.Name)

	later := t0.Add(time.Hour + 123456*time.Microsecond)
	require.NoError(t, s.TouchPlayer(ctx, "p1", later))
	require.NoError(t, s.RenamePlayer(ctx, "p1", "Zoë"))
	got, err = s.Player(ctx, "p1")
	require.NoError(t, err)
	assert.True(t, later.Equal(got.LastSeen), "last seen %v", got.LastSeen)
	assert.Equal(t, "Zoë", got.Name)
	assert.ErrorIs(t, s.TouchPlayer(ctx, "ghost", later), store.ErrNotFound)
	assert.ErrorIs(t, s.RenamePlayer(ctx, "ghost", "x"), store.ErrNotFound)
}

func testPuzzles(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := mkPuzzle(t, s, 1, "easy")
	require.NotZero(t, p.ID)
	got, err := s.Puzzle(ctx, p.ID)
	require.NoError(t, err)
	assert.Equal(t, p.Givens, got.Givens)
	assert.Equal(t, p.Solution, got.Solution)
	assert.Equal(t, "easy", got.Level)
	assert.Equal(t, 101, got.Score)
	assert.Equal(t, map[string]int{"naked-single": 1}, got.Techniques)
	assert.Equal(t, uint64(1)<<40, got.Seed)

	// Seeds use all 64 bits.
	big := store.Puzzle{Givens: "1" + fmt.Sprintf("%080d", 7), Solution: fmt.Sprintf("%081d", 7),
		Level: "hard", Seed: ^uint64(0) - 5, CreatedAt: t0}
	saved, err := s.SavePuzzle(ctx, big)
	require.NoError(t, err)
	got, err = s.Puzzle(ctx, saved.ID)
	require.NoError(t, err)
	assert.Equal(t, ^uint64(0)-5, got.Seed)

	// Stored once: the same givens return the stored puzzle, unchanged.
	again, err := s.SavePuzzle(ctx, store.Puzzle{Givens: p.Givens, Solution: p.Solution, Level: "hard", Score: 999, CreatedAt: t0})
	require.NoError(t, err)
	assert.Equal(t, p.ID, again.ID)
	assert.Equal(t, "easy", again.Level)
	_, err = s.Puzzle(ctx, 987654)
	assert.ErrorIs(t, err, store.ErrNotFound)
}

func testPoolConcurrent(t *testing.T, s store.Store) {
	ctx := context.Background()
	const n = 40
	var ids []int64
	for i := 0; i < n; i++ {
		ids = append(ids, mkPuzzle(t, s, 1000+i, "medium").ID)
	}
	other := mkPuzzle(t, s, 5000, "hard")
	require.NoError(t, s.AddToPool(ctx, ids...))
	require.NoError(t, s.AddToPool(ctx, other.ID))
	require.NoError(t, s.AddToPool(ctx, ids[:5]...), "adding again is a no-op")
	size, err := s.PoolSize(ctx, "medium")
	require.NoError(t, err)
	assert.Equal(t, n, size)

	// Eight takers race for more puzzles than there are.
	var mu sync.Mutex
	var taken []int64
	empties := 0
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < n/8+2; k++ {
				p, err := s.TakeFromPool(ctx, "medium")
				mu.Lock()
				if err == nil {
					assert.Equal(t, "medium", p.Level)
					taken = append(taken, p.ID)
				} else {
					assert.ErrorIs(t, err, store.ErrNotFound)
					empties++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	sort.Slice(taken, func(i, j int) bool { return taken[i] < taken[j] })
	assert.Equal(t, ids, taken, "every pooled puzzle handed out exactly once")
	assert.Equal(t, 16, empties)
	size, err = s.PoolSize(ctx, "medium")
	require.NoError(t, err)
	assert.Zero(t, size)
	require.NoError(t, s.AddToPool(ctx, ids...))
	size, err = s.PoolSize(ctx, "medium")
	require.NoError(t, err)
	assert.Zero(t, size, "a puzzle handed out never re-enters the pool")
	size, err = s.PoolSize(ctx, "hard")
	require.NoError(t, err)
	assert.Equal(t, 1, size, "other levels untouched")
	assert.ErrorIs(t, s.AddToPool(ctx, 424242), store.ErrNotFound)
}

func testRooms(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "host")
	pz := mkPuzzle(t, s, 2, "easy")
	r := mkRoom(t, s, "room1", store.ModeRace, pz.ID, "host")
	mkRoom(t, s, "room0", store.ModeCoop, pz.ID, "host")
	got, err := s.Room(ctx, "room1")
	require.NoError(t, err)
	assert.Equal(t, store.ModeRace, got.Mode)
	assert.Equal(t, store.StateWaiting, got.State)
	assert.True(t, got.StartedAt.IsZero())
	assert.JSONEq(t, `{"countdown":3}`, string(got.Settings))
	assert.ErrorIs(t, s.CreateRoom(ctx, r), store.ErrConflict)

	r.State, r.StartedAt = store.StateRunning, t0.Add(time.Minute)
	require.NoError(t, s.UpdateRoom(ctx, r))
	got, err = s.Room(ctx, "room1")
	require.NoError(t, err)
	assert.Equal(t, store.StateRunning, got.State)
	assert.True(t, r.StartedAt.Equal(got.StartedAt))

	live, err := s.LiveRooms(ctx)
	require.NoError(t, err)
	require.Len(t, live, 2)
	r.State, r.FinishedAt = store.StateFinished, t0.Add(2*time.Minute)
	require.NoError(t, s.UpdateRoom(ctx, r))
	live, err = s.LiveRooms(ctx)
	require.NoError(t, err)
	require.Len(t, live, 1)
	assert.Equal(t, "room0", live[0].ID)

	_, err = s.Room(ctx, "nope")
	assert.ErrorIs(t, err, store.ErrNotFound)
	assert.ErrorIs(t, s.UpdateRoom(ctx, store.Room{ID: "nope", Mode: store.ModeRace, PuzzleID: pz.ID, State: store.StateRunning}), store.ErrNotFound)
}

// testRoomOwner: a room made with an owner holds it at epoch 1 on its
// first round's row; a later round's row holds none, and an unowned room
// is epoch 0.
func testRoomOwner(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "host")
	pz := mkPuzzle(t, s, 2, "easy")
	r := store.Room{ID: "owned", Mode: store.ModeRace, PuzzleID: pz.ID, HostID: "host", State: store.StateWaiting, CreatedAt: t0, Owner: "node-a"}
	require.NoError(t, s.CreateRoom(ctx, r))
	r.ID = "owned.2"
	require.NoError(t, s.CreateRoom(ctx, r))
	mkRoom(t, s, "plain", store.ModeCoop, pz.ID, "host")
	tests := []struct {
		id    string
		owner string
		epoch int64
	}{
		{"owned", "node-a", 1},
		{"owned.2", "node-a", 0},
		{"plain", "", 0},
	}
	for _, tt := range tests {
		got, err := s.Room(ctx, tt.id)
		require.NoError(t, err)
		assert.Equal(t, tt.owner, got.Owner, tt.id)
		assert.Equal(t, tt.epoch, got.Epoch, tt.id)
	}
	assert.Equal(t, "owned", store.RoomOf("owned.2"))
	assert.Equal(t, "owned", store.RoomOf("owned"))
}

// testFencedWrites: each kind of write for a room carrying an epoch
// other than the room's (here 2, where the room is at 1: a claim moves
// epochs only on PostgreSQL, whose own tests claim) is refused with
// ErrFenced and changes nothing; the room's epoch, or none, is written.
func testFencedWrites(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "host")
	pz := mkPuzzle(t, s, 2, "easy")
	base := store.Room{ID: "f1", Mode: store.ModeCoop, PuzzleID: pz.ID, HostID: "host", State: store.StateRunning, CreatedAt: t0, Owner: "node-a"}
	require.NoError(t, s.CreateRoom(ctx, base))
	other := base
	other.ID = "f2"
	require.NoError(t, s.CreateRoom(ctx, other))

	t.Run("state", func(t *testing.T) {
		r := base
		r.Settings, r.Epoch = json.RawMessage(`{"by":"stale"}`), 2
		assert.ErrorIs(t, s.UpdateRoom(ctx, r), store.ErrFenced)
		r.Settings, r.Epoch = json.RawMessage(`{"by":"owner"}`), 1
		require.NoError(t, s.UpdateRoom(ctx, r))
		got, err := s.Room(ctx, "f1")
		require.NoError(t, err)
		assert.JSONEq(t, `{"by":"owner"}`, string(got.Settings))
		r.Epoch = 0
		require.NoError(t, s.UpdateRoom(ctx, r), "epoch 0 is unfenced")
		r.ID, r.Epoch = "none", 1
		assert.ErrorIs(t, s.UpdateRoom(ctx, r), store.ErrNotFound)

		round := base
		round.ID, round.Epoch = "f1.2", 2
		assert.ErrorIs(t, s.CreateRoom(ctx, round), store.ErrFenced)
		_, err = s.Room(ctx, "f1.2")
		assert.ErrorIs(t, err, store.ErrNotFound)
		round.Epoch = 1
		require.NoError(t, s.CreateRoom(ctx, round))
	})

	t.Run("events", func(t *testing.T) {
		ev := func(game string, seq, epoch int64) store.Event {
			return store.Event{RoomID: game, Seq: seq, Type: "move", PlayerID: "host", At: t0, Epoch: epoch}
		}
		err := s.AppendEvents(ctx, []store.Event{ev("f1", 1, 2), ev("f2", 1, 1), ev("f1.2", 1, 2), ev("f2", 2, 0)})
		var fe *store.FencedError
		require.ErrorAs(t, err, &fe)
		assert.ErrorIs(t, err, store.ErrFenced)
		assert.Equal(t, []string{"f1"}, fe.Rooms)
		for _, tt := range []struct {
			game string
			n    int
		}{{"f1", 0}, {"f1.2", 0}, {"f2", 2}} {
			evs, err := s.Events(ctx, tt.game, 0, 0)
			require.NoError(t, err)
			assert.Len(t, evs, tt.n, tt.game)
		}
		require.NoError(t, s.AppendEvents(ctx, []store.Event{ev("f1", 1, 1), ev("f1.2", 1, 1)}))
	})

	t.Run("results", func(t *testing.T) {
		res := store.Result{RoomID: "f1", PlayerID: "host", PuzzleID: pz.ID, Mode: store.ModeCoop, Level: "easy",
			Elapsed: time.Minute, FinishedAt: t0, Epoch: 2}
		assert.ErrorIs(t, s.SaveResults(ctx, []store.Result{res}), store.ErrFenced)
		hist, err := s.PlayerHistory(ctx, "host", 0)
		require.NoError(t, err)
		assert.Empty(t, hist)
		res.Epoch = 1
		require.NoError(t, s.SaveResults(ctx, []store.Result{res}))
		hist, err = s.PlayerHistory(ctx, "host", 0)
		require.NoError(t, err)
		assert.Len(t, hist, 1)
	})
}

func testEvents(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "a")
	pz := mkPuzzle(t, s, 3, "easy")
	mkRoom(t, s, "r", store.ModeCoop, pz.ID, "a")
	mkRoom(t, s, "other", store.ModeCoop, pz.ID, "a")
	var batch []store.Event
	for i := 1; i <= 250; i++ {
		batch = append(batch, store.Event{RoomID: "r", Seq: int64(i), Type: "move", PlayerID: "a",
			Data: json.RawMessage(fmt.Sprintf(`{"cell":%d,"digit":%d}`, i%81, i%9+1)), At: t0.Add(time.Duration(i) * time.Millisecond)})
	}
	// Out of order within the batch, and across batches.
	require.NoError(t, s.AppendEvents(ctx, batch[100:]))
	require.NoError(t, s.AppendEvents(ctx, append([]store.Event{batch[99]}, batch[:99]...)))
	require.NoError(t, s.AppendEvents(ctx, []store.Event{{RoomID: "other", Seq: 1, Type: "join", At: t0}}))
	// A retried batch writes nothing twice, and does not overwrite.
	dup := batch[10]
	dup.Type = "changed"
	require.NoError(t, s.AppendEvents(ctx, []store.Event{dup, batch[11]}))

	all, err := s.Events(ctx, "r", 0, 0)
	require.NoError(t, err)
	require.Len(t, all, 250)
	for i, e := range all {
		assert.Equal(t, int64(i+1), e.Seq)
		assert.Equal(t, "move", e.Type)
		assert.JSONEq(t, string(batch[i].Data), string(e.Data))
		assert.True(t, batch[i].At.Equal(e.At))
	}
	page, err := s.Events(ctx, "r", 240, 5)
	require.NoError(t, err)
	require.Len(t, page, 5)
	assert.Equal(t, int64(241), page[0].Seq)
	none, err := s.Events(ctx, "r", 250, 0)
	require.NoError(t, err)
	assert.Empty(t, none)

	// A batch with an event for a room that does not exist fails whole.
	err = s.AppendEvents(ctx, []store.Event{{RoomID: "r", Seq: 251, Type: "move", At: t0}, {RoomID: "ghost", Seq: 1, Type: "move", At: t0}})
	require.Error(t, err)
	after, err := s.Events(ctx, "r", 250, 0)
	require.NoError(t, err)
	assert.Empty(t, after, "a failed batch writes nothing")

	// A new event appended twice, the second time changed (a batch
	// retried after its first write landed), is read back once, as first
	// stored.
	next := store.Event{RoomID: "r", Seq: 251, Type: "move", PlayerID: "a", Data: json.RawMessage(`{"cell":1}`), At: t0}
	require.NoError(t, s.AppendEvents(ctx, []store.Event{next}))
	again := next
	again.Type, again.Data = "changed", json.RawMessage(`{"cell":2}`)
	require.NoError(t, s.AppendEvents(ctx, []store.Event{again, next}))
	after, err = s.Events(ctx, "r", 249, 0)
	require.NoError(t, err)
	require.Len(t, after, 2)
	assert.Equal(t, []int64{250, 251}, []int64{after[0].Seq, after[1].Seq})
	assert.Equal(t, "move", after[1].Type)
	assert.JSONEq(t, `{"cell":1}`, string(after[1].Data))
}

// testEventText: an event's strings come back as they went in, quotes,
// backslashes and control characters included, and its data byte for
// byte (escapes, a number's spelling, non-ASCII text).
func testEventText(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "host")
	pz := mkPuzzle(t, s, 1, "easy")
	mkRoom(t, s, "txt", store.ModeCoop, pz.ID, "host")
	in := []store.Event{
		{RoomID: "txt", Seq: 1, Type: `mo"ve`, PlayerID: `p\a`, Data: json.RawMessage(`{"a":"\u00e9\u003c\"x\\","n":1.50,"big":12345678901234567890,"e":1e5}`), At: t0},
		{RoomID: "txt", Seq: 2, Type: "tab\tnew\nline\x01", PlayerID: "é", Data: json.RawMessage(`{"s":"a\nb\u2028","u":"日本","l":[[1,2],[]],"z":null,"t":true}`), At: t0.Add(time.Second)},
		{RoomID: "txt", Seq: 3, Type: "finish", PlayerID: "", Data: json.RawMessage(`"plain"`), At: t0.Add(2 * time.Second)},
	}
	require.NoError(t, s.AppendEvents(ctx, in))
	out, err := s.Events(ctx, "txt", 0, 0)
	require.NoError(t, err)
	require.Len(t, out, len(in))
	for i := range in {
		assert.Equal(t, in[i].Type, out[i].Type, "seq %d", in[i].Seq)
		assert.Equal(t, in[i].PlayerID, out[i].PlayerID, "seq %d", in[i].Seq)
		assert.Equal(t, string(in[i].Data), string(out[i].Data), "seq %d: the data's text", in[i].Seq)
		assert.True(t, in[i].At.Equal(out[i].At), "seq %d: %s against %s", in[i].Seq, out[i].At, in[i].At)
	}
}

// testEventRetention: DeleteFinishedEvents deletes the events of rooms
// finished before the time, oldest first and at most maxRooms rooms at a
// time, and nothing else: not the events of rooms finished since or not
// finished, not the rooms, not their results.
func testEventRetention(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "a")
	pz := mkPuzzle(t, s, 4, "easy")
	finish := func(id string, at time.Time) {
		r := mkRoom(t, s, id, store.ModeRace, pz.ID, "a")
		r.State, r.StartedAt, r.FinishedAt = store.StateFinished, at.Add(-time.Minute), at
		require.NoError(t, s.UpdateRoom(ctx, r))
	}
	finish("oldest", t0.Add(-72*time.Hour))
	finish("old", t0.Add(-48*time.Hour))
	finish("recent", t0.Add(-time.Hour))
	finish("empty", t0.Add(-96*time.Hour)) // finished long ago, no events
	running := mkRoom(t, s, "running", store.ModeCoop, pz.ID, "a")
	running.State, running.StartedAt = store.StateRunning, t0.Add(-100*time.Hour)
	require.NoError(t, s.UpdateRoom(ctx, running))
	mkRoom(t, s, "waiting", store.ModeCoop, pz.ID, "a")
	counts := map[string]int{"oldest": 3, "old": 2, "recent": 4, "running": 5, "waiting": 1}
	for id, n := range counts {
		var evs []store.Event
		for i := 1; i <= n; i++ {
			evs = append(evs, store.Event{RoomID: id, Seq: int64(i), Type: "move", At: t0.Add(-100 * time.Hour)})
		}
		require.NoError(t, s.AppendEvents(ctx, evs))
	}
	mkResult(t, s, "oldest", "a", pz, "", 500, t0.Add(-72*time.Hour), time.Minute)
	left := func(id string) int {
		t.Helper()
		evs, err := s.Events(ctx, id, 0, 0)
		require.NoError(t, err)
		return len(evs)
	}

	cutoff := t0.Add(-24 * time.Hour)
	n, err := s.DeleteFinishedEvents(ctx, cutoff, 1)
	require.NoError(t, err)
	assert.Equal(t, int64(3), n, "one room at a time, the oldest with events first")
	assert.Zero(t, left("oldest"))
	assert.Equal(t, 2, left("old"))

	n, err = s.DeleteFinishedEvents(ctx, cutoff, 10)
	require.NoError(t, err)
	assert.Equal(t, int64(2), n)
	n, err = s.DeleteFinishedEvents(ctx, cutoff, 10)
	require.NoError(t, err)
	assert.Zero(t, n, "nothing is left to delete")

	for id, want := range map[string]int{"old": 0, "recent": 4, "running": 5, "waiting": 1} {
		assert.Equal(t, want, left(id), id)
	}
	for _, id := range []string{"oldest", "old", "empty"} {
		_, err := s.Room(ctx, id)
		assert.NoError(t, err, "the room %s stays", id)
	}
	hist, err := s.PlayerHistory(ctx, "a", 10)
	require.NoError(t, err)
	assert.Len(t, hist, 1, "results stay")

	// Later, the recent room's time comes too.
	n, err = s.DeleteFinishedEvents(ctx, t0, 10)
	require.NoError(t, err)
	assert.Equal(t, int64(4), n)
	assert.Equal(t, 5, left("running"))
}

func mkResult(t *testing.T, s store.Store, room, player string, pz store.Puzzle, day string, score int, fin time.Time, elapsed time.Duration) {
	t.Helper()
	mode := store.ModeRace
	if day != "" {
		mode = store.ModeDaily
	}
	require.NoError(t, s.SaveResults(context.Background(), []store.Result{{
		RoomID: room, PlayerID: player, PuzzleID: pz.ID, Mode: mode, Level: pz.Level,
		Elapsed: elapsed, Mistakes: 1, Hints: 2, Score: score, FinishedAt: fin, Day: day,
	}}))
}

func testResults(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "a")
	mkPlayer(t, s, "b")
	pz := mkPuzzle(t, s, 4, "hard")
	mkRoom(t, s, "r1", store.ModeRace, pz.ID, "a")
	mkRoom(t, s, "r2", store.ModeDaily, pz.ID, "a")
	mkRoom(t, s, "r3", store.ModeDaily, pz.ID, "a")
	mkResult(t, s, "r1", "a", pz, "", 500, t0, 90*time.Second)
	again := store.Result{RoomID: "r1", PlayerID: "a", PuzzleID: pz.ID, Mode: store.ModeRace, Level: "hard", Score: 900, FinishedAt: t0.Add(time.Hour)}
	require.NoError(t, s.SaveResults(ctx, []store.Result{again}), "a second result of the room and player is skipped")
	mkResult(t, s, "r2", "a", pz, "2026-11-21", 500, t0, 90*time.Second)
	err := s.SaveResults(ctx, []store.Result{{RoomID: "r3", PlayerID: "a", PuzzleID: pz.ID, Mode: store.ModeDaily, Level: "hard", FinishedAt: t0, Day: "2026-11-21"}})
	assert.ErrorIs(t, err, store.ErrConflict, "one daily result per day, level and player")
	mkResult(t, s, "r3", "b", pz, "2026-11-21", 400, t0, 80*time.Second)

	hist, err := s.PlayerHistory(ctx, "a", 10)
	require.NoError(t, err)
	require.Len(t, hist, 2, "one result per room and player")
	assert.NotZero(t, hist[1].ID)
	assert.Equal(t, 500, hist[1].Score, "the first result of the room and player is kept")
	assert.Equal(t, "r2", hist[0].RoomID, "newest first (ties: later id first)")
	assert.Equal(t, "2026-11-21", hist[0].Day)
	assert.Equal(t, "", hist[1].Day)
	assert.Equal(t, 90*time.Second, hist[1].Elapsed)
	assert.Equal(t, 1, hist[1].Mistakes)
	assert.Equal(t, 2, hist[1].Hints)
	assert.Equal(t, pz.ID, hist[1].PuzzleID)
}

func testSaveResults(t *testing.T, s store.Store) {
	ctx := context.Background()
	for _, id := range []string{"a", "b", "c"} {
		mkPlayer(t, s, id)
	}
	pz := mkPuzzle(t, s, 5, "medium")
	mkRoom(t, s, "team", store.ModeCoop, pz.ID, "a")
	mkRoom(t, s, "d1", store.ModeDaily, pz.ID, "a")
	mkRoom(t, s, "d2", store.ModeDaily, pz.ID, "a")
	finish := func(room, mode, day string, players ...string) []store.Result {
		var rs []store.Result
		for i, p := range players {
			rs = append(rs, store.Result{RoomID: room, PlayerID: p, PuzzleID: pz.ID, Mode: mode, Level: pz.Level,
				Elapsed: 70 * time.Second, Mistakes: i, Hints: 1, Score: 1800 - i, FinishedAt: t0, Day: day})
		}
		return rs
	}
	count := func(player string) int {
		t.Helper()
		hist, err := s.PlayerHistory(ctx, player, 0)
		require.NoError(t, err)
		return len(hist)
	}

	team := finish("team", store.ModeCoop, "", "a", "b", "c")
	require.NoError(t, s.SaveResults(ctx, team))
	require.NoError(t, s.SaveResults(ctx, team), "a retried finish is a no-op")
	require.NoError(t, s.SaveResults(ctx, team[1:]), "so is part of one")
	for i, p := range []string{"a", "b", "c"} {
		hist, err := s.PlayerHistory(ctx, p, 0)
		require.NoError(t, err)
		require.Len(t, hist, 1, "stored once: %s", p)
		assert.Equal(t, i, hist[0].Mistakes)
		assert.Equal(t, 1800-i, hist[0].Score)
	}

	require.NoError(t, s.SaveResults(ctx, finish("d1", store.ModeDaily, "2026-11-21", "a")))
	// b's daily result would be new, a's breaks one daily result per day:
	// neither is stored.
	err := s.SaveResults(ctx, finish("d2", store.ModeDaily, "2026-11-21", "b", "a"))
	require.ErrorIs(t, err, store.ErrConflict)
	assert.Equal(t, 1, count("b"), "all of a finish or none")
	// A missing player is refused the same way, and rolls back the rest.
	err = s.SaveResults(ctx, finish("d2", store.ModeDaily, "2026-11-22", "c", "ghost"))
	require.ErrorIs(t, err, store.ErrInvalid)
	assert.Equal(t, 1, count("c"))
	err = s.SaveResults(ctx, finish("d2", store.ModeDaily, "2026-13-01", "c"))
	require.ErrorIs(t, err, store.ErrInvalid)
	require.NoError(t, s.SaveResults(ctx, nil), "an empty finish stores nothing")
}

func testDaily(t *testing.T, s store.Store) {
	ctx := context.Background()
	a, b := mkPuzzle(t, s, 5, "easy"), mkPuzzle(t, s, 6, "easy")
	d, err := s.SetDaily(ctx, store.Daily{Day: "2026-11-21", Level: "easy", PuzzleID: a.ID})
	require.NoError(t, err)
	assert.Equal(t, a.ID, d.PuzzleID)
	d, err = s.SetDaily(ctx, store.Daily{Day: "2026-11-21", Level: "easy", PuzzleID: b.ID})
	require.NoError(t, err)
	assert.Equal(t, a.ID, d.PuzzleID, "the first puzzle set for the day stays")
	got, err := s.Daily(ctx, "2026-11-21", "easy")
	require.NoError(t, err)
	assert.Equal(t, a.ID, got.PuzzleID)
	_, err = s.Daily(ctx, "2026-11-22", "easy")
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.SetDaily(ctx, store.Daily{Day: "21/11/2026", Level: "easy", PuzzleID: a.ID})
	assert.ErrorIs(t, err, store.ErrInvalid)
}

// seedBoard stores a day's results for players p00..p(n-1) with the given
// scores and finish offsets, each in a room of its own.
func seedBoard(t *testing.T, s store.Store, day string, pz store.Puzzle, scores []int, finishes []time.Duration) {
	t.Helper()
	for i := range scores {
		id := fmt.Sprintf("p%02d", i)
		mkPlayer(t, s, id)
		mkRoom(t, s, "room-"+day+"-"+id, store.ModeDaily, pz.ID, id)
		mkResult(t, s, "room-"+day+"-"+id, id, pz, day, scores[i], t0.Add(finishes[i]), time.Duration(60+i)*time.Second)
	}
}

func ids(es []store.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.PlayerID)
	}
	return out
}

func ranks(es []store.Entry) []int {
	var out []int
	for _, e := range es {
		out = append(out, e.Rank)
	}
	return out
}

func testLeaderboard(t *testing.T, s store.Store) {
	ctx := context.Background()
	pz := mkPuzzle(t, s, 7, "medium")
	// p01 and p02 tie on score; p02 finished first. p03 and p04 tie on
	// score and finish: the player id decides.
	scores := []int{100, 300, 300, 200, 200, 50}
	fin := []time.Duration{0, 5 * time.Second, 2 * time.Second, time.Second, time.Second, 0}
	seedBoard(t, s, "2026-11-21", pz, scores, fin)
	top, err := s.DailyTop(ctx, "2026-11-21", "medium", 10)
	require.NoError(t, err)
	assert.Equal(t, []string{"p02", "p01", "p03", "p04", "p00", "p05"}, ids(top))
	assert.Equal(t, []int{1, 2, 3, 4, 5, 6}, ranks(top))
	assert.Equal(t, "Player p02", top[0].Name)
	assert.Equal(t, 300, top[0].Score)
	assert.Equal(t, 62*time.Second, top[0].Elapsed)
	top3, err := s.DailyTop(ctx, "2026-11-21", "medium", 3)
	require.NoError(t, err)
	assert.Equal(t, []string{"p02", "p01", "p03"}, ids(top3))
	other, err := s.DailyTop(ctx, "2026-11-21", "hard", 10)
	require.NoError(t, err)
	assert.Empty(t, other, "levels do not mix")
	n, err := s.DailyCount(ctx, "2026-11-21", "medium")
	require.NoError(t, err)
	assert.Equal(t, 6, n)
	n, err = s.DailyCount(ctx, "2026-11-21", "hard")
	require.NoError(t, err)
	assert.Zero(t, n)
	_, err = s.DailyCount(ctx, "21/11/2026", "medium")
	assert.ErrorIs(t, err, store.ErrInvalid)
}

func testAround(t *testing.T, s store.Store) {
	ctx := context.Background()
	pz := mkPuzzle(t, s, 8, "hard")
	var scores []int
	var fin []time.Duration
	for i := 0; i < 30; i++ {
		scores = append(scores, 1000-i*10)
		fin = append(fin, time.Duration(i)*time.Second)
	}
	seedBoard(t, s, "2026-11-20", pz, scores, fin)
	around, err := s.DailyAround(ctx, "2026-11-20", "hard", "p10", 3)
	require.NoError(t, err)
	assert.Equal(t, []string{"p07", "p08", "p09", "p10", "p11", "p12", "p13"}, ids(around))
	assert.Equal(t, []int{8, 9, 10, 11, 12, 13, 14}, ranks(around))
	head, err := s.DailyAround(ctx, "2026-11-20", "hard", "p01", 3)
	require.NoError(t, err)
	assert.Equal(t, []string{"p00", "p01", "p02", "p03", "p04"}, ids(head), "clipped at the top")
	assert.Equal(t, 1, head[0].Rank)
	tail, err := s.DailyAround(ctx, "2026-11-20", "hard", "p29", 2)
	require.NoError(t, err)
	assert.Equal(t, []string{"p27", "p28", "p29"}, ids(tail), "clipped at the bottom")
	assert.Equal(t, 30, tail[2].Rank)
	_, err = s.DailyAround(ctx, "2026-11-20", "hard", "nobody", 3)
	assert.ErrorIs(t, err, store.ErrNotFound)

	// Scores far apart (a daily's are near 2,000,000,000, in ms), with
	// ties: every rank is still one plus the rows ahead.
	// The players of the day before play again.
	for i := range 30 {
		id, room := fmt.Sprintf("p%02d", i), fmt.Sprintf("room-2026-11-19-p%02d", i)
		mkRoom(t, s, room, store.ModeDaily, pz.ID, id)
		mkResult(t, s, room, id, pz, "2026-11-19", 2_000_000_000-(i/2)*70_001-i%3, t0.Add(time.Duration(i%2)*time.Second), time.Minute)
	}
	top, err := s.DailyTop(ctx, "2026-11-19", "hard", 30)
	require.NoError(t, err)
	require.Len(t, top, 30)
	for _, e := range top {
		row, err := s.DailyAround(ctx, "2026-11-19", "hard", e.PlayerID, 0)
		require.NoError(t, err)
		require.Len(t, row, 1)
		assert.Equal(t, e.Rank, row[0].Rank, "the rank of %s", e.PlayerID)
	}
}

func testStreaks(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "a")
	pz := mkPuzzle(t, s, 9, "easy")
	pz2 := mkPuzzle(t, s, 10, "medium")
	days := []string{"2026-11-01", "2026-11-02", "2026-11-03", "2026-11-04", "2026-11-10", "2026-11-19", "2026-11-20"}
	for _, d := range days {
		mkRoom(t, s, "d"+d, store.ModeDaily, pz.ID, "a")
		mkResult(t, s, "d"+d, "a", pz, d, 10, t0, time.Minute)
	}
	// Two levels on one day count once.
	mkRoom(t, s, "dm", store.ModeDaily, pz2.ID, "a")
	mkResult(t, s, "dm", "a", pz2, "2026-11-20", 10, t0, time.Minute)

	st, err := s.PlayerStreak(ctx, "a", "2026-11-21")
	require.NoError(t, err)
	assert.Equal(t, store.Streak{Current: 2, Longest: 4, LastDay: "2026-11-20"}, st, "today not yet played: the run to yesterday counts")
	st, err = s.PlayerStreak(ctx, "a", "2026-11-22")
	require.NoError(t, err)
	assert.Equal(t, 0, st.Current, "a missed day breaks the streak")
	assert.Equal(t, 4, st.Longest)
	st, err = s.PlayerStreak(ctx, "a", "2026-11-03")
	require.NoError(t, err)
	assert.Equal(t, store.Streak{Current: 3, Longest: 3, LastDay: "2026-11-03"}, st, "days after today are not counted")
	// Month boundary.
	mkRoom(t, s, "dec1", store.ModeDaily, pz.ID, "a")
	mkResult(t, s, "dec1", "a", pz, "2026-10-31", 10, t0, time.Minute)
	st, err = s.PlayerStreak(ctx, "a", "2026-11-04")
	require.NoError(t, err)
	assert.Equal(t, 5, st.Current)
	st, err = s.PlayerStreak(ctx, "nobody", "2026-11-04")
	require.NoError(t, err)
	assert.Equal(t, store.Streak{}, st)
}

func testBestTimes(t *testing.T, s store.Store) {
	ctx := context.Background()
	pz := mkPuzzle(t, s, 11, "expert")
	for _, p := range []string{"a", "b", "c"} {
		mkPlayer(t, s, p)
	}
	add := func(room, player string, mode string, secs int, fin time.Duration) {
		mkRoom(t, s, room, mode, pz.ID, player)
		require.NoError(t, s.SaveResults(ctx, []store.Result{{RoomID: room, PlayerID: player, PuzzleID: pz.ID, Mode: mode, Level: "expert",
			Elapsed: time.Duration(secs) * time.Second, FinishedAt: t0.Add(fin)}}))
	}
	add("1", "a", store.ModeRace, 300, 0)
	add("2", "a", store.ModeRace, 200, time.Hour) // a's best
	add("3", "b", store.ModeRace, 200, 0)         // ties a's best, finished earlier
	add("4", "c", store.ModeCoop, 10, 0)          // co-op times are a team's, not counted
	add("5", "c", store.ModeRace, 400, 0)
	// A finish under the level's floor is kept, flagged, and counts on no
	// board.
	mkRoom(t, s, "6", store.ModeDaily, pz.ID, "c")
	require.NoError(t, s.SaveResults(ctx, []store.Result{{RoomID: "6", PlayerID: "c", PuzzleID: pz.ID, Mode: store.ModeDaily, Level: "expert",
		Elapsed: time.Second, FinishedAt: t0.Add(2 * time.Hour), Flagged: true}}))
	hist, err := s.PlayerHistory(ctx, "c", 1)
	require.NoError(t, err)
	require.Len(t, hist, 1)
	assert.True(t, hist[0].Flagged)
	mine, err := s.PlayerBest(ctx, "a")
	require.NoError(t, err)
	require.Len(t, mine, 1)
	assert.Equal(t, "2", mine[0].RoomID, "a's fastest")
	assert.Equal(t, 200*time.Second, mine[0].Elapsed)
	assert.Equal(t, "expert", mine[0].Level)
	mine, err = s.PlayerBest(ctx, "c")
	require.NoError(t, err)
	require.Len(t, mine, 1)
	assert.Equal(t, "5", mine[0].RoomID, "neither co-op nor a flagged finish counts")
	mine, err = s.PlayerBest(ctx, "nobody")
	require.NoError(t, err)
	assert.Empty(t, mine)
	best, err := s.BestTimes(ctx, "expert", 10)
	require.NoError(t, err)
	assert.Equal(t, []string{"b", "a", "c"}, ids(best))
	assert.Equal(t, []int{1, 2, 3}, ranks(best))
	assert.Equal(t, 200*time.Second, best[1].Elapsed)
	assert.Equal(t, 400*time.Second, best[2].Elapsed)
}

func testBadInput(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "a")
	pz := mkPuzzle(t, s, 12, "easy")
	assert.Error(t, s.CreatePlayer(ctx, store.Player{ID: "", Name: "x", TokenHash: []byte("t"), CreatedAt: t0, LastSeen: t0}))
	assert.ErrorIs(t, s.CreateRoom(ctx, store.Room{ID: "x", Mode: "solo", PuzzleID: pz.ID, HostID: "a", State: store.StateWaiting, CreatedAt: t0}), store.ErrInvalid)
	assert.ErrorIs(t, s.CreateRoom(ctx, store.Room{ID: "y", Mode: store.ModeRace, PuzzleID: 777777, HostID: "a", State: store.StateWaiting, CreatedAt: t0}), store.ErrInvalid)
	_, err := s.Room(ctx, "x")
	assert.ErrorIs(t, err, store.ErrNotFound, "a refused room is not stored")
	mkRoom(t, s, "r", store.ModeRace, pz.ID, "a")
	err = s.SaveResults(ctx, []store.Result{{RoomID: "r", PlayerID: "a", PuzzleID: pz.ID, Mode: store.ModeDaily, Level: "easy", FinishedAt: t0, Day: "2026-13-01"}})
	assert.ErrorIs(t, err, store.ErrInvalid)
	err = s.SaveResults(ctx, []store.Result{{RoomID: "r", PlayerID: "ghost", PuzzleID: pz.ID, Mode: store.ModeRace, Level: "easy", FinishedAt: t0}})
	assert.ErrorIs(t, err, store.ErrInvalid)
	hist, err := s.PlayerHistory(ctx, "a", 0)
	require.NoError(t, err)
	assert.Empty(t, hist, "refused results are not stored")
	_, err = s.PlayerStreak(ctx, "a", "yesterday")
	assert.ErrorIs(t, err, store.ErrInvalid)
}

func testEventLog(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "a")
	pz := mkPuzzle(t, s, 13, "easy")
	rooms := []string{"e1", "e2", "e3"}
	for _, r := range rooms {
		mkRoom(t, s, r, store.ModeRace, pz.ID, "a")
	}
	l := store.NewEventLog(s, store.EventLogOptions{Interval: 5 * time.Millisecond, MaxBatch: 200})
	const perRoom = 1000
	for i := 1; i <= perRoom; i++ {
		for _, r := range rooms {
			l.Append(store.Event{RoomID: r, Seq: int64(i), Type: "move", PlayerID: "a", Data: json.RawMessage(`{"i":` + fmt.Sprint(i) + `}`), At: t0})
		}
	}
	require.NoError(t, l.Flush(ctx))
	st := l.Stats()
	assert.Equal(t, int64(3*perRoom), st.Written)
	assert.GreaterOrEqual(t, st.Batches, int64(15), "at most 200 events a batch")
	assert.Less(t, st.Batches, int64(3*perRoom/10), "events are grouped, not written one by one")
	for _, r := range rooms {
		evs, err := s.Events(ctx, r, 0, 0)
		require.NoError(t, err)
		require.Len(t, evs, perRoom)
		for i, e := range evs {
			require.Equal(t, int64(i+1), e.Seq)
		}
	}
	l.Append(store.Event{RoomID: "e1", Seq: perRoom + 1, Type: "finish", At: t0})
	require.NoError(t, l.Close(ctx), "close writes what is queued")
	evs, err := s.Events(ctx, "e1", perRoom, 0)
	require.NoError(t, err)
	require.Len(t, evs, 1)
	assert.Equal(t, "finish", evs[0].Type)
	l.Append(store.Event{RoomID: "e1", Seq: perRoom + 2, Type: "late", At: t0})
	assert.Equal(t, int64(1), l.Stats().Dropped, "events after close are dropped and counted")
}

// flaky fails the first n batch writes, after writing half of the first
// batch behind the log's back: as if the connection died mid-batch after
// the database had committed part of the work.
type flaky struct {
	store.Store
	mu    sync.Mutex
	fails int
}

func (f *flaky) AppendEvents(ctx context.Context, events []store.Event) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fails > 0 {
		f.fails--
		if err := f.Store.AppendEvents(ctx, events[:len(events)/2]); err != nil {
			return err
		}
		return fmt.Errorf("connection reset mid-batch")
	}
	return f.Store.AppendEvents(ctx, events)
}

func testEventLogRetries(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "a")
	pz := mkPuzzle(t, s, 14, "easy")
	mkRoom(t, s, "f", store.ModeRace, pz.ID, "a")
	f := &flaky{Store: s, fails: 3}
	l := store.NewEventLog(f, store.EventLogOptions{Interval: time.Millisecond, MaxBatch: 50, RetryMin: time.Millisecond})
	for i := 1; i <= 500; i++ {
		l.Append(store.Event{RoomID: "f", Seq: int64(i), Type: "move", At: t0})
	}
	fctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	require.NoError(t, l.Close(fctx))
	assert.Equal(t, int64(3), l.Stats().Retries)
	evs, err := s.Events(ctx, "f", 0, 0)
	require.NoError(t, err)
	require.Len(t, evs, 500, "nothing lost, nothing twice")
	for i, e := range evs {
		require.Equal(t, int64(i+1), e.Seq)
	}
}
