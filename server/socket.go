package server

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sudoku-arena/arena/internal/wsframe"
	"github.com/sudoku-arena/arena/room"
)

// The buffers coder/websocket reads and writes through. net/http hands a
// hijacked connection over with a 4 KB reader and a 4 KB writer that a
// WebSocket would hold for its whole life, idle or not; these are the
// sizes a connection needs instead.
const (
	// readBufferSize holds a client's message (a move is under 100
	// bytes) with its header in one read; a longer frame takes more.
	readBufferSize = 512
	// writeBufferSize holds a whole control frame (2 bytes of header and
	// at most 125 of payload), so that a pong, a ping or a close is one
	// write. A data frame is larger and goes past the buffer into the
	// cork (corkConn), which is where frames are gathered.
	writeBufferSize = 128
	// maxPooledCork is the largest cork buffer kept for the next batch,
	// so that one burst does not pin a large buffer in the pool.
	maxPooledCork = 64 << 10
)

// corkConn is the socket under a WebSocket. While the connection's writer
// drains a batch (between cork and uncork), the frames it writes
// (writeText), and any control frame coder/websocket writes meanwhile from
// another goroutine, are gathered in one buffer and sent with one write,
// rather than a system call and a context timer per frame. Outside a
// batch each write goes straight to the socket, so a pong or a close never
// waits for a batch that is not being written. Every write to the socket has a deadline, WriteTimeout
// from its start, set on the socket rather than with a timer.
type corkConn struct {
	net.Conn
	timeout time.Duration

	// mu orders the socket's writes: coder/websocket serialises its own
	// frames, but not with the writer's frames or the uncork's write.
	mu  sync.Mutex
	buf *[]byte // the batch's buffer while corked; nil otherwise
	// wbuf and wrote are tryWrite's bytes and how many of them the
	// socket took, and tryWriteFn its write (tryWriteFD, made once).
	wbuf       []byte
	wrote      int
	tryWriteFn func(fd uintptr) bool

	// rmu keeps awaitInput's look at br apart from a close handshake,
	// which reads br on the writer's goroutine (closeHandshake).
	rmu sync.Mutex
	br  *bufio.Reader // coder/websocket's reader over the socket
	// raw is the socket's descriptor, through which every read goes
	// (fill); nil: reads go to the socket as they are, and awaitInput
	// does not wait.
	raw  syscall.RawConn
	fill func(fd uintptr) bool
	// smu guards in and rerr, which fill sets and Read takes from, on
	// the reader's goroutine or a close handshake's.
	smu sync.Mutex
	// in holds what fill read from the socket and Read has not handed
	// on yet; nil when nothing waits, so that an idle connection holds
	// no buffer.
	in *inBuf
	// rerr is how the socket's reading ended (io.EOF, a reset), once
	// fill has found out; Read returns it once in is empty.
	rerr error
	// early is set while bytes the client sent with its handshake wait
	// in front of the socket (websocket.Accept keeps them there).
	early bool
	// poll is fillFD asked not to wait (inputReady), made once.
	poll func(fd uintptr) bool
	// heard counts the reads that brought bytes from the client: what a
	// ping's answer is checked by (conn.tick).
	heard atomic.Uint32
}

// awaitInput returns once the client has sent bytes that the reader has
// not taken (or the socket fails: the read that follows finds out). The
// reader waits here, in a shallow frame, between messages rather than
// deep inside coder/websocket's read, so that the garbage collector can
// shrink an idle connection's stack to what waiting takes. The bytes that
// end the wait are read then (fill), into a buffer that Read hands on:
// a message costs the socket one read that finds it and one that finds
// nothing more, not a look at it besides.
func (c *corkConn) awaitInput() {
	if c.raw == nil || c.taken() {
		return
	}
	_ = c.raw.Read(c.fill)
}

// taken reports whether bytes the client sent are past the socket
// already, waiting for the reader: the ones it sent with its handshake
// (the first read takes them all: they fit in br), or some in br.
func (c *corkConn) taken() bool {
	if c.early {
		c.early = false
		return true
	}
	c.rmu.Lock()
	defer c.rmu.Unlock()
	return c.br.Buffered() > 0
}

// inputReady reports whether the client has sent bytes that the reader
// has not taken (or the socket has failed: the read that follows finds
// out), reading the socket once if nothing is held, without waiting. It
// is awaitInput for a reader that parks instead of waiting (conn.park).
func (c *corkConn) inputReady() bool {
	if c.taken() {
		return true
	}
	if err := c.raw.Read(c.poll); err != nil {
		return true
	}
	c.smu.Lock()
	defer c.smu.Unlock()
	return c.in != nil || c.rerr != nil
}

// pollFD is fillFD without the wait: RawConn.Read returns whatever it
// found.
func (c *corkConn) pollFD(fd uintptr) bool {
	c.fillFD(fd)
	return true
}

// What takeControl leaves for the reader.
const (
	inputForLibrary = iota // a frame (or part of one) or the socket's end, for coder/websocket's reader
	inputTaken             // pings and pongs taken, nothing left in br: look at the socket again
	inputWait              // a ping or pong in part, whose rest has not come yet
)

// nextInput reports, without waiting, whether something waits for
// coder/websocket's reader once the pings and pongs in front of it are
// taken (takeControl); false: nothing is left to read, the last read of
// the socket having found nothing more, so that the reader may park.
func (c *corkConn) nextInput() bool {
	for c.inputReady() {
		switch c.takeControl() {
		case inputForLibrary:
			return true
		case inputWait:
			return false
		}
	}
	return false
}

// takeControl answers the pings and drops the pongs at the front of what
// the client has sent and the reader has not taken, and says what is left
// (inputForLibrary, inputTaken, inputWait). A pong (the answer to the
// server's keep-alive ping) is the frame a client sends most besides its
// moves, and coder/websocket, given one, reads on until a data frame
// comes: taken here, it leaves the reader nothing to wait for, so an
// idle connection parks. Control frames inside a fragmented message are
// still the library's.
func (c *corkConn) takeControl() int {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	if c.br.Buffered() == 0 {
		n := c.heldLen()
		if n == 0 {
			return inputForLibrary // what made input ready: the socket's end
		}
		// The held bytes (at most readBufferSize, br's size) move into
		// br in one Read, which does not wait since they are held.
		if _, err := c.br.Peek(n); err != nil {
			return inputForLibrary
		}
	}
	for {
		b, _ := c.br.Peek(c.br.Buffered())
		if len(b) == 0 {
			return inputTaken
		}
		op, payload, key, size := controlFrame(b)
		if size == 0 {
			if !controlPrefix(b) {
				return inputForLibrary
			}
			// A ping or pong in part: what is held behind it, or what the
			// socket has now, moves into br, which holds the largest
			// whole one (readBufferSize).
			n := c.heldLen()
			if n == 0 {
				if err := c.raw.Read(c.poll); err != nil {
					return inputForLibrary
				}
				if n = c.heldLen(); n == 0 {
					if c.ended() {
						return inputForLibrary
					}
					return inputWait
				}
			}
			if _, err := c.br.Peek(min(len(b)+n, c.br.Size())); err != nil {
				return inputForLibrary
			}
			continue
		}
		if op == opPing {
			// The answer: a pong with the ping's payload, unmasked.
			var frame [2 + maxControlPayload]byte
			pong := append(wsframe.AppendHeader(frame[:0], wsframe.Fin|opPong, len(payload), false, [4]byte{}), payload...)
			wsframe.Mask(pong[2:], key)
			if _, err := c.Write(pong); err != nil {
				return inputForLibrary // the reader finds the socket closed
			}
		}
		_, _ = c.br.Discard(size)
	}
}

// heldLen is how many bytes fill read that Read has not handed on.
func (c *corkConn) heldLen() int {
	c.smu.Lock()
	defer c.smu.Unlock()
	if c.in == nil {
		return 0
	}
	return c.in.w - c.in.r
}

// ended reports whether the socket's reading has ended (fill found out).
func (c *corkConn) ended() bool {
	c.smu.Lock()
	defer c.smu.Unlock()
	return c.rerr != nil
}

// WebSocket opcodes and sizes (RFC 6455, section 5.2).
const (
	opPing            = wsframe.OpPing
	opPong            = wsframe.OpPong
	maxControlPayload = wsframe.MaxControlPayload
)

// pingFrame is the server's keep-alive ping: final, unmasked, empty.
var pingFrame = []byte{wsframe.Fin | opPing, 0}

// controlPrefix reports whether b, which controlFrame found no whole ping
// or pong in, is the start of one: more bytes would make it whole.
func controlPrefix(b []byte) bool {
	if len(b) == 0 || !controlStart(b[0]) {
		return false
	}
	_, size, err := wsframe.Parse(b, maxControlPayload, true)
	return err == nil && size == 0
}

// controlFrame reads the whole ping or pong a client sent at the front of
// b: its opcode, its payload still masked, the masking key, and the
// frame's size; size 0 when b does not start with one (another frame, a
// frame in part, one that breaks the rules, which the library's reader
// refuses).
func controlFrame(b []byte) (op byte, payload []byte, key [4]byte, size int) {
	if len(b) == 0 || !controlStart(b[0]) {
		return 0, nil, key, 0
	}
	f, size, err := wsframe.Parse(b, maxControlPayload, true)
	if err != nil || size == 0 {
		return 0, nil, key, 0
	}
	return f.Op, f.Payload, f.Key, size
}

// controlStart reports whether a frame's first byte is a final ping's or
// pong's, with no extension bits.
func controlStart(first byte) bool {
	return first == wsframe.Fin|opPing || first == wsframe.Fin|opPong
}

// inBuf is bytes read from a socket and not yet handed on: b[r:w].
type inBuf struct {
	b    [readBufferSize]byte
	r, w int
}

var inBufs = sync.Pool{New: func() any { return new(inBuf) }}

// Read hands on what fill read, reading the socket through fill when
// nothing waits. Every read of the socket goes through fill, under the
// socket's read lock (RawConn.Read), so that the reader's wait and a
// close handshake's read take the bytes in the order they came.
func (c *corkConn) Read(p []byte) (int, error) {
	if c.raw == nil {
		n, err := c.Conn.Read(p)
		if n > 0 {
			c.heard.Add(1)
		}
		return n, err
	}
	for {
		c.smu.Lock()
		if in := c.in; in != nil {
			c.heard.Add(1)
			n := copy(p, in.b[in.r:in.w])
			in.r += n
			if in.r == in.w {
				c.in = nil
				inBufs.Put(in)
			}
			c.smu.Unlock()
			return n, nil
		}
		err := c.rerr
		c.smu.Unlock()
		if err != nil {
			return 0, err
		}
		if err := c.raw.Read(c.fill); err != nil {
			return 0, err
		}
	}
}

// fillFD reads what the socket fd holds into c.in, and reports whether
// there is something for Read (bytes or how the reading ended); false
// asks RawConn.Read to wait until the socket has more.
func (c *corkConn) fillFD(fd uintptr) bool {
	c.smu.Lock()
	defer c.smu.Unlock()
	if c.in != nil || c.rerr != nil {
		return true
	}
	in := inBufs.Get().(*inBuf)
	n, err := readNonblock(fd, in.b[:])
	if errors.Is(err, syscall.EAGAIN) {
		inBufs.Put(in)
		return false
	}
	switch {
	case err != nil:
		c.rerr = os.NewSyscallError("read", err)
	case n == 0:
		c.rerr = io.EOF
	}
	if n > 0 {
		in.r, in.w = 0, n
		c.in = in
	} else {
		inBufs.Put(in)
	}
	return true
}

// closeHandshake runs close, a WebSocket close that reads the client's
// answer through br, apart from awaitInput's look at it.
func (c *corkConn) closeHandshake(close func() error) error {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	return close()
}

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
// uncork, framed as a server frames it (one final frame, unmasked). The
// connection's writer frames its messages itself rather than through
// coder/websocket's Write, whose two channel locks a message took a tenth
// of the server's time under load; what the library writes meanwhile (a
// pong, a ping, a close) reaches Write whole, since writeBufferSize holds
// a whole control frame and the library flushes after each, so frames
// never interleave.
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

// hijacker is the http.ResponseWriter websocket.Accept upgrades through:
// its Hijack hands coder/websocket a corkConn and small buffers
// (readBufferSize, writeBufferSize) instead of net/http's, and keeps the
// bytes the client sent after its handshake, which net/http had already
// read.
type hijacker struct {
	http.ResponseWriter
	timeout time.Duration
	conn    *corkConn // set by Hijack
}

// Unwrap lets http.ResponseController reach net/http's writer.
func (h *hijacker) Unwrap() http.ResponseWriter { return h.ResponseWriter }

func (h *hijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	nc, brw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, fmt.Errorf("websocket: hijack: %w", err)
	}
	h.conn = &corkConn{Conn: nc, timeout: h.timeout}
	if sc, ok := nc.(syscall.Conn); ok && canFill {
		if raw, err := sc.SyscallConn(); err == nil {
			h.conn.raw, h.conn.fill, h.conn.poll, h.conn.tryWriteFn = raw, h.conn.fillFD, h.conn.pollFD, h.conn.tryWriteFD
		}
	}
	early, err := brw.Reader.Peek(brw.Reader.Buffered())
	if err != nil {
		_ = nc.Close()
		return nil, nil, fmt.Errorf("websocket: hijack: buffered bytes: %w", err)
	}
	// The early bytes are copied into the new reader's buffer, which is
	// where websocket.Accept looks for them before it points the reader
	// at the socket.
	br := bufio.NewReaderSize(bytes.NewReader(early), max(readBufferSize, len(early)))
	if len(early) > 0 {
		if _, err := br.Peek(len(early)); err != nil {
			_ = nc.Close()
			return nil, nil, fmt.Errorf("websocket: hijack: buffered bytes: %w", err)
		}
	}
	h.conn.br, h.conn.early = br, len(early) > 0
	return h.conn, bufio.NewReadWriter(br, bufio.NewWriterSize(h.conn, writeBufferSize)), nil
}
