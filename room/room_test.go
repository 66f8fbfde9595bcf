package room_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/room/roomtest"
)

// registry is a real registry over an in-memory store, whose rooms run on
// a clock that moves only when the test advances it.
func registry(t *testing.T, cfg room.RegistryConfig) (*room.Registry, *roomtest.Store, *roomtest.Clock) {
	t.Helper()
	st := roomtest.NewStore()
	clock := roomtest.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	cfg.Clock = clock
	reg := room.NewRegistry(cfg, st)
	// Once the rooms have ended (the cleanups run last first), every game
	// is rebuilt from the states it saved.
	t.Cleanup(func() { checkRestores(t, st, reg.Config(), clock.Now()) })
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		assert.NoError(t, reg.Shutdown(ctx))
	})
	return reg, st, clock
}

// checkRestores checks that each game the rooms played, rebuilt from any
// state it saved and the records stored after it, is the game its last
// state saved: what a crash right after that state was saved would have
// brought back, had the room gone on as it did. The last state must be
// the room's (or a round's) end, after which nothing happened; a game
// whose records after a state were not all stored (the store failed, or
// another process took the game on past a gap) is not checked from it.
func checkRestores(t *testing.T, st *roomtest.Store, cfg room.Config, now time.Time) {
	t.Helper()
	ctx := context.Background()
	for _, id := range st.Games() {
		states := st.History(id)
		end := states[len(states)-1]
		if !end.Final && !end.Ended {
			continue
		}
		want, err := room.Restore(cfg, end, now)
		require.NoError(t, err)
		for _, s := range states[:len(states)-1] {
			if s.Seq > end.Seq {
				continue
			}
			recs, err := st.LoadEvents(ctx, id, s.Seq)
			require.NoError(t, err)
			n := 0
			for n < len(recs) && recs[n].Seq == s.Seq+int64(n)+1 && recs[n].Seq <= end.Seq {
				n++
			}
			if s.Seq+int64(n) != end.Seq {
				continue
			}
			got, err := room.Rebuild(cfg, s, recs[:n], now)
			require.NoError(t, err)
			gap := int64(0)
			if !s.Final || n > 0 {
				gap = room.SeqGapAfterCrash
			}
			wantGap := int64(0)
			if !end.Final {
				wantGap = room.SeqGapAfterCrash
			}
			if diff := room.Diff(room.Restorable(want, wantGap), room.Restorable(got, gap)); diff != "" {
				t.Errorf("replay check: %s rebuilt from its state at seq %d and the %d records after it differs from its last state, at seq %d (last state, then rebuilt):\n%s",
					id, s.Seq, n, end.Seq, diff)
			}
		}
	}
}

// settle returns once the room has handled the commands sent to it before
// (they are handled in order), so that the clock moves after them.
func settle(t *testing.T, r *room.Room) {
	t.Helper()
	_, err := r.Snapshot(context.Background())
	require.NoError(t, err)
}

// live is a new room of the mode in reg with a connection for each of ids
// (player ids, named after them), attached in order.
func live(t *testing.T, reg *room.Registry, mode string, ids ...string) (*room.Room, []*conn) {
	t.Helper()
	ctx := context.Background()
	r, err := reg.Create(ctx, mode, "easy")
	require.NoError(t, err)
	var cs []*conn
	for _, id := range ids {
		c := newConn()
		require.NoError(t, r.Attach(ctx, room.Join{ID: id, Name: "Name " + id}, c))
		cs = append(cs, c)
	}
	return r, cs
}

// conn is a connection that keeps its frames; when full is set it refuses
// them, as a client too slow to keep up.
type conn struct {
	mu     sync.Mutex
	frames []room.Frame
	full   atomic.Bool
	closed chan room.CloseReason
}

func newConn() *conn { return &conn{closed: make(chan room.CloseReason, 1)} }

func (c *conn) Send(f room.Frame) bool {
	if c.full.Load() {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.frames = append(c.frames, f)
	return true
}

func (c *conn) Close(why room.CloseReason) { c.closed <- why }

// await waits for a frame of the type whose JSON match accepts.
func (c *conn) await(t *testing.T, typ string, match func(data []byte) bool) []byte {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	seen := 0
	for time.Now().Before(deadline) {
		c.mu.Lock()
		fs := c.frames[seen:]
		seen = len(c.frames)
		c.mu.Unlock()
		for _, f := range fs {
			if f.Type == typ && (match == nil || match(f.Data)) {
				return f.Data
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no %s frame within 5s", typ)
	return nil
}

func presence(status, player string) func([]byte) bool {
	return func(data []byte) bool {
		var p protocol.PresenceEvent
		return json.Unmarshal(data, &p) == nil && p.Status == status && p.Player == player
	}
}

func TestSlowConnectionIsDroppedAndMayResume(t *testing.T) {
	reg, _, _ := registry(t, room.RegistryConfig{})
	ctx := context.Background()
	r, cs := live(t, reg, room.ModeCoop, "p_a", "p_b")
	a, b := cs[0], cs[1]

	b.full.Store(true)
	require.NoError(t, r.Message(ctx, "p_a", a, &protocol.Msg{Type: protocol.TypeStart}, time.Now()))
	a.await(t, protocol.TypePresence, presence(protocol.PresenceAway, "p_b"))
	assert.Equal(t, int64(1), reg.Stats().Dropped)
	assert.Equal(t, 1, reg.Stats().Members)

	// Bob comes back on a connection that keeps up, with his place.
	b2 := newConn()
	require.NoError(t, r.Attach(ctx, room.Join{ID: "p_b", Name: "Bob"}, b2))
	w := b2.await(t, protocol.TypeWelcome, nil)
	var welcome protocol.Welcome
	require.NoError(t, json.Unmarshal(w, &welcome))
	assert.Equal(t, "p_b", welcome.You.ID)
	assert.Equal(t, protocol.RolePlayer, welcome.You.Role)
	a.await(t, protocol.TypePresence, presence(protocol.PresenceBack, "p_b"))
}

func TestReconnectWindowEndsAndHostPasses(t *testing.T) {
	const window = time.Minute
	reg, _, clock := registry(t, room.RegistryConfig{Game: room.Config{ReconnectWindow: window}})
	ctx := context.Background()
	r, cs := live(t, reg, room.ModeRace, "p_a", "p_b")
	a, b := cs[0], cs[1]
	r.Detach("p_a", a)
	b.await(t, protocol.TypePresence, presence(protocol.PresenceAway, "p_a"))
	settle(t, r)

	clock.Advance(window - time.Second)
	settle(t, r)
	snap, err := r.Snapshot(ctx)
	require.NoError(t, err)
	assert.Equal(t, "p_a", snap.Host, "the host keeps the role within the window")

	clock.Advance(time.Second)
	data := b.await(t, protocol.TypePresence, presence(protocol.PresenceLeft, "p_a"))
	var p protocol.PresenceEvent
	require.NoError(t, json.Unmarshal(data, &p))
	assert.Equal(t, "p_b", p.Host, "the host's role passes on")
	require.NoError(t, r.Message(ctx, "p_b", b, &protocol.Msg{Type: protocol.TypeStart}, time.Now()))
	b.await(t, protocol.TypeCountdown, nil)
}

func TestIdleRoomEnds(t *testing.T) {
	const idle = 10 * time.Minute
	reg, st, clock := registry(t, room.RegistryConfig{IdleTimeout: idle})
	ctx := context.Background()
	r, cs := live(t, reg, room.ModeRace, "p_a")
	a := cs[0]
	clock.Advance(2 * idle)
	settle(t, r)
	_, err := reg.Get(r.ID())
	require.NoError(t, err, "a room with someone in it stays")

	r.Detach("p_a", a)
	settle(t, r)
	clock.Advance(idle - time.Second)
	settle(t, r)
	_, err = reg.Get(r.ID())
	require.NoError(t, err, "the room waits for its idle timeout from the last member's leaving")

	clock.Advance(time.Second)
	select {
	case <-r.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the idle room did not end")
	}
	_, err = reg.Get(r.ID())
	assert.ErrorIs(t, err, room.ErrNotFound)
	saved := st.Saved(r.ID())
	require.NotNil(t, saved)
	assert.True(t, saved.Final)
	assert.True(t, saved.Abandoned, "an abandoned room is not brought back")
	assert.Zero(t, reg.Stats().Rooms)
	assert.ErrorIs(t, r.Attach(ctx, room.Join{ID: "p_a", Name: "Ann"}, newConn()), room.ErrClosed)
}

// A room whose last member is dropped as too slow keeps that player's place
// for the reconnect window; it does not end as idle on the spot, however
// old it is.
func TestSlowDropOfTheLastMemberDoesNotEndTheRoom(t *testing.T) {
	const idle = 10 * time.Minute
	reg, _, clock := registry(t, room.RegistryConfig{IdleTimeout: idle})
	ctx := context.Background()
	r, cs := live(t, reg, room.ModeCoop, "p_a")
	a := cs[0]
	clock.Advance(2 * idle) // older than the idle timeout
	a.full.Store(true)
	require.NoError(t, r.Message(ctx, "p_a", a, &protocol.Msg{Type: protocol.TypePing}, time.Now()))
	settle(t, r)
	assert.Equal(t, int64(1), reg.Stats().Dropped)
	clock.Advance(idle - time.Second)
	settle(t, r)
	_, err := reg.Get(r.ID())
	assert.NoError(t, err, "the room waits for its idle timeout from the drop")
	b := newConn()
	require.NoError(t, r.Attach(ctx, room.Join{ID: "p_a", Name: "Ann"}, b))
	b.await(t, protocol.TypeWelcome, nil)
}

// A leave the room refuses leaves the connection in place.
func TestRefusedLeaveKeepsTheConnection(t *testing.T) {
	reg, _, _ := registry(t, room.RegistryConfig{})
	ctx := context.Background()
	r, cs := live(t, reg, room.ModeCoop, "p_a")
	a := cs[0]
	require.NoError(t, r.Message(ctx, "p_a", a, &protocol.Msg{Type: protocol.TypeLeave, Room: "elsewhere"}, time.Now()))
	settle(t, r)
	data := a.await(t, protocol.TypeError, nil)
	assert.Contains(t, string(data), protocol.CodeWrongRoom)
	assert.Empty(t, a.closed, "closed after a refused leave")
	require.NoError(t, r.Message(ctx, "p_a", a, &protocol.Msg{Type: protocol.TypeLeave}, time.Now()))
	select {
	case why := <-a.closed:
		assert.Equal(t, room.CloseLeft, why)
	case <-time.After(5 * time.Second):
		t.Fatal("a leave did not close the connection")
	}
}

// A replaced connection's late messages do not act for the player.
func TestReplacedConnectionIsIgnored(t *testing.T) {
	reg, _, _ := registry(t, room.RegistryConfig{})
	ctx := context.Background()
	r, cs := live(t, reg, room.ModeCoop, "p_a")
	a, a2 := cs[0], newConn()
	require.NoError(t, r.Attach(ctx, room.Join{ID: "p_a", Name: "Ann"}, a2))
	assert.Equal(t, room.CloseReplaced, <-a.closed)
	require.NoError(t, r.Message(ctx, "p_a", a, &protocol.Msg{Type: protocol.TypeStart}, time.Now()))
	require.NoError(t, r.Message(ctx, "p_a", a2, &protocol.Msg{Type: protocol.TypePing, ID: []byte(`"x"`)}, time.Now()))
	a2.await(t, protocol.TypePong, nil)
	snap, err := r.Snapshot(ctx)
	require.NoError(t, err)
	assert.Equal(t, protocol.PhaseWaiting, snap.Phase, "the old tab's start did nothing")
}

// After a restart, a room whose rematch had begun comes back as its latest
// round, and a bad row does not keep the others from coming back.
func TestRestoreBringsBackTheLatestRound(t *testing.T) {
	reg, st, clock := registry(t, room.RegistryConfig{})
	ctx := context.Background()
	now := clock.Now()
	var rounds []*room.Saved
	for round := 1; round <= 2; round++ {
		pz, err := st.NewGame(ctx, "r00m", room.GameID("r00m", round), room.ModeRace, "easy")
		require.NoError(t, err)
		g, err := room.NewGame(room.Config{}, "r00m", room.ModeRace, pz, now)
		require.NoError(t, err)
		_, _, jerr := g.Join(now, "p_a", "Ann", false, 0)
		require.Nil(t, jerr)
		s := g.Save(now)
		s.Round = round
		require.NoError(t, st.SaveRoom(ctx, s))
		rounds = append(rounds, s)
	}
	bad := *rounds[0]
	bad.ID, bad.Phase = "b4d", "sideways"
	require.NoError(t, st.SaveRoom(ctx, &bad))

	n, err := reg.Restore(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	r, err := reg.Get("r00m")
	require.NoError(t, err)
	snap, err := r.Snapshot(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, snap.Round)
	_, err = reg.Get("b4d")
	assert.ErrorIs(t, err, room.ErrNotFound)
}

// A store that fails makes Create fail, with the store's error, and leaves
// no room behind.
func TestCreateReportsTheStoresFailure(t *testing.T) {
	reg, st, _ := registry(t, room.RegistryConfig{})
	down := errors.New("database down")
	st.Fail(down)
	_, err := reg.Create(context.Background(), room.ModeRace, "easy")
	assert.ErrorIs(t, err, down)
	assert.Zero(t, reg.Stats().Rooms)
}

// The registry holds at most MaxRooms live rooms: Create refuses with
// ErrFull beyond them, a Create that failed gives its place back, and a
// room that ends makes place for another.
func TestCreateStopsAtMaxRooms(t *testing.T) {
	const idle = time.Minute
	reg, st, clock := registry(t, room.RegistryConfig{MaxRooms: 2, IdleTimeout: idle})
	ctx := context.Background()
	r1, err := reg.Create(ctx, room.ModeRace, "easy")
	require.NoError(t, err)
	down := errors.New("database down")
	st.Fail(down)
	_, err = reg.Create(ctx, room.ModeCoop, "easy")
	require.ErrorIs(t, err, down)
	st.Fail(nil)
	r2, err := reg.Create(ctx, room.ModeCoop, "easy")
	require.NoError(t, err, "the failed Create gave its place back")

	_, err = reg.Create(ctx, room.ModeRace, "easy")
	assert.ErrorIs(t, err, room.ErrFull)
	assert.Equal(t, 2, reg.Stats().Rooms)

	// Nobody joined: both rooms end as idle.
	settle(t, r1)
	settle(t, r2)
	clock.Advance(idle)
	for _, r := range []*room.Room{r1, r2} {
		select {
		case <-r.Done():
		case <-time.After(5 * time.Second):
			t.Fatal("the idle room did not end")
		}
	}
	require.Eventually(t, func() bool { return reg.Stats().Rooms == 0 }, 5*time.Second, time.Millisecond)
	_, err = reg.Create(ctx, room.ModeRace, "easy")
	assert.NoError(t, err, "an ended room made place")
}

// startRace starts the room (its host is the first of cs) and waits out the
// countdown.
func startRace(t *testing.T, r *room.Room, clock *roomtest.Clock, host *conn, hostID string) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, r.Message(ctx, hostID, host, &protocol.Msg{Type: protocol.TypeStart}, time.Now()))
	settle(t, r)
	clock.Advance(room.DefaultConfig().Countdown)
	snap, err := r.Snapshot(ctx)
	require.NoError(t, err)
	require.Equal(t, protocol.PhaseRunning, snap.Phase)
}

// solve fills every blank cell of the player's board with the solution's
// digit, skipping the first skip of them.
func solve(t *testing.T, r *room.Room, pz room.Puzzle, id string, c *conn, skip int) {
	t.Helper()
	for cell, g := range pz.Givens {
		if g != 0 {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		cell, d := cell, int(pz.Solution[cell])
		require.NoError(t, r.Message(context.Background(), id, c, &protocol.Msg{Type: protocol.TypeMove, Cell: &cell, Digit: &d}, time.Now()))
	}
	settle(t, r)
}

func finishOf(player string) func([]byte) bool {
	return func(data []byte) bool {
		var f protocol.FinishEvent
		return json.Unmarshal(data, &f) == nil && f.Player == player
	}
}

// While the database is away a racer's finish waits, unannounced, and is
// retried while the others race on; once the database is back it is stored
// once and only then announced. Meanwhile no new room is made past the
// bound on waiting results.
func TestFinishWaitsForTheDatabaseAndIsAnnouncedOnceStored(t *testing.T) {
	reg, st, clock := registry(t, room.RegistryConfig{MaxResultsWaiting: 1})
	ctx := context.Background()
	r, cs := live(t, reg, room.ModeRace, "p_a", "p_b")
	a, b := cs[0], cs[1]
	startRace(t, r, clock, a, "p_a")
	pz, ok := st.Puzzle(r.ID())
	require.True(t, ok)

	down := errors.New("database down")
	st.Fail(down)
	solve(t, r, pz, "p_a", a, 0)
	require.Eventually(t, func() bool { return reg.Stats().ResultsWaiting == 1 }, 5*time.Second, time.Millisecond)
	for range 5 {
		clock.Advance(time.Second) // a few retries, all failing
	}
	settle(t, r)

	// b plays on; nobody has heard of a's finish, and nothing is stored.
	solve(t, r, pz, "p_b", b, 3)
	assert.Empty(t, st.Results())
	for _, c := range cs {
		c.mu.Lock()
		for _, f := range c.frames {
			assert.NotEqual(t, protocol.TypeFinish, f.Type, "a finish is told only once stored")
		}
		c.mu.Unlock()
	}
	stats := reg.Stats()
	assert.Equal(t, 1, stats.ResultsWaiting)
	assert.False(t, stats.ResultsWaitingSince.IsZero())
	assert.Equal(t, 1, stats.MaxResultsWaiting)
	st.Fail(nil)
	_, err := reg.Create(ctx, room.ModeRace, "easy")
	assert.ErrorIs(t, err, room.ErrBusy, "no new room while the results wait at their bound")

	// The database is back: the next retry stores the finish, once.
	require.Eventually(t, func() bool {
		clock.Advance(time.Second)
		return len(st.Results()) == 1
	}, 5*time.Second, time.Millisecond)
	a.await(t, protocol.TypeFinish, finishOf("p_a"))
	b.await(t, protocol.TypeFinish, finishOf("p_a"))
	res := st.Results()
	assert.Equal(t, "p_a", res[0].PlayerID)
	assert.Equal(t, 1, res[0].Rank)
	require.Eventually(t, func() bool { return reg.Stats().ResultsWaiting == 0 }, 5*time.Second, time.Millisecond)
	assert.True(t, reg.Stats().ResultsWaitingSince.IsZero())
	_, err = reg.Create(ctx, room.ModeRace, "easy")
	assert.NoError(t, err)
}

// A finish the store refuses because another server has taken the room
// over (ErrMoved) is neither retried nor announced: what a room announces
// is stored, and the room's players finish on its new server.
func TestFinishOfAMovedRoomIsNotAnnounced(t *testing.T) {
	reg, st, clock := registry(t, room.RegistryConfig{})
	r, cs := live(t, reg, room.ModeRace, "p_a", "p_b")
	a, b := cs[0], cs[1]
	startRace(t, r, clock, a, "p_a")
	pz, ok := st.Puzzle(r.ID())
	require.True(t, ok)

	st.Fail(fmt.Errorf("save finish: %w", room.ErrMoved))
	solve(t, r, pz, "p_a", a, 0)
	require.Eventually(t, func() bool { return reg.Stats().ResultsWaiting == 0 }, 5*time.Second, time.Millisecond,
		"not retried")
	st.Fail(nil)
	for range 5 {
		clock.Advance(time.Minute)
	}
	settle(t, r)
	assert.Empty(t, st.Results())
	for _, c := range []*conn{a, b} {
		c.mu.Lock()
		for _, f := range c.frames {
			assert.NotEqual(t, protocol.TypeFinish, f.Type, "a finish is told only once stored")
		}
		c.mu.Unlock()
	}
}

// A state saved while a finish was not yet stored (the server was killed,
// or stopped during a database outage) brings the finish back: the
// restored room stores it, once, and only then announces it.
func TestRestoreStoresAFinishThatWasNotStored(t *testing.T) {
	reg, st, clock := registry(t, room.RegistryConfig{})
	ctx := context.Background()
	now := clock.Now()
	for _, mode := range []string{room.ModeRace, room.ModeCoop} {
		t.Run(mode, func(t *testing.T) {
			id := "r00m" + mode
			pz, err := st.NewGame(ctx, id, id, mode, "easy")
			require.NoError(t, err)
			g, err := room.NewGame(room.Config{}, id, mode, pz, now)
			require.NoError(t, err)
			check := room.CheckReplay(t, g, now)
			for _, p := range []string{"p_a", "p_b"} {
				_, _, jerr := g.Join(now, p, "Name "+p, false, 0)
				require.Nil(t, jerr)
			}
			require.Nil(t, g.Handle(now, "p_a", &protocol.Msg{Type: protocol.TypeStart}))
			started := now.Add(room.DefaultConfig().Countdown)
			g.Tick(started)
			solvedAt := started.Add(90 * time.Second)
			for cell, d := range pz.Givens {
				if d == 0 {
					cell, digit := cell, int(pz.Solution[cell])
					require.Nil(t, g.Handle(solvedAt, "p_a", &protocol.Msg{Type: protocol.TypeMove, Cell: &cell, Digit: &digit}))
				}
			}
			_, effects := g.Drain()
			check.Step(g, effects, solvedAt)
			var finish []room.Result
			for _, e := range effects {
				finish = append(finish, e.Results...)
			}
			require.NotEmpty(t, finish, "the finish asks to be stored")
			// The store never took it; the state was saved meanwhile.
			s := g.Save(solvedAt)
			require.True(t, s.Unstored())
			require.NoError(t, st.SaveRoom(ctx, s))

			_, err = reg.Restore(ctx)
			require.NoError(t, err)
			_, err = reg.Get(id)
			require.NoError(t, err, "a room with a finish to store comes back, finished or not")
			var mine []room.Result
			require.Eventually(t, func() bool {
				mine = nil
				for _, r := range st.Results() {
					if r.GameID == id {
						mine = append(mine, r)
					}
				}
				return len(mine) == len(finish)
			}, 5*time.Second, time.Millisecond)
			assert.Equal(t, "p_a", mine[0].PlayerID)
			assert.Equal(t, 1, mine[0].Rank)
			assert.Equal(t, 90*time.Second, mine[0].Elapsed)
			assert.True(t, solvedAt.Equal(mine[0].FinishedAt), "finished when it was, not when restored")
			require.Eventually(t, func() bool {
				for _, e := range st.Events(id) {
					if e.Type == protocol.TypeFinish {
						return true
					}
				}
				return false
			}, 5*time.Second, time.Millisecond, "announced once stored: %v", st.Events(id))
			require.Eventually(t, func() bool { return !st.Saved(id).Unstored() }, 5*time.Second, time.Millisecond)
		})
	}
}

// A room that dies without its final save (a crash) comes back with what
// happened since its last save: the registry replays the recorded events,
// which hold each event in full (a racer's mistakes too), onto it.
func TestRestoreAfterACrashReplaysTheEvents(t *testing.T) {
	reg, st, clock := registry(t, room.RegistryConfig{})
	ctx := context.Background()
	r, cs := live(t, reg, room.ModeRace, "p_a", "p_b")
	require.NoError(t, r.Message(ctx, "p_a", cs[0], &protocol.Msg{Type: protocol.TypeStart}, clock.Now()))
	settle(t, r)
	clock.Advance(room.DefaultConfig().Countdown)
	cs[0].await(t, protocol.TypeState, func(data []byte) bool { return bytes.Contains(data, []byte(`"phase":"running"`)) })
	require.Eventually(t, func() bool { s := st.Saved(r.ID()); return s != nil && s.Phase == protocol.PhaseRunning }, 5*time.Second, time.Millisecond)
	savedSeq := st.Saved(r.ID()).Seq

	pz, ok := st.Puzzle(r.ID())
	require.True(t, ok)
	cell, digit := -1, 0
	for c := range pz.Givens {
		for d := uint8(1); cell < 0 && pz.Givens[c] == 0 && d <= 9; d++ {
			if d != pz.Solution[c] && pz.Givens.Conflicts(c, d).Empty() {
				cell, digit = c, int(d)
			}
		}
	}
	require.GreaterOrEqual(t, cell, 0)
	require.NoError(t, r.Message(ctx, "p_a", cs[0], &protocol.Msg{Type: protocol.TypeMove, Cell: &cell, Digit: &digit}, clock.Now()))
	sent := cs[0].await(t, protocol.TypeProgress, nil)
	assert.NotContains(t, string(sent), "mistakes", "a racer is not told")
	var stored protocol.ProgressEvent
	for _, rec := range st.Events(r.ID()) {
		if rec.Type == protocol.TypeProgress {
			require.NoError(t, json.Unmarshal(rec.Data, &stored))
		}
	}
	require.NotNil(t, stored.Mistakes, "the record holds the truth")
	assert.Equal(t, 1, *stored.Mistakes)
	assert.Equal(t, savedSeq, st.Saved(r.ID()).Seq, "the move is in no saved state")

	// Another process, on the same store, after the first died.
	again := room.NewRegistry(room.RegistryConfig{Clock: clock}, st)
	t.Cleanup(func() { _ = again.Shutdown(context.Background()) })
	n, err := again.Restore(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	back, err := again.Get(r.ID())
	require.NoError(t, err)
	snap, err := back.Snapshot(ctx)
	require.NoError(t, err)
	assert.Equal(t, protocol.PhaseRunning, snap.Phase)
	require.Len(t, snap.Players, 2)
	assert.Equal(t, 1, snap.Players[0].Moves)
	assert.Equal(t, 1, snap.Players[0].Filled)
	assert.Nil(t, snap.Players[0].Mistakes, "still not told")
	a := newConn()
	require.NoError(t, back.Attach(ctx, room.Join{ID: "p_a", Name: "Name p_a"}, a))
	var w protocol.Welcome
	require.NoError(t, json.Unmarshal(a.await(t, protocol.TypeWelcome, nil), &w))
	require.NotNil(t, w.Room)
	assert.Equal(t, byte('0'+digit), w.Room.Board[cell], "the move is back on the racer's board")

	// It dies again: what came after the first restart is back too, past
	// the gap in numbering that restart made.
	next := slices.IndexFunc(pz.Givens[:], func(v uint8) bool { return v == 0 })
	if next == cell {
		next = slices.IndexFunc(pz.Givens[cell+1:], func(v uint8) bool { return v == 0 }) + cell + 1
	}
	right := int(pz.Solution[next])
	require.NoError(t, back.Message(ctx, "p_a", a, &protocol.Msg{Type: protocol.TypeMove, Cell: &next, Digit: &right}, clock.Now()))
	a.await(t, protocol.TypeMove, func(data []byte) bool { return bytes.Contains(data, []byte(fmt.Sprintf(`"cell":%d,`, next))) })
	require.Eventually(t, func() bool { return st.Saved(r.ID()).Seq > savedSeq+1000 }, 5*time.Second, time.Millisecond,
		"a room brought back past a gap is saved at once")
	third := room.NewRegistry(room.RegistryConfig{Clock: clock}, st)
	t.Cleanup(func() { _ = third.Shutdown(context.Background()) })
	_, err = third.Restore(ctx)
	require.NoError(t, err)
	last, err := third.Get(r.ID())
	require.NoError(t, err)
	snap, err = last.Snapshot(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, snap.Players[0].Moves, "both moves are back")
}

// A finished game whose room lived on comes back after a restart; a room
// that ended, or a round a rematch replaced, does not.
func TestRestoreBringsBackAFinishedRoomThatLives(t *testing.T) {
	reg, st, clock := registry(t, room.RegistryConfig{})
	ctx := context.Background()
	now := clock.Now()
	for _, id := range []string{"l1ve", "end3d", "r3match"} {
		pz, err := st.NewGame(ctx, id, id, room.ModeCoop, "easy")
		require.NoError(t, err)
		g, err := room.NewGame(room.Config{}, id, room.ModeCoop, pz, now)
		require.NoError(t, err)
		check := room.CheckReplay(t, g, now)
		_, _, jerr := g.Join(now, "p_a", "Ann", false, 0)
		require.Nil(t, jerr)
		require.Nil(t, g.Handle(now, "p_a", &protocol.Msg{Type: protocol.TypeStart}))
		g.Tick(now.Add(time.Hour))
		for cell, d := range pz.Givens {
			if d == 0 {
				cell, digit := cell, int(pz.Solution[cell])
				require.Nil(t, g.Handle(now.Add(time.Hour), "p_a", &protocol.Msg{Type: protocol.TypeMove, Cell: &cell, Digit: &digit}))
			}
		}
		_, effects := g.Drain()
		check.Step(g, effects, now.Add(time.Hour))
		g.ResultsSaved(now.Add(time.Hour), effects[len(effects)-1].Results)
		require.Equal(t, protocol.PhaseFinished, g.Phase())
		if id == "r3match" {
			require.Nil(t, g.Handle(now.Add(time.Hour), "p_a", &protocol.Msg{Type: protocol.TypeRematch}))
		}
		_, effects = g.Drain()
		check.Step(g, effects, now.Add(time.Hour))
		s := g.Save(now)
		s.Final = true
		s.Ended = s.Ended || id == "end3d"
		require.NoError(t, st.SaveRoom(ctx, s))
	}
	n, err := reg.Restore(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	r, err := reg.Get("l1ve")
	require.NoError(t, err)
	snap, err := r.Snapshot(ctx)
	require.NoError(t, err)
	assert.Equal(t, protocol.PhaseFinished, snap.Phase)
	assert.Len(t, snap.Players, 1)
	for _, id := range []string{"end3d", "r3match"} {
		_, err = reg.Get(id)
		assert.ErrorIs(t, err, room.ErrNotFound, id)
	}
}

// holdingConn is a conn that can hold its frames (a room.Holder), and
// notes its holds and releases among them.
type holdingConn struct {
	*conn
	log []string // guarded by conn.mu
}

func (h *holdingConn) Send(f room.Frame) bool {
	h.mu.Lock()
	h.log = append(h.log, f.Type)
	h.mu.Unlock()
	return h.conn.Send(f)
}

func (h *holdingConn) Hold() {
	h.mu.Lock()
	h.log = append(h.log, "hold")
	h.mu.Unlock()
}

func (h *holdingConn) Release() {
	h.mu.Lock()
	h.log = append(h.log, "release")
	h.mu.Unlock()
}

// What one flush sends a member who can hold frames (a move and the
// progress it makes) is sent between a hold and a release, so that it
// goes out in one write; a lone frame is not held.
func TestAFlushsFramesAreHeldTogether(t *testing.T) {
	reg, st, clock := registry(t, room.RegistryConfig{})
	ctx := context.Background()
	r, cs := live(t, reg, room.ModeRace, "p_a")
	h := &holdingConn{conn: newConn()}
	require.NoError(t, r.Attach(ctx, room.Join{ID: "p_b", Name: "Bob"}, h))
	startRace(t, r, clock, cs[0], "p_a")
	pz, ok := st.Puzzle(r.ID())
	require.True(t, ok)

	cell := 0
	for pz.Givens[cell] != 0 {
		cell++
	}
	digit := int(pz.Solution[cell])
	h.mu.Lock()
	h.log = nil
	h.mu.Unlock()
	require.NoError(t, r.Message(ctx, "p_b", h, &protocol.Msg{Type: protocol.TypeMove, Cell: &cell, Digit: &digit}, clock.Now()))
	settle(t, r)
	require.NoError(t, r.Message(ctx, "p_b", h, &protocol.Msg{Type: protocol.TypePing}, clock.Now()))
	settle(t, r)
	h.mu.Lock()
	defer h.mu.Unlock()
	assert.Equal(t, []string{"hold", protocol.TypeMove, protocol.TypeProgress, "release", protocol.TypePong}, h.log)
}

// A room made for a group starts by itself on the room's own clock: the
// registry's timer fires at the end of the wait with one of two in.
func TestCreateGroupStartsOnItsClock(t *testing.T) {
	reg, _, clock := registry(t, room.RegistryConfig{Game: room.Config{GroupWait: 10 * time.Second}})
	ctx := context.Background()
	_, err := reg.CreateGroup(ctx, room.ModeRace, "easy", room.Group{})
	require.Error(t, err, "a group of nobody")
	r, err := reg.CreateGroup(ctx, room.ModeRace, "easy", room.Group{Players: []string{"p_a", "p_b"}})
	require.NoError(t, err)
	snap, err := r.Snapshot(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"p_a", "p_b"}, snap.Roster)
	require.NotNil(t, snap.StartsBy)
	assert.Equal(t, clock.Now().Add(10*time.Second), *snap.StartsBy)
	var refused *protocol.Error
	require.ErrorAs(t, r.Admits(ctx, "", false), &refused, "a newcomer not made yet is nobody of the group")
	assert.Equal(t, protocol.CodeNotInvited, refused.Code)

	a := newConn()
	require.NoError(t, r.Attach(ctx, room.Join{ID: "p_a", Name: "Ann"}, a))
	settle(t, r)
	clock.Advance(10 * time.Second)
	a.await(t, protocol.TypeCountdown, nil)
	clock.Advance(room.DefaultConfig().Countdown)
	a.await(t, protocol.TypeState, func(data []byte) bool { return bytes.Contains(data, []byte(`"phase":"running"`)) })
	b := newConn()
	require.NoError(t, r.Attach(ctx, room.Join{ID: "p_b", Name: "Bob"}, b), "a player of the group joins late")
	welcome := b.await(t, protocol.TypeWelcome, nil)
	assert.Contains(t, string(welcome), `"role":"player"`)
}
