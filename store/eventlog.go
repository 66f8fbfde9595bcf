package store

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// EventAppender is the part of a Store the event log writes to.
type EventAppender interface {
	AppendEvents(ctx context.Context, events []Event) error
}

// EventLogOptions tune an EventLog; zero values take the defaults.
type EventLogOptions struct {
	// Interval is the longest an event waits before its batch is written
	// (default 25ms): the group-commit window.
	Interval time.Duration
	// MaxBatch is the most events one write carries (default 1000); a full
	// batch is written without waiting for the interval.
	MaxBatch int
	// MaxPending bounds the events held in memory while the database is
	// unreachable (default 1,000,000); past it new events are dropped and
	// counted, so a long outage costs log entries, never the server.
	MaxPending int
	// RetryMin and RetryMax bound the back-off between failed writes
	// (defaults 10ms and 2s).
	RetryMin, RetryMax time.Duration
	Logger             *slog.Logger
}

// EventLog writes room events to the store in batches, off the rooms' hot
// path: Append never blocks on the database. A failed batch is retried with
// back-off until it is written; since appending an event that is already
// stored is a no-op, a retry after a write that did land (but whose answer
// was lost) stores nothing twice.
type EventLog struct {
	dst  EventAppender
	opts EventLogOptions

	mu      sync.Mutex
	pending []Event
	queued  int64 // events ever queued (not dropped)
	written int64 // events ever written; the first written..queued are pending
	dropped int64
	flushes []flushWaiter
	closed  bool

	wake chan struct{}
	done chan struct{}
	stop context.CancelFunc

	statsMu sync.Mutex
	stats   EventLogStats
}

// EventLogStats counts what an EventLog did.
type EventLogStats struct {
	Written int64 // events handed to the store in batches that succeeded
	Batches int64 // batches that succeeded
	Retries int64 // failed batch writes, each retried
	Dropped int64 // events dropped because MaxPending was reached
}

// NewEventLog starts an EventLog writing to dst; Close stops it.
func NewEventLog(dst EventAppender, opts EventLogOptions) *EventLog {
	if opts.Interval <= 0 {
		opts.Interval = 25 * time.Millisecond
	}
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = 1000
	}
	if opts.MaxPending <= 0 {
		opts.MaxPending = 1_000_000
	}
	if opts.RetryMin <= 0 {
		opts.RetryMin = 10 * time.Millisecond
	}
	if opts.RetryMax <= 0 {
		opts.RetryMax = 2 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &EventLog{dst: dst, opts: opts, wake: make(chan struct{}, 1), done: make(chan struct{}), stop: cancel}
	go l.run(ctx)
	return l
}

// Append queues events for writing. It never blocks on the database.
func (l *EventLog) Append(events ...Event) {
	l.mu.Lock()
	room := l.opts.MaxPending - len(l.pending)
	if l.closed {
		room = 0
	}
	n := min(len(events), max(room, 0))
	l.pending = append(l.pending, events[:n]...)
	l.queued += int64(n)
	l.dropped += int64(len(events) - n)
	full := len(l.pending) >= l.opts.MaxBatch
	l.mu.Unlock()
	if n < len(events) {
		l.opts.Logger.Error("event log: queue full, events dropped", "dropped", len(events)-n, "max_pending", l.opts.MaxPending)
	}
	if full {
		l.poke()
	}
}

func (l *EventLog) poke() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// Flush waits until every event appended before the call is written, or ctx
// ends.
func (l *EventLog) Flush(ctx context.Context) error {
	ch := make(chan struct{})
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return errors.New("event log: closed")
	}
	if l.written >= l.queued {
		l.mu.Unlock()
		return nil
	}
	l.flushes = append(l.flushes, flushWaiter{upTo: l.queued, ch: ch})
	l.mu.Unlock()
	l.poke()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close writes what is queued, waiting until ctx ends at the longest, then
// stops the log. Events appended after Close are dropped.
func (l *EventLog) Close(ctx context.Context) error {
	err := l.Flush(ctx)
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.stop()
	<-l.done
	return err
}

// flushWaiter is a Flush call waiting for the events queued before it.
type flushWaiter struct {
	upTo int64 // done once written >= upTo
	ch   chan struct{}
}

// Stats returns the counts so far.
func (l *EventLog) Stats() EventLogStats {
	l.statsMu.Lock()
	s := l.stats
	l.statsMu.Unlock()
	l.mu.Lock()
	s.Dropped = l.dropped
	l.mu.Unlock()
	return s
}

func (l *EventLog) run(ctx context.Context) {
	defer close(l.done)
	tick := time.NewTicker(l.opts.Interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-l.wake:
		}
		for l.writeOne(ctx) {
		}
	}
}

// writeOne writes one batch, retrying until it lands or ctx ends, and
// reports whether there may be more to write now.
func (l *EventLog) writeOne(ctx context.Context) bool {
	l.mu.Lock()
	n := min(len(l.pending), l.opts.MaxBatch)
	batch := l.pending[:n:n]
	l.mu.Unlock()

	backoff := l.opts.RetryMin
	for n > 0 {
		err := l.dst.AppendEvents(ctx, batch)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return false
		}
		l.statsMu.Lock()
		l.stats.Retries++
		l.statsMu.Unlock()
		l.opts.Logger.Warn("event log: batch write failed, retrying", "events", n, "backoff", backoff, "err", err)
		select {
		case <-ctx.Done():
			return false
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, l.opts.RetryMax)
	}

	l.mu.Lock()
	l.pending = l.pending[n:]
	if len(l.pending) == 0 {
		l.pending = nil // let the backing array go
	}
	l.written += int64(n)
	more := len(l.pending) > 0
	waiting := l.flushes[:0]
	var done []flushWaiter
	for _, f := range l.flushes {
		if l.written >= f.upTo {
			done = append(done, f)
		} else {
			waiting = append(waiting, f)
		}
	}
	l.flushes = waiting
	l.mu.Unlock()
	if n > 0 {
		l.statsMu.Lock()
		l.stats.Written += int64(n)
		l.stats.Batches++
		l.statsMu.Unlock()
	}
	for _, f := range done {
		close(f.ch)
	}
	return more
}
