package loadtest

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder keeps what a link's reader hands on.
type recorder struct {
	mu   sync.Mutex
	msgs []string
	end  chan int
}

func (r *recorder) receive(data []byte, _ time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, string(data))
	return nil
}

func (r *recorder) ended(_ error, code int) { r.end <- code }

// TestEpollClient speaks to coder/websocket's server side: the client's
// masked message arrives, the server's ping is answered, a whole and a
// fragmented message are read, and the server's close ends the link with
// its code.
func TestEpollClient(t *testing.T) {
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		go func() { // the reader, which also takes the ping's answer
			for {
				_, b, err := c.Read(ctx)
				if err != nil {
					return
				}
				got <- string(b)
			}
		}()
		if <-got != "hello" {
			c.Close(websocket.StatusProtocolError, "want hello")
			return
		}
		if err := c.Ping(ctx); err != nil {
			c.Close(websocket.StatusProtocolError, "no pong")
			return
		}
		_ = c.Write(ctx, websocket.MessageText, []byte("one"))
		wr, err := c.Writer(ctx, websocket.MessageText)
		if err != nil {
			return
		}
		_, _ = wr.Write([]byte("tw")) // a frame each
		_, _ = wr.Write([]byte("o"))
		_ = wr.Close()
		c.Close(websocket.StatusCode(4007), "bye")
	}))
	defer srv.Close()

	l, u := testLoop(t, srv)
	rec := &recorder{end: make(chan int, 1)}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := dialEpoll(ctx, l, &net.Dialer{}, u, srv.URL, rec)
	require.NoError(t, err)
	require.NoError(t, c.send(ctx, []byte("hello")))
	select {
	case code := <-rec.end:
		assert.Equal(t, 4007, code, "the server's close code")
	case <-ctx.Done():
		t.Fatal("the server never closed")
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	assert.Equal(t, []string{"one", "two"}, rec.msgs)
	assert.Error(t, c.send(ctx, []byte("late")), "a closed link refuses writes")
}

// TestEpollClientRefused: a server that does not upgrade is an error that
// says what it answered.
func TestEpollClientRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "too many sockets", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	l, u := testLoop(t, srv)
	_, err := dialEpoll(context.Background(), l, &net.Dialer{}, u, srv.URL, &recorder{end: make(chan int, 1)})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "503")
	assert.Contains(t, err.Error(), "too many sockets")
}

// testLoop is a loop for the test's life, and srv's WebSocket address.
func testLoop(t *testing.T, srv *httptest.Server) (*loop, *url.URL) {
	l, err := newLoop(nil)
	require.NoError(t, err)
	t.Cleanup(l.stop)
	u, err := url.Parse("ws" + strings.TrimPrefix(srv.URL, "http") + "/ws")
	require.NoError(t, err)
	return l, u
}
