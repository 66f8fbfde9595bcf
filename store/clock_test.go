package store_test

import (
	"sync"
	"time"

	"github.com/sudoku-arena/arena/room"
)

// clock is a room.Clock for the store's tests that moves only when told.
// Unlike roomtest.Clock, Advance fires the timers due without waiting for
// their firing to be received: the event log's tick may fall due while it
// waits out a back-off, and is taken after it.
type clock struct {
	mu     sync.Mutex
	now    time.Time
	timers map[*timer]bool // the armed ones
}

var _ room.Clock = (*clock)(nil)

func newClock(start time.Time) *clock { return &clock{now: start, timers: map[*timer]bool{}} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// NewTimer is a timer that fires at at, or at once if at is not after Now.
func (c *clock) NewTimer(at time.Time) room.Timer {
	t := &timer{c: c, ch: make(chan time.Time, 1)}
	t.Reset(at)
	return t
}

// Advance moves the clock on by d and fires the timers whose time has come.
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	for t := range c.timers {
		t.fireIfDue()
	}
}

// timer is a clock's timer; its fields are guarded by the clock's mutex.
type timer struct {
	c  *clock
	ch chan time.Time
	at time.Time
}

func (t *timer) C() <-chan time.Time { return t.ch }

// Reset sets the timer for at, dropping a firing not yet received.
func (t *timer) Reset(at time.Time) {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	t.drain()
	t.at = at
	t.c.timers[t] = true
	t.fireIfDue()
}

// Stop stops the timer, dropping a firing not yet received.
func (t *timer) Stop() {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	t.drain()
	delete(t.c.timers, t)
}

func (t *timer) fireIfDue() {
	if !t.at.After(t.c.now) {
		delete(t.c.timers, t)
		t.ch <- t.c.now // never blocks: drained whenever armed
	}
}

func (t *timer) drain() {
	select {
	case <-t.ch:
	default:
	}
}
