package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/arenatest"
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
