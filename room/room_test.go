package room_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/wire"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/sqlite"
)

// registry is a real registry over the real embedded store.
func registry(t *testing.T, cfg room.RegistryConfig) (*room.Registry, store.Store) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "arena.db"))
	require.NoError(t, err)
	events := store.NewEventLog(st, store.EventLogOptions{Interval: 5 * time.Millisecond})
	pool := &store.PuzzlePool{Store: st, Make: wire.MakePuzzle, Levels: room.Levels, Stock: 1}
	reg := room.NewRegistry(cfg, &wire.Backend{Store: st, Pool: pool, Events: events})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		assert.NoError(t, reg.Shutdown(ctx))
		assert.NoError(t, events.Close(ctx))
		st.Close()
	})
	return reg, st
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
		var p room.PresenceEvent
		return json.Unmarshal(data, &p) == nil && p.Status == status && p.Player == player
	}
}

func TestSlowConnectionIsDroppedAndMayResume(t *testing.T) {
	reg, _ := registry(t, room.RegistryConfig{})
	ctx := context.Background()
	r, cs := live(t, reg, room.ModeCoop, "p_a", "p_b")
	a, b := cs[0], cs[1]

	b.full.Store(true)
	require.NoError(t, r.Message(ctx, "p_a", a, &room.Msg{Type: room.TypeStart}, time.Now()))
	a.await(t, room.TypePresence, presence(room.PresenceAway, "p_b"))
	assert.Equal(t, int64(1), reg.Stats().Dropped)
	assert.Equal(t, 1, reg.Stats().Members)

	// Bob comes back on a connection that keeps up, with his place.
	b2 := newConn()
	require.NoError(t, r.Attach(ctx, room.Join{ID: "p_b", Name: "Bob"}, b2))
	w := b2.await(t, room.TypeWelcome, nil)
	var welcome room.Welcome
	require.NoError(t, json.Unmarshal(w, &welcome))
	assert.Equal(t, "p_b", welcome.You.ID)
	assert.Equal(t, room.RolePlayer, welcome.You.Role)
	a.await(t, room.TypePresence, presence(room.PresenceBack, "p_b"))
}

func TestReconnectWindowEndsAndHostPasses(t *testing.T) {
	reg, _ := registry(t, room.RegistryConfig{Game: room.Config{ReconnectWindow: 50 * time.Millisecond}})
	ctx := context.Background()
	r, cs := live(t, reg, room.ModeRace, "p_a", "p_b")
	a, b := cs[0], cs[1]
	r.Detach("p_a", a)
	data := b.await(t, room.TypePresence, presence(room.PresenceLeft, "p_a"))
	var p room.PresenceEvent
	require.NoError(t, json.Unmarshal(data, &p))
	assert.Equal(t, "p_b", p.Host, "the host's role passes on")
	require.NoError(t, r.Message(ctx, "p_b", b, &room.Msg{Type: room.TypeStart}, time.Now()))
	b.await(t, room.TypeCountdown, nil)
}

func TestIdleRoomEnds(t *testing.T) {
	reg, st := registry(t, room.RegistryConfig{IdleTimeout: 50 * time.Millisecond})
	ctx := context.Background()
	r, cs := live(t, reg, room.ModeRace, "p_a")
	a := cs[0]
	time.Sleep(100 * time.Millisecond)
	_, err := reg.Get(r.ID())
	require.NoError(t, err, "a room with someone in it stays")
	r.Detach("p_a", a)
	select {
	case <-r.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the idle room did not end")
	}
	_, err = reg.Get(r.ID())
	assert.ErrorIs(t, err, room.ErrNotFound)
	saved, err := st.Room(ctx, r.ID())
	require.NoError(t, err)
	assert.Equal(t, store.StateFinished, saved.State, "an abandoned room is not brought back")
	assert.Zero(t, reg.Stats().Rooms)
	assert.ErrorIs(t, r.Attach(ctx, room.Join{ID: "p_a", Name: "Ann"}, newConn()), room.ErrClosed)
}

// A room whose last member is dropped as too slow keeps that player's place
// for the reconnect window; it does not end as idle on the spot, however
// old it is.
func TestSlowDropOfTheLastMemberDoesNotEndTheRoom(t *testing.T) {
	reg, _ := registry(t, room.RegistryConfig{IdleTimeout: 300 * time.Millisecond})
	ctx := context.Background()
	r, cs := live(t, reg, room.ModeCoop, "p_a")
	a := cs[0]
	time.Sleep(400 * time.Millisecond) // older than the idle timeout
	a.full.Store(true)
	require.NoError(t, r.Message(ctx, "p_a", a, &room.Msg{Type: room.TypePing}, time.Now()))
	require.Eventually(t, func() bool { return reg.Stats().Dropped == 1 }, 5*time.Second, time.Millisecond)
	time.Sleep(100 * time.Millisecond)
	_, err := reg.Get(r.ID())
	assert.NoError(t, err, "the room waits for its idle timeout from the drop")
	b := newConn()
	require.NoError(t, r.Attach(ctx, room.Join{ID: "p_a", Name: "Ann"}, b))
	b.await(t, room.TypeWelcome, nil)
}

// A leave the room refuses leaves the connection in place.
func TestRefusedLeaveKeepsTheConnection(t *testing.T) {
	reg, _ := registry(t, room.RegistryConfig{})
	ctx := context.Background()
	r, cs := live(t, reg, room.ModeCoop, "p_a")
	a := cs[0]
	require.NoError(t, r.Message(ctx, "p_a", a, &room.Msg{Type: room.TypeLeave, Room: "elsewhere"}, time.Now()))
	data := a.await(t, room.TypeError, nil)
	assert.Contains(t, string(data), room.CodeWrongRoom)
	select {
	case why := <-a.closed:
		t.Fatalf("closed (%d) after a refused leave", why)
	case <-time.After(50 * time.Millisecond):
	}
	require.NoError(t, r.Message(ctx, "p_a", a, &room.Msg{Type: room.TypeLeave}, time.Now()))
	select {
	case why := <-a.closed:
		assert.Equal(t, room.CloseLeft, why)
	case <-time.After(5 * time.Second):
		t.Fatal("a leave did not close the connection")
	}
}

// A replaced connection's late messages do not act for the player.
func TestReplacedConnectionIsIgnored(t *testing.T) {
	reg, _ := registry(t, room.RegistryConfig{})
	ctx := context.Background()
	r, cs := live(t, reg, room.ModeCoop, "p_a")
	a, a2 := cs[0], newConn()
	require.NoError(t, r.Attach(ctx, room.Join{ID: "p_a", Name: "Ann"}, a2))
	assert.Equal(t, room.CloseReplaced, <-a.closed)
	require.NoError(t, r.Message(ctx, "p_a", a, &room.Msg{Type: room.TypeStart}, time.Now()))
	require.NoError(t, r.Message(ctx, "p_a", a2, &room.Msg{Type: room.TypePing, ID: []byte(`"x"`)}, time.Now()))
	a2.await(t, room.TypePong, nil)
	snap, err := r.Snapshot(ctx)
	require.NoError(t, err)
	assert.Equal(t, room.PhaseWaiting, snap.Phase, "the old tab's start did nothing")
}

// After a restart, a room whose rematch had begun comes back as its latest
// round, and a bad row does not keep the others from coming back.
func TestRestoreBringsBackTheLatestRound(t *testing.T) {
	cfg := room.RegistryConfig{}
	reg, st := registry(t, cfg)
	ctx := context.Background()
	be := &wire.Backend{Store: st, Pool: &store.PuzzlePool{Store: st, Make: wire.MakePuzzle, Levels: room.Levels, Stock: 1}}
	now := time.Now()
	var rounds []*room.Saved
	for round := 1; round <= 2; round++ {
		pz, err := be.NewGame(ctx, "r00m", room.GameID("r00m", round), room.ModeRace, "easy")
		require.NoError(t, err)
		g, err := room.NewGame(room.Config{}, "r00m", room.ModeRace, pz, now)
		require.NoError(t, err)
		_, _, jerr := g.Join(now, "p_a", "Ann", false, 0)
		require.Nil(t, jerr)
		s := g.Save(now)
		s.Round = round
		require.NoError(t, be.SaveRoom(ctx, s))
		rounds = append(rounds, s)
	}
	bad := *rounds[0]
	bad.ID, bad.Phase = "b4d", "sideways"
	_, err := be.NewGame(ctx, "b4d", "b4d", room.ModeRace, "easy")
	require.NoError(t, err)
	require.NoError(t, be.SaveRoom(ctx, &bad))

	n, err := reg.Restore(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	r, err := reg.Get("r00m")
	require.NoError(t, err)
	snap, err := r.Snapshot(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, snap.Round)
}
