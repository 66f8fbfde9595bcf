package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/server"
)

const nodeSecret = "ce4ffc6a3502dc182459be0865985214a1f791acc40487ffb4ae487c8bffedd0"

// nodes places every room that is not here on the node at owner ("" when
// the rooms are all here), as package cluster's does from the database.
// The node is id, among the registered peers.
type nodes struct {
	here  *room.Registry
	owner string
	id    string
	peers map[string]string
}

func (n nodes) Locate(_ context.Context, id string) (string, error) {
	if _, err := n.here.Get(id); err == nil || n.owner == "" {
		return "", nil
	}
	return n.owner, nil
}

func (n nodes) Secret() string { return nodeSecret }

func (n nodes) ID() string { return n.id }

func (n nodes) Peers(context.Context) (map[string]string, error) { return n.peers, nil }

// twoNodes are two servers, the rooms made on owner and the other relaying
// to it, registered as the nodes "owner" and "relay", with peers besides.
func twoNodes(t *testing.T, opts ...envOption) (owner, relay *env) {
	t.Helper()
	return twoNodesWith(t, nil, opts...)
}

// twoNodesWith is twoNodes with other registered nodes, by id, besides
// the two.
func twoNodesWith(t *testing.T, others map[string]string, opts ...envOption) (owner, relay *env) {
	t.Helper()
	owner, relay = newEnv(t, opts...), newEnv(t, opts...)
	peers := map[string]string{"owner": owner.http.URL, "relay": relay.http.URL}
	maps.Copy(peers, others)
	owner.srv.SetNodes(nodes{here: owner.rooms, id: "owner", peers: peers})
	relay.srv.SetNodes(nodes{here: relay.rooms, owner: owner.http.URL, id: "relay", peers: peers})
	return owner, relay
}

// signed are the headers of a request of method for uri that the node
// relays for client at the time given, signed with secret, and its MAC.
func signed(secret, method, uri, node string, at time.Time, client string) (http.Header, string) {
	ms := strconv.FormatInt(at.UnixMilli(), 10)
	mac := server.RelayMAC(secret, method, uri, node, ms, client)
	return http.Header{server.HeaderNode: {node}, server.HeaderTime: {ms}, server.HeaderClientAddr: {client}, server.HeaderMAC: {mac}}, mac
}

// TestRelayToTheOwner: a join that reaches a node without the room plays
// through it on the owner's room, a room request is answered by the
// owner, and the owner's close code reaches the client.
func TestRelayToTheOwner(t *testing.T) {
	t.Parallel()
	owner, relay := twoNodes(t)
	id := owner.createRoom(room.ModeCoop, "easy")
	direct, relayed := owner.dial("Ada"), relay.dial("Bo")
	direct.join(id)
	w := relayed.join(id)
	assert.Equal(t, id, w.Room.ID)
	direct.send(map[string]any{"type": "start"})
	givens := awaitRunning(relayed)
	sol := owner.solution(id, 1)
	cell := 0
	for givens[cell] != 0 {
		cell++
	}
	relayed.move(cell, sol[cell])
	await(direct, protocol.TypeMove, func(m *protocol.MoveEvent) bool { return m.Cell == cell && m.Player == relayed.id })

	resp, err := arenatest.Get(relay.http.URL + "/api/rooms/" + id)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var snap protocol.Snapshot
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&snap))
	assert.Len(t, snap.Players, 2)

	require.True(t, owner.rooms.Evict(id))
	for _, c := range []*client{direct, relayed} {
		code, reason := c.closeStatus()
		assert.Equal(t, protocol.CloseMoved, code, c.name)
		assert.Equal(t, "the room moved: reconnect with your token", reason, c.name)
	}
}

// TestRelayedAddressNeedsAProvedRelay: the client address a relay
// vouches for counts for the per-address limits, and the owner answers
// with its proof, only for a request whose MAC (keyed by the nodes'
// secret, over the method, path and query, node, time and client
// address) holds, whose time is within 30 s, whose node is registered and
// which comes from that node's address (a literal IP, or a host name that
// resolves to it). Anything else is counted under its own address, with
// no proof and nothing said about why; so is the secret shown in clear.
func TestRelayedAddressNeedsAProvedRelay(t *testing.T) {
	t.Parallel()
	// The address check is the host's: the port may be any.
	others := map[string]string{"far": "http://192.0.2.10:8080", "named": "http://localhost:8080"}
	owner, _ := twoNodesWith(t, others, func(c *server.Config) { c.SocketsPerAddr = 1 })
	now := time.Now()
	// Open: a message before a join is answered, not closed.
	open := func(c *client) {
		t.Helper()
		c.send(map[string]any{"type": "ping"})
		c.awaitError(protocol.CodeNotJoined)
	}
	open(owner.dial("loopback"))

	tests := []struct {
		name     string
		headers  func(client string) (http.Header, string)
		believed bool
	}{
		{"signed by a registered node from its address", func(c string) (http.Header, string) {
			return signed(nodeSecret, "GET", "/ws", "relay", now, c)
		}, true},
		{"from an address the node's host name resolves to", func(c string) (http.Header, string) {
			return signed(nodeSecret, "GET", "/ws", "named", now, c)
		}, true},
		{"29 s on either clock", func(c string) (http.Header, string) {
			return signed(nodeSecret, "GET", "/ws", "relay", now.Add(-29*time.Second), c)
		}, true},
		{"another secret", func(c string) (http.Header, string) {
			return signed("a82774c0c949ad215581e59e34bb981e4a7af0a8a834920fd80715a098a9b696", "GET", "/ws", "relay", now, c)
		}, false},
		{"stale", func(c string) (http.Header, string) {
			return signed(nodeSecret, "GET", "/ws", "relay", now.Add(-31*time.Second), c)
		}, false},
		{"from the future", func(c string) (http.Header, string) {
			return signed(nodeSecret, "GET", "/ws", "relay", now.Add(31*time.Second), c)
		}, false},
		{"signed for another path", func(c string) (http.Header, string) {
			return signed(nodeSecret, "GET", "/ws?room=abc", "relay", now, c)
		}, false},
		{"another client address than signed", func(c string) (http.Header, string) {
			h, mac := signed(nodeSecret, "GET", "/ws", "relay", now, c)
			h.Set(server.HeaderClientAddr, "198.51.100.77")
			return h, mac
		}, false},
		{"another node than signed", func(c string) (http.Header, string) {
			h, mac := signed(nodeSecret, "GET", "/ws", "relay", now, c)
			h.Set(server.HeaderNode, "owner")
			return h, mac
		}, false},
		{"no time", func(c string) (http.Header, string) {
			h, mac := signed(nodeSecret, "GET", "/ws", "relay", now, c)
			h.Del(server.HeaderTime)
			return h, mac
		}, false},
		{"a node that is not registered", func(c string) (http.Header, string) {
			return signed(nodeSecret, "GET", "/ws", "stranger", now, c)
		}, false},
		{"a registered node, from another address", func(c string) (http.Header, string) {
			return signed(nodeSecret, "GET", "/ws", "far", now, c)
		}, false},
		{"the secret in clear", func(c string) (http.Header, string) {
			return http.Header{"X-Arena-Node-Secret": {nodeSecret}, server.HeaderClientAddr: {c}}, ""
		}, false},
	}
	for i, tt := range tests {
		h, mac := tt.headers(fmt.Sprintf("203.0.113.%d", i+1))
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		ws, resp, err := websocket.Dial(ctx, owner.wsURL(), &websocket.DialOptions{HTTPHeader: h})
		cancel()
		require.NoError(t, err, tt.name)
		t.Cleanup(func() { _ = ws.CloseNow() })
		c := &client{tb: t, name: tt.name, ws: ws}
		if tt.believed {
			assert.Equal(t, "owner", resp.Header.Get(server.HeaderNode), tt.name)
			assert.Equal(t, server.OwnerMAC(nodeSecret, mac, "owner"), resp.Header.Get(server.HeaderMAC), "%s: the owner's proof", tt.name)
			open(c)
			continue
		}
		assert.Empty(t, resp.Header.Get(server.HeaderNode), tt.name)
		assert.Empty(t, resp.Header.Get(server.HeaderMAC), tt.name)
		code, _ := c.closeStatus()
		assert.Equal(t, protocol.CloseTooManySockets, code, "%s: counted under its own address", tt.name)
	}
}

// TestRelayNeedsTheOwnersProof: a node relays only to a node that proves
// itself. Between the relaying node and the owner stands something that
// passes every request on; while it takes the owner's proof off the
// answers, a room request through the relaying node is answered 503
// unavailable and a join is closed with 1001, as for an owner that cannot
// be reached; while it leaves them, both reach the owner, and the proof
// itself never reaches the client.
func TestRelayNeedsTheOwnersProof(t *testing.T) {
	t.Parallel()
	owner, relay := newEnv(t), newEnv(t)
	var strip atomic.Bool
	target, err := url.Parse(owner.http.URL)
	require.NoError(t, err)
	between := httptest.NewServer(&httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(target) },
		ModifyResponse: func(resp *http.Response) error {
			if strip.Load() {
				resp.Header.Del(server.HeaderMAC)
			}
			return nil
		},
	})
	t.Cleanup(between.Close)
	peers := map[string]string{"owner": owner.http.URL, "relay": relay.http.URL}
	owner.srv.SetNodes(nodes{here: owner.rooms, id: "owner", peers: peers})
	relay.srv.SetNodes(nodes{here: relay.rooms, owner: between.URL, id: "relay", peers: peers})
	id := owner.createRoom(room.ModeCoop, "easy")

	for _, stripped := range []bool{false, true} {
		strip.Store(stripped)
		resp, body := relay.do(http.MethodGet, "/api/rooms/"+id, "", "")
		c := relay.dial("Bo")
		c.send(map[string]any{"type": "join", "room": id, "name": "Bo"})
		if !stripped {
			assert.Equal(t, http.StatusOK, resp.StatusCode, body)
			for _, k := range server.RelayHeaders {
				assert.Empty(t, resp.Header.Get(k), "%s stays between the nodes", k)
			}
			w := await[protocol.Welcome](c, protocol.TypeWelcome, nil)
			assert.Equal(t, id, w.Room.ID)
			continue
		}
		assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, body)
		assert.Equal(t, "1", resp.Header.Get("Retry-After"))
		assert.Contains(t, body, protocol.CodeUnavailable)
		code, _ := c.closeStatus()
		assert.Equal(t, protocol.CloseCode(websocket.StatusGoingAway), code)
	}
}
