package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
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
// 150 ms for its answer.
func quickRelayPings(c *server.Config) {
	c.RelayPingEvery, c.RelayPingWait = 50*time.Millisecond, 150*time.Millisecond
}

// TestRelayNoticesAStalledOwner: a relayed socket whose owner stops
// answering (here a WebSocket server that never reads, so never answers a
// ping, as a paused process's) is closed with 4009 within a ping's period
// and wait, so that its client comes back at once through the balancer.
func TestRelayNoticesAStalledOwner(t *testing.T) {
	t.Parallel()
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
	relay := newEnv(t, quickRelayPings)
	relay.srv.SetNodes(nodes{here: relay.rooms, owner: stalled.URL, id: "relay"})
	c := relay.dial("Ada")
	began := time.Now()
	c.send(map[string]any{"type": "join", "room": "elsewhere", "name": "Ada"})
	code, reason := c.closeStatus()
	assert.Equal(t, protocol.CloseMoved, code)
	assert.Equal(t, "the room's server stopped answering: reconnect with your token", reason)
	assert.Less(t, time.Since(began), 2*time.Second, "closed within a ping's period and wait")
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
