package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/server"
)

const nodeSecret = "secret-shared-by-the-nodes"

// nodes places every room that is not here on the node at owner ("" when
// the rooms are all here), as package cluster's does from the database.
type nodes struct {
	here  *room.Registry
	owner string
}

func (n nodes) Locate(_ context.Context, id string) (string, error) {
	if _, err := n.here.Get(id); err == nil || n.owner == "" {
		return "", nil
	}
	return n.owner, nil
}

func (n nodes) Secret() string { return nodeSecret }

// twoNodes are two servers, the rooms made on owner and the other relaying
// to it.
func twoNodes(t *testing.T, opts ...envOption) (owner, relay *env) {
	t.Helper()
	owner, relay = newEnv(t, opts...), newEnv(t, opts...)
	owner.srv.SetNodes(nodes{here: owner.rooms})
	relay.srv.SetNodes(nodes{here: relay.rooms, owner: owner.http.URL})
	return owner, relay
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

// TestRelayedAddressNeedsTheSecret: the client's address a relay passes
// on counts for the per-address limits only beside the nodes' secret, so
// that a client cannot pose as another address.
func TestRelayedAddressNeedsTheSecret(t *testing.T) {
	t.Parallel()
	owner, _ := twoNodes(t, func(c *server.Config) { c.SocketsPerAddr = 1 })
	dial := func(secret, addr string) *client {
		h := http.Header{server.HeaderClientAddr: {addr}}
		if secret != "" {
			h.Set(server.HeaderNodeSecret, secret)
		}
		return owner.dialWith("relayed "+addr, &websocket.DialOptions{HTTPHeader: h})
	}
	// Open: a message before a join is answered, not closed.
	open := func(c *client) {
		t.Helper()
		c.send(map[string]any{"type": "ping"})
		c.awaitError(protocol.CodeNotJoined)
	}
	open(owner.dial("loopback"))
	// With the secret, another address: admitted beside the loopback one.
	open(dial(nodeSecret, "203.0.113.7"))
	// Without it the header is not believed: the loopback address again.
	spoofed := dial("wrong", "198.51.100.9")
	code, _ := spoofed.closeStatus()
	assert.Equal(t, protocol.CloseTooManySockets, code)
}
