package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/server"
)

// ping sends a ping and returns the pong's seq: the room's latest event.
func (c *client) ping() int64 {
	c.tb.Helper()
	c.send(map[string]any{"type": "ping", "id": "p"})
	return await(c, protocol.TypePong, func(p *protocol.Pong) bool { return string(p.ID) == `"p"` }).Seq
}

// refused sends a raw frame, expects an error with the code that echoes id
// (a JSON value, "" for none), and checks that nothing changed: no event was
// logged (the room's seq stands) and no other event arrived in between.
func refused(t *testing.T, c *client, frame, code, id string) {
	t.Helper()
	before := c.ping()
	seen := len(c.seen)
	c.sendRaw([]byte(frame))
	f := c.read()
	require.Equal(t, protocol.TypeError, f.Type, "%q: want an error, got %s", frame, f.raw)
	var e protocol.ErrorEvent
	require.NoError(t, json.Unmarshal(f.raw, &e))
	assert.Equal(t, code, e.Code, "%q: %s", frame, e.Message)
	assert.NotEmpty(t, e.Message)
	assertID(t, id, e.ID, frame)
	assert.Equal(t, before, c.ping(), "%q changed the room", frame)
	assert.Len(t, c.seen, seen+2, "%q: only the error and the pong", frame)
}

// assertID checks that an answer echoes the id want (a JSON value, "" for
// none): the same value, whatever escapes the server chose.
func assertID(t *testing.T, want string, got json.RawMessage, frame string) {
	t.Helper()
	if want == "" {
		assert.Empty(t, got, "%q: no id to echo", frame)
		return
	}
	if assert.NotEmpty(t, got, "%q: the id is not echoed", frame) {
		assert.JSONEq(t, want, string(got), "%q: the id echoed", frame)
	}
}

func TestBadInputGetsAnErrorAndChangesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.createRoom("race", "easy")
	other := e.createRoom("coop", "easy")

	// Before joining.
	c := e.dial("Ann")
	for _, tc := range []struct{ frame, code, id string }{
		{`{"type":"move","cell":3,"digit":1}`, protocol.CodeNotJoined, ""},
		{`{"type":"move","id":"m","cell":3,"digit":1}`, protocol.CodeNotJoined, `"m"`},
		{`{"type":"join","room":"nosuchroom","name":"Ann"}`, protocol.CodeRoomNotFound, ""},
		{`{"type":"join","room":"` + id + `"}`, protocol.CodeBadName, ""},
		{`{"type":"join","room":"` + id + `","name":"   "}`, protocol.CodeBadName, ""},
		{`{"type":"join","room":"` + id + `","name":"Ann\u0007"}`, protocol.CodeBadName, ""},
		{`{"type":"join","room":"` + id + `","name":"` + strings.Repeat("x", 25) + `"}`, protocol.CodeBadName, ""},
		// Names that would pass for another's, or for none.
		{`{"type":"join","room":"` + id + `","name":"An\u2028n"}`, protocol.CodeBadName, ""},
		{`{"type":"join","room":"` + id + `","name":"\u3164"}`, protocol.CodeBadName, ""},
		{`{"type":"join","room":"` + id + `","name":"A\u200bnn"}`, protocol.CodeBadName, ""},
		{`{"type":"join","room":"` + id + `","name":"Ann\u202e"}`, protocol.CodeBadName, ""},
		{`{"type":"join","room":"` + id + `","name":"Z` + strings.Repeat(`\u0301`, 23) + `"}`, protocol.CodeBadName, ""},
		{`{"type":"join","room":"` + id + `","name":"!!!"}`, protocol.CodeBadName, ""},
		{`{"type":"join","id":"j","room":"` + id + `","name":["Ann"]}`, protocol.CodeBadField, `"j"`},
		{`{"type":"join","id":4,"room":"` + id + `","name":"Ann","last_seq":"9"}`, protocol.CodeBadField, "4"},
		{`{"type":"join","room":"` + id + `","name":"Ann","token":"not-a-token"}`, protocol.CodeBadToken, ""},
		{`{"type":"join","room":"` + id + `","name":"Ann","as":"referee"}`, protocol.CodeBadField, ""},
		{`{"type":"join","name":"Ann"}`, protocol.CodeBadField, ""},
	} {
		c.sendRaw([]byte(tc.frame))
		err := c.awaitError(tc.code)
		assert.Zero(t, err.Seq, "outside a room there is no seq")
		assertID(t, tc.id, err.ID, tc.frame)
	}
	c.join(id)
	b := e.dial("Bob")
	b.join(id)

	// Joined, before the start.
	refused(t, c, `{"type":"move","cell":0,"digit":0}`, protocol.CodeNotStarted, "")
	refused(t, c, `{"type":"hint","id":"h"}`, protocol.CodeNotStarted, `"h"`)
	refused(t, b, `{"type":"start"}`, protocol.CodeNotHost, "")

	c.send(map[string]any{"type": "start"})
	givens := awaitRunning(c)
	awaitRunning(b)
	var given, empty int
	for cell, v := range givens {
		if v != 0 {
			given = cell
		} else {
			empty = cell
		}
	}
	cellFrame := func(typ string, cell, digit int) string {
		data, _ := json.Marshal(map[string]any{"type": typ, "cell": cell, "digit": digit})
		return string(data)
	}

	// Text that is not UTF-8 is not refused but closes the connection
	// (TestTextThatIsNotUTF8ClosesWith1007).
	for _, tc := range []struct{ name, frame, code, id string }{
		{"not JSON", `{not json`, protocol.CodeBadJSON, ""},
		{"an array", `[1,2]`, protocol.CodeBadJSON, ""},
		{"two objects", `{"type":"ping"} {"type":"ping"}`, protocol.CodeBadJSON, ""},
		{"trailing bracket", `{"type":"ping"}]`, protocol.CodeBadJSON, ""},
		{"a vertical tab before", "\v{\"type\":\"ping\",\"id\":1}", protocol.CodeBadJSON, ""},
		{"a no-break space after", "{\"type\":\"ping\",\"id\":1}\u00a0", protocol.CodeBadJSON, ""},
		{"null", `null`, protocol.CodeBadJSON, ""},
		{"a string", `"ping"`, protocol.CodeBadJSON, ""},
		{"no type", `{"cell":3}`, protocol.CodeBadField, ""},
		{"unknown type", `{"type":"fly"}`, protocol.CodeUnknownType, ""},
		{"cell too high", cellFrame("move", 81, 1), protocol.CodeBadField, ""},
		{"cell negative", cellFrame("move", -1, 1), protocol.CodeBadField, ""},
		{"digit too high", cellFrame("move", empty, 10), protocol.CodeBadField, ""},
		{"digit negative", cellFrame("move", empty, -1), protocol.CodeBadField, ""},
		{"cell not a number", `{"type":"move","cell":"a1","digit":1}`, protocol.CodeBadField, ""},
		{"no digit", `{"type":"move","cell":3}`, protocol.CodeBadField, ""},
		{"note kind", `{"type":"note","cell":3,"kind":"side","digit":1}`, protocol.CodeBadField, ""},
		{"id an object", `{"type":"ping","id":{"a":1}}`, protocol.CodeBadField, ""},
		{"id too long", `{"type":"ping","id":"` + strings.Repeat("x", 80) + `"}`, protocol.CodeBadField, ""},
		{"cell a string", `{"type":"move","id":"c","cell":"4","digit":1}`, protocol.CodeBadField, `"c"`},
		{"cell 1e309", `{"type":"move","id":2,"cell":1e309,"digit":1}`, protocol.CodeBadField, "2"},
		{"cell a fraction", `{"type":"move","id":2.5,"cell":4.5,"digit":1}`, protocol.CodeBadField, "2.5"},
		{"digit a bool", `{"type":"move","id":"d","cell":` + itoa(empty) + `,"digit":true}`, protocol.CodeBadField, `"d"`},
		{"type a number", `{"type":5,"id":"t"}`, protocol.CodeBadField, `"t"`},
		{"kind a number", `{"type":"note","id":-1,"cell":3,"kind":1,"digit":1}`, protocol.CodeBadField, "-1"},
		{"id escaped, echoed as the same string", `{"type":"move","id":"\u003c\u00e9\u003e\u2028\"","cell":81,"digit":1}`, protocol.CodeBadField, `"<é>\u2028\""`},
		{"id a number with an exponent", `{"type":"move","id":-1.5E+3,"cell":81,"digit":1}`, protocol.CodeBadField, "-1500"},
		{"id a lone surrogate escape", `{"type":"move","id":"\ud800","cell":81,"digit":1}`, protocol.CodeBadField, `"\ufffd"`},
		{"id null", `{"type":"ping","id":null}`, protocol.CodeBadField, ""},
		{"id a bool", `{"type":"ping","id":true}`, protocol.CodeBadField, ""},
		{"id an array", `{"type":"ping","id":[1]}`, protocol.CodeBadField, ""},
		{"move on a given", cellFrame("move", given, 0), protocol.CodeGivenCell, ""},
		{"note on a given", `{"type":"note","cell":` + itoa(given) + `,"kind":"corner","digit":1}`, protocol.CodeGivenCell, ""},
		{"move in another room", `{"type":"move","room":"` + other + `","cell":` + itoa(empty) + `,"digit":1}`, protocol.CodeWrongRoom, ""},
		{"second join", `{"type":"join","room":"` + other + `","name":"Ann"}`, protocol.CodeAlreadyJoined, ""},
		{"cursor in a race", `{"type":"cursor","cell":3}`, protocol.CodeCoopOnly, ""},
		{"undo with nothing done", `{"type":"undo"}`, protocol.CodeNothingToUndo, ""},
		{"redo with nothing undone", `{"type":"redo"}`, protocol.CodeNothingToRedo, ""},
		{"start twice", `{"type":"start"}`, protocol.CodeAlreadyStart, ""},
		{"rematch before a finish", `{"type":"rematch"}`, protocol.CodeNotFinished, ""},
	} {
		t.Run(tc.name, func(t *testing.T) { refused(t, c, tc.frame, tc.code, tc.id) })
	}

	// A binary frame.
	before := c.ping()
	ctx := context.Background()
	require.NoError(t, c.ws.Write(ctx, websocket.MessageBinary, []byte(`{"type":"ping"}`)))
	assert.Equal(t, protocol.CodeBadJSON, c.awaitError(protocol.CodeBadJSON).Code)
	assert.Equal(t, before, c.ping())

	// After the finish.
	sol := e.solution(id, 1)
	solve(c, givens, sol)
	await(c, protocol.TypeFinish, func(f *protocol.FinishEvent) bool { return f.Player == c.id })
	refused(t, c, cellFrame("move", empty, 0), protocol.CodeFinished, "")
	refused(t, c, `{"type":"hint"}`, protocol.CodeFinished, "")
	solve(b, givens, sol)
	await(c, protocol.TypeState, func(s *protocol.State) bool { return s.Room.Phase == protocol.PhaseFinished })
	refused(t, b, `{"type":"hint","id":"late"}`, protocol.CodeFinished, `"late"`)
	refused(t, b, cellFrame("move", empty, 0), protocol.CodeFinished, "")

	// A frame over the 4 KB limit closes the connection.
	big := `{"type":"ping","id":"` + strings.Repeat("x", 5000) + `"}`
	c.sendRaw([]byte(big))
	code, _ := c.closeStatus()
	assert.Equal(t, protocol.CloseTooBig, code)
}

func itoa(n int) string {
	data, _ := json.Marshal(n)
	return string(data)
}

// Every message over the rate limit is answered with rate_limited and its
// id, RATE_BURST of them in a row; the next one closes the connection with
// 4004, after those answers. The rate is so low that no token comes back
// while the test runs.
func TestRateLimitAnswersEachRefusalThenCloses(t *testing.T) {
	t.Parallel()
	const burst = 5
	e := newEnv(t, func(c *server.Config) { c.RateLimit, c.RateBurst = 0.001, burst })
	c := e.dial("Ann")
	for i := range 2*burst + 1 {
		c.sendRaw([]byte(`{"type":"ping","id":` + itoa(i) + `}`))
	}
	for i := range burst {
		err := c.awaitError(protocol.CodeNotJoined)
		assert.JSONEq(t, itoa(i), string(err.ID), "not joined, but within the burst")
	}
	for i := burst; i < 2*burst; i++ {
		f := c.read()
		require.Equal(t, protocol.TypeError, f.Type)
		var err protocol.ErrorEvent
		require.NoError(t, json.Unmarshal(f.raw, &err))
		assert.Equal(t, protocol.CodeRateLimited, err.Code)
		assert.JSONEq(t, itoa(i), string(err.ID), "each refusal names its message")
	}
	code, reason := c.closeStatus()
	assert.Equal(t, protocol.CloseRateLimited, code)
	assert.Contains(t, reason, "rate")
	assert.Len(t, c.seen, 2*burst, "every answer, then the close")
}

func TestOriginIsChecked(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *server.Config) { c.AllowedOrigins = []string{"*.friends.example"} })
	url := e.wsURL()
	dial := func(origin string) (int, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		h := http.Header{}
		h.Set("Origin", origin)
		ws, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: h})
		if ws != nil {
			defer ws.CloseNow()
		}
		if resp == nil {
			return 0, err
		}
		return resp.StatusCode, err
	}
	status, err := dial("http://evil.example")
	require.Error(t, err)
	assert.Equal(t, http.StatusForbidden, status)
	status, err = dial("https://play.friends.example")
	require.NoError(t, err)
	assert.Equal(t, http.StatusSwitchingProtocols, status)
	status, err = dial(e.http.URL) // same host
	require.NoError(t, err)
	assert.Equal(t, http.StatusSwitchingProtocols, status)
}

// An HTTP/1.0 request cannot be upgraded: 426, saying what would be.
func TestAnHTTP10HandshakeIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	nc, err := net.Dial("tcp", strings.TrimPrefix(e.http.URL, "http://"))
	require.NoError(t, err)
	defer nc.Close()
	require.NoError(t, nc.SetDeadline(time.Now().Add(5*time.Second)))
	_, err = nc.Write([]byte("GET /ws HTTP/1.0\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"))
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(nc), nil)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusUpgradeRequired, resp.StatusCode)
	assert.Equal(t, "websocket", resp.Header.Get("Upgrade"))
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Contains(t, string(body), "HTTP/1.1")
}

func TestJoinTimeoutCloses(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *server.Config) { c.JoinTimeout = 100 * time.Millisecond })
	c := e.dial("Ann")
	code, _ := c.closeStatus()
	assert.Equal(t, protocol.CloseJoinTimeout, code)
}

func TestSecondTabReplacesTheFirst(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.createRoom("coop", "easy")
	a := e.dial("Ann")
	a.join(id)
	a2 := e.dial("Ann")
	a2.send(map[string]any{"type": "join", "room": id, "token": a.token})
	w := await[protocol.Welcome](a2, protocol.TypeWelcome, nil)
	assert.Equal(t, a.id, w.You.ID)
	code, _ := a.closeStatus()
	assert.Equal(t, protocol.CloseReplaced, code)
	assert.Positive(t, a2.ping())
}

func TestShutdownSavesRoomsAndARestartBringsThemBack(t *testing.T) {
	t.Parallel()
	k := newKept()
	e := newEnvOn(t, k)
	a := e.dial("Ann")
	id, givens, sol := e.startGame("race", a)
	var played []int
	for cell, v := range givens {
		if v == 0 && len(played) < 3 {
			a.move(cell, sol[cell])
			played = append(played, cell)
		}
	}
	a.send(map[string]any{"type": "note", "cell": firstEmpty(givens, played), "kind": "centre", "digit": 5})
	await[protocol.NoteEvent](a, protocol.TypeNote, nil)

	e.stop()
	code, reason := a.closeStatus()
	assert.Equal(t, protocol.CloseGoingAway, code)
	assert.Contains(t, reason, "reconnect in 5s")

	e2 := newEnvOn(t, k)
	a2 := e2.dial("Ann")
	a2.send(map[string]any{"type": "join", "room": id, "token": a.token, "last_seq": a.lastSeq})
	w := await[protocol.Welcome](a2, protocol.TypeWelcome, nil)
	assert.Equal(t, a.id, w.You.ID)
	assert.True(t, w.Resumed, "the room was saved at its last event: nothing was missed")
	assert.Zero(t, w.Replay)

	// Another tab, without a last seq, gets the snapshot.
	a3 := e2.dial("Ann")
	a3.send(map[string]any{"type": "join", "room": id, "token": a.token})
	w = await[protocol.Welcome](a3, protocol.TypeWelcome, nil)
	require.NotNil(t, w.Room)
	assert.Equal(t, protocol.PhaseRunning, w.Room.Phase)
	board := engine.MustParse(w.Room.Board)
	for _, cell := range played {
		assert.Equal(t, sol[cell], board[cell])
	}
	require.Len(t, w.Room.Notes, 1)
	assert.Equal(t, []int{5}, w.Room.Notes[0].Centre)
	require.Len(t, w.Room.Players, 1)
	assert.Equal(t, len(played), w.Room.Players[0].Filled)
	assert.Greater(t, a3.ping(), int64(0))
}

func firstEmpty(givens engine.Grid, skip []int) int {
	for cell, v := range givens {
		if v == 0 && !containsInt(skip, cell) {
			return cell
		}
	}
	return -1
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func TestHealthAndMetrics(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	get := func(path string) (int, string) {
		resp, err := arenatest.Get(e.http.URL + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(body)
	}
	status, body := get("/healthz")
	assert.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `{"status":"ok","database":"ok","results":"ok"}`, body)

	a := e.dial("Ann")
	id, givens, sol := e.startGame("coop", a)
	cell := firstEmpty(givens, nil)
	a.move(cell, sol[cell])
	await[protocol.MoveEvent](a, protocol.TypeMove, nil)

	body = e.metrics()
	for _, want := range []string{"arena_rooms 1", "arena_room_members 1", "arena_moves_total 1", "arena_websockets_open 1", "arena_slow_clients_dropped_total 0"} {
		assert.Contains(t, body, want+"\n")
	}
	assert.Regexp(t, `arena_broadcast_latency_seconds_count [1-9]`, body)

	status, body = get("/api/rooms/" + id)
	assert.Equal(t, http.StatusOK, status)
	var snap protocol.Snapshot
	require.NoError(t, json.Unmarshal([]byte(body), &snap))
	assert.Equal(t, id, snap.ID)
	status, _ = get("/api/rooms/nosuchroom")
	assert.Equal(t, http.StatusNotFound, status)

	for _, body := range []string{`{"mode":"duel"}`, `{"mode":"race","level":"insane"}`, `{"mode":"coop","level":"beyond"}`, `not json`, `{"mode":"race","extra":1}`} {
		resp, err := arenatest.Post(e.http.URL+"/api/rooms", "application/json", strings.NewReader(body))
		require.NoError(t, err)
		var apiErr struct {
			Error struct{ Code, Message string }
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&apiErr))
		resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, body)
		assert.NotEmpty(t, apiErr.Error.Code, body)
	}

}

func TestHealthSaysWhenTheDatabaseIsGone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.kept.players.goDown()
	resp, err := arenatest.Get(e.http.URL + "/healthz")
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.JSONEq(t, `{"status":"unavailable","database":"unreachable","results":"ok"}`, string(body))
}

func TestRoomCreationIsRateLimitedPerAddress(t *testing.T) {
	t.Parallel()
	clk := server.NewFakeClock(time.Now())
	e := newEnv(t, server.WithFakeClock(clk), func(c *server.Config) { c.CreateRate = 2 })
	e.createRoom("race", "easy")
	e.createRoom("coop", "easy")
	resp, err := arenatest.Post(e.http.URL+"/api/rooms", "application/json", strings.NewReader(`{"mode":"race"}`))
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, "60", resp.Header.Get("Retry-After"))
	var apiErr struct{ Error struct{ Code string } }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&apiErr))
	assert.Equal(t, protocol.CodeRateLimited, apiErr.Error.Code)
	assert.Equal(t, 2, e.rooms.Stats().Rooms, "the refused request made no room")

	// The Retry-After's minute refills the bucket.
	clk.Advance(time.Minute)
	e.createRoom("race", "easy")
	assert.Equal(t, 3, e.rooms.Stats().Rooms)
}

func TestJoiningAStartedRaceIsRefusedAndWatchingIsNot(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.createRoom("race", "easy")
	a := e.dial("Ann")
	a.join(id)
	a.send(map[string]any{"type": "start"})
	awaitRunning(a)
	late := e.dial("Lee")
	late.send(map[string]any{"type": "join", "room": id, "name": "Lee"})
	assert.Contains(t, late.awaitError(protocol.CodeGameStarted).Message, "spectator")
	late.send(map[string]any{"type": "join", "room": id, "name": "Lee", "as": "spectator"})
	w := await[protocol.Welcome](late, protocol.TypeWelcome, nil)
	assert.Equal(t, protocol.RoleSpectator, w.You.Role)
}
