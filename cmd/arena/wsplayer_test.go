package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/store/pgtest"
)

// TestMain lets four parallel tests run at once: the process tests mostly
// wait, on their faults (PostgreSQL stopped, a node paused) and on the
// servers they start. Six (as many as TestChaos has faults) loaded the
// two cores so, beside the browser tests, that the event log's flush ran
// past the SIGKILL bound TestChaos allows (2 moves acknowledged 266 ms
// before a kill were lost). The tests that need a PostgreSQL but do not
// stop it share one (pgtest.Share), each with databases of its own: an
// initdb and a start for each was seconds of a busy machine's time.
func TestMain(m *testing.M) {
	arenatest.Parallel(4)
	stop := pgtest.Share()
	code := arenatest.Main(m)
	stop()
	os.Exit(code)
}

// ack is a move the room acknowledged: the mover got it back with a seq.
type ack struct {
	cell, digit int
	seq         int64
	at          time.Time // when the client read it
}

// wsPlayer is a player of a real server's room over a WebSocket, as a
// third-party client would be: it joins, moves and keeps what the server
// told it. Its methods return errors rather than failing the test, so
// that many run in goroutines of their own.
type wsPlayer struct {
	name, roomID string
	id, token    string
	conn         *websocket.Conn
	welcome      *protocol.Welcome
	lastSeq      int64
	phase        string
	givens       string
	acks         []ack
	finish       *protocol.FinishEvent
	finishAt     time.Time
	// heard counts the finishes this player was told of, theirs or not.
	heard int
}

// frame is a server event's type and seq, with its JSON.
type frame struct {
	Type string `json:"type"`
	Seq  int64  `json:"seq"`
	data []byte
}

// endpoint is a server's base URL and WebSocket address.
type endpoint interface {
	URL() string
	WS() string
}

// unhinted is an endpoint whose players leave the room out of the
// WebSocket's URL (/ws, not /ws?room=ID): a client of a balancer that
// cannot route by room, or one that dropped the hint after a failed try,
// as the web client does every other try.
type unhinted struct{ endpoint }

// dialPlayer joins roomID: as a new player when token is empty, otherwise
// as the player the token names, resuming after lastSeq when it is set.
// The WebSocket's URL names the room, as the web client's does, unless a
// is unhinted.
//
// A join refused with "retry" (a node that cannot be sure just now of
// storing what it takes, as after its lease lapsed on a busy machine) is
// sent again a moment later, as docs/protocol.md tells a client.
func dialPlayer(ctx context.Context, a endpoint, roomID, name, token string, lastSeq int64) (*wsPlayer, error) {
	for {
		p, err := dialWith(ctx, a, roomID, name, token, lastSeq, nil)
		if err == nil || !strings.Contains(err.Error(), `"code":"retry"`) {
			return p, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// dialWith is dialPlayer with the handshake's cookies: a browser's
// session cookie joins as the session's player.
func dialWith(ctx context.Context, a endpoint, roomID, name, token string, lastSeq int64, cookies []*http.Cookie) (*wsPlayer, error) {
	dctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	u := a.WS()
	if _, ok := a.(unhinted); !ok {
		u += "?room=" + url.QueryEscape(roomID)
	}
	header := http.Header{"Origin": {a.URL()}}
	for _, c := range cookies {
		header.Add("Cookie", c.String())
	}
	conn, _, err := websocket.Dial(dctx, u, &websocket.DialOptions{HTTPHeader: header})
	if err != nil {
		return nil, fmt.Errorf("dial %s for %s: %w", u, name, err)
	}
	conn.SetReadLimit(1 << 20)
	p := &wsPlayer{name: name, roomID: roomID, conn: conn, token: token}
	ok := false
	defer func() {
		if !ok {
			conn.CloseNow()
		}
	}()
	join := map[string]any{"type": "join", "room": roomID, "name": name}
	if token != "" {
		join["token"] = token
	}
	if lastSeq > 0 {
		join["last_seq"] = lastSeq
	}
	if err := p.send(ctx, join); err != nil {
		return nil, err
	}
	f, err := p.until(ctx, func(f frame) bool { return f.Type == protocol.TypeWelcome || f.Type == protocol.TypeError })
	if err != nil {
		return nil, err
	}
	if f.Type == protocol.TypeError {
		return nil, fmt.Errorf("%s's join of %s refused: %s", name, roomID, f.data)
	}
	var w protocol.Welcome
	if err := json.Unmarshal(f.data, &w); err != nil {
		return nil, fmt.Errorf("welcome: %w", err)
	}
	p.welcome, p.id = &w, w.You.ID
	if w.You.Token != "" {
		p.token = w.You.Token
	}
	if w.Room != nil {
		p.phase, p.givens = w.Room.Phase, w.Room.Givens
	}
	ok = true
	return p, nil
}

func (p *wsPlayer) send(ctx context.Context, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := p.conn.Write(wctx, websocket.MessageText, data); err != nil {
		return fmt.Errorf("%s: send %s: %w", p.name, data, err)
	}
	return nil
}

// read reads one frame, checks that it is valid UTF-8 JSON with "type"
// first, and notes its seq and what it says of the game.
func (p *wsPlayer) read(ctx context.Context) (frame, error) {
	rctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	_, data, err := p.conn.Read(rctx)
	if err != nil {
		return frame{}, fmt.Errorf("%s: read: %w", p.name, err)
	}
	if !utf8.Valid(data) || !json.Valid(data) || !bytes.HasPrefix(data, []byte(`{"type":`)) {
		return frame{}, fmt.Errorf("%s: a frame that is not UTF-8 JSON with type first: %q", p.name, data)
	}
	f := frame{data: data}
	if err := json.Unmarshal(data, &f); err != nil {
		return frame{}, fmt.Errorf("%s: frame %s: %w", p.name, data, err)
	}
	p.lastSeq = max(p.lastSeq, f.Seq)
	switch f.Type {
	case protocol.TypeState:
		var st protocol.State
		if err := json.Unmarshal(data, &st); err == nil {
			p.phase, p.givens = st.Room.Phase, st.Room.Givens
		}
	case protocol.TypeFinish:
		p.heard++
		var fin protocol.FinishEvent
		if err := json.Unmarshal(data, &fin); err == nil && (fin.Player == "" || fin.Player == p.id) {
			p.finish, p.finishAt = &fin, time.Now()
		}
	}
	return f, nil
}

// until reads frames until one satisfies ok.
func (p *wsPlayer) until(ctx context.Context, ok func(frame) bool) (frame, error) {
	for {
		f, err := p.read(ctx)
		if err != nil {
			return f, err
		}
		if ok(f) {
			return f, nil
		}
	}
}

// running waits for the game to run, and returns its givens.
func (p *wsPlayer) running(ctx context.Context) (engine.Grid, error) {
	if p.phase != protocol.PhaseRunning {
		if _, err := p.until(ctx, func(frame) bool { return p.phase == protocol.PhaseRunning }); err != nil {
			return engine.Grid{}, err
		}
	}
	return engine.Parse(p.givens)
}

// ask sends msg, which carries an "id", and reads until done says the
// room took it or an error answers it (the error is the frame returned).
// One refused with retry, before it was applied, by a node that could not
// be sure just now of storing it, is sent again a moment later, as
// docs/protocol.md tells a client. (An overloaded refusal is the caller's
// to see: the overload test counts them.)
func (p *wsPlayer) ask(ctx context.Context, msg map[string]any, done func(frame) bool) (frame, error) {
	answers := []byte(fmt.Sprintf(`"id":%q`, msg["id"]))
	for {
		if err := p.send(ctx, msg); err != nil {
			return frame{}, err
		}
		f, err := p.until(ctx, func(f frame) bool {
			return done(f) || f.Type == protocol.TypeError && bytes.Contains(f.data, answers)
		})
		if err != nil || f.Type != protocol.TypeError || !bytes.Contains(f.data, []byte(`"code":"retry"`)) {
			return f, err
		}
		select {
		case <-ctx.Done():
			return f, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// move places digit in cell and waits for the room to acknowledge it.
func (p *wsPlayer) move(ctx context.Context, cell, digit int) error {
	id := fmt.Sprintf("m%d-%d", cell, digit)
	f, err := p.ask(ctx, map[string]any{"type": "move", "id": id, "cell": cell, "digit": digit}, func(f frame) bool {
		return f.Type == protocol.TypeMove && bytes.Contains(f.data, []byte(`"id":"`+id+`"`))
	})
	if err != nil {
		return err
	}
	if f.Type == protocol.TypeError {
		return fmt.Errorf("%s: move %d at %d refused: %s", p.name, digit, cell, f.data)
	}
	p.acks = append(p.acks, ack{cell: cell, digit: digit, seq: f.Seq, at: time.Now()})
	return nil
}

// host has the host start the game (typ "start") or a rematch
// ("rematch"), and waits until it sees the phase that follows: running,
// or the rematch's lobby.
func (p *wsPlayer) host(ctx context.Context, typ string) error {
	then := protocol.PhaseRunning
	if typ == protocol.TypeRematch {
		then = protocol.PhaseWaiting
	}
	f, err := p.ask(ctx, map[string]any{"type": typ, "id": typ}, func(frame) bool { return p.phase == then })
	if err == nil && f.Type == protocol.TypeError {
		err = fmt.Errorf("%s: %s refused: %s", p.name, typ, f.data)
	}
	return err
}

// awaitFinish waits for the player's (or the team's) finish.
func (p *wsPlayer) awaitFinish(ctx context.Context) error {
	if p.finish != nil {
		return nil
	}
	_, err := p.until(ctx, func(frame) bool { return p.finish != nil })
	return err
}

func (p *wsPlayer) close() { p.conn.CloseNow() }

// createRoom makes a room of the mode through the API.
func createRoom(a endpoint, mode string) (string, error) {
	for tries := 1; ; tries++ {
		resp, err := arenatest.Post(a.URL()+"/api/rooms", "application/json", strings.NewReader(`{"mode":"`+mode+`","level":"easy"}`))
		if err != nil {
			return "", err
		}
		var created struct {
			ID    string
			Error struct{ Code string }
		}
		err = json.NewDecoder(resp.Body).Decode(&created)
		resp.Body.Close()
		// A node that cannot be sure just now of storing what it takes
		// says retry: a client tries again a moment later.
		if resp.StatusCode == http.StatusServiceUnavailable && created.Error.Code == protocol.CodeRetry && tries < 50 {
			time.Sleep(200 * time.Millisecond)
			continue
		}
		if err != nil || resp.StatusCode != http.StatusCreated {
			return "", fmt.Errorf("POST /api/rooms %s: %d %v", mode, resp.StatusCode, err)
		}
		return created.ID, nil
	}
}

// roomView is GET /api/rooms/{id}, as an outsider sees the room.
func roomView(tb testing.TB, a endpoint, id string) protocol.Snapshot {
	tb.Helper()
	resp, err := arenatest.Get(a.URL() + "/api/rooms/" + id)
	require.NoError(tb, err)
	defer resp.Body.Close()
	require.Equal(tb, http.StatusOK, resp.StatusCode, "GET /api/rooms/%s", id)
	var s protocol.Snapshot
	require.NoError(tb, json.NewDecoder(resp.Body).Decode(&s))
	return s
}

// parallel runs f for each of n in goroutines of their own and returns the
// first error.
func parallel(n int, f func(i int) error) error {
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(i); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}
