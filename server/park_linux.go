package server

import (
	"fmt"
	"log/slog"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// poller is one epoll set that every parked connection's socket is in,
// and the goroutine that waits on it: a connection with nothing to read
// holds no goroutine (and no goroutine stack, 4 KiB once it has read a
// message), and one is started for it when its socket has bytes again
// (conn.wake). The runtime's own poller has the sockets too; this one
// only says when to start a reader.
type poller struct {
	fd   int
	file *os.File // fd's, kept so that it is not closed

	mu sync.Mutex
	// conns are the registered connections by slot, the number an event
	// carries with the slot's generation, which changes when the slot
	// is given back, so that an event for a connection that has ended
	// does not wake the one holding its slot next.
	conns []*conn
	gens  []uint32
	free  []int32
}

// epollET asks for an event each time bytes arrive rather than for as
// long as some wait (syscall's EPOLLET is a negative int).
const epollET = 1 << 31

var readPoller = sync.OnceValue(func() *poller {
	p, err := newPoller()
	if err != nil {
		slog.Warn("websocket: no read poller: connections keep a reader each", "err", err)
		return nil
	}
	return p
})

// newPoller makes the epoll set and starts its goroutine. The set is
// itself waited on through the runtime's poller, as a socket is: no
// thread sleeps in epoll_wait, and the goroutine runs when the set has
// events, which it takes without waiting.
func newPoller() (*poller, error) {
	fd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("epoll_create1: %w", err)
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("epoll set non-blocking: %w", err)
	}
	f := os.NewFile(uintptr(fd), "epoll")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("epoll set: %w", err)
	}
	p := &poller{fd: fd, file: f}
	go p.run(rc)
	return p, nil
}

// add puts c's socket in the set, and reports whether it is: c's reader
// may then park.
func (p *poller) add(c *conn) bool {
	if p == nil || c.sock.raw == nil {
		return false
	}
	p.mu.Lock()
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
	c.slot = slot
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLRDHUP | epollET, Fd: slot, Pad: int32(gen)}
	var err error
	if cerr := c.sock.raw.Control(func(fd uintptr) { err = syscall.EpollCtl(p.fd, syscall.EPOLL_CTL_ADD, int(fd), &ev) }); cerr != nil {
		err = cerr
	}
	if err != nil {
		p.release(slot)
		return false
	}
	return true
}

// remove takes c's socket out of the set, once its reading has ended. A
// closed socket has left it already (the kernel drops a descriptor from
// the set when it is closed), and Control then does nothing, so another
// socket given the same descriptor is never removed instead.
func (p *poller) remove(c *conn) {
	_ = c.sock.raw.Control(func(fd uintptr) { _ = syscall.EpollCtl(p.fd, syscall.EPOLL_CTL_DEL, int(fd), nil) })
	p.release(c.slot)
}

func (p *poller) release(slot int32) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conns[slot] = nil
	p.gens[slot]++
	p.free = append(p.free, slot)
}

// run wakes the connections whose sockets have bytes, for the process's
// life.
func (p *poller) run(rc syscall.RawConn) {
	events := make([]syscall.EpollEvent, 256)
	var woken []*conn
	take := func(fd uintptr) bool {
		n, err := epollNow(int(fd), events)
		if err != nil || n == 0 {
			return false // wait until the set has events
		}
		p.mu.Lock()
		for _, ev := range events[:n] {
			if int(ev.Fd) < len(p.conns) && p.gens[ev.Fd] == uint32(ev.Pad) && p.conns[ev.Fd] != nil {
				woken = append(woken, p.conns[ev.Fd])
			}
		}
		p.mu.Unlock()
		return true
	}
	for {
		if err := rc.Read(take); err != nil {
			// Nothing closes the set; were the wait to fail, the parked
			// connections wait until it works again.
			slog.Error("websocket: read poller", "err", err)
			time.Sleep(100 * time.Millisecond)
		}
		for i, c := range woken {
			c.wake()
			woken[i] = nil
		}
		woken = woken[:0]
	}
}

// epollNow is epoll_wait that does not wait: the events the set holds.
func epollNow(fd int, events []syscall.EpollEvent) (int, error) {
	n, err := rawCall(syscall.SYS_EPOLL_PWAIT, uintptr(fd), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), 0, 0, 0)
	return int(n), err
}
