package server

import (
	"sync"
	"time"

	"github.com/sudoku-arena/arena/room/roomtest"
)

// FakeClock is a Clock that moves only when Advance is called, so that a
// test reaches a deadline (a keep-alive ping, a hint's freeze) by moving
// the clock past it instead of sleeping. It is a room.Clock too
// (roomtest.Clock), so that a server and its rooms can share it: give it
// to both, Config.Clock and Config.Rooms.Clock (WithFakeClock).
type FakeClock struct {
	*roomtest.Clock

	mu     sync.Mutex
	timers []*fakeTimer
}

// NewFakeClock is a clock that reads start until it is advanced.
func NewFakeClock(start time.Time) *FakeClock {
	return &FakeClock{Clock: roomtest.NewClock(start)}
}

// WithFakeClock sets clk as both the server's and the rooms' clock.
func WithFakeClock(clk *FakeClock) func(*Config) {
	return func(c *Config) { c.Clock, c.Rooms.Clock = clk, clk }
}

// AfterFunc is a timer that calls f, on the goroutine that advances the
// clock past it, once d has passed on the clock; d <= 0 fires at the next
// Advance.
func (c *FakeClock) AfterFunc(d time.Duration, f func()) Timer {
	t := &fakeTimer{c: c, f: f}
	c.mu.Lock()
	c.timers = append(c.timers, t)
	c.mu.Unlock()
	t.Reset(d)
	return t
}

// Advance moves the clock on by d, a step at a time: to each AfterFunc
// timer due within d in turn, whose f it calls before going on, and to
// the end. The rooms' timers fire as the clock passes them
// (roomtest.Clock.Advance).
func (c *FakeClock) Advance(d time.Duration) {
	end := c.Now().Add(d)
	for {
		t := c.due(end)
		if t == nil {
			break
		}
		if step := t.at.Sub(c.Now()); step > 0 {
			c.Clock.Advance(step)
		}
		t.f()
	}
	if rest := end.Sub(c.Now()); rest > 0 {
		c.Clock.Advance(rest)
	}
}

// due is the armed AfterFunc timer that is due first, no later than end,
// disarmed; nil when there is none.
func (c *FakeClock) due(end time.Time) *fakeTimer {
	c.mu.Lock()
	defer c.mu.Unlock()
	var first *fakeTimer
	for _, t := range c.timers {
		if t.armed && !t.at.After(end) && (first == nil || t.at.Before(first.at)) {
			first = t
		}
	}
	if first != nil {
		first.armed = false
	}
	return first
}

// fakeTimer is a FakeClock's AfterFunc timer; at and armed are guarded by
// the clock's mu.
type fakeTimer struct {
	c     *FakeClock
	f     func()
	at    time.Time
	armed bool
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	at := t.c.Now().Add(d)
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.armed
	t.at, t.armed = at, true
	return was
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.armed
	t.armed = false
	return was
}
