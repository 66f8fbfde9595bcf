package loadtest

import (
	"bufio"
	"context"
	crand "crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// leanSockets says whether the load test's own client runs here.
const leanSockets = true

// The load test's own WebSocket client. With a goroutine reading each
// player's socket, every frame the server sends wakes a goroutine, and
// the scheduler's work and two reads a wake (one that finds the frame,
// one that finds nothing more) cost the load generator as much as the
// server it measures, on the same machine. Here a few goroutines each
// wait on an epoll set of sockets, read a socket once when it is ready
// (level-triggered: what is left is reported again), and hand its whole
// messages to the player on the spot. Writes go through the net.Conn as
// usual. It speaks what the server needs of a client (RFC 6455): the
// upgrade, masked text frames, pongs, the close handshake; a message may
// come in fragments.

// pollers are the epoll loops of the process, made on first use.
var (
	pollersOnce sync.Once
	pollers     []*poller
	pollersErr  error
	nextPoller  atomic.Uint64
)

// poller is one epoll set and the goroutine that reads its sockets.
type poller struct {
	epfd  int
	mu    sync.Mutex
	conns map[int32]*leanSocket
	buf   []byte // what one read takes, the loop's own
}

func startPollers() {
	n := max(1, min(runtime.GOMAXPROCS(0), 4))
	for range n {
		fd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
		if err != nil {
			pollersErr = fmt.Errorf("epoll: %w", err)
			return
		}
		pl := &poller{epfd: fd, conns: map[int32]*leanSocket{}, buf: make([]byte, 64<<10)}
		pollers = append(pollers, pl)
		go pl.run()
	}
}

// run reads the ready sockets for the life of the process.
func (pl *poller) run() {
	events := make([]syscall.EpollEvent, 256)
	for {
		n, err := syscall.EpollWait(pl.epfd, events, -1)
		if err != nil {
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			panic(fmt.Sprintf("loadtest: epoll_wait: %v", err))
		}
		for _, ev := range events[:n] {
			pl.mu.Lock()
			s := pl.conns[ev.Fd]
			pl.mu.Unlock()
			if s != nil {
				s.readReady(pl.buf)
			}
		}
	}
}

func (pl *poller) add(s *leanSocket) error {
	pl.mu.Lock()
	pl.conns[int32(s.fd)] = s
	pl.mu.Unlock()
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLRDHUP, Fd: int32(s.fd)}
	if err := syscall.EpollCtl(pl.epfd, syscall.EPOLL_CTL_ADD, s.fd, &ev); err != nil {
		pl.remove(s)
		return fmt.Errorf("epoll add: %w", err)
	}
	return nil
}

func (pl *poller) remove(s *leanSocket) {
	_ = syscall.EpollCtl(pl.epfd, syscall.EPOLL_CTL_DEL, s.fd, nil)
	pl.mu.Lock()
	if pl.conns[int32(s.fd)] == s {
		delete(pl.conns, int32(s.fd))
	}
	pl.mu.Unlock()
}

// leanSocket is a player's WebSocket read by a poller.
type leanSocket struct {
	nc net.Conn
	fd int
	pl *poller
	// onMessage and onEnd are the player's (player.onMessage, onEnd).
	onMessage func(data []byte, at time.Time)
	onEnd     func(error)

	// Owned by the poller's goroutine (and by the dialler before the
	// socket is added to it).
	pending []byte // the start of a frame not all read yet
	msg     []byte // a message whose fragments are still coming
	frag    bool
	ended   bool

	closing atomic.Bool // we sent a close frame
}

// dialLean opens a player's socket with the load test's own client.
func (r *run) dialLean(ctx context.Context, u *url.URL, origin string, p *player) (socket, error) {
	pollersOnce.Do(startPollers)
	if pollersErr != nil {
		return nil, pollersErr
	}
	d := &net.Dialer{Timeout: 10 * time.Second}
	if len(r.sources) > 0 {
		d.LocalAddr = &net.TCPAddr{IP: r.sources[int(r.nconn.Add(1))%len(r.sources)]}
	}
	nc, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", u.Host, err)
	}
	early, err := upgrade(ctx, nc, u, origin)
	if err != nil {
		nc.Close()
		return nil, err
	}
	s := &leanSocket{nc: nc, onMessage: p.onMessage, onEnd: p.onEnd, pl: pollers[nextPoller.Add(1)%uint64(len(pollers))]}
	raw, err := nc.(syscall.Conn).SyscallConn()
	if err == nil {
		err = raw.Control(func(fd uintptr) { s.fd = int(fd) })
	}
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("socket descriptor: %w", err)
	}
	// What came with the server's answer is read before the poller
	// reads the socket: nothing does before the join, but order is kept.
	if len(early) > 0 {
		s.consume(early, time.Now())
		if s.ended {
			return nil, errors.New("the socket ended with the upgrade")
		}
	}
	if err := s.pl.add(s); err != nil {
		nc.Close()
		return nil, err
	}
	return s, nil
}

// upgrade makes the HTTP request that turns nc into a WebSocket and
// checks the answer; it returns the bytes read past the answer.
func upgrade(ctx context.Context, nc net.Conn, u *url.URL, origin string) ([]byte, error) {
	var k [16]byte
	_, _ = crand.Read(k[:])
	key := base64.StdEncoding.EncodeToString(k[:])
	deadline := time.Now().Add(20 * time.Second)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if err := nc.SetDeadline(deadline); err != nil {
		return nil, fmt.Errorf("upgrade: %w", err)
	}
	req := "GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host +
		"\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: " + key +
		"\r\nOrigin: " + origin + "\r\n\r\n"
	if _, err := io.WriteString(nc, req); err != nil {
		return nil, fmt.Errorf("upgrade: %w", err)
	}
	br := bufio.NewReaderSize(nc, 1024)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return nil, fmt.Errorf("upgrade: %w", err)
	}
	resp.Body.Close()
	sum := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Sec-WebSocket-Accept") != base64.StdEncoding.EncodeToString(sum[:]) {
		return nil, fmt.Errorf("upgrade: the server answered %s", resp.Status)
	}
	if err := nc.SetDeadline(time.Time{}); err != nil {
		return nil, fmt.Errorf("upgrade: %w", err)
	}
	early, _ := br.Peek(br.Buffered())
	return append([]byte(nil), early...), nil
}

// Opcodes (RFC 6455, section 5.2).
const (
	opContinuation = 0x0
	opText         = 0x1
	opBinary       = 0x2
	opClose        = 0x8
	opPing         = 0x9
	opPong         = 0xA
)

func (s *leanSocket) write(_ context.Context, data []byte) error {
	return s.writeFrame(opText, data)
}

// writeFrame writes one final frame, masked as a client's must be, with
// one write.
func (s *leanSocket) writeFrame(op byte, payload []byte) error {
	b := make([]byte, 0, 14+len(payload))
	b = append(b, 0x80|op)
	switch n := len(payload); {
	case n <= 125:
		b = append(b, 0x80|byte(n))
	case n <= 0xFFFF:
		b = append(b, 0x80|126, byte(n>>8), byte(n))
	default:
		b = append(b, 0x80|127)
		b = binary.BigEndian.AppendUint64(b, uint64(n))
	}
	mask := rand.Uint32()
	b = binary.BigEndian.AppendUint32(b, mask)
	var key [4]byte
	binary.BigEndian.PutUint32(key[:], mask)
	start := len(b)
	b = append(b, payload...)
	for i := range payload {
		b[start+i] ^= key[i&3]
	}
	if err := s.nc.SetWriteDeadline(time.Now().Add(writeTimeout)); err != nil {
		return err
	}
	_, err := s.nc.Write(b)
	return err
}

func (s *leanSocket) close(reason string) {
	if s.closing.Swap(true) {
		return
	}
	payload := binary.BigEndian.AppendUint16(nil, 1000)
	payload = append(payload, reason[:min(len(reason), 123)]...)
	if err := s.writeFrame(opClose, payload); err != nil {
		_ = s.nc.Close() // the poller finds the socket closed
	}
}

// readReady reads what the socket holds (the poller said it is ready)
// into buf, and hands on its whole messages.
func (s *leanSocket) readReady(buf []byte) {
	if s.ended {
		return
	}
	n, err := syscall.Read(s.fd, buf)
	switch {
	case errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EINTR):
		return
	case err != nil:
		s.end(fmt.Errorf("read: %w", err))
		return
	case n == 0:
		s.end(io.ErrUnexpectedEOF)
		return
	}
	s.consume(buf[:n], time.Now())
}

// consume takes data read from the socket at at: whole frames are acted
// on, and the start of one not yet whole is kept for the next read.
func (s *leanSocket) consume(data []byte, at time.Time) {
	if len(s.pending) > 0 {
		s.pending = append(s.pending, data...)
		data = s.pending
	}
	for !s.ended {
		op, fin, payload, rest, ok, err := nextFrame(data)
		if err != nil {
			s.end(err)
			return
		}
		if !ok {
			break
		}
		data = rest
		s.frame(op, fin, payload, at)
	}
	if s.ended || len(data) == 0 {
		s.pending = s.pending[:0]
		if cap(s.pending) > 4<<10 {
			s.pending = nil
		}
		return
	}
	s.pending = append(s.pending[:0], data...)
}

// nextFrame splits the first frame off data: ok is false while it is not
// all there. A server's frames are not masked.
func nextFrame(data []byte) (op byte, fin bool, payload, rest []byte, ok bool, err error) {
	if len(data) < 2 {
		return 0, false, nil, data, false, nil
	}
	op, fin = data[0]&0x0F, data[0]&0x80 != 0
	if data[0]&0x70 != 0 || data[1]&0x80 != 0 {
		return 0, false, nil, nil, false, errors.New("a frame with reserved bits or a mask")
	}
	n, hdr := uint64(data[1]&0x7F), 2
	switch n {
	case 126:
		if len(data) < 4 {
			return 0, false, nil, data, false, nil
		}
		n, hdr = uint64(binary.BigEndian.Uint16(data[2:])), 4
	case 127:
		if len(data) < 10 {
			return 0, false, nil, data, false, nil
		}
		n, hdr = binary.BigEndian.Uint64(data[2:]), 10
	}
	if n > maxMessage {
		return 0, false, nil, nil, false, fmt.Errorf("a frame of %d bytes", n)
	}
	if uint64(len(data)-hdr) < n {
		return 0, false, nil, data, false, nil
	}
	end := hdr + int(n)
	return op, fin, data[hdr:end], data[end:], true, nil
}

// frame acts on one frame.
func (s *leanSocket) frame(op byte, fin bool, payload []byte, at time.Time) {
	switch op {
	case opText, opBinary:
		if !fin {
			s.msg, s.frag = append(s.msg[:0], payload...), true
			return
		}
		s.onMessage(payload, at)
	case opContinuation:
		if !s.frag {
			s.end(errors.New("a continuation with no message begun"))
			return
		}
		s.msg = append(s.msg, payload...)
		if len(s.msg) > maxMessage {
			s.end(errors.New("a message over the read limit"))
			return
		}
		if fin {
			msg := s.msg
			s.msg, s.frag = nil, false
			s.onMessage(msg, at)
		}
	case opPing:
		_ = s.writeFrame(opPong, payload)
	case opPong:
	case opClose:
		code := 1005 // no code given
		if len(payload) >= 2 {
			code = int(binary.BigEndian.Uint16(payload))
		}
		if !s.closing.Swap(true) {
			// The server closed first: answer with its code.
			_ = s.writeFrame(opClose, payload[:min(len(payload), 2)])
		}
		s.end(closedError{code: code})
	default:
		s.end(fmt.Errorf("a frame of opcode %d", op))
	}
}

// end closes the socket once and tells the player how it ended.
func (s *leanSocket) end(err error) {
	if s.ended {
		return
	}
	s.ended = true
	if s.pl != nil {
		s.pl.remove(s)
	}
	_ = s.nc.Close()
	s.onEnd(err)
}
