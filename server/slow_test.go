package server_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/server"
)

// tinyBuffers gives the server's sockets a small kernel send buffer, so a
// client that stops reading holds up writes within a few frames.
type tinyBuffers struct{ net.Listener }

func (l tinyBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4096)
	}
	return c, err
}

// dialTiny dials with a small kernel receive buffer.
func (e *env) dialTiny(name string) *client {
	e.tb.Helper()
	d := &net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) {
			_ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		})
	}}
	hc := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
	return e.dialWith(name, &websocket.DialOptions{HTTPClient: hc})
}

func TestSlowClientIsClosedAsTooSlowAndMayResume(t *testing.T) {
	t.Parallel()
	e := newEnvListening(t, newKept(), func(l net.Listener) net.Listener { return tinyBuffers{l} },
		func(c *server.Config) { c.SendQueue, c.RateLimit, c.RateBurst = 32, 1e6, 1e6 })
	a, b := e.dial("Ann"), e.dialTiny("Bob")
	id, givens, sol := e.startGame("coop", a, b)
	cell := firstEmpty(givens, nil)

	// Ann keeps reading; Bob stops. Ann places and clears one digit until
	// Bob's queue overflows.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	echoed := make(chan struct{}, 1)
	go func() {
		for {
			_, data, err := a.ws.Read(ctx)
			if err != nil {
				return
			}
			if strings.HasPrefix(string(data), `{"type":"move"`) {
				echoed <- struct{}{}
			}
		}
	}()
	// One move at a time, each waiting for its echo, so that only Bob
	// falls behind.
	for i := 0; e.rooms.Stats().Dropped == 0; i++ {
		require.Less(t, i, 20000, "Bob was never dropped")
		d := sol[cell]
		if i%2 == 1 {
			d = 0
		}
		a.move(cell, d)
		select {
		case <-echoed:
		case <-time.After(5 * time.Second):
			t.Fatalf("move %d was not echoed", i)
		}
	}

	// Bob reads what reached him, then the close: 4001, and how to resume.
	var code protocol.CloseCode
	var reason string
	for {
		_, err := b.tryRead(5 * time.Second)
		if err == nil {
			continue
		}
		var ce websocket.CloseError
		require.True(t, errors.As(err, &ce), "want a close frame, got %v after %d frames", err, len(b.seen))
		code, reason = protocol.CloseCode(ce.Code), ce.Reason
		break
	}
	assert.Equal(t, protocol.CloseTooSlow, code)
	assert.Contains(t, reason, "token")
	assert.Positive(t, b.lastSeq)

	// Bob comes back with his token and keeps his place.
	b2 := e.dial("Bob")
	b2.send(map[string]any{"type": "join", "room": id, "token": b.token, "last_seq": b.lastSeq})
	w := await[protocol.Welcome](b2, protocol.TypeWelcome, nil)
	assert.Equal(t, b.id, w.You.ID)
	assert.Equal(t, protocol.RolePlayer, w.You.Role)
	if !w.Resumed {
		require.NotNil(t, w.Room, "a gap longer than the replay buffer gets a snapshot")
		assert.Equal(t, protocol.PhaseRunning, w.Room.Phase)
	}
	assert.Positive(t, b2.ping())
}
