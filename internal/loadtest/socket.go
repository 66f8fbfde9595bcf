package loadtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/coder/websocket"
)

// socket is a player's WebSocket. What it reads it hands to the player as
// it comes, one message at a time and in order (player.onMessage), and how
// it ended once (player.onEnd).
type socket interface {
	// write sends one text message, bounded in time.
	write(ctx context.Context, data []byte) error
	// close closes the socket as a player leaving would: a normal
	// closure, answered by the server's own close frame.
	close(reason string)
}

// closedError is a socket ended by a close frame, with its code.
type closedError struct{ code int }

func (e closedError) Error() string { return fmt.Sprintf("closed with code %d", e.code) }

// closeCode is the WebSocket close code an error carries: a close frame's,
// or 1006 (closed without one) when it has none.
func closeCode(err error) int {
	var ce closedError
	if errors.As(err, &ce) {
		return ce.code
	}
	if code := websocket.CloseStatus(err); code >= 0 {
		return int(code)
	}
	return int(websocket.StatusAbnormalClosure)
}

// dialSocket opens a player's WebSocket to u: with the load test's own
// client (leanSocket) where it can run (Linux, no TLS), which reads every
// socket of the process from a few epoll loops instead of a goroutine a
// player, and with coder/websocket otherwise.
func (r *run) dialSocket(ctx context.Context, u *url.URL, origin string, p *player) (socket, error) {
	if leanSockets && u.Scheme == "ws" && !r.o.LibraryClient {
		return r.dialLean(ctx, u, origin, p)
	}
	conn, _, err := websocket.Dial(ctx, u.String(), &websocket.DialOptions{
		HTTPClient: r.dialer(),
		HTTPHeader: http.Header{"Origin": {origin}},
	})
	if err != nil {
		return nil, err
	}
	conn.SetReadLimit(maxMessage)
	s := &librarySocket{conn: conn}
	go s.readLoop(p)
	return s, nil
}

// maxMessage is the largest message a player reads.
const maxMessage = 1 << 20

// librarySocket is a socket through coder/websocket, read by a goroutine
// of its own.
type librarySocket struct {
	conn *websocket.Conn
}

func (s *librarySocket) write(ctx context.Context, data []byte) error {
	wctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	return s.conn.Write(wctx, websocket.MessageText, data)
}

func (s *librarySocket) close(reason string) {
	go func() { _ = s.conn.Close(websocket.StatusNormalClosure, reason) }()
}

// readLoop reads every message until the socket ends (the library answers
// the server's pings while a read runs).
func (s *librarySocket) readLoop(p *player) {
	var buf bytes.Buffer // the message being read, kept between messages
	for {
		_, rd, err := s.conn.Reader(context.Background())
		if err == nil {
			buf.Reset()
			_, err = buf.ReadFrom(rd)
		}
		if err != nil {
			s.conn.CloseNow()
			p.onEnd(err)
			return
		}
		p.onMessage(buf.Bytes(), time.Now())
	}
}
