package loadtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sudoku-arena/arena/internal/ws"
)

// epollSupported: this system has the epoll client.
const epollSupported = true

// loopPeriod is the shortest time between two of a loop's epoll_waits.
const loopPeriod = time.Millisecond

// epollET asks for an event each time bytes arrive rather than for as
// long as some wait (syscall's EPOLLET is a negative int).
const epollET = 1 << 31

// loop is an epoll set and the goroutine that reads every socket in it.
// At 16,000 connections and 8,000 moves a second, a goroutine per socket
// cost the load generator a park, a wake and a read that finds nothing
// for each of some 64,000 events a second, and the CPU it takes is the
// server's on a shared machine; the loop takes a batch of ready sockets
// from one epoll_wait and reads each once.
type loop struct {
	fd      int
	log     *slog.Logger
	scratch []byte
	stopped atomic.Bool
	done    chan struct{}

	mu    sync.Mutex
	conns []*rawConn // by descriptor
}

func newLoop(log *slog.Logger) (*loop, error) {
	fd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("epoll_create1: %w", err)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	l := &loop{fd: fd, log: log, scratch: make([]byte, 64<<10), done: make(chan struct{})}
	go l.run()
	return l, nil
}

// run reads the sockets that have bytes until stop; a socket still open
// then ends.
func (l *loop) run() {
	defer close(l.done)
	events := make([]syscall.EpollEvent, 512)
	for !l.stopped.Load() {
		// Blocking in the system call (the runtime lends the goroutine's
		// processor to others meanwhile); the timeout bounds how long
		// stop waits.
		n, err := syscall.EpollWait(l.fd, events, 100)
		if err != nil {
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			l.log.Error("epoll_wait", "err", err)
			break
		}
		began := time.Now()
		for _, ev := range events[:n] {
			if c := l.conn(int(ev.Fd)); c != nil {
				c.readable()
			}
		}
		// Take events at most every loopPeriod: the sockets that have
		// bytes meanwhile come in one batch, and the sender's write need
		// not wake a loop asleep in epoll_wait for each. A message's
		// latency then counts up to that much more than it took.
		if d := loopPeriod - time.Since(began); n < len(events) && d > 0 {
			time.Sleep(d)
		}
	}
	l.mu.Lock()
	open := make([]*rawConn, 0, len(l.conns))
	for _, c := range l.conns {
		if c != nil {
			open = append(open, c)
		}
	}
	l.mu.Unlock()
	for _, c := range open {
		c.end(errors.New("load test over"), -1)
	}
	syscall.Close(l.fd)
}

// stop ends the loop and every connection still in it, and waits.
func (l *loop) stop() {
	l.stopped.Store(true)
	<-l.done
}

func (l *loop) conn(fd int) *rawConn {
	l.mu.Lock()
	defer l.mu.Unlock()
	if fd < len(l.conns) {
		return l.conns[fd]
	}
	return nil
}

func (l *loop) set(fd int, c *rawConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for fd >= len(l.conns) {
		l.conns = append(l.conns, nil)
	}
	l.conns[fd] = c
}

// rawConn is one WebSocket read by a loop. Its descriptor is closed by
// the loop alone (end), so that a descriptor in an event is never one
// reused by a later connection.
type rawConn struct {
	l  *loop
	rc receiver

	// The reader's, on the loop's goroutine.
	in    []byte // bytes read and not yet a whole frame
	msg   []byte // a fragmented message being put together
	inMsg bool
	fresh bool // in holds what the handshake read past its answer

	wmu       sync.Mutex // guards fd (which end sets to -1), wbuf, closeSent
	fd        int
	wbuf      []byte
	closeSent bool
}

// dialEpoll connects through d, upgrades the socket to a WebSocket and
// puts it in l. The runtime's poller lets the socket go: the loop alone
// waits on it.
func dialEpoll(ctx context.Context, l *loop, d *net.Dialer, u *url.URL, origin string, rc receiver) (link, error) {
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "80")
	}
	nc, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", u, err)
	}
	defer nc.Close()
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(20 * time.Second)
	}
	rest, err := handshake(nc, u, origin, deadline)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", u, err)
	}
	// A second descriptor for the socket, which outlives nc's Close:
	// that takes nc's out of the runtime's poller and closes it.
	sc, err := nc.(syscall.Conn).SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", u, err)
	}
	fd := -1
	var derr error
	if cerr := sc.Control(func(s uintptr) {
		r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, s, syscall.F_DUPFD_CLOEXEC, 0)
		if errno != 0 {
			derr = errno
			return
		}
		fd = int(r)
	}); cerr != nil || derr != nil {
		return nil, fmt.Errorf("dial %s: dup: %w", u, errors.Join(cerr, derr))
	}
	c := &rawConn{l: l, rc: rc, fd: fd, in: rest, fresh: true}
	l.set(fd, c)
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLRDHUP | epollET, Fd: int32(fd)}
	if err := syscall.EpollCtl(l.fd, syscall.EPOLL_CTL_ADD, fd, &ev); err != nil {
		l.set(fd, nil)
		syscall.Close(fd)
		return nil, fmt.Errorf("dial %s: epoll_ctl: %w", u, err)
	}
	return c, nil
}

// readable reads what the socket holds and hands on its messages. A read
// shorter than the buffer has emptied the socket; bytes that arrive later
// raise another event.
func (c *rawConn) readable() {
	if c.fd < 0 {
		return
	}
	if c.fresh {
		// The bytes the handshake read past its answer come first.
		c.fresh = false
		rest := c.in
		c.in = nil
		if len(rest) > 0 && !c.consume(rest, time.Now()) {
			return
		}
	}
	for {
		n, err := syscall.Read(c.fd, c.l.scratch)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EAGAIN):
			return
		case err != nil:
			c.end(fmt.Errorf("read: %w", err), -1)
			return
		case n == 0:
			c.end(io.ErrUnexpectedEOF, -1)
			return
		}
		if !c.consume(c.l.scratch[:n], time.Now()) || n < len(c.l.scratch) {
			return
		}
	}
}

// consume parses the frames of c.in followed by b, read at at, and keeps
// a frame's start for the next read. It reports false once the
// connection has ended.
func (c *rawConn) consume(b []byte, at time.Time) bool {
	data := b
	if len(c.in) > 0 {
		c.in = append(c.in, b...)
		data = c.in
	}
	for {
		f, size, err := ws.Parse(data, readLimit, false)
		if err != nil {
			c.end(err, -1)
			return false
		}
		if size == 0 {
			break
		}
		data = data[size:]
		if !c.frame(f, at) {
			return false
		}
	}
	c.in = append(c.in[:0], data...)
	return true
}

// frame acts on one frame; false once the connection has ended.
func (c *rawConn) frame(f ws.Frame, at time.Time) bool {
	var err error
	switch f.Op {
	case ws.OpText, ws.OpBinary:
		switch {
		case c.inMsg:
			err = errors.New("websocket: a new message before the last one's end")
		case f.Fin:
			err = c.rc.receive(f.Payload, at)
		default:
			c.msg, c.inMsg = append(c.msg[:0], f.Payload...), true
		}
	case ws.OpContinuation:
		switch {
		case !c.inMsg:
			err = errors.New("websocket: a continuation with no message begun")
		case len(c.msg)+len(f.Payload) > readLimit:
			err = fmt.Errorf("websocket: a message over %d bytes", readLimit)
		default:
			c.msg = append(c.msg, f.Payload...)
			if f.Fin {
				c.inMsg = false
				err = c.rc.receive(c.msg, at)
			}
		}
	case ws.OpPing:
		_ = c.write(ws.OpPong, f.Payload) // a socket that fails ends on its read
	case ws.OpClose:
		code := int(ws.CloseCode(f.Payload))
		c.close("") // the answer, unless this side began
		c.end(&CloseError{Code: code}, code)
		return false
	}
	if err != nil {
		c.end(err, -1)
		return false
	}
	return true
}

// end closes the socket and tells the receiver, once. The loop's own.
func (c *rawConn) end(err error, code int) {
	c.wmu.Lock()
	fd := c.fd
	c.fd = -1
	c.wmu.Unlock()
	if fd < 0 {
		return
	}
	c.l.set(fd, nil)
	syscall.Close(fd) // which takes it out of the epoll set
	c.in, c.msg = nil, nil
	c.rc.ended(err, code)
}

func (c *rawConn) send(ctx context.Context, data []byte) error {
	return c.write(ws.OpText, data)
}

// write sends one masked frame, whole, within writeTimeout. The socket
// does not block: a write the socket cannot take yet is tried again
// shortly (a small frame on a socket this idle all but never waits).
func (c *rawConn) write(op byte, p []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.fd < 0 {
		return net.ErrClosed
	}
	if op == ws.OpClose {
		if c.closeSent {
			return nil
		}
		c.closeSent = true
	}
	var key [4]byte
	k := rand.Uint32()
	key[0], key[1], key[2], key[3] = byte(k), byte(k>>8), byte(k>>16), byte(k>>24)
	c.wbuf = ws.AppendMasked(c.wbuf[:0], op, p, key)
	b := c.wbuf
	deadline := time.Now().Add(writeTimeout)
	for len(b) > 0 {
		n, err := syscall.Write(c.fd, b)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EAGAIN):
			if time.Now().After(deadline) {
				return fmt.Errorf("write: %w", syscall.ETIMEDOUT)
			}
			time.Sleep(time.Millisecond)
			continue
		case err != nil:
			return fmt.Errorf("write: %w", err)
		}
		b = b[n:]
	}
	return nil
}

// close sends a close frame with a normal closure (1000) and reason; the
// loop ends the connection when the server's answers.
func (c *rawConn) close(reason string) {
	_ = c.write(ws.OpClose, append([]byte{0x03, 0xE8}, reason...))
}

// closeNow shuts the socket down; the loop then reads its end and closes
// it.
func (c *rawConn) closeNow() {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.fd >= 0 {
		_ = syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	}
}
