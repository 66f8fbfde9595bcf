package main

import (
	"context"
	"fmt"
	"io"
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
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/pgtest"
)

// TestBalancerRoutesByRoom runs the deployment's nginx (deploy/nginx.conf)
// in front of three plain HTTP servers that answer with their name, and
// checks its routing rules: every request for one room (the WebSocket's
// /ws?room=ID, GET /api/rooms/ID and /api/rooms/ID/replay) reaches the
// same server, every time; the rooms spread over all three; a request
// with no room (POST /api/rooms, a page, the daily, /ws without ?room=)
// has an empty hash key, which nginx passes to round robin; and when a
// server is gone, its rooms go to the others (an idempotent request is
// tried on the next server of the ring) while the other rooms stay
// where they were. Without nginx it skips, unless E2E_REQUIRED=1.
func TestBalancerRoutesByRoom(t *testing.T) {
	arenatest.Nginx(t)
	names := []string{"a", "b", "c"}
	servers := make([]*httptest.Server, len(names))
	addrs := make([]string, len(names))
	for i, name := range names {
		servers[i] = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, name)
		}))
		t.Cleanup(servers[i].Close)
		addrs[i] = strings.TrimPrefix(servers[i].URL, "http://")
	}
	lb := arenatest.StartBalancerFor(t, arenatest.FreeAddr(t), nginxFile, addrs)
	reach := func(method, path string) string {
		t.Helper()
		req, err := http.NewRequest(method, lb.URL()+path, nil)
		require.NoError(t, err)
		resp, err := arenatest.Client.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s %s: %s", method, path, body)
		return string(body)
	}

	// Each room's requests on one server; the rooms over all three.
	home := map[string]string{}
	count := map[string]int{}
	for i := range 60 {
		id := fmt.Sprintf("r%07x", i*7919)
		home[id] = reach(http.MethodGet, "/ws?room="+id)
		count[home[id]]++
		for _, path := range []string{"/ws?room=" + id, "/api/rooms/" + id, "/api/rooms/" + id + "/replay"} {
			assert.Equal(t, home[id], reach(http.MethodGet, path), "%s goes where room %s's WebSocket went", path, id)
		}
	}
	for _, name := range names {
		assert.Positive(t, count[name], "some rooms on %s: %v", name, count)
	}

	// No room: round robin, one rotation (the test's nginx has one
	// worker), whatever the method.
	for _, req := range [][2]string{
		{http.MethodPost, "/api/rooms"}, {http.MethodGet, "/"}, {http.MethodGet, "/api/daily"},
		{http.MethodGet, "/ws"}, {http.MethodGet, "/r/abc"},
	} {
		got := map[string]bool{}
		for range len(names) {
			got[reach(req[0], req[1])] = true
		}
		assert.Len(t, got, len(names), "%s %s goes round robin", req[0], req[1])
	}

	// A server gone: its rooms move, the others' stay.
	servers[0].Close()
	for id, was := range home {
		now := reach(http.MethodGet, "/ws?room="+id)
		if was == names[0] {
			assert.NotEqual(t, names[0], now, "room %s left the server that is gone", id)
		} else {
			assert.Equal(t, was, now, "room %s stays on %s", id, was)
		}
	}
}

// TestRelayedPlayerLeavesAPausedOwner: a player relayed by one node to
// the room's owner, which then stalls (SIGSTOP), is not left waiting on
// it: the relaying node's pings go unanswered, and it closes the player's
// socket with 4009 within a few seconds (2 s of quiet, 3 s for the pong);
// the player comes back at once with their token, through the same node,
// and once the owner is past NODE_TIMEOUT that node takes the room over
// and the player finds every move the room had acknowledged.
func TestRelayedPlayerLeavesAPausedOwner(t *testing.T) {
	ctx := context.Background()
	pg, err := pgtest.Start(ctx, pgtest.Options{})
	require.NoError(t, err)
	t.Cleanup(pg.Stop)
	nodes := startNodes(t, pg.NewDatabase(t), 2)
	owner, relaying := nodes[0], nodes[1]
	r := startVia(ctx, t, room.ModeCoop, owner, relaying) // made and run on n1; the second player relayed by n2
	relayed := r.players[1]
	someMoves(ctx, t, r) // and written: a pause, as a kill, may cost the event log's last batch
	require.Equal(t, 1.0, metric(t, relaying, "arena_relayed_connections"))

	owner.Pause(t)
	paused := time.Now()
	var closeErr error
	for closeErr == nil {
		_, closeErr = relayed.read(ctx)
	}
	waited := time.Since(paused)
	t.Logf("relayed socket closed %s after the owner was paused: %v", waited.Round(time.Millisecond), closeErr)
	assert.Equal(t, protocol.CloseMoved, protocol.CloseCode(websocket.CloseStatus(closeErr)), "%v", closeErr)
	assert.Less(t, waited, 8*time.Second, "closed within a few seconds of the stall")
	assert.Eventually(t, func() bool {
		return relaying.Logged("relay: the room's node stopped answering; client closed to come back") == 1
	}, 5*time.Second, 10*time.Millisecond, "the relaying node logs it")

	back := rejoin(ctx, t, relaying, relayed, takeoverBound)
	checkBoard(t, back, r.players...)
	assert.Equal(t, "n2", ownerOf(ctx, t, openStore(ctx, t, relaying).(store.Cluster), r.id), "taken over by the node the player came back through")
	back.close()
	owner.Resume()
}
