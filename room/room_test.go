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
	pool := &store.PuzzlePool{Store: st, Make: wire.MakePuzzle, Levels: wire.Levels, Stock: 1}
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
	r, err := reg.Create(ctx, room.ModeCoop, "easy")
	require.NoError(t, err)
	a, b := newConn(), newConn()
	require.NoError(t, r.Attach(ctx, room.Join{ID: "p_a", Name: "Ann"}, a))
	require.NoError(t, r.Attach(ctx, room.Join{ID: "p_b", Name: "Bob"}, b))

	b.full.Store(true)
	require.NoError(t, r.Message(ctx, "p_a", &room.Msg{Type: room.TypeStart}, time.Now()))
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
	r, err := reg.Create(ctx, room.ModeRace, "easy")
	require.NoError(t, err)
	a, b := newConn(), newConn()
	require.NoError(t, r.Attach(ctx, room.Join{ID: "p_a", Name: "Ann"}, a))
	require.NoError(t, r.Attach(ctx, room.Join{ID: "p_b", Name: "Bob"}, b))
	r.Detach("p_a", a)
	data := b.await(t, room.TypePresence, presence(room.PresenceLeft, "p_a"))
	var p room.PresenceEvent
	require.NoError(t, json.Unmarshal(data, &p))
	assert.Equal(t, "p_b", p.Host, "the host's role passes on")
	require.NoError(t, r.Message(ctx, "p_b", &room.Msg{Type: room.TypeStart}, time.Now()))
	b.await(t, room.TypeCountdown, nil)
}

func TestIdleRoomEnds(t *testing.T) {
	reg, st := registry(t, room.RegistryConfig{IdleTimeout: 50 * time.Millisecond})
	ctx := context.Background()
	r, err := reg.Create(ctx, room.ModeRace, "easy")
	require.NoError(t, err)
	a := newConn()
	require.NoError(t, r.Attach(ctx, room.Join{ID: "p_a", Name: "Ann"}, a))
	time.Sleep(100 * time.Millisecond)
	_, err = reg.Get(r.ID())
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
