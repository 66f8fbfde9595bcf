package server

import "time"

// Clock is the server's time: what time it is (for the per-connection and
// per-address rate limits, the latency it measures and the queues' ages)
// and the connections' timers (the join timeout and the keep-alive
// pings). Config.Clock sets it, WallClock by default, so that a test
// moves a clock of its own by hand instead of sleeping until a deadline
// passes. The sockets' read and write deadlines are the kernel's, on the
// wall clock.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has passed on the
	// clock, as time.AfterFunc does.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a Clock's AfterFunc timer; *time.Timer is one.
type Timer interface {
	// Reset sets the timer to fire d from now, and reports whether it
	// had been active.
	Reset(d time.Duration) bool
	// Stop stops the timer, and reports whether it had been active.
	Stop() bool
}

// WallClock is the real clock, the server's default.
type WallClock struct{}

// Now is time.Now.
func (WallClock) Now() time.Time { return time.Now() }

// AfterFunc is time.AfterFunc.
func (WallClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
