package roomtest

import (
	"sync"
	"time"

	"github.com/sudoku-arena/arena/room"
)

// Clock is a room.Clock that moves only when Advance is called, so a test
// reaches a deadline by moving the clock past it instead of sleeping.
type Clock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*timer
}

var _ room.Clock = (*Clock)(nil)

// NewClock is a clock that reads start until it is advanced.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// NewTimer is a timer that fires at at, or at once if at is not after Now.
func (c *Clock) NewTimer(at time.Time) room.Timer {
	t := &timer{c: c, ch: make(chan time.Time, 1)}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.timers = append(c.timers, t)
	t.set(at)
	return t
}

// Advance moves the clock on by d, fires the timers whose time has come,
// and returns once every firing has been received (or dropped by a Reset
// or Stop), so that what a room does when its timer fires comes before the
// next command the test sends it. It gives up waiting after 5 seconds, for
// a timer nobody reads.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	for _, t := range c.timers {
		t.fireIfDue()
	}
	c.mu.Unlock()
	for deadline := time.Now().Add(5 * time.Second); c.unreceived() && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
}

// unreceived says whether a firing waits on some timer's channel.
func (c *Clock) unreceived() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.timers {
		if len(t.ch) > 0 {
			return true
		}
	}
	return false
}

// timer is a Clock's timer; its fields are guarded by the clock's mutex.
type timer struct {
	c     *Clock
	ch    chan time.Time
	at    time.Time
	armed bool
}

func (t *timer) C() <-chan time.Time { return t.ch }

// Reset sets the timer for at, dropping a firing not yet received.
func (t *timer) Reset(at time.Time) {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	t.drain()
	t.set(at)
}

// Stop stops the timer, dropping a firing not yet received.
func (t *timer) Stop() {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	t.drain()
	t.armed = false
}

func (t *timer) set(at time.Time) {
	t.at, t.armed = at, true
	t.fireIfDue()
}

func (t *timer) fireIfDue() {
	if t.armed && !t.at.After(t.c.now) {
		t.armed = false
		t.ch <- t.c.now // never blocks: drained whenever armed
	}
}

func (t *timer) drain() {
	select {
	case <-t.ch:
	default:
	}
}
