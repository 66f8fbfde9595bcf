package server_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/arenatest"
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
