package ws

import (
	"log/slog"
	"sync"
	"sync/atomic"
)

// Poller is a set of sockets that parked connections' sockets wait in
// (epoll, on Linux), with the goroutine that waits on it and the pool of
// reader goroutines it starts readers from: a connection with nothing to
// read holds no goroutine (and no goroutine stack, 4 KiB once it has read
// a message), and a reader is given it again when its socket has bytes
// (Conn.Wake). The runtime's own poller has the sockets too; this one
// only says when to start a reader.
//
// A Poller belongs to whoever made it (a server, for its connections),
// and ends with Close: its goroutines end, and a connection added after
// keeps a reader of its own.
type Poller struct {
	set *pollSet
	log *slog.Logger

	mu sync.Mutex
	// conns are the registered connections by slot, the number an event
	// carries with the slot's generation, which changes when the slot
	// is given back, so that an event for a connection that has ended
	// does not wake the one holding its slot next.
	conns  []*Conn
	gens   []uint32
	free   []int32
	closed bool

	// idle hands a woken connection to a reader goroutine that has
	// parked its last one and waits for another (reader). Handing it
	// over costs a wake-up; a new goroutine would cost its start and,
	// since a message's handling takes a stack of several KiB, copies of
	// its stack as it grows: 0.3 and 0.4 s of a 15 s profile at 8,000
	// players, most of what parking cost.
	idle chan *Conn
	// idleCount is how many readers wait on idle; past maxIdleReaders a
	// reader ends instead, so that a burst's readers do not all stay.
	idleCount atomic.Int32

	// done is closed by Close, which waits for ran: run has returned.
	done      chan struct{}
	ran       chan struct{}
	closeOnce sync.Once
	closeErr  error
}

const maxIdleReaders = 64

// NewPoller makes a poller and starts its goroutine; logger (nil: none)
// hears of a failing wait. Where no poller is built (elsewhere than on
// Linux) the error is errors.ErrUnsupported, and every connection keeps
// its reader, which waits in the socket's own read.
func NewPoller(logger *slog.Logger) (*Poller, error) {
	set, err := openPollSet()
	if err != nil {
		return nil, err
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	p := &Poller{set: set, log: logger, idle: make(chan *Conn), done: make(chan struct{}), ran: make(chan struct{})}
	go p.run()
	return p, nil
}

// Add puts c's socket in the set, with r to read c whenever its socket
// has bytes again, and reports whether it is: c's reader may then park
// (Conn.Park). A nil or closed poller adds nothing.
func (p *Poller) Add(c *Conn, r Reader) bool {
	if p == nil || c.raw == nil {
		return false
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return false
	}
	var slot int32
	if n := len(p.free); n > 0 {
		slot, p.free = p.free[n-1], p.free[:n-1]
	} else {
		slot = int32(len(p.conns))
		p.conns, p.gens = append(p.conns, nil), append(p.gens, 0)
	}
	p.conns[slot] = c
	gen := p.gens[slot]
	p.mu.Unlock()
	c.slot, c.reader = slot, r
	var err error
	if cerr := c.raw.Control(func(fd uintptr) { err = p.set.add(fd, slot, gen) }); cerr != nil {
		err = cerr
	}
	if err != nil {
		p.release(slot)
		return false
	}
	c.poller = p
	return true
}

// remove takes c's socket out of the set, once its reading has ended. A
// closed socket has left it already (the kernel drops a descriptor from
// the set when it is closed), and Control then does nothing, so another
// socket given the same descriptor is never removed instead.
func (p *Poller) remove(c *Conn) {
	_ = c.raw.Control(func(fd uintptr) { p.set.remove(fd) })
	p.release(c.slot)
}

func (p *Poller) release(slot int32) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conns[slot] = nil
	p.gens[slot]++
	p.free = append(p.free, slot)
}

// woken is the connection an event for slot, of generation gen, is for;
// nil when it has ended since. p.mu is held.
func (p *Poller) woken(slot int32, gen uint32) *Conn {
	if int(slot) < len(p.conns) && p.gens[slot] == gen {
		return p.conns[slot]
	}
	return nil
}

// Close ends the poller: its goroutine and its idle readers end, and the
// set is closed. A connection parked in it is woken no more by its
// socket, so close the connections first (their writers wake them as
// they close them). Close is safe to call again, and on a nil poller.
func (p *Poller) Close() error {
	if p == nil {
		return nil
	}
	p.closeOnce.Do(func() {
		p.mu.Lock()
		p.closed = true
		p.mu.Unlock()
		close(p.done)
		p.closeErr = p.set.close()
		<-p.ran
	})
	return p.closeErr
}
