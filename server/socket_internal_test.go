package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/ws"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
)

// countWrites counts the writes to the server's sockets.
type countWrites struct {
	net.Listener
	writes *atomic.Int64
}

func (l countWrites) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countedConn{Conn: c, writes: l.writes}, nil
}

type countedConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countedConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// upgrading is a handler that upgrades as serveWS does and hands each
// connection to got.
func upgrading(s *Server, got func(*conn)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sock, err := ws.Accept(w, r, nil, s.cfg.WriteTimeout, int(s.cfg.ReadLimit))
		if err != nil {
			return
		}
		s.tune(sock)
		c := newConn(s, sock)
		s.admit(c)
		got(c)
	})
}

// wsPair is a server connection upgraded as serveWS does, over a real
// socket, with the client's end. Its reader runs when read is set.
type wsPair struct {
	c      *conn
	client *websocket.Conn
	// writes counts the writes to the server's socket.
	writes atomic.Int64
}

func newWSPair(tb testing.TB, read bool, opts ...func(*Config)) *wsPair {
	tb.Helper()
	return newWSPairCounting(tb, read, true, opts...)
}

// newWSPairCounting is newWSPair, with the server's socket's writes
// counted (p.writes) when count is set. A counted socket is a wrapper,
// which the server cannot write to without waiting (ws.Conn.TryWrite):
// its frames all go through a writer goroutine.
func newWSPairCounting(tb testing.TB, read, count bool, opts ...func(*Config)) *wsPair {
	tb.Helper()
	var cfg Config
	for _, o := range opts {
		o(&cfg)
	}
	s := New(cfg, nil, nil, nil, nil)
	tb.Cleanup(func() { s.CloseConns(true) }) // last: the server's poller
	p := &wsPair{}
	conns := make(chan *conn, 1)
	hs := httptest.NewUnstartedServer(upgrading(s, func(c *conn) {
		conns <- c
		if read {
			go c.serve()
		}
	}))
	if count {
		hs.Listener = countWrites{Listener: hs.Listener, writes: &p.writes}
	}
	hs.Start()
	tb.Cleanup(hs.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	client, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(hs.URL, "http"), nil)
	require.NoError(tb, err)
	client.SetReadLimit(1 << 20)
	p.client = client
	tb.Cleanup(func() { _ = client.CloseNow() })
	p.c = <-conns
	tb.Cleanup(func() { _ = p.c.sock.Close() })
	return p
}

// hold queues frames as if a writer were busy with an earlier write, until
// release.
func (p *wsPair) hold() {
	p.c.mu.Lock()
	p.c.writing = true
	p.c.mu.Unlock()
}

// release lets a writer take what was queued while held.
func (p *wsPair) release() {
	p.c.mu.Lock()
	p.c.writing = false
	if p.c.queue != nil || p.c.closing {
		p.c.startWriterLocked()
	}
	p.c.mu.Unlock()
}

// readFrom reads the next message with a deadline.
func readFrom(tb testing.TB, ws *websocket.Conn) ([]byte, error) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, data, err := ws.Read(ctx)
	return data, err
}

// Frames queued while the writer is busy go out together, whole and in
// order, in one write to the socket; frames of every header size (7-bit,
// 16-bit and 64-bit lengths) are framed right.
func TestQueuedFramesAreWrittenInOrderWithOneWrite(t *testing.T) {
	t.Parallel()
	p := newWSPair(t, false)
	var want [][]byte
	for i := range 40 {
		size := 20 + i*7
		switch i {
		case 10:
			size = 300 // a 16-bit length
		case 20:
			size = 70 << 10 // a 64-bit length, over maxPooledCork
		}
		f := bytes.Repeat([]byte{byte('a' + i%26)}, size)
		copy(f, fmt.Sprintf("%d:", i))
		want = append(want, f)
	}
	p.hold()
	for _, f := range want {
		require.True(t, p.c.Send(room.Frame{Data: f, At: time.Now()}))
	}
	before := p.writes.Load()
	p.release()
	for i, w := range want {
		got, err := readFrom(t, p.client)
		require.NoError(t, err, "frame %d", i)
		require.Equal(t, w, got, "frame %d", i)
	}
	assert.Equal(t, int64(1), p.writes.Load()-before, "one write for the batch")

	// The next frame, alone, goes out on its own.
	require.True(t, p.c.Send(room.Frame{Data: []byte("after")}))
	got, err := readFrom(t, p.client)
	require.NoError(t, err)
	assert.Equal(t, "after", string(got))
	assert.Equal(t, int64(2), p.writes.Load()-before)
}

// Control frames go out at once between batches: the client's ping is
// answered with nothing queued, the server's own ping reaches the client,
// and a close follows the frames queued before it.
func TestControlFramesAreNotHeldBetweenBatches(t *testing.T) {
	clk := NewFakeClock(time.Now())
	p := newWSPair(t, true, WithFakeClock(clk), func(c *Config) {
		c.PingInterval, c.PingTimeout, c.PingBurst = 50*time.Millisecond, 20*time.Millisecond, 1<<20 // the test pings as a step
	})
	p.c.joined.Store(true) // pinged

	for i := range 3 {
		require.True(t, p.c.Send(room.Frame{Data: fmt.Appendf(nil, "frame %d", i)}))
	}
	for i := range 3 {
		got, err := readFrom(t, p.client)
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf("frame %d", i), string(got))
	}
	// The client reads only in the background from here on, as a browser
	// does, so that pongs and pings are taken.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	readDone := make(chan error, 1)
	go func() {
		for {
			_, _, err := p.client.Read(ctx)
			if err != nil {
				readDone <- err
				return
			}
		}
	}()
	for range 3 {
		pctx, pcancel := context.WithTimeout(context.Background(), time.Second)
		start := time.Now()
		require.NoError(t, p.client.Ping(pctx), "the server's pong")
		pcancel()
		assert.Less(t, time.Since(start), 500*time.Millisecond)
	}

	// The server's keep-alive pings: the connection stays open for several
	// intervals because the client answers them. Its timer is the join
	// timeout's until then, which pings a joined connection; the clock
	// then moves in steps shorter than the ping timeout, and after each the
	// client pings the server and has its pong, so that what it sent before
	// (its pong to the server's ping) has been read before the clock moves
	// again.
	clk.Advance(p.c.s.cfg.JoinTimeout)
	for range 30 {
		pctx, pcancel := context.WithTimeout(context.Background(), 5*time.Second)
		require.NoError(t, p.client.Ping(pctx))
		pcancel()
		clk.Advance(10 * time.Millisecond)
	}
	p.c.mu.Lock()
	closing := p.c.closing
	p.c.mu.Unlock()
	assert.False(t, closing, "closed although the client answered the pings")

	p.c.closeWith(protocol.CloseRoomEnded, "the room has ended", true)
	select {
	case err := <-readDone:
		assert.Equal(t, protocol.CloseRoomEnded, protocol.CloseCode(websocket.CloseStatus(err)))
	case <-time.After(2 * time.Second):
		t.Fatal("no close frame")
	}
}

// A client whose queue fills up while a write is under way is closed as
// too slow at SendQueue frames, and its backlog is not written before the
// close.
func TestAFullQueueClosesAsTooSlowBeforeTheBacklog(t *testing.T) {
	t.Parallel()
	p := newWSPair(t, false, func(c *Config) { c.SendQueue = 8 })
	p.hold()
	for i := range 8 {
		require.True(t, p.c.Send(room.Frame{Data: fmt.Appendf(nil, "%d", i)}), "frame %d", i)
	}
	assert.False(t, p.c.Send(room.Frame{Data: []byte("9")}))
	p.release()
	_, err := readFrom(t, p.client)
	var ce websocket.CloseError
	require.True(t, errors.As(err, &ce), "want the close first, got %v", err)
	assert.Equal(t, protocol.CloseTooSlow, protocol.CloseCode(ce.Code))
	select {
	case <-p.c.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the socket was not closed")
	}
}

// A write that fails (the client is gone) ends the writer and closes the
// socket; later frames start no writer.
func TestAFailedWriteClosesTheSocket(t *testing.T) {
	t.Parallel()
	p := newWSPair(t, false)
	require.NoError(t, p.client.CloseNow())
	require.Eventually(t, func() bool {
		p.c.Send(room.Frame{Data: bytes.Repeat([]byte("x"), 64<<10)})
		select {
		case <-p.c.done:
			return true
		default:
			return false
		}
	}, 5*time.Second, 10*time.Millisecond)
	p.c.mu.Lock()
	defer p.c.mu.Unlock()
	assert.True(t, p.c.writing, "no writer starts on a closed socket")
}

// A message the client sent right behind its handshake, which net/http
// read with the request, reaches the connection's reader: the client is
// answered.
func TestAMessageSentWithTheHandshakeIsRead(t *testing.T) {
	t.Parallel()
	s := New(Config{}, nil, nil, nil, nil)
	defer s.CloseConns(true)
	hs := httptest.NewServer(upgrading(s, func(c *conn) { go c.serve() }))
	defer hs.Close()
	nc, err := net.Dial("tcp", hs.Listener.Addr().String())
	require.NoError(t, err)
	defer nc.Close()
	require.NoError(t, nc.SetDeadline(time.Now().Add(5*time.Second)))
	// The request and a masked text frame in one write.
	req := "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
	msg := []byte(`{"type":"ping","id":7}`)
	key := []byte{1, 2, 3, 4}
	frame := []byte{0x81, 0x80 | byte(len(msg)), key[0], key[1], key[2], key[3]}
	for i, b := range msg {
		frame = append(frame, b^key[i%4])
	}
	_, err = nc.Write(append([]byte(req), frame...))
	require.NoError(t, err)

	br := bufio.NewReader(nc)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusSwitchingProtocols, resp.StatusCode)
	hdr := make([]byte, 2)
	_, err = io.ReadFull(br, hdr)
	require.NoError(t, err, "no answer to the message")
	require.Equal(t, byte(0x81), hdr[0], "a text frame")
	n := int(hdr[1])
	if n == 126 {
		ext := make([]byte, 2)
		_, err = io.ReadFull(br, ext)
		require.NoError(t, err)
		n = int(binary.BigEndian.Uint16(ext))
	}
	payload := make([]byte, n)
	_, err = io.ReadFull(br, payload)
	require.NoError(t, err)
	assert.Contains(t, string(payload), `"code":"`+protocol.CodeNotJoined+`"`)
	assert.Contains(t, string(payload), `"id":7`)
}

// A server shutting down closes a connection as going away after the
// frames queued before the close.
func TestGoingAwayDrainsTheQueueFirst(t *testing.T) {
	t.Parallel()
	p := newWSPair(t, false)
	p.hold()
	for i := range 5 {
		require.True(t, p.c.Send(room.Frame{Data: fmt.Appendf(nil, "%d", i)}))
	}
	p.c.Close(room.CloseGoingAway)
	p.release()
	for i := range 5 {
		got, err := readFrom(t, p.client)
		require.NoError(t, err, "frame %d", i)
		assert.Equal(t, fmt.Sprint(i), string(got))
	}
	_, err := readFrom(t, p.client)
	assert.Equal(t, protocol.CloseGoingAway, protocol.CloseCode(websocket.CloseStatus(err)))
}

// Frames sent while the room holds the connection wait for its release,
// then go out in one write; a writer already running leaves them too.
func TestHeldFramesGoOutTogetherAtTheRelease(t *testing.T) {
	t.Parallel()
	p := newWSPair(t, false)
	p.c.Hold()
	require.True(t, p.c.Send(room.Frame{Data: []byte("move")}))
	require.True(t, p.c.Send(room.Frame{Data: []byte("progress")}))
	p.c.mu.Lock()
	writing := p.c.writing
	p.c.mu.Unlock()
	assert.False(t, writing, "no writer while held")
	before := p.writes.Load()
	p.c.Release()
	for _, want := range []string{"move", "progress"} {
		got, err := readFrom(t, p.client)
		require.NoError(t, err)
		assert.Equal(t, want, string(got))
	}
	assert.Equal(t, int64(1), p.writes.Load()-before, "one write for what was held")

	// A writer busy with an earlier batch does not take a held queue.
	p.hold()
	p.c.Hold()
	require.True(t, p.c.Send(room.Frame{Data: []byte("a")}))
	p.release() // the busy writer ends: it finds the queue held
	require.True(t, p.c.Send(room.Frame{Data: []byte("b")}))
	p.c.Release()
	for _, want := range []string{"a", "b"} {
		got, err := readFrom(t, p.client)
		require.NoError(t, err)
		assert.Equal(t, want, string(got))
	}
	assert.Equal(t, int64(2), p.writes.Load()-before, "a and b in one write")
}

// A batch released by its room is written on the room's goroutine when
// the socket takes it at once: no writer goroutine runs, and nothing is
// left for one.
func TestAReleasedBatchIsWrittenAtOnce(t *testing.T) {
	t.Parallel()
	p := newWSPairCounting(t, false, false)
	var want [][]byte
	for round := range 3 {
		p.c.Hold()
		for i := range 4 {
			f := fmt.Appendf(nil, "round %d frame %d", round, i)
			want = append(want, f)
			require.True(t, p.c.Send(room.Frame{Data: f, At: time.Now()}))
		}
		p.c.Release()
		p.c.mu.Lock()
		assert.False(t, p.c.writing, "round %d: no writer runs", round)
		assert.Nil(t, p.c.partial, "round %d: nothing is left to write", round)
		assert.Nil(t, p.c.queue, "round %d: nothing waits", round)
		p.c.mu.Unlock()
	}
	for i, w := range want {
		got, err := readFrom(t, p.client)
		require.NoError(t, err, "frame %d", i)
		assert.Equal(t, string(w), string(got), "frame %d", i)
	}
}

// Frames for a client that has stopped reading fill its socket: the
// write that the socket takes only in part is finished by a writer
// goroutine, and the client, reading again, gets every frame whole and in
// order.
func TestFramesASocketTakesInPartArriveWhole(t *testing.T) {
	t.Parallel()
	p := newWSPairCounting(t, false, false)
	p.client.SetReadLimit(1 << 20)
	const frames = 100
	frame := func(i int) []byte {
		return bytes.Repeat([]byte{byte('a' + i%26)}, 128<<10+i)
	}
	for i := range frames {
		require.True(t, p.c.Send(room.Frame{Data: frame(i), At: time.Now()}), "frame %d", i)
	}
	p.c.mu.Lock()
	backedUp := p.c.writing
	p.c.mu.Unlock()
	assert.True(t, backedUp, "13 MB filled the socket: a writer waits on it")
	for i := range frames {
		got, err := readFrom(t, p.client)
		require.NoError(t, err, "frame %d", i)
		require.Equal(t, len(frame(i)), len(got), "frame %d", i)
		require.True(t, bytes.Equal(frame(i), got), "frame %d", i)
	}
}

// Each server has a read poller of its own, made with its first
// connection: CloseConns(true) closes one server's connections and its
// poller, and no other server's, whose connections park in theirs and
// are read on.
func TestEachServerHasItsOwnPoller(t *testing.T) {
	t.Parallel()
	a, b := newWSPairCounting(t, true, false), newWSPairCounting(t, true, false) // sockets the poller can take
	poller := func(s *Server) *ws.Poller {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.poller
	}
	pa, pb := poller(a.c.s), poller(b.c.s)
	if runtime.GOOS != "linux" {
		t.Skip("no read poller here")
	}
	require.NotNil(t, pa)
	require.NotNil(t, pb)
	assert.NotSame(t, pa, pb)
	assert.True(t, a.c.sock.Parks())
	assert.True(t, b.c.sock.Parks())

	a.c.s.CloseConns(true)
	assert.Nil(t, poller(a.c.s), "closed, and none made again")
	_, err := readFrom(t, a.client)
	assert.Equal(t, websocket.StatusCode(protocol.CloseGoingAway), websocket.CloseStatus(err))

	for i := range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		require.NoError(t, b.client.Write(ctx, websocket.MessageText, []byte(`{"type":"ping"}`)))
		cancel()
		got, err := readFrom(t, b.client)
		require.NoError(t, err, "message %d", i)
		assert.Contains(t, string(got), protocol.CodeNotJoined)
	}
}

// tinySendBuffers gives the server's sockets a small kernel send buffer,
// so that a write of a few frames goes out in part.
type tinySendBuffers struct{ net.Listener }

func (l tinySendBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4096)
	}
	return c, err
}

// Frames for a client that reads slowly go out in part (TryWrite) and are
// finished by the writer goroutine; meanwhile the reader answers the
// client's pings and the timer sends keep-alive pings. Those control
// frames wait for the rest of the frame under way: the client, which
// reads the bytes itself, gets only well-formed frames, every text frame
// whole and in order, with the pongs and pings between them.
func TestControlFramesNeverCutAFrameWrittenInPart(t *testing.T) {
	t.Parallel()
	// The client pings without pause to make the server write pongs: its
	// ping budget is raised for it.
	s := New(Config{JoinTimeout: 20 * time.Millisecond, PingInterval: 250 * time.Millisecond, PingTimeout: 200 * time.Millisecond, PingBurst: 1 << 20}, nil, nil, nil, nil)
	defer s.CloseConns(true)
	conns := make(chan *conn, 1)
	hs := httptest.NewUnstartedServer(upgrading(s, func(c *conn) {
		c.joined.Store(true) // pinged once the join timeout's timer goes off
		conns <- c
		go c.serve()
	}))
	hs.Listener = tinySendBuffers{hs.Listener}
	hs.Start()
	defer hs.Close()

	// A small receive buffer, set before the connection is made, keeps
	// the client's window small.
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) {
			_ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		})
	}}
	nc, err := d.Dial("tcp", hs.Listener.Addr().String())
	require.NoError(t, err)
	defer nc.Close()
	require.NoError(t, nc.SetDeadline(time.Now().Add(20*time.Second)))
	_, err = nc.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"))
	require.NoError(t, err)
	br := bufio.NewReader(nc)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusSwitchingProtocols, resp.StatusCode)
	c := <-conns

	const frames = 600
	frame := func(i int) []byte {
		f := bytes.Repeat([]byte{byte('a' + i%26)}, 12<<10+i%7)
		copy(f, fmt.Sprint(i))
		return f
	}
	var got atomic.Int64
	done := make(chan struct{})
	defer close(done)
	// The server sends a frame once the client has read all but a few.
	go func() {
		for i := range frames {
			for int64(i)-got.Load() > 4 {
				select {
				case <-done:
					return
				case <-time.After(100 * time.Microsecond):
				}
			}
			if !c.Send(room.Frame{Data: frame(i)}) {
				return
			}
		}
	}()
	// The client pings all the while.
	go func() {
		ping := ws.AppendMasked(nil, ws.OpPing, []byte("p"), [4]byte{1, 2, 3, 4})
		for {
			select {
			case <-done:
				return
			case <-time.After(50 * time.Microsecond):
			}
			if _, err := nc.Write(ping); err != nil {
				return
			}
		}
	}()
	// The client reads slowly, a few kilobytes at a time.
	var in []byte
	var pongs, pings int
	p := make([]byte, 4<<10)
	for got.Load() < frames {
		f, size, err := ws.Parse(in, 1<<20, false)
		require.NoError(t, err, "a well-formed frame after %d text frames, %d pongs and %d pings", got.Load(), pongs, pings)
		if size == 0 {
			time.Sleep(50 * time.Microsecond)
			n, err := br.Read(p)
			require.NoError(t, err, "after %d text frames", got.Load())
			in = append(in, p[:n]...)
			continue
		}
		switch f.Op {
		case ws.OpText:
			i := int(got.Load())
			require.True(t, bytes.Equal(frame(i), f.Payload), "text frame %d whole", i)
			got.Add(1)
		case ws.OpPong:
			pongs++
		case ws.OpPing:
			pings++
		case ws.OpClose:
			code, reason, err := ws.CheckClose(f.Payload)
			t.Fatalf("closed with %d %q (%v) after %d text frames", code, reason, err, got.Load())
		default:
			t.Fatalf("a frame of opcode %#x after %d text frames", f.Op, got.Load())
		}
		in = in[size:]
	}
	assert.Positive(t, pongs, "the client's pings were answered")
	assert.Positive(t, pings, "the server pinged")
	t.Logf("%d text frames, %d pongs, %d pings", got.Load(), pongs, pings)
}
