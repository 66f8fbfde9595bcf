package ws

import (
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"
)

// Accept answers a client's WebSocket handshake (RFC 6455, section 4.2)
// and takes its socket over from net/http. A request that is not a
// WebSocket handshake is answered with 426, 400 or 405, one from an origin
// that is neither the server's host nor one of origins (host patterns, as
// path.Match reads them, with a scheme when they name one) with 403; the
// error says why. No extension or subprotocol is offered, so none is
// agreed: the frames are plain. Headers set on w before the call go with
// the 101 answer, as net/http sends them with any other (those the
// handshake itself sets aside).
//
// The connection's writes each have timeout to finish in, and a message
// from the client may hold up to limit bytes (a longer one closes the
// connection with StatusTooBig).
func Accept(w http.ResponseWriter, r *http.Request, origins []string, timeout time.Duration, limit int) (*Conn, error) {
	key, status, err := checkHandshake(w.Header(), r)
	if err == nil {
		status, err = http.StatusForbidden, checkOrigin(r, origins)
	}
	if err != nil {
		http.Error(w, err.Error(), status)
		return nil, err
	}
	var answer strings.Builder
	answer.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + AcceptKey(key) + "\r\n")
	_ = w.Header().WriteSubset(&answer, handshakeHeaders) // a strings.Builder takes every write
	answer.WriteString("\r\n")
	nc, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
		return nil, fmt.Errorf("websocket: hijack: %w", err)
	}
	// What the client sent after its request, which net/http has read.
	early, _ := brw.Reader.Peek(brw.Reader.Buffered())
	c := newConn(nc, early, timeout, limit)
	if _, err := c.Write([]byte(answer.String())); err != nil {
		_ = nc.Close()
		return nil, fmt.Errorf("websocket: handshake answer: %w", err)
	}
	return c, nil
}

// handshakeHeaders are the headers Accept's answer sets itself, and those
// a 101 must not carry: the rest of w's go with it.
var handshakeHeaders = map[string]bool{
	"Upgrade": true, "Connection": true, "Sec-Websocket-Accept": true,
	"Content-Length": true, "Transfer-Encoding": true,
}

// checkHandshake checks that r is a WebSocket handshake, and returns its
// key; or the status to refuse it with and why, with the headers that
// say what the server speaks set on h.
func checkHandshake(h http.Header, r *http.Request) (key string, status int, err error) {
	if !r.ProtoAtLeast(1, 1) {
		upgradeRequired(h)
		return "", http.StatusUpgradeRequired, fmt.Errorf("websocket: the handshake must be HTTP/1.1 or later, not %s", r.Proto)
	}
	if !HasToken(r.Header, "Connection", "upgrade") || !HasToken(r.Header, "Upgrade", "websocket") {
		upgradeRequired(h)
		return "", http.StatusUpgradeRequired, errors.New("websocket: this is a WebSocket endpoint: the request must carry Connection: Upgrade and Upgrade: websocket")
	}
	if r.Method != http.MethodGet {
		return "", http.StatusMethodNotAllowed, fmt.Errorf("websocket: the handshake must be a GET, not %s", r.Method)
	}
	if v := r.Header.Get("Sec-WebSocket-Version"); v != "13" {
		h.Set("Sec-WebSocket-Version", "13")
		return "", http.StatusBadRequest, fmt.Errorf("websocket: version %q is not spoken here: 13 is", v)
	}
	keys := r.Header.Values("Sec-WebSocket-Key")
	if len(keys) != 1 {
		return "", http.StatusBadRequest, fmt.Errorf("websocket: the handshake must carry one Sec-WebSocket-Key, not %d", len(keys))
	}
	key = strings.TrimSpace(keys[0])
	if b, err := base64.StdEncoding.DecodeString(key); err != nil || len(b) != 16 {
		return "", http.StatusBadRequest, fmt.Errorf("websocket: Sec-WebSocket-Key %q is not 16 bytes in base64", key)
	}
	return key, 0, nil
}

// upgradeRequired sets the headers of a 426: what the endpoint speaks.
func upgradeRequired(h http.Header) {
	h.Set("Connection", "Upgrade")
	h.Set("Upgrade", "websocket")
}

// checkOrigin lets a request without an Origin (not a browser's), or
// from the server's own host, or from a host that one of patterns matches
// (with its scheme, "https://*.example.com", when the pattern names one).
func checkOrigin(r *http.Request, patterns []string) error {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return nil
	}
	u, err := url.Parse(origin)
	if err != nil {
		return fmt.Errorf("websocket: the Origin %q is not a URL", origin)
	}
	if strings.EqualFold(u.Host, r.Host) {
		return nil
	}
	for _, p := range patterns {
		target := u.Host
		if strings.Contains(p, "://") {
			target = u.Scheme + "://" + u.Host
		}
		if ok, err := path.Match(strings.ToLower(p), strings.ToLower(target)); err == nil && ok {
			return nil
		}
	}
	return fmt.Errorf("websocket: the origin %q may not open a WebSocket on %q", origin, r.Host)
}

// AcceptKey is the Sec-WebSocket-Accept that answers a handshake's
// Sec-WebSocket-Key (RFC 6455, section 4.2.2).
func AcceptKey(key string) string {
	sum := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// HasToken reports whether header name of h, a comma-separated list,
// holds token, in any case.
func HasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}
