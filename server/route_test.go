package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/server"
)

// TestRoomHintIsOnlyAHint: /ws?room=ID names the room for a balancer
// (POST /api/rooms answers with it, which createRoom checks), but the join
// says which room is played: a socket opened with another room's hint, or
// a hint that is no room at all, plays the room its join names.
func TestRoomHintIsOnlyAHint(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, other := e.createRoom(room.ModeCoop, "easy"), e.createRoom(room.ModeCoop, "easy")
	for _, hint := range []string{other, "no-such-room", ""} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		ws, _, err := websocket.Dial(ctx, e.wsURL()+"?room="+hint, nil)
		cancel()
		require.NoError(t, err, "hint %q", hint)
		c := &client{tb: t, name: "Ada", ws: ws}
		t.Cleanup(func() { _ = ws.CloseNow() })
		w := c.join(id)
		assert.Equal(t, id, w.Room.ID, "hint %q", hint)
		require.NoError(t, ws.Close(websocket.StatusNormalClosure, ""))
	}
}

// quickRelayPings check a relayed socket's owner every 50 ms, waiting
// 150 ms for its answer, and let the owner take pings that often.
func quickRelayPings(c *server.Config) {
	c.RelayPingEvery, c.RelayPingWait = 50*time.Millisecond, 150*time.Millisecond
	c.PingBurst, c.PingEvery = 1000, time.Millisecond
}

// TestRelayNoticesAStalledOwner: a relayed socket whose owner stops
// answering (here a WebSocket server that never reads, so never answers a
// ping, as a paused process's) is closed with 4009 within a ping's period
// and wait, so that its client comes back at once through the balancer.
func TestRelayNoticesAStalledOwner(t *testing.T) {
	t.Parallel()
	stalled := stalledOwner(t)
	relay := newEnv(t, quickRelayPings)
	relay.srv.SetNodes(nodes{here: relay.rooms, owner: stalled, id: "relay"})
	c := relay.dial("Ada")
	began := time.Now()
	c.send(map[string]any{"type": "join", "room": "elsewhere", "name": "Ada"})
	code, reason := c.closeStatus()
	assert.Equal(t, protocol.CloseMoved, code)
	assert.Equal(t, "the room's server stopped answering: reconnect with your token", reason)
	assert.Less(t, time.Since(began), 2*time.Second, "closed within a ping's period and wait")
	assert.Equal(t, "arena_relays_stalled_total 1", metricLine(relay, "arena_relays_stalled_total"))
}

// TestRelayKeepsAQuietOwner: an owner that answers the relay's pings
// keeps the relayed socket however quiet the room is.
func TestRelayKeepsAQuietOwner(t *testing.T) {
	t.Parallel()
	owner, relay := twoNodes(t, quickRelayPings)
	id := owner.createRoom(room.ModeCoop, "easy")
	c := relay.dial("Ada")
	c.join(id)
	time.Sleep(500 * time.Millisecond) // ten periods of a quiet lobby
	c.send(map[string]any{"type": "start"})
	awaitRunning(c)
}

// stalledOwner is the base URL of a node that stalls: it answers a relay's
// WebSocket (with an owner's proof) and then reads nothing, so answers no
// ping, as a paused process's socket.
func stalledOwner(t *testing.T) string {
	t.Helper()
	stalled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The owner's proof on its answer, as a node gives it.
		w.Header().Set(server.HeaderNode, "owner")
		w.Header().Set(server.HeaderMAC, server.OwnerMAC(nodeSecret, r.Header.Get(server.HeaderMAC), "owner"))
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		<-r.Context().Done() // reads nothing, answers nothing
		ws.CloseNow()
	}))
	t.Cleanup(stalled.Close)
	return stalled.URL
}

// TestRelayCountsNoStallOnceTheClientLeft: a ping under way when the
// relayed client leaves is no sign of a stall, however long the owner
// then takes: the watch ends with the client.
func TestRelayCountsNoStallOnceTheClientLeft(t *testing.T) {
	t.Parallel()
	relay := newEnv(t, func(c *server.Config) { c.RelayPingEvery, c.RelayPingWait = 50*time.Millisecond, time.Second })
	relay.srv.SetNodes(nodes{here: relay.rooms, owner: stalledOwner(t), id: "relay"})
	c := relay.dial("Ada")
	c.send(map[string]any{"type": "join", "room": "elsewhere", "name": "Ada"})
	time.Sleep(200 * time.Millisecond) // a ping waits for its pong
	require.NoError(t, c.ws.Close(websocket.StatusNormalClosure, "bye"))
	time.Sleep(1500 * time.Millisecond) // past the ping's wait
	assert.Equal(t, "arena_relays_stalled_total 0", metricLine(relay, "arena_relays_stalled_total"))
}

// metricLine is the metric's line (one without labels) on the server's
// metrics page, "" when there is none.
func metricLine(e *env, name string) string {
	for line := range strings.SplitSeq(e.metrics(), "\n") {
		if strings.HasPrefix(line, name+" ") {
			return line
		}
	}
	return ""
}
