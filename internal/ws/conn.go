package ws

import (
	"bytes"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Buffer sizes and bounds of a connection's socket.
const (
	// readBufferSize holds a client's message (a move is under 100
	// bytes) with its header in one read; a longer frame takes a buffer
	// of its own while it is read.
	readBufferSize = 512
	// closeWait is how long a close handshake waits for the client's
	// close frame before the socket is closed anyway.
	closeWait = 5 * time.Second
	// maxFrameHeader is the longest header a client's frame has: 2
	// bytes, 8 of length and 4 of masking key.
	maxFrameHeader = 14
)

// Conn is the socket under a WebSocket, which the server speaks itself
// (RFC 6455): the handshake (Accept), the frames it reads (Next) and
// those it writes.
//
// Writes (write.go): while the connection's writer drains a batch
// (between Cork and Uncork), the frames it writes (WriteText), and any
// control frame written meanwhile from another goroutine (a pong, a
// ping), are gathered in one buffer and sent with one write, rather than
// a system call per frame. Outside a batch each write goes straight to the
// socket, so a pong or a close never waits for a batch that is not being
// written, but for the rest of one the socket took in part (TryWrite,
// WriteRest): a frame is never cut by another. Every write to the socket
// has a deadline, the write timeout from its start, set on the socket
// rather than with a timer.
//
// Reads (read.go): every read of the socket goes through fill, which
// keeps what it read in in, a pooled buffer that an idle connection does
// not hold; take answers the pings, drops the pongs, and hands on the
// messages and the client's close.
//
// Parking (park.go, poller.go): a connection in a Poller has no
// goroutine while its socket has nothing to read; the poller starts its
// Reader again when it has.
type Conn struct {
	net.Conn
	timeout time.Duration
	limit   int // the longest message a client may send

	// mu orders the socket's writes: the writer's batches, the pongs
	// take writes, the keep-alive pings and the close frame.
	mu  sync.Mutex
	buf *[]byte // the batch's buffer while corked; nil otherwise
	// owed is set while the rest of a write TryWrite made in part is
	// still to be written (WriteRest): other writes wait on restDone
	// (whose lock is mu) until it is, so that none lands inside the frame
	// cut short. werr is the first write's failure, which every write
	// after it reports.
	owed     bool
	restDone sync.Cond
	werr     error
	// wbuf and wrote are TryWrite's bytes and how many of them the
	// socket took, and tryWriteFn its write (tryWriteFD, made once).
	wbuf       []byte
	wrote      int
	tryWriteFn func(fd uintptr) bool

	// rmu orders the taking of frames (take): the reader's, and a close
	// handshake's, which reads on the writer's goroutine. It guards frag,
	// fragOp, checked, frames and dropping.
	rmu sync.Mutex
	// frag is a fragmented message's payload so far, and fragOp its
	// opcode; nil when no message is in part. checked is how much of a
	// text message's payload is checked UTF-8 (checkText), frames how
	// many frames it has come in.
	frag    *bytes.Buffer
	fragOp  byte
	checked int
	frames  int
	// pings is the ping budget left (pingBurst at most), as of pingAt;
	// it refills one each pingEvery (SetPingBudget).
	pings     float64
	pingAt    time.Time
	pingBurst float64
	pingEvery time.Duration
	// dropping is set while the rest of a message refused for its text
	// (not UTF-8) is dropped, up to its final frame.
	dropping bool
	// raw is the socket's descriptor, through which every read goes
	// (fill); nil: reads go to the socket as they are (fillConn).
	raw  syscall.RawConn
	fill func(fd uintptr) bool
	// poll is fillFD asked not to wait (Next), made once.
	poll func(fd uintptr) bool
	// fmu orders fillConn's reads, which wait inside the socket's read.
	fmu sync.Mutex
	// smu guards in, rerr and closeSeen, which fill and take set, and the
	// time of a part begun (partDue).
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
	// heard counts the reads that brought bytes from the client (Heard).
	heard atomic.Uint32
	// msgTimeout is how long a message or frame begun has to come whole
	// (SetMessageTimeout); partDue is when the one begun now is due, zero
	// when none is, and partTimer wakes the reader then (timePart). They
	// are guarded by smu.
	msgTimeout time.Duration
	partDue    time.Time
	partTimer  *time.Timer

	// poller is set once the socket is in a Poller (Poller.Add): its
	// reader then ends when nothing is left to read (Park), and the
	// poller starts reader again when there is (Wake). rstate is where
	// that stands, slot where the poller keeps the connection.
	poller *Poller
	reader Reader
	rstate atomic.Int32
	slot   int32
}

// newConn wraps a hijacked socket; early is what the client sent after
// its handshake, which net/http had read already. limit is the longest
// message the client may send, timeout the time each write has.
func newConn(nc net.Conn, early []byte, timeout time.Duration, limit int) *Conn {
	c := &Conn{Conn: nc, timeout: timeout, limit: limit, msgTimeout: DefaultMessageTimeout, pingBurst: PingBurst, pingEvery: PingEvery}
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

// DefaultMessageTimeout is the time a client's message, or any frame,
// has from its first byte to its last unless SetMessageTimeout says
// otherwise.
const DefaultMessageTimeout = 10 * time.Second

// SetMessageTimeout sets how long a message, or any frame, has from its
// first byte to its last: one begun and not whole by then closes the
// connection with StatusPolicyViolation, whether more of it is coming (a
// byte at a time) or not. 0 sets no time. Call it before reading.
func (c *Conn) SetMessageTimeout(d time.Duration) {
	c.smu.Lock()
	defer c.smu.Unlock()
	c.msgTimeout = d
}

// SetPingBudget sets the client's ping budget: burst pings at once, then
// one each every; a ping beyond it closes the connection with
// StatusPolicyViolation. Call it before reading.
func (c *Conn) SetPingBudget(burst int, every time.Duration) {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	c.pingBurst, c.pingEvery = float64(max(burst, 1)), max(every, time.Nanosecond)
}

// Heard counts the reads that brought bytes from the client, its pongs
// included: a keep-alive ping's answer is checked by it (the count has
// moved since the ping went).
func (c *Conn) Heard() uint32 { return c.heard.Load() }

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
