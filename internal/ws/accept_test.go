package ws

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// upgrader is a server whose GET /ws upgrades as the arena server's
// does (Accept, with origins allowed besides its own host), with a 4,096
// byte read limit, and hands each connection to got (nil: closes it).
func upgrader(t *testing.T, origins []string, got ...func(*Conn)) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /ws", func(w http.ResponseWriter, r *http.Request) {
		c, err := Accept(w, r, origins, time.Second, 4096)
		if err != nil {
			return
		}
		if len(got) == 0 {
			_ = c.Close()
			return
		}
		got[0](c)
	})
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	return hs
}

func TestHandshakeHelpers(t *testing.T) {
	assert.Equal(t, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", AcceptKey("dGhlIHNhbXBsZSBub25jZQ=="), "RFC 6455's example")
	h := http.Header{}
	h.Add("Connection", "keep-alive,  Upgrade ")
	assert.True(t, HasToken(h, "Connection", "upgrade"))
	assert.False(t, HasToken(h, "Connection", "close"))
	assert.False(t, HasToken(h, "Upgrade", "websocket"))
}

// A request that is not a version-13 WebSocket handshake is refused with
// the status for what is wrong and a body that says it, and a good one is
// answered with the key's Sec-WebSocket-Accept (RFC 6455's example).
func TestTheHandshakeIsChecked(t *testing.T) {
	hs := upgrader(t, nil)
	url := hs.URL + "/ws"
	good := func(r *http.Request) {
		r.Header.Set("Connection", "keep-alive, Upgrade")
		r.Header.Set("Upgrade", "websocket")
		r.Header.Set("Sec-WebSocket-Version", "13")
		r.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	}
	for name, tt := range map[string]struct {
		method string
		edit   func(r *http.Request)
		status int
		header string // a header the refusal sets
		body   string
	}{
		"no upgrade":        {http.MethodGet, func(r *http.Request) { r.Header.Del("Upgrade") }, http.StatusUpgradeRequired, "Upgrade", "WebSocket endpoint"},
		"another version":   {http.MethodGet, func(r *http.Request) { r.Header.Set("Sec-WebSocket-Version", "8") }, http.StatusBadRequest, "Sec-Websocket-Version", "13"},
		"no key":            {http.MethodGet, func(r *http.Request) { r.Header.Del("Sec-WebSocket-Key") }, http.StatusBadRequest, "", "Sec-WebSocket-Key"},
		"a short key":       {http.MethodGet, func(r *http.Request) { r.Header.Set("Sec-WebSocket-Key", "c2hvcnQ=") }, http.StatusBadRequest, "", "16 bytes"},
		"two keys":          {http.MethodGet, func(r *http.Request) { r.Header.Add("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==") }, http.StatusBadRequest, "", "one Sec-WebSocket-Key"},
		"a foreign origin":  {http.MethodGet, func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") }, http.StatusForbidden, "", "evil.example"},
		"a bad origin":      {http.MethodGet, func(r *http.Request) { r.Header.Set("Origin", "%zz") }, http.StatusForbidden, "", "not a URL"},
		"a POST":            {http.MethodPost, func(*http.Request) {}, http.StatusMethodNotAllowed, "", "Method Not Allowed"},
		"the server's host": {http.MethodGet, func(r *http.Request) { r.Header.Set("Origin", hs.URL) }, http.StatusSwitchingProtocols, "Sec-Websocket-Accept", ""},
	} {
		t.Run(name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, url, nil)
			require.NoError(t, err)
			good(req)
			tt.edit(req)
			resp, err := http.DefaultTransport.RoundTrip(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			assert.Equal(t, tt.status, resp.StatusCode)
			if tt.header != "" {
				assert.NotEmpty(t, resp.Header.Get(tt.header))
			}
			if tt.status == http.StatusSwitchingProtocols {
				assert.Equal(t, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", resp.Header.Get("Sec-WebSocket-Accept"))
				assert.Empty(t, resp.Header.Get("Sec-WebSocket-Extensions"), "no extension is agreed")
				return
			}
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Contains(t, string(body), tt.body)
		})
	}
}

// The headers the handler set before Accept go with the 101, those the
// handshake sets itself aside, and a value cannot break the answer's
// lines.
func TestTheAnswerCarriesTheHandlersHeaders(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /ws", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Proof", "abc")
		w.Header().Set("X-Broken", "a\r\nX-Injected: 1")
		w.Header().Set("Connection", "close")
		w.Header().Set("Content-Length", "12")
		if c, err := Accept(w, r, nil, time.Second, 4096); err == nil {
			_ = c.Close()
		}
	})
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	req, err := http.NewRequest(http.MethodGet, hs.URL+"/ws", nil)
	require.NoError(t, err)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	resp, err := http.DefaultTransport.RoundTrip(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusSwitchingProtocols, resp.StatusCode)
	assert.Equal(t, "abc", resp.Header.Get("X-Proof"))
	assert.Equal(t, []string{"Upgrade"}, resp.Header.Values("Connection"))
	assert.Empty(t, resp.Header.Get("Content-Length"))
	assert.Empty(t, resp.Header.Get("X-Injected"))
	assert.Equal(t, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", resp.Header.Get("Sec-WebSocket-Accept"))
}
