package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
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

// do sends a request to the server and reads the whole answer.
func (e *env) do(method, path, contentType, body string, headers ...string) (*http.Response, string) {
	e.tb.Helper()
	req, err := http.NewRequest(method, e.http.URL+path, strings.NewReader(body))
	require.NoError(e.tb, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := arenatest.Client.Do(req)
	require.NoError(e.tb, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(e.tb, err)
	return resp, string(data)
}

// Every answer carries the web defaults: the pages, the client's files,
// the API's answers and refusals, the probes, a page that is not there.
func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.createRoom("race", "easy")
	tests := []struct {
		method, path, body string
		status             int
	}{
		{http.MethodGet, "/", "", http.StatusOK},
		{http.MethodGet, "/app.js", "", http.StatusOK},
		{http.MethodGet, "/style.css", "", http.StatusOK},
		{http.MethodGet, "/sw.js", "", http.StatusOK},
		{http.MethodGet, "/manifest.webmanifest", "", http.StatusOK},
		{http.MethodGet, "/icon-512.png", "", http.StatusOK},
		{http.MethodGet, "/r/" + id, "", http.StatusOK},
		{http.MethodGet, "/lab", "", http.StatusOK},
		{http.MethodGet, "/account", "", http.StatusOK},
		{http.MethodGet, "/nope.js", "", http.StatusNotFound},
		{http.MethodGet, "/api/rooms/" + id, "", http.StatusOK},
		{http.MethodGet, "/api/rooms/zzzzzzzz", "", http.StatusNotFound},
		{http.MethodPost, "/api/rooms", `{"mode":"coop"}`, http.StatusCreated},
		{http.MethodPost, "/api/rooms", `{"mode":"chess"}`, http.StatusBadRequest},
		{http.MethodPost, "/api/solve", `{"puzzle":"1"}`, http.StatusBadRequest},
		{http.MethodGet, "/api/generate?level=easy&seed=1", "", http.StatusOK},
		{http.MethodGet, "/livez", "", http.StatusOK},
		{http.MethodGet, "/readyz", "", http.StatusOK},
		{http.MethodGet, "/ws", "", http.StatusUpgradeRequired},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			resp, body := e.do(tt.method, tt.path, "application/json", tt.body)
			require.Equal(t, tt.status, resp.StatusCode, "%s", body)
			assert.Equal(t, server.ContentSecurityPolicy, resp.Header.Get("Content-Security-Policy"))
			assert.Equal(t, "default-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'", resp.Header.Get("Content-Security-Policy"))
			assert.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"))
			assert.Equal(t, "same-origin", resp.Header.Get("Referrer-Policy"))
			assert.Equal(t, "DENY", resp.Header.Get("X-Frame-Options"))
		})
	}
}

// The client's pages hold nothing the policy would block: no inline
// script or style, no handler attribute, no javascript: link.
func TestClientPagesHoldNothingInline(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, page := e.do(http.MethodGet, "/", "", "")
	require.Contains(t, page, `<script type="module" src="/app.js"></script>`)
	lower := strings.ToLower(page)
	assert.Equal(t, 1, strings.Count(lower, "<script"), "the one script is a file")
	assert.NotContains(t, lower, "<style")
	assert.NotContains(t, lower, " style=")
	assert.NotContains(t, lower, "javascript:")
	for _, attr := range []string{" onclick=", " onload=", " onerror=", " oninput=", " onsubmit=", " onchange="} {
		assert.NotContains(t, lower, attr)
	}
}

// docs/protocol.md states the headers as the server sends them.
func TestSecurityHeadersDocumented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "protocol.md"))
	require.NoError(t, err)
	text := strings.Join(strings.Fields(string(doc)), " ")
	assert.Contains(t, text, "`Content-Security-Policy: "+server.ContentSecurityPolicy+"`")
	for _, want := range []string{"`X-Content-Type-Options: nosniff`", "`Referrer-Policy: same-origin`", "`X-Frame-Options: DENY`"} {
		assert.Contains(t, text, want)
	}
}

// apiWrites are the POST and DELETE routes the server registers, read from
// its source, so that a route added later is checked too.
func apiWrites(t *testing.T) []string {
	t.Helper()
	var routes []string
	for _, file := range []string{"server.go", "accounts.go"} {
		src, err := os.ReadFile(file)
		require.NoError(t, err)
		for _, m := range regexp.MustCompile(`mux\.HandleFunc\("((?:POST|DELETE) /api/[^"]*)"`).FindAllStringSubmatch(string(src), -1) {
			routes = append(routes, m[1])
		}
	}
	require.GreaterOrEqual(t, len(routes), 16, "the rooms', the lab's and the accounts' routes")
	return routes
}

// A POST or DELETE of the API must say its body is JSON: what a page of
// another site can send without asking first (text/plain, a form's
// urlencoded data, multipart) or no type at all is refused with 415
// bad_content_type, before the route reads anything.
func TestWritesMustBeJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *server.Config) { c.LabRate = 2; c.CreateRate = 1 })
	foreign := []string{"", "text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonp", "json"}
	for _, route := range apiWrites(t) {
		method, path, _ := strings.Cut(route, " ")
		path = strings.ReplaceAll(path, "{id}", "k3m9x2pq")
		for _, ct := range foreign {
			resp, body := e.do(method, path, ct, `{"mode":"race","puzzle":"1"}`, "Origin", e.http.URL)
			require.Equal(t, http.StatusUnsupportedMediaType, resp.StatusCode, "%s with %q: %s", route, ct, body)
			code, msg := apiErrorOf(t, []byte(body))
			assert.Equal(t, protocol.CodeBadContentType, code, route)
			assert.Contains(t, msg, "application/json")
			assert.Empty(t, resp.Header.Values("Set-Cookie"), "%s: no session", route)
			assert.Equal(t, "DENY", resp.Header.Get("X-Frame-Options"), "a refusal has the headers too")
		}
	}
	assert.Zero(t, e.rooms.Stats().Rooms, "no room was made")

	// The refusals used none of the address's budgets: the one room and
	// the two lab requests a minute are still there. A type with
	// parameters, in any case, is JSON.
	resp, body := e.do(http.MethodPost, "/api/rooms", "Application/JSON; charset=utf-8", `{"mode":"race"}`)
	assert.Equal(t, http.StatusCreated, resp.StatusCode, "%s", body)
	resp, body = e.do(http.MethodPost, "/api/solve", "application/json", fmt.Sprintf(`{"puzzle":%q}`, labMedium.Givens.String()))
	assert.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)

	// GETs need no type.
	resp, _ = e.do(http.MethodGet, "/api/generate?level=easy&seed=1", "text/plain", "")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

// An account route refused for its type starts no session and changes
// none: the cookie's routes are behind the same check.
func TestAccountWritesMustBeJSON(t *testing.T) {
	t.Parallel()
	e := newAcctEnv(t)
	resp, _ := e.do(http.MethodPost, "/api/session", "text/plain", `{"name":"Mallory"}`, "Origin", e.origin)
	assert.Equal(t, http.StatusUnsupportedMediaType, resp.StatusCode)
	assert.Empty(t, resp.Header.Values("Set-Cookie"))

	b := e.browser()
	var me server.MeResponse
	b.ok(http.MethodPost, "/api/session", map[string]string{"name": "Ann"}, &me)
	require.NotNil(t, me.Player)
	b.refusedAs(http.MethodPost, "/api/account/signout", "application/x-www-form-urlencoded", http.StatusUnsupportedMediaType, protocol.CodeBadContentType)
	b.refusedAs(http.MethodDelete, "/api/account", "text/plain", http.StatusUnsupportedMediaType, protocol.CodeBadContentType)
	b.ok(http.MethodGet, "/api/me", nil, &me)
	require.NotNil(t, me.Player, "the session is still there")
	assert.Equal(t, "Ann", me.Player.Name)
}

// refusedAs sends the request, with an empty JSON object, as contentType
// and checks that it is refused with the status and code.
func (b *browser) refusedAs(method, path, contentType string, status int, code string) {
	b.t.Helper()
	b.contentType = contentType
	defer func() { b.contentType = "" }()
	b.refused(method, path, struct{}{}, status, code)
}

// With PUBLIC_URL set, the server answers for its host alone: a request
// naming another (its address, a name it was not set up for) is refused
// with 421 wrong_host and changes nothing, while the probes, which an
// orchestrator sends to the node's own address, are answered whatever
// their Host.
func TestHostCheck(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *server.Config) { c.PublicURL = "https://sudoku.example" })
	for _, host := range []string{"sudoku.example", "SUDOKU.example:443", "sudoku.example."} {
		resp, body := e.do(http.MethodPost, "/api/rooms", "application/json", `{"mode":"race"}`, "Host", host)
		require.Equal(t, http.StatusCreated, resp.StatusCode, "%s: %s", host, body)
		var out server.CreateRoomResponse
		require.NoError(t, json.Unmarshal([]byte(body), &out))
		assert.True(t, strings.HasPrefix(out.URL, "https://sudoku.example/r/"), out.URL)
		resp, _ = e.do(http.MethodGet, "/r/"+out.ID, "", "", "Host", host)
		assert.Equal(t, http.StatusOK, resp.StatusCode, host)
	}
	rooms := e.rooms.Stats().Rooms

	own := strings.TrimPrefix(e.http.URL, "http://")
	for _, host := range []string{own, "evil.example", "sudoku.example:8443", "sudoku.example.evil.example", "localhost"} {
		for _, tt := range []struct{ method, path, ctype, body string }{
			{http.MethodGet, "/", "", ""},
			{http.MethodGet, "/r/k3m9x2pq", "", ""},
			{http.MethodGet, "/app.js", "", ""},
			{http.MethodGet, "/api/generate?level=easy", "", ""},
			{http.MethodPost, "/api/rooms", "application/json", `{"mode":"race"}`},
			{http.MethodPost, "/api/session", "application/json", `{"name":"Mallory"}`},
			{http.MethodGet, "/ws", "", ""},
		} {
			resp, body := e.do(tt.method, tt.path, tt.ctype, tt.body, "Host", host)
			require.Equal(t, http.StatusMisdirectedRequest, resp.StatusCode, "%s %s for %s: %s", tt.method, tt.path, host, body)
			code, msg := apiErrorOf(t, []byte(body))
			assert.Equal(t, protocol.CodeWrongHost, code)
			assert.Contains(t, msg, "sudoku.example")
			assert.Equal(t, server.ContentSecurityPolicy, resp.Header.Get("Content-Security-Policy"), "a refusal has the headers too")
			assert.Empty(t, resp.Header.Values("Set-Cookie"))
		}
		for _, probe := range []string{"/livez", "/readyz", "/healthz"} {
			resp, body := e.do(http.MethodGet, probe, "", "", "Host", host)
			assert.Equal(t, http.StatusOK, resp.StatusCode, "%s for %s: %s", probe, host, body)
		}
	}
	assert.Equal(t, rooms, e.rooms.Stats().Rooms, "no room was made for another host")

	// A WebSocket for another host is refused before its upgrade.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, resp, err := websocket.Dial(ctx, e.wsURL(), &websocket.DialOptions{Host: "evil.example"})
	require.Error(t, err)
	require.NotNil(t, resp)
	assert.Equal(t, http.StatusMisdirectedRequest, resp.StatusCode)
	ws, _, err := websocket.Dial(ctx, e.wsURL(), &websocket.DialOptions{Host: "sudoku.example"})
	require.NoError(t, err)
	ws.CloseNow()
}

// Without PUBLIC_URL any Host is answered, and a room's link is made from
// it, as before.
func TestNoHostCheckWithoutPublicURL(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, host := range []string{"sudoku.example", "10.0.0.5:8080"} {
		resp, body := e.do(http.MethodPost, "/api/rooms", "application/json", `{"mode":"race"}`, "Host", host)
		require.Equal(t, http.StatusCreated, resp.StatusCode, "%s: %s", host, body)
		var out server.CreateRoomResponse
		require.NoError(t, json.Unmarshal([]byte(body), &out))
		assert.Equal(t, "http://"+host+"/r/"+out.ID, out.URL)
	}
}

// Nodes reach one another at NODE_ADDR, whose host is not PUBLIC_URL's:
// what a node relays, with its MAC of the nodes' secret, is answered, and
// a request without one (or with a MAC of another secret) for that host
// is not.
func TestHostCheckLetsNodesRelay(t *testing.T) {
	t.Parallel()
	public := func(c *server.Config) { c.PublicURL = "http://arena.example" }
	owner, relay := twoNodes(t, public)
	resp, body := owner.do(http.MethodPost, "/api/rooms", "application/json", `{"mode":"coop"}`, "Host", "arena.example")
	require.Equal(t, http.StatusCreated, resp.StatusCode, "%s", body)
	var room server.CreateRoomResponse
	require.NoError(t, json.Unmarshal([]byte(body), &room))

	// A room request and a join through the node that does not own the
	// room: it relays both to the owner's address.
	resp, body = relay.do(http.MethodGet, "/api/rooms/"+room.ID, "", "", "Host", "arena.example")
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, relay.wsURL(), &websocket.DialOptions{Host: "arena.example"})
	require.NoError(t, err)
	c := &client{tb: t, name: "Bo", ws: ws}
	t.Cleanup(func() { _ = ws.CloseNow() })
	w := c.join(room.ID)
	assert.Equal(t, room.ID, w.Room.ID)

	// The owner's own address without the secret is another host.
	resp, _ = owner.do(http.MethodGet, "/api/rooms/"+room.ID, "", "")
	assert.Equal(t, http.StatusMisdirectedRequest, resp.StatusCode)
	uri := "/api/rooms/" + room.ID
	for _, secret := range []string{"a guess at the secret", nodeSecret} {
		h, _ := signed(secret, http.MethodGet, uri, "relay", time.Now(), "203.0.113.5")
		var kv []string
		for k := range h {
			kv = append(kv, k, h.Get(k))
		}
		resp, _ = owner.do(http.MethodGet, uri, "", "", kv...)
		if secret == nodeSecret {
			assert.Equal(t, http.StatusOK, resp.StatusCode, "a relay's MAC")
		} else {
			assert.Equal(t, http.StatusMisdirectedRequest, resp.StatusCode, "a MAC of another secret")
		}
	}
}
