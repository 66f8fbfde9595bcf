package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/internal/wire"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/sqlite"
	"github.com/sudoku-arena/arena/web"
)

// env is a real server over the real embedded store, on a loopback port.
type env struct {
	tb     testing.TB
	store  store.Store
	events *store.EventLog
	rooms  *room.Registry
	srv    *server.Server
	http   *httptest.Server
	once   sync.Once
}

type envOption func(*server.Config)

// newEnv starts a server. The rules' timings are short so that tests run
// fast; the rate limit is high unless an option lowers it.
func newEnv(tb testing.TB, opts ...envOption) *env {
	tb.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(tb.TempDir(), "arena.db"))
	require.NoError(tb, err)
	return newEnvOn(tb, st, opts...)
}

// newEnvOn starts a server over st (which it closes at the end).
func newEnvOn(tb testing.TB, st store.Store, opts ...envOption) *env {
	tb.Helper()
	return newEnvListening(tb, st, nil, opts...)
}

// newEnvListening starts a server over st whose listener is wrap's (when
// set), for tests that shape the server's sockets.
func newEnvListening(tb testing.TB, st store.Store, wrap func(net.Listener) net.Listener, opts ...envOption) *env {
	tb.Helper()
	logger := slog.New(slog.NewTextHandler(tbWriter{tb}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cfg := server.Config{RateLimit: 1000, RateBurst: 1000}
	cfg.Rooms.Game = room.Config{Countdown: 20 * time.Millisecond, HintPenalty: 300 * time.Millisecond, ReconnectWindow: 5 * time.Second}
	cfg.Rooms.Logger = logger
	for _, o := range opts {
		o(&cfg)
	}
	cfg = cfg.WithDefaults()
	events := store.NewEventLog(st, store.EventLogOptions{Interval: 5 * time.Millisecond, Logger: logger})
	pool := &store.PuzzlePool{Store: st, Make: wire.MakePuzzle, Levels: room.Levels, Stock: 1, Logger: logger}
	be := &wire.Backend{Store: st, Pool: pool, Events: events, Logger: logger}
	rooms := room.NewRegistry(cfg.Rooms, be)
	_, err := rooms.Restore(context.Background())
	require.NoError(tb, err)
	srv := server.New(cfg, rooms, be, web.FS(), logger)
	hs := httptest.NewUnstartedServer(srv.Handler())
	if wrap != nil {
		hs.Listener = wrap(hs.Listener)
	}
	hs.Start()
	e := &env{tb: tb, store: st, events: events, rooms: rooms, srv: srv, http: hs}
	tb.Cleanup(e.stop)
	return e
}

// stop shuts the server down in the order serve does; it is safe to call
// twice.
func (e *env) stop() { e.once.Do(e.shutdown) }

func (e *env) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	e.srv.CloseConns(false)
	_ = e.rooms.Shutdown(ctx)
	e.srv.CloseConns(true)
	e.http.Close()
	_ = e.events.Close(ctx)
	_ = e.store.Close()
}

type tbWriter struct{ tb testing.TB }

func (w tbWriter) Write(p []byte) (int, error) {
	w.tb.Logf("%s", bytes.TrimRight(p, "\n"))
	return len(p), nil
}

// createRoom makes a room through the API and returns its id.
func (e *env) createRoom(mode, level string) string {
	e.tb.Helper()
	body := fmt.Sprintf(`{"mode":%q,"level":%q}`, mode, level)
	resp, err := http.Post(e.http.URL+"/api/rooms", "application/json", strings.NewReader(body))
	require.NoError(e.tb, err)
	defer resp.Body.Close()
	require.Equal(e.tb, http.StatusCreated, resp.StatusCode)
	var out server.CreateRoomResponse
	require.NoError(e.tb, json.NewDecoder(resp.Body).Decode(&out))
	require.Equal(e.tb, e.http.URL+"/r/"+out.ID, out.URL)
	return out.ID
}

// solution is the room's current round's solution, read from the store as
// no client could.
func (e *env) solution(roomID string, round int) engine.Grid {
	e.tb.Helper()
	ctx := context.Background()
	r, err := e.store.Room(ctx, room.GameID(roomID, round))
	require.NoError(e.tb, err)
	pz, err := e.store.Puzzle(ctx, r.PuzzleID)
	require.NoError(e.tb, err)
	return engine.MustParse(pz.Solution)
}

// client is one WebSocket client with what it has read.
type client struct {
	tb    testing.TB
	name  string
	ws    *websocket.Conn
	seen  []frame
	token string
	id    string
	// lastSeq is the highest seq of a logged event read so far.
	lastSeq int64
}

type frame struct {
	Type string `json:"type"`
	Seq  int64  `json:"seq"`
	raw  []byte
}

// wsURL is the server's WebSocket endpoint.
func (e *env) wsURL() string { return "ws" + strings.TrimPrefix(e.http.URL, "http") + "/ws" }

func (e *env) dial(name string) *client { return e.dialWith(name, nil) }

// dialWith dials with opts (nil for the defaults).
func (e *env) dialWith(name string, opts *websocket.DialOptions) *client {
	e.tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, e.wsURL(), opts)
	require.NoError(e.tb, err)
	ws.SetReadLimit(1 << 20)
	c := &client{tb: e.tb, name: name, ws: ws}
	e.tb.Cleanup(func() { _ = ws.CloseNow() })
	return c
}

func (c *client) send(v any) {
	c.tb.Helper()
	data, err := json.Marshal(v)
	require.NoError(c.tb, err)
	c.sendRaw(data)
}

func (c *client) sendRaw(data []byte) {
	c.tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(c.tb, c.ws.Write(ctx, websocket.MessageText, data), "%s: write", c.name)
}

// read is the next frame, failing the test after 5 seconds.
func (c *client) read() frame {
	c.tb.Helper()
	f, err := c.tryRead(5 * time.Second)
	require.NoError(c.tb, err, "%s: read", c.name)
	return f
}

func (c *client) tryRead(d time.Duration) (frame, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	_, data, err := c.ws.Read(ctx)
	if err != nil {
		return frame{}, err
	}
	var f frame
	if err := json.Unmarshal(data, &f); err != nil {
		return frame{}, fmt.Errorf("%s: bad frame %s: %w", c.name, data, err)
	}
	f.raw = data
	c.seen = append(c.seen, f)
	if f.Type != room.TypeError && f.Type != room.TypePong && f.Type != room.TypeCursor && f.Type != room.TypeWelcome && f.Seq > c.lastSeq {
		c.lastSeq = f.Seq
	}
	return f, nil
}

// await reads until a frame of the type for which match (if any) holds,
// and returns it decoded into T.
func await[T any](c *client, typ string, match func(*T) bool) *T {
	c.tb.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		f := c.read()
		if f.Type != typ {
			continue
		}
		v := new(T)
		require.NoError(c.tb, json.Unmarshal(f.raw, v))
		if match == nil || match(v) {
			return v
		}
	}
	c.tb.Fatalf("%s: no %s event matched within 5s; saw %s", c.name, typ, c.summary())
	return nil
}

func (c *client) summary() string {
	var types []string
	for _, f := range c.seen {
		types = append(types, f.Type)
	}
	return strings.Join(types, ",")
}

// join joins the room as a player and returns the welcome.
func (c *client) join(roomID string) *room.Welcome {
	c.tb.Helper()
	c.send(map[string]any{"type": "join", "room": roomID, "name": c.name})
	w := await[room.Welcome](c, room.TypeWelcome, nil)
	require.NotEmpty(c.tb, w.You.Token)
	c.token, c.id = w.You.Token, w.You.ID
	return w
}

func (c *client) move(cell int, digit uint8) {
	c.tb.Helper()
	c.send(map[string]any{"type": "move", "cell": cell, "digit": digit})
}

// awaitError reads until an error with the code.
func (c *client) awaitError(code string) *room.ErrorEvent {
	c.tb.Helper()
	return await(c, room.TypeError, func(e *room.ErrorEvent) bool { return e.Code == code })
}

// closeStatus waits for the server to close the connection and returns the
// close code and reason.
func (c *client) closeStatus() (websocket.StatusCode, string) {
	c.tb.Helper()
	for {
		_, err := c.tryRead(5 * time.Second)
		if err == nil {
			continue
		}
		var ce websocket.CloseError
		if errors.As(err, &ce) {
			return ce.Code, ce.Reason
		}
		c.tb.Fatalf("%s: want a close, got %v", c.name, err)
	}
}
