package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sudoku-arena/arena/internal/wsframe"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
)

// Buffer sizes and bounds of a connection's socket.
const (
	// readBufferSize holds a client's message (a move is under 100
	// bytes) with its header in one read; a longer frame takes a buffer
	// of its own while it is read.
	readBufferSize = 512
	// maxPooledCork is the largest cork buffer kept for the next batch,
	// so that one burst does not pin a large buffer in the pool.
	maxPooledCork = 64 << 10
	// closeWait is how long a close handshake waits for the client's
	// close frame before the socket is closed anyway.
	closeWait = 5 * time.Second
	// maxFrameHeader is the longest header a client's frame has: 2
	// bytes, 8 of length and 4 of masking key.
	maxFrameHeader = 14
)

// corkConn is the socket under a WebSocket, which the server speaks
// itself (RFC 6455): the handshake (accept), the frames it reads (take)
// and those it writes.
//
// Writes: while the connection's writer drains a batch (between cork and
// uncork), the frames it writes (writeText), and any control frame
// written meanwhile from another goroutine (a pong, a ping), are gathered
// in one buffer and sent with one write, rather than a system call per
// frame. Outside a batch each write goes straight to the socket, so a
// pong or a close never waits for a batch that is not being written.
// Every write to the socket has a deadline, WriteTimeout from its start,
// set on the socket rather than with a timer.
//
// Reads: every read of the socket goes through fill, which keeps what it
// read in in, a pooled buffer that an idle connection does not hold; take
// answers the pings, drops the pongs, and hands on the messages and the
// client's close.
type corkConn struct {
	net.Conn
	timeout time.Duration
	limit   int // the longest message a client may send (ReadLimit)

	// mu orders the socket's writes: the writer's batches, the pongs
	// take writes, the keep-alive pings and the close frame.
	mu  sync.Mutex
	buf *[]byte // the batch's buffer while corked; nil otherwise
	// wbuf and wrote are tryWrite's bytes and how many of them the
	// socket took, and tryWriteFn its write (tryWriteFD, made once).
	wbuf       []byte
	wrote      int
	tryWriteFn func(fd uintptr) bool

	// rmu orders the taking of frames (take): the reader's, and a close
	// handshake's, which reads on the writer's goroutine. It guards frag
	// and fragOp.
	rmu sync.Mutex
	// frag is a fragmented message's payload so far, and fragOp its
	// opcode; nil when no message is in part.
	frag   *bytes.Buffer
	fragOp byte
	// raw is the socket's descriptor, through which every read goes
	// (fill); nil: reads go to the socket as they are (fillConn).
	raw  syscall.RawConn
	fill func(fd uintptr) bool
	// poll is fillFD asked not to wait (next), made once.
	poll func(fd uintptr) bool
	// fmu orders fillConn's reads, which wait inside the socket's read.
	fmu sync.Mutex
	// smu guards in, rerr and closeSeen, which fill and take set.
	smu sync.Mutex
	// in holds what was read from the socket and not taken yet; nil when
	// nothing waits, so that an idle connection holds no buffer.
	in *inBuf
	// rerr is how the socket's reading ended (io.EOF, a reset), once
	// fill has found out; take reports it once in has no whole frame.
	rerr error
	// closeSeen is set once take has taken the client's close frame.
	closeSeen bool
	// skip is how many bytes of a frame refused as too big are still to
	// be dropped as they come, so that what follows it (the client's
	// close) can be read.
	skip int
	// heard counts the reads that brought bytes from the client: what a
	// ping's answer is checked by (conn.tick).
	heard atomic.Uint32
}

// newCorkConn wraps a hijacked socket; early is what the client sent
// after its handshake, which net/http had read already.
func newCorkConn(nc net.Conn, early []byte, timeout time.Duration, limit int) *corkConn {
	c := &corkConn{Conn: nc, timeout: timeout, limit: limit}
	if sc, ok := nc.(syscall.Conn); ok && canFill {
		if raw, err := sc.SyscallConn(); err == nil {
			c.raw, c.fill, c.poll, c.tryWriteFn = raw, c.fillFD, c.pollFD, c.tryWriteFD
		}
	}
	if len(early) > 0 {
		in := &inBuf{b: make([]byte, max(readBufferSize, len(early)))}
		in.w = copy(in.b, early)
		c.in = in
		c.heard.Add(1)
	}
	return c
}

// inBuf is bytes read from a socket and not yet taken: b[r:w].
type inBuf struct {
	b    []byte
	r, w int
}

var inBufs = sync.Pool{New: func() any { return &inBuf{b: make([]byte, readBufferSize)} }}

// putInBuf gives in back to the pool, unless it grew for a long frame.
func putInBuf(in *inBuf) {
	if len(in.b) != readBufferSize {
		return
	}
	in.r, in.w = 0, 0
	inBufs.Put(in)
}

// reserve makes space for n more bytes behind what in holds: the bytes
// move to the front, and a buffer still short gives way to one that
// holds them and the longest frame limit allows.
func (in *inBuf) reserve(n, limit int) {
	if in.r > 0 {
		in.w = copy(in.b, in.b[in.r:in.w])
		in.r = 0
	}
	if len(in.b)-in.w < n {
		b := make([]byte, max(2*len(in.b), in.w+n, limit+maxFrameHeader))
		copy(b, in.b[:in.w])
		in.b = b
	}
}

// What take found (input.kind).
const (
	inputNone    = iota // no whole message: more bytes are needed
	inputMessage        // a message: op and msg
	inputClose          // the client's close frame: code and reason
	inputEnd            // the socket's reading ended, or its writing failed
	inputBad            // the client broke the protocol: the code and reason to close with
)

// input is what take found in what the client sent.
type input struct {
	kind   int
	op     byte          // inputMessage: wsframe.OpText or OpBinary
	msg    *bytes.Buffer // inputMessage: the payload, for the taker to give back (doneWith)
	code   int           // inputClose, inputBad
	reason string
}

// bad is a broken rule's input: the close code and reason it gets.
func bad(code protocol.CloseCode, reason string) input {
	return input{kind: inputBad, code: int(code), reason: reason}
}

// broken is the input of a frame wsframe refused: 1002, with why.
func broken(err error) input {
	return bad(protocol.CloseProtocolError, strings.TrimPrefix(err.Error(), "websocket: "))
}

// tooBig is the input of a message over the limit: 1009.
func (c *corkConn) tooBig() input {
	return bad(protocol.CloseTooBig, fmt.Sprintf("a message over %d bytes", c.limit))
}

// take takes the frames at the front of what the client sent, answering
// pings and dropping pongs, up to a message, the client's close, the
// socket's end or a broken rule, and says which; inputNone when no whole
// frame is left. A message is copied out of the socket's buffer, which
// goes back to the pool once empty. c.rmu is held.
func (c *corkConn) take() input {
	c.smu.Lock()
	defer c.smu.Unlock()
	defer c.dropEmpty()
	for {
		if in := c.in; in != nil && c.skip > 0 {
			n := min(c.skip, in.w-in.r)
			in.r += n
			c.skip -= n
		}
		c.dropEmpty()
		in := c.in
		if in == nil {
			if c.rerr != nil {
				return input{kind: inputEnd}
			}
			return input{kind: inputNone}
		}
		f, size, err := wsframe.Parse(in.b[in.r:in.w], c.limit, true)
		switch {
		case errors.Is(err, wsframe.ErrTooBig):
			c.skip, _ = wsframe.Size(in.b[in.r:in.w], true)
			return c.tooBig()
		case err != nil:
			return broken(err)
		case size == 0:
			if c.rerr != nil {
				return input{kind: inputEnd} // the socket ended inside a frame
			}
			if in.w == len(in.b) {
				in.reserve(1, c.limit)
			}
			return input{kind: inputNone}
		}
		in.r += size
		wsframe.Mask(f.Payload, f.Key)
		switch f.Op {
		case wsframe.OpPing:
			// The answer: a pong with the ping's payload.
			var frame [2 + maxControlPayload]byte
			pong := append(wsframe.AppendHeader(frame[:0], wsframe.Fin|opPong, len(f.Payload), false, [4]byte{}), f.Payload...)
			if _, err := c.Write(pong); err != nil {
				return input{kind: inputEnd}
			}
		case wsframe.OpClose:
			c.closeSeen = true
			code, reason, err := wsframe.CheckClose(f.Payload)
			if err != nil {
				return broken(err)
			}
			return input{kind: inputClose, code: code, reason: reason}
		case wsframe.OpText, wsframe.OpBinary:
			if c.frag != nil {
				return bad(protocol.CloseProtocolError, "a new message before the last one's final frame")
			}
			buf := readBuffers.Get().(*bytes.Buffer)
			buf.Write(f.Payload)
			if f.Fin {
				return input{kind: inputMessage, op: f.Op, msg: buf}
			}
			c.frag, c.fragOp = buf, f.Op
		case wsframe.OpContinuation:
			if c.frag == nil {
				return bad(protocol.CloseProtocolError, "a continuation frame with no message begun")
			}
			if c.frag.Len()+len(f.Payload) > c.limit {
				doneWith(c.frag)
				c.frag = nil
				return c.tooBig()
			}
			c.frag.Write(f.Payload)
			if f.Fin {
				buf := c.frag
				c.frag = nil
				return input{kind: inputMessage, op: c.fragOp, msg: buf}
			}
		}
		// A pong (the answer to the keep-alive ping) needs nothing.
	}
}

// dropEmpty gives back the socket's buffer once all it holds is taken.
// c.smu is held.
func (c *corkConn) dropEmpty() {
	if in := c.in; in != nil && in.r == in.w {
		c.in = nil
		putInBuf(in)
	}
}

// doneWith gives back a message's buffer once it has been handled.
func doneWith(buf *bytes.Buffer) {
	buf.Reset()
	if buf.Cap() <= maxPooledRead {
		readBuffers.Put(buf)
	}
}

// next is the next thing the client sent (take), waiting for the socket
// to bring it; when park is set, inputNone once the socket has nothing
// more without waiting: the reader may then park (conn.park). The wait
// is in a shallow frame, so that the garbage collector can shrink a
// waiting reader's stack.
func (c *corkConn) next(park bool) input {
	for {
		c.rmu.Lock()
		in := c.take()
		c.rmu.Unlock()
		if in.kind != inputNone {
			return in
		}
		if c.raw == nil {
			c.fillConn()
			continue
		}
		if park {
			heard := c.heard.Load()
			if err := c.raw.Read(c.poll); err != nil {
				return input{kind: inputEnd}
			}
			if c.heard.Load() == heard && !c.ended() {
				return in
			}
			continue
		}
		if err := c.raw.Read(c.fill); err != nil {
			return input{kind: inputEnd}
		}
	}
}

// ended reports whether the socket's reading has ended (fill found out).
func (c *corkConn) ended() bool {
	c.smu.Lock()
	defer c.smu.Unlock()
	return c.rerr != nil
}

// pollFD is fillFD without the wait: RawConn.Read returns whatever it
// found.
func (c *corkConn) pollFD(fd uintptr) bool {
	c.fillFD(fd)
	return true
}

// fillFD reads what the socket fd holds into c.in, behind what is held
// already, and reports whether it read something or found the socket's
// end; false asks RawConn.Read to wait until the socket has more.
func (c *corkConn) fillFD(fd uintptr) bool {
	c.smu.Lock()
	defer c.smu.Unlock()
	if c.rerr != nil {
		return true
	}
	in := c.in
	if in == nil {
		in = inBufs.Get().(*inBuf)
	} else if in.w == len(in.b) {
		return true // full: take makes room first
	}
	n, err := readNonblock(fd, in.b[in.w:])
	if errors.Is(err, syscall.EAGAIN) {
		if c.in == nil {
			putInBuf(in)
		}
		return false
	}
	if err != nil {
		err = os.NewSyscallError("read", err)
	}
	c.got(in, n, err)
	return true
}

// got keeps n bytes read into in's free space, and how the reading ended:
// err, or the socket's end when nothing came. c.smu is held.
func (c *corkConn) got(in *inBuf, n int, err error) {
	switch {
	case err != nil:
		c.rerr = err
	case n == 0:
		c.rerr = io.EOF
	}
	if n > 0 {
		in.w += n
		c.in = in
		c.heard.Add(1)
	} else if c.in == nil {
		putInBuf(in)
	}
}

// fillConn is fill where the socket's descriptor cannot be read directly:
// a read of the socket as it is, which waits for bytes.
func (c *corkConn) fillConn() {
	c.fmu.Lock()
	defer c.fmu.Unlock()
	var b [readBufferSize]byte
	n, err := c.Conn.Read(b[:])
	c.smu.Lock()
	defer c.smu.Unlock()
	if c.rerr != nil || n == 0 && err == nil {
		return
	}
	in := c.in
	if in == nil {
		in = inBufs.Get().(*inBuf)
	}
	in.reserve(n, c.limit)
	copy(in.b[in.w:], b[:n])
	c.got(in, n, err)
}

// closeHandshake sends the close frame with code and reason and, unless
// the client has sent its own already, waits up to closeWait for it,
// dropping what comes before it; then it closes the socket. It runs on
// the writer's goroutine.
func (c *corkConn) closeHandshake(code int, reason string) {
	var frame [2 + maxControlPayload]byte
	_, err := c.Write(wsframe.AppendClose(frame[:0], code, reason))
	if err == nil && !c.sawClose() {
		_ = c.Conn.SetReadDeadline(time.Now().Add(closeWait))
		for !c.sawClose() {
			c.rmu.Lock()
			in := c.take()
			c.rmu.Unlock()
			if in.kind == inputMessage {
				doneWith(in.msg)
				continue
			}
			if in.kind != inputNone {
				break
			}
			if c.raw == nil {
				c.fillConn()
				continue
			}
			if err := c.raw.Read(c.fill); err != nil {
				break
			}
		}
	}
	_ = c.Conn.Close()
}

// sawClose reports whether the client's close frame has been taken.
func (c *corkConn) sawClose() bool {
	c.smu.Lock()
	defer c.smu.Unlock()
	return c.closeSeen
}

// WebSocket opcodes and sizes (RFC 6455, section 5.2).
const (
	opPing            = wsframe.OpPing
	opPong            = wsframe.OpPong
	maxControlPayload = wsframe.MaxControlPayload
)

// pingFrame is the server's keep-alive ping: final, unmasked, empty.
var pingFrame = []byte{wsframe.Fin | opPing, 0}

// Write gathers p while corked and writes it through otherwise.
func (c *corkConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.buf != nil {
		*c.buf = append(*c.buf, p...)
		return len(p), nil
	}
	return c.writeLocked(p)
}

func (c *corkConn) writeLocked(p []byte) (int, error) {
	if err := c.Conn.SetWriteDeadline(time.Now().Add(c.timeout)); err != nil {
		return 0, fmt.Errorf("socket: write deadline: %w", err)
	}
	return c.Conn.Write(p)
}

// tryWrite writes what it can of p to the socket without waiting: for
// the socket to take it, for a write in progress on another goroutine, or
// for a batch being gathered. It returns how much it wrote: 0 also when
// the socket has failed, which the writer's own write then finds out.
// It sets no deadline, since it cannot block.
func (c *corkConn) tryWrite(p []byte) int {
	if c.raw == nil || len(p) == 0 || !c.mu.TryLock() {
		return 0
	}
	defer c.mu.Unlock()
	if c.buf != nil {
		return 0
	}
	c.wbuf, c.wrote = p, 0
	_ = c.raw.Write(c.tryWriteFn)
	c.wbuf = nil
	return c.wrote
}

// tryWriteFD is tryWrite's write of c.wbuf to the socket fd, c.mu held.
func (c *corkConn) tryWriteFD(fd uintptr) bool {
	c.wrote, _ = writeNonblock(fd, c.wbuf)
	return true
}

// writeText gathers a text message of p in the batch, between cork and
// uncork, framed as a server frames it (one final frame, unmasked). What
// is written meanwhile (a pong, a ping, a close) reaches Write whole, one
// frame a call, so frames never interleave.
func (c *corkConn) writeText(p []byte) {
	c.mu.Lock()
	*c.buf = appendTextFrame(*c.buf, p)
	c.mu.Unlock()
}

// appendTextFrame appends to b a final, unmasked text frame holding p
// (RFC 6455, section 5.2).
func appendTextFrame(b, p []byte) []byte {
	b = wsframe.AppendHeader(b, wsframe.Fin|wsframe.OpText, len(p), false, [4]byte{})
	return append(b, p...)
}

// cork gathers the writes that follow in *buf, until uncork.
func (c *corkConn) cork(buf *[]byte) {
	c.mu.Lock()
	c.buf = buf
	c.mu.Unlock()
}

// uncork sends what was gathered since cork in one write and ends the
// batch.
func (c *corkConn) uncork() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	buf := c.buf
	c.buf = nil
	if buf == nil || len(*buf) == 0 {
		return nil
	}
	_, err := c.writeLocked(*buf)
	return err
}

// batch is a connection's queued frames and the buffer they are written
// through; batches are pooled, so an idle connection holds none and a
// busy one allocates nothing per frame.
type batch struct {
	frames []room.Frame
	buf    []byte
}

var batches = sync.Pool{New: func() any { return new(batch) }}

func getBatch() *batch { return batches.Get().(*batch) }

// putBatch returns b to the pool, dropping the frames it still points to
// so that their data can be collected.
func putBatch(b *batch) {
	clear(b.frames)
	b.frames = b.frames[:0]
	if cap(b.buf) > maxPooledCork {
		b.buf = nil
	}
	b.buf = b.buf[:0]
	batches.Put(b)
}
