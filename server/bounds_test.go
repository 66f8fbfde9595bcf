package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/server"
)

// postRoom asks the handler for a room as a client at remote (IP:port)
// would, without a socket, so that a test can be many addresses.
func postRoom(t *testing.T, e *env, remote string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/api/rooms", strings.NewReader(`{"mode":"race"}`))
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = remote
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	return rec
}

// apiErrorOf is the error code and message of an API answer.
func apiErrorOf(t *testing.T, body []byte) (code, message string) {
	t.Helper()
	var e struct {
		Error struct{ Code, Message string }
	}
	require.NoError(t, json.Unmarshal(body, &e), "%s", body)
	return e.Error.Code, e.Error.Message
}

func TestLiveRoomsAreCappedPerAddress(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *server.Config) {
		c.RoomsPerAddr = 2
		c.Rooms.IdleTimeout = 200 * time.Millisecond
	})
	// Over real sockets, from 127.0.0.1.
	e.createRoom("race", "easy")
	e.createRoom("coop", "easy")
	resp, err := arenatest.Post(e.http.URL+"/api/rooms", "application/json", strings.NewReader(`{"mode":"race"}`))
	require.NoError(t, err)
	body := readAll(t, resp)
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, "60", resp.Header.Get("Retry-After"))
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	code, msg := apiErrorOf(t, body)
	assert.Equal(t, protocol.CodeTooManyRooms, code)
	assert.Contains(t, msg, "2 live rooms")
	assert.Equal(t, 2, e.rooms.Stats().Rooms)

	// Another address is not held to this one's rooms.
	assert.Equal(t, http.StatusCreated, postRoom(t, e, "192.0.2.7:5000").Code)

	// Nobody joined: the rooms end as idle, and the address may make more.
	require.Eventually(t, func() bool {
		resp, err := arenatest.Post(e.http.URL+"/api/rooms", "application/json", strings.NewReader(`{"mode":"race"}`))
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusCreated
	}, 5*time.Second, 20*time.Millisecond)
}

// An IPv6 host can use any address of its /64: they count as one.
func TestIPv6AddressesCountByTheir64(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *server.Config) { c.RoomsPerAddr = 2 })
	assert.Equal(t, http.StatusCreated, postRoom(t, e, "[2001:db8:1:2::1]:4000").Code)
	assert.Equal(t, http.StatusCreated, postRoom(t, e, "[2001:db8:1:2:ffff:1:2:3]:4001").Code)
	rec := postRoom(t, e, "[2001:db8:1:2:abcd::9]:4002")
	assert.Equal(t, http.StatusTooManyRequests, rec.Code, "the same /64")
	code, _ := apiErrorOf(t, rec.Body.Bytes())
	assert.Equal(t, protocol.CodeTooManyRooms, code)
	assert.Equal(t, http.StatusCreated, postRoom(t, e, "[2001:db8:1:3::1]:4000").Code, "the next /64")

	// IPv4 counts by the address, mapped into IPv6 or not.
	assert.Equal(t, http.StatusCreated, postRoom(t, e, "198.51.100.1:1").Code)
	assert.Equal(t, http.StatusCreated, postRoom(t, e, "[::ffff:198.51.100.1]:2").Code)
	assert.Equal(t, http.StatusTooManyRequests, postRoom(t, e, "198.51.100.1:3").Code)
	assert.Equal(t, http.StatusCreated, postRoom(t, e, "198.51.100.2:3").Code, "the next address")
}

func TestTheServerHoldsAtMostMaxRooms(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *server.Config) { c.Rooms.MaxRooms = 2 })
	e.createRoom("race", "easy")
	assert.Equal(t, http.StatusCreated, postRoom(t, e, "192.0.2.1:1").Code)
	resp, err := arenatest.Post(e.http.URL+"/api/rooms", "application/json", strings.NewReader(`{"mode":"coop"}`))
	require.NoError(t, err)
	body := readAll(t, resp)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, "30", resp.Header.Get("Retry-After"))
	code, _ := apiErrorOf(t, body)
	assert.Equal(t, protocol.CodeServerFull, code)
	assert.Equal(t, 2, e.rooms.Stats().Rooms)
}

func TestNewPlayersAreLimitedPerAddress(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *server.Config) { c.PlayerRate = 2 })
	id := e.createRoom("coop", "easy")
	a := e.dial("Ann")
	a.join(id)
	b := e.dial("Bob")
	b.join(id)

	// A third join without a token (as a script that joins, leaves and
	// joins again would send) is a third new player: refused.
	c := e.dial("Cid")
	c.send(map[string]any{"type": "join", "id": "j", "room": id, "name": "Cid"})
	err := c.awaitError(protocol.CodeRateLimited)
	assert.Equal(t, `"j"`, string(err.ID))
	assert.Contains(t, err.Message, "token")
	assert.Equal(t, 2, e.rooms.Stats().Members, "no player was made")

	// Coming back with a token, or watching, is not a new player.
	a.send(map[string]any{"type": "leave"})
	code, _ := a.closeStatus()
	require.Equal(t, protocol.CloseNormal, code)
	a2 := e.dial("Ann")
	a2.send(map[string]any{"type": "join", "room": id, "token": a.token})
	w := await[protocol.Welcome](a2, protocol.TypeWelcome, nil)
	assert.Equal(t, a.id, w.You.ID)
	c.send(map[string]any{"type": "join", "room": id, "as": "spectator"})
	w = await[protocol.Welcome](c, protocol.TypeWelcome, nil)
	assert.Equal(t, protocol.RoleSpectator, w.You.Role)
}

func TestOpenSocketsAreLimitedPerAddress(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *server.Config) { c.SocketsPerAddr = 2 })
	a := e.dial("Ann")
	e.dial("Bob")
	c := e.dial("Cid")
	code, reason := c.closeStatus()
	assert.Equal(t, protocol.CloseTooManySockets, code)
	assert.Contains(t, reason, "at most 2")

	// One closes: another may open.
	require.NoError(t, a.ws.Close(websocket.StatusNormalClosure, ""))
	require.Eventually(t, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		ws, _, err := websocket.Dial(ctx, e.wsURL(), nil)
		if err != nil {
			return false
		}
		defer ws.CloseNow()
		ws.CloseRead(ctx)
		// A refused socket is closed at once; a kept one answers a ping.
		return ws.Ping(ctx) == nil
	}, 5*time.Second, 20*time.Millisecond)
}

func TestJoinedSocketThatDoesNotAnswerPingsIsClosed(t *testing.T) {
	t.Parallel()
	clk := server.NewFakeClock(time.Now())
	// Ann pings at every step of the clock (pass): pings as a tool, so
	// their budget is raised.
	e := newEnv(t, server.WithFakeClock(clk), func(c *server.Config) {
		c.PingInterval, c.PingTimeout, c.PingBurst = 30*time.Millisecond, 50*time.Millisecond, 1<<20
	})
	id := e.createRoom("coop", "easy")

	// A client that keeps reading answers the pings and stays.
	a := e.dial("Ann")
	a.join(id)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	aRead := make(chan error, 1)
	go func() {
		for {
			if _, _, err := a.ws.Read(ctx); err != nil {
				aRead <- err
				return
			}
		}
	}()
	// pass moves the clock on by d in steps shorter than the ping
	// timeout; after each, Ann pings the server and has its pong, so that
	// whatever Ann sent before (a pong to the server's ping) has been read
	// before the clock moves again.
	pass := func(d time.Duration) {
		t.Helper()
		const step = 10 * time.Millisecond
		for range d / step {
			clk.Advance(step)
			pctx, pcancel := context.WithTimeout(ctx, 5*time.Second)
			require.NoError(t, a.ws.Ping(pctx), "Ann is still served")
			pcancel()
		}
	}
	pass(300 * time.Millisecond)
	assert.Equal(t, 1, e.rooms.Stats().Members)

	// One that does not answer (as a vanished peer) is closed. Bob reads,
	// to see his close, but answers no ping: a client that read and
	// answered would be closed only when a pong lost a race with the
	// clock, and a pong written after the server's close can end Bob's
	// socket before its close frame is read. The clock moves on until
	// Bob's close has come: Bob's ping and its timeout are armed by
	// goroutines of the server's, which a busy machine may run only after
	// a fixed stretch of the clock has passed.
	b := e.dialWith("Bob", &websocket.DialOptions{OnPingReceived: func(context.Context, []byte) bool { return false }})
	b.join(id)
	type closed struct {
		code   protocol.CloseCode
		reason string
	}
	bClosed := make(chan closed, 1)
	go func() {
		code, reason := b.closeStatus()
		bClosed <- closed{code, reason}
	}()
	var got closed
	for i := 0; ; i++ {
		require.Less(t, i, 3000, "Bob was not closed in 30 s of the clock")
		pass(10 * time.Millisecond)
		select {
		case got = <-bClosed:
		default:
			continue
		}
		break
	}
	code, reason := got.code, got.reason
	assert.Equal(t, protocol.CloseIdle, code)
	assert.Contains(t, reason, "ping")
	require.Eventually(t, func() bool { return e.rooms.Stats().Members == 1 }, 5*time.Second, 10*time.Millisecond,
		"the silent player is away")
	select {
	case err := <-aRead:
		t.Fatalf("the answering client was closed: %v", err)
	default:
	}

	// A connection that has not joined is the join timeout's, not pinged.
	c := e.dial("Cid")
	pass(200 * time.Millisecond)
	c.send(map[string]any{"type": "ping", "id": 1})
	assert.Equal(t, protocol.TypeError, c.read().Type, "still open: not joined")
}

// The HTTP timeouts cut slow requests but not WebSockets, whose deadlines
// the upgrade clears.
func TestHTTPTimeoutsSpareWebSockets(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *server.Config) {
		c.HTTP = server.HTTPTimeouts{ReadHeader: 100 * time.Millisecond, Read: 150 * time.Millisecond, Write: 150 * time.Millisecond, Idle: 200 * time.Millisecond}
	})
	id := e.createRoom("coop", "easy")
	a := e.dial("Ann")
	a.join(id)
	time.Sleep(400 * time.Millisecond)
	a.send(map[string]any{"type": "ping", "id": "late"})
	p := await(a, protocol.TypePong, func(p *protocol.Pong) bool { return string(p.ID) == `"late"` })
	assert.Positive(t, p.Seq, "the WebSocket outlived the read and write timeouts")

	// A client that sends half a request is cut at the header timeout.
	conn, err := net.Dial("tcp", e.http.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprint(conn, "GET /healthz HTTP/1.1\r\nHost: x\r\n")
	require.NoError(t, err)
	start := time.Now()
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
	_, err = bufio.NewReader(conn).ReadString('\n')
	assert.Error(t, err, "the server closed the connection")
	assert.Less(t, time.Since(start), 3*time.Second)
}

func readAll(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return body
}
