package main

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store/pgtest"
)

// TestNodesBelieveOnlyAProvedRelay runs a node (SOCKETS_PER_ADDR=1) over
// PostgreSQL, behind nginx with the deployment's configuration, and holds
// one WebSocket to it from the test's address. A client that sends the
// nodes' headers, vouching for another address, is counted under its own
// (its second socket closed with 4008) and gets no owner's proof: with a
// forged MAC, with a MAC of the real secret replayed a minute late, with
// the secret itself in clear (what got past the limits before), and,
// through nginx, even with a good fresh MAC, which nginx clears. The same
// good MAC straight to the node is believed: the node's address is the
// test's (loopback), so the headers alone decide, and the node answers
// with its proof. Without nginx it skips, unless E2E_REQUIRED=1.
func TestNodesBelieveOnlyAProvedRelay(t *testing.T) {
	arenatest.Nginx(t)
	ctx := context.Background()
	pg, err := pgtest.Start(ctx, pgtest.Options{})
	require.NoError(t, err)
	t.Cleanup(pg.Stop)
	node := arenatest.StartNodes(t, arenatest.NodeOptions{
		DatabaseURL: pg.NewDatabase(t), N: 1, Heartbeat: testHeartbeat, Timeout: testTimeout,
		Env: []string{"SOCKETS_PER_ADDR=1", "PING_INTERVAL=1h"},
	})[0]
	// One node behind each of the upstream's servers: every request
	// through nginx reaches it.
	lb := arenatest.StartBalancer(t, nginxFile, []*arenatest.Arena{node, node, node})

	held := dialSocket(ctx, t, node.WS(), nil)
	require.True(t, held.admitted, "the test's own socket")

	// signed are the headers node n1 sends relaying /ws for client, at.
	signed := func(secret string, at time.Time, client string) (http.Header, string) {
		ms := strconv.FormatInt(at.UnixMilli(), 10)
		mac := server.RelayMAC(secret, http.MethodGet, "/ws", "n1", ms, client)
		return http.Header{server.HeaderNode: {"n1"}, server.HeaderTime: {ms}, server.HeaderClientAddr: {client}, server.HeaderMAC: {mac}}, mac
	}
	forged, _ := signed("a82774c0c949ad215581e59e34bb981e4a7af0a8a834920fd80715a098a9b696", time.Now(), "203.0.113.1")
	stale, _ := signed(arenatest.NodeSecret, time.Now().Add(-time.Minute), "203.0.113.2")
	inClear := http.Header{"X-Arena-Node-Secret": {arenatest.NodeSecret}, server.HeaderClientAddr: {"203.0.113.3"}}
	for name, tt := range map[string]struct {
		url string
		h   http.Header
	}{
		"a forged MAC":             {node.WS(), forged},
		"a MAC a minute old":       {node.WS(), stale},
		"the secret in clear":      {node.WS(), inClear},
		"a good MAC through nginx": {lb.WS(), func() http.Header { h, _ := signed(arenatest.NodeSecret, time.Now(), "203.0.113.4"); return h }()},
	} {
		s := dialSocket(ctx, t, tt.url, tt.h)
		assert.False(t, s.admitted, "%s: counted under the test's address", name)
		assert.Equal(t, protocol.CloseTooManySockets, s.code, name)
		assert.Empty(t, s.resp.Header.Get(server.HeaderMAC), "%s: no owner's proof", name)
	}

	h, mac := signed(arenatest.NodeSecret, time.Now(), "203.0.113.5")
	s := dialSocket(ctx, t, node.WS(), h)
	assert.True(t, s.admitted, "a good MAC from a registered node's address is believed: code %d", s.code)
	assert.Equal(t, "n1", s.resp.Header.Get(server.HeaderNode))
	assert.Equal(t, server.OwnerMAC(arenatest.NodeSecret, mac, "n1"), s.resp.Header.Get(server.HeaderMAC), "the node's proof")
}

// socket is what became of a WebSocket dialled to a node: admitted (a
// message before a join is answered with not_joined) or closed, with its
// code, and the upgrade's answer.
type socket struct {
	admitted bool
	code     protocol.CloseCode
	resp     *http.Response
}

// dialSocket dials url with the headers and sends a message to learn
// whether the socket was admitted.
func dialSocket(ctx context.Context, t *testing.T, url string, h http.Header) socket {
	t.Helper()
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, resp, err := websocket.Dial(dctx, url, &websocket.DialOptions{HTTPHeader: h})
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.CloseNow() })
	_ = conn.Write(dctx, websocket.MessageText, []byte(`{"type":"ping"}`))
	_, data, err := conn.Read(dctx)
	var ce websocket.CloseError
	switch {
	case err == nil:
		require.True(t, strings.Contains(string(data), protocol.CodeNotJoined), "the answer to a message before a join: %s", data)
		return socket{admitted: true, resp: resp}
	case errors.As(err, &ce):
		return socket{code: protocol.CloseCode(ce.Code), resp: resp}
	}
	t.Fatalf("%s: want an answer or a close: %v", url, err)
	return socket{}
}
