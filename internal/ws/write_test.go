package ws

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"
)

// newLibPair is a Conn upgraded over a real socket (upgrader), and its
// client: the coder/websocket library's. When read is set, the Conn is
// read on, as a server's reader that does not park reads it: messages
// are dropped, pings answered.
func newLibPair(t *testing.T, read bool) (*Conn, *websocket.Conn) {
	t.Helper()
	conns := make(chan *Conn, 1)
	hs := upgrader(t, nil, func(c *Conn) {
		conns <- c
		if !read {
			return
		}
		go func() {
			for {
				in := c.Next(false)
				switch in.Kind {
				case InputMessage:
					DoneWith(in.Msg)
				case InputNone:
				default:
					return
				}
			}
		}()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	client, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(hs.URL, "http")+"/ws", nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.CloseNow() })
	c := <-conns
	t.Cleanup(func() { _ = c.Close() })
	return c, client
}

// A batch being written holds a pong that another goroutine writes
// meanwhile only until the batch goes out, and keeps it whole.
func TestAPongDuringABatchGoesOutWithIt(t *testing.T) {
	c, client := newLibPair(t, true)
	var buf []byte
	c.Cork(&buf)
	pinged := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		pinged <- client.Ping(ctx)
	}()
	// The client's Ping waits on its reader for the pong.
	go func() { _, _, _ = client.Read(context.Background()) }()
	require.Eventually(t, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(buf) > 0
	}, 5*time.Second, time.Millisecond, "the pong was not written into the batch")
	select {
	case err := <-pinged:
		t.Fatalf("the pong left before the batch: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	require.NoError(t, c.Uncork())
	select {
	case err := <-pinged:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("the pong did not go out with the batch")
	}
}
