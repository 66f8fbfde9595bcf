package loadtest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/sudoku-arena/arena/internal/ws"
)

// The clients a run's players can use (Options.Client).
const (
	// ClientEpoll reads every socket of the process from one epoll loop
	// and writes frames itself: no goroutine a connection waits on its
	// socket, and an event costs a read and the parse. Linux only, and
	// ws:// only (no TLS).
	ClientEpoll = "epoll"
	// ClientLibrary gives each connection a coder/websocket Conn and a
	// goroutine that reads it.
	ClientLibrary = "library"
)

// readLimit bounds one message from the server, as the library's
// SetReadLimit does.
const readLimit = 1 << 20

// link is a player's WebSocket: the player writes on it, and its reader
// hands every message to the player's receive, and the end to ended.
type link interface {
	// send writes one text message, bounded in time.
	send(ctx context.Context, data []byte) error
	// close starts the close handshake with a normal closure; the reader
	// ends when the server answers.
	close(reason string)
	// closeNow drops the socket.
	closeNow()
}

// receiver is what a link's reader hands on to.
type receiver interface {
	// receive is one whole message and when it was read; it must not
	// keep data. An error ends the connection.
	receive(data []byte, at time.Time) error
	// ended says that the connection is over: err is why, code the close
	// code the server sent (-1 for none).
	ended(err error, code int)
}

// libLink is a connection through coder/websocket, with its own reader.
type libLink struct {
	c   *websocket.Conn
	buf bytes.Buffer // the message being read (the reader's)
}

func dialLibrary(ctx context.Context, u *url.URL, origin string, c *http.Client, rc receiver) (link, error) {
	conn, _, err := websocket.Dial(ctx, u.String(), &websocket.DialOptions{
		HTTPClient: c,
		HTTPHeader: http.Header{"Origin": {origin}},
	})
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", u, err)
	}
	conn.SetReadLimit(readLimit)
	l := &libLink{c: conn}
	go l.read(rc)
	return l, nil
}

func (l *libLink) read(rc receiver) {
	for {
		_, rd, err := l.c.Reader(context.Background())
		if err == nil {
			// The message is read into the link's own buffer, kept
			// between reads: it is done with before the next.
			l.buf.Reset()
			_, err = l.buf.ReadFrom(rd)
		}
		if err == nil {
			err = rc.receive(l.buf.Bytes(), time.Now())
		}
		if err != nil {
			l.c.CloseNow()
			rc.ended(err, int(websocket.CloseStatus(err)))
			return
		}
	}
}

func (l *libLink) send(ctx context.Context, data []byte) error {
	wctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	return l.c.Write(wctx, websocket.MessageText, data)
}

func (l *libLink) close(reason string) { l.c.Close(websocket.StatusNormalClosure, reason) }
func (l *libLink) closeNow()           { l.c.CloseNow() }

// CloseError is how a connection the server closed ended.
type CloseError struct{ Code int }

func (e *CloseError) Error() string { return fmt.Sprintf("websocket closed with %d", e.Code) }

// handshake upgrades conn to a WebSocket for u's path, as a browser at
// origin would, within the deadline, and returns what the server sent
// past its answer's head (the start of its first frames, if any).
func handshake(conn net.Conn, u *url.URL, origin string, deadline time.Time) ([]byte, error) {
	var nonce [16]byte
	_, _ = rand.Read(nonce[:])
	key := base64.StdEncoding.EncodeToString(nonce[:])
	if err := conn.SetDeadline(deadline); err != nil {
		return nil, fmt.Errorf("websocket handshake: %w", err)
	}
	req := "GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host +
		"\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: " + key +
		"\r\nOrigin: " + origin + "\r\n\r\n"
	if _, err := io.WriteString(conn, req); err != nil {
		return nil, fmt.Errorf("websocket handshake: %w", err)
	}
	br := bufio.NewReaderSize(conn, 4096)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return nil, fmt.Errorf("websocket handshake: %w", err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		return nil, fmt.Errorf("websocket handshake: %s: %s", resp.Status, bytes.TrimSpace(body))
	}
	switch {
	case !strings.EqualFold(resp.Header.Get("Upgrade"), "websocket"):
		return nil, fmt.Errorf("websocket handshake: Upgrade %q", resp.Header.Get("Upgrade"))
	case !ws.HasToken(resp.Header, "Connection", "upgrade"):
		return nil, fmt.Errorf("websocket handshake: Connection %q", resp.Header.Get("Connection"))
	case resp.Header.Get("Sec-WebSocket-Accept") != ws.AcceptKey(key):
		return nil, errors.New("websocket handshake: wrong Sec-WebSocket-Accept")
	case resp.Header.Get("Sec-WebSocket-Extensions") != "":
		return nil, fmt.Errorf("websocket handshake: extensions %q not asked for", resp.Header.Get("Sec-WebSocket-Extensions"))
	}
	if err := conn.SetDeadline(time.Time{}); err != nil {
		return nil, fmt.Errorf("websocket handshake: %w", err)
	}
	rest, _ := br.Peek(br.Buffered())
	return bytes.Clone(rest), nil
}
