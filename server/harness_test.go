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
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/protocol/protocoltest"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/room/roomtest"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/web"
)

// env is a real server, on a loopback port, over storage kept in memory.
type env struct {
	tb    testing.TB
	kept  *kept
	rooms *room.Registry
	srv   *server.Server
	http  *httptest.Server
	once  sync.Once
}

type envOption func(*server.Config)

// kept is what a server keeps between runs, in memory: the rooms' store
// and the players. A test that restarts the server starts the second one
// on the first one's kept. The real store is tested with the real wiring
// in cmd/arena, and its adapter in store and daily.
type kept struct {
	rooms   *roomtest.Store
	players *players
	// forgotten holds the game ids whose events the retention deleted.
	forgotten sync.Map
	// replayWrap, when set, is what the server reads replays through,
	// given the kept rooms' replays.
	replayWrap func(server.Replays) server.Replays
}

func newKept() *kept { return &kept{rooms: roomtest.NewStore(), players: newPlayers()} }

// players is a server.Players in memory, whose database can go down.
type players struct {
	mu      sync.Mutex
	byToken map[string][2]string // token hash → id, name
	down    error
}

func newPlayers() *players { return &players{byToken: map[string][2]string{}} }

func (p *players) CreatePlayer(ctx context.Context, id, name string, tokenHash []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down != nil {
		return p.down
	}
	p.byToken[string(tokenHash)] = [2]string{id, name}
	return nil
}

func (p *players) PlayerByToken(ctx context.Context, tokenHash []byte) (string, string, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down != nil {
		return "", "", false, p.down
	}
	pl, ok := p.byToken[string(tokenHash)]
	if !ok {
		return "", "", false, room.ErrUnknownPlayer
	}
	return pl[0], pl[1], true, nil
}

// Ping fails once the database is down.
func (p *players) Ping(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.down
}

// goDown makes every call fail from now on, as a database that went away.
func (p *players) goDown() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = errors.New("database closed")
}

// goUp brings the database back.
func (p *players) goUp() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = nil
}

// newEnv starts a server over new, empty storage. The rules' timings are
// short so that tests run fast; the rate limit is high unless an option
// lowers it.
func newEnv(tb testing.TB, opts ...envOption) *env {
	tb.Helper()
	return newEnvOn(tb, newKept(), opts...)
}

// newEnvOn starts a server over k.
func newEnvOn(tb testing.TB, k *kept, opts ...envOption) *env {
	tb.Helper()
	return newEnvListening(tb, k, nil, opts...)
}

// newEnvListening starts a server over k whose listener is wrap's (when
// set), for tests that shape the server's sockets.
func newEnvListening(tb testing.TB, k *kept, wrap func(net.Listener) net.Listener, opts ...envOption) *env {
	tb.Helper()
	logger := slog.New(slog.NewTextHandler(tbWriter{tb}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cfg := server.Config{RateLimit: 1000, RateBurst: 1000}
	cfg.Rooms.Game = room.Config{Countdown: 20 * time.Millisecond, HintPenalty: 300 * time.Millisecond, ReconnectWindow: 5 * time.Second}
	cfg.Rooms.Logger = logger
	for _, o := range opts {
		o(&cfg)
	}
	cfg = cfg.WithDefaults()
	rooms := room.NewRegistry(cfg.Rooms, k.rooms)
	_, err := rooms.Restore(context.Background())
	require.NoError(tb, err)
	srv := server.New(cfg, rooms, k.players, web.FS(), logger)
	srv.SetReplays(k.replays())
	hs := httptest.NewUnstartedServer(srv.Handler())
	hs.Config = srv.HTTPServer() // with serve's timeouts
	if wrap != nil {
		hs.Listener = wrap(hs.Listener)
	}
	hs.Start()
	e := &env{tb: tb, kept: k, rooms: rooms, srv: srv, http: hs}
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
	resp, err := arenatest.Post(e.http.URL+"/api/rooms", "application/json", strings.NewReader(body))
	require.NoError(e.tb, err)
	defer resp.Body.Close()
	require.Equal(e.tb, http.StatusCreated, resp.StatusCode)
	var out server.CreateRoomResponse
	require.NoError(e.tb, json.NewDecoder(resp.Body).Decode(&out))
	require.Equal(e.tb, e.http.URL+"/r/"+out.ID, out.URL)
	require.Equal(e.tb, "/ws?room="+out.ID, out.WS, "the WebSocket's path names the room for a balancer")
	return out.ID
}

// startGame makes an easy room of the mode, has the clients join it in
// turn and the first start it, and waits until each sees play begin. It
// returns the room's id, the givens and the first round's solution.
func (e *env) startGame(mode string, clients ...*client) (id string, givens, sol engine.Grid) {
	e.tb.Helper()
	id = e.createRoom(mode, "easy")
	for _, c := range clients {
		c.join(id)
	}
	clients[0].send(map[string]any{"type": "start"})
	for _, c := range clients {
		givens = awaitRunning(c)
	}
	return id, givens, e.solution(id, 1)
}

// solution is the room's current round's solution, read from the store as
// no client could.
func (e *env) solution(roomID string, round int) engine.Grid {
	e.tb.Helper()
	pz, ok := e.kept.rooms.Puzzle(room.GameID(roomID, round))
	require.True(e.tb, ok, "no puzzle for room %s round %d", roomID, round)
	return pz.Solution
}

// results are the results stored for the player.
func (e *env) results(playerID string) []room.Result {
	var out []room.Result
	for _, r := range e.kept.rooms.Results() {
		if r.PlayerID == playerID {
			out = append(out, r)
		}
	}
	return out
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
	typ, data, err := c.ws.Read(ctx)
	if err != nil {
		return frame{}, err
	}
	// Every frame is one a browser takes: text, valid UTF-8 JSON, "type"
	// first. A frame that is not fails the test that read it, whatever
	// the test was waiting for, so that no echo of a client's bytes can
	// slip through unnoticed.
	bad := protocoltest.ValidFrame(data)
	if typ != websocket.MessageText {
		bad = errors.New("a binary frame")
	}
	if bad != nil {
		c.tb.Errorf("%s: the server sent a bad frame: %v: %q", c.name, bad, data)
		return frame{}, fmt.Errorf("%s: bad frame %q: %w", c.name, data, bad)
	}
	var f frame
	if err := json.Unmarshal(data, &f); err != nil {
		return frame{}, fmt.Errorf("%s: bad frame %s: %w", c.name, data, err)
	}
	f.raw = data
	c.seen = append(c.seen, f)
	if f.Type != protocol.TypeError && f.Type != protocol.TypePong && f.Type != protocol.TypeCursor && f.Type != protocol.TypeWelcome && f.Seq > c.lastSeq {
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
func (c *client) join(roomID string) *protocol.Welcome {
	c.tb.Helper()
	c.send(map[string]any{"type": "join", "room": roomID, "name": c.name})
	w := await[protocol.Welcome](c, protocol.TypeWelcome, nil)
	require.NotEmpty(c.tb, w.You.Token)
	c.token, c.id = w.You.Token, w.You.ID
	return w
}

func (c *client) move(cell int, digit uint8) {
	c.tb.Helper()
	c.send(map[string]any{"type": "move", "cell": cell, "digit": digit})
}

// awaitError reads until an error with the code.
func (c *client) awaitError(code string) *protocol.ErrorEvent {
	c.tb.Helper()
	return await(c, protocol.TypeError, func(e *protocol.ErrorEvent) bool { return e.Code == code })
}

// closeStatus waits for the server to close the connection and returns the
// close code and reason.
func (c *client) closeStatus() (protocol.CloseCode, string) {
	c.tb.Helper()
	for {
		_, err := c.tryRead(5 * time.Second)
		if err == nil {
			continue
		}
		var ce websocket.CloseError
		if errors.As(err, &ce) {
			return protocol.CloseCode(ce.Code), ce.Reason
		}
		c.tb.Fatalf("%s: want a close, got %v", c.name, err)
	}
}

// metrics is the server's metrics page, as its metrics listener
// (METRICS_ADDR) serves it.
func (e *env) metrics() string {
	e.tb.Helper()
	rec := httptest.NewRecorder()
	e.srv.MetricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	require.Equal(e.tb, http.StatusOK, rec.Code)
	return rec.Body.String()
}
