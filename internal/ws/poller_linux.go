package ws

import (
	"fmt"
	"os"
	"syscall"
	"time"
	"unsafe"
)

// pollSet is the Poller's epoll set. It is itself waited on through the
// runtime's poller, as a socket is: no thread sleeps in epoll_wait, and
// the Poller's goroutine runs when the set has events, which it takes
// without waiting.
type pollSet struct {
	file *os.File // the set's descriptor, closed by close
	rc   syscall.RawConn
}

// epollET asks for an event each time bytes arrive rather than for as
// long as some wait (syscall's EPOLLET is a negative int).
const epollET = 1 << 31

// openPollSet makes the epoll set.
func openPollSet() (*pollSet, error) {
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
	return &pollSet{file: f, rc: rc}, nil
}

// add puts the socket fd in the set; its events carry slot and gen.
// Control holds the set's descriptor open meanwhile, and fails once it
// is closed.
func (s *pollSet) add(fd uintptr, slot int32, gen uint32) error {
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLRDHUP | epollET, Fd: slot, Pad: int32(gen)}
	var err error
	if cerr := s.rc.Control(func(ep uintptr) { err = syscall.EpollCtl(int(ep), syscall.EPOLL_CTL_ADD, int(fd), &ev) }); cerr != nil {
		return fmt.Errorf("epoll set: %w", cerr)
	}
	if err != nil {
		return fmt.Errorf("epoll_ctl add: %w", err)
	}
	return nil
}

// remove takes the socket fd out of the set, unless the set is closed.
func (s *pollSet) remove(fd uintptr) {
	_ = s.rc.Control(func(ep uintptr) { _ = syscall.EpollCtl(int(ep), syscall.EPOLL_CTL_DEL, int(fd), nil) })
}

// close closes the set: a wait on it (run's) returns at once.
func (s *pollSet) close() error {
	if err := s.file.Close(); err != nil {
		return fmt.Errorf("epoll set: %w", err)
	}
	return nil
}

// run wakes the connections whose sockets have bytes, until Close.
func (p *Poller) run() {
	defer close(p.ran)
	events := make([]syscall.EpollEvent, 256)
	var woken []*Conn
	take := func(fd uintptr) bool {
		n, err := epollNow(int(fd), events)
		if err != nil || n == 0 {
			return false // wait until the set has events
		}
		p.mu.Lock()
		for _, ev := range events[:n] {
			if c := p.woken(ev.Fd, uint32(ev.Pad)); c != nil {
				woken = append(woken, c)
			}
		}
		p.mu.Unlock()
		return true
	}
	for {
		if err := p.set.rc.Read(take); err != nil {
			select {
			case <-p.done:
				return
			default:
			}
			// Only Close closes the set; were the wait to fail
			// otherwise, the parked connections wait until it works
			// again.
			p.log.Error("websocket: read poller", "err", err)
			time.Sleep(100 * time.Millisecond)
		}
		for i, c := range woken {
			c.Wake()
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
