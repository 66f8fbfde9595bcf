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

// Advance moves the clock on by d and fires the timers whose time has come.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	for _, t := range c.timers {
		t.fireIfDue()
	}
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
