package store

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sudoku-arena/arena/internal/backoff"
	"github.com/sudoku-arena/arena/room"
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
	// MaxPending and MaxPendingBytes bound the events held in memory while
	// the database is slow or unreachable (defaults 1,000,000 events and
	// 64 MiB, counting each event's data and ids and 64 bytes besides).
	// The log is Saturated from three quarters of either bound until it
	// drains below half of both: the server then takes no new moves,
	// rooms or joins (what it acknowledged is stored; what it would not
	// store it refuses). The events of what was taken before are held up
	// to twice the bounds; past that, as a last resort, new events are
	// dropped, counted and logged (at most once per DropLogEvery).
	MaxPending      int
	MaxPendingBytes int64
	// DropLogEvery is the least time between two logs of dropped events
	// (default 10s): each says how many since the last.
	DropLogEvery time.Duration
	// RetryMin and RetryMax bound the back-off between failed writes
	// (defaults 10ms and 2s); each wait is drawn from the upper half of
	// the doubled one.
	RetryMin, RetryMax time.Duration
	// Clock dates what is queued and times the batches and the back-off
	// (default room.WallClock): a test's clock is moved on instead of
	// waited for.
	Clock  room.Clock
	Logger *slog.Logger
	// OnFenced, when set, is told the rooms whose events a batch dropped
	// because another node has claimed them (a *FencedError): their events
	// are never retried, and their owner here must stop them.
	OnFenced func(rooms []string)
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
	bytes   int64  // the size of pending, as eventSize counts it
	marks   []mark // when the pending events were queued, oldest first
	queued  int64  // events ever queued (not dropped)
	written int64  // events ever written; the first written..queued are pending
	dropped int64
	flushes []flushWaiter
	closed  bool
	full    bool // the last Append dropped events

	// saturated is Saturated: set from three quarters of either bound,
	// cleared below half of both. satSince is when it was set, satDrops
	// what the server refused meanwhile (Refused).
	saturated atomic.Bool
	satSince  time.Time
	refused   atomic.Int64
	// oldestAt is when the oldest event not yet written was queued, in
	// Unix nanoseconds (0: none waits), for Waiting.
	oldestAt atomic.Int64
	// droppedLogged is the drop count the last drop log reported, at
	// droppedLogAt.
	droppedLogged int64
	droppedLogAt  time.Time

	wake chan struct{}
	done chan struct{}
	stop context.CancelFunc

	statsMu sync.Mutex
	stats   EventLogStats
}

// mark is when an Append queued the events up to the upTo-th.
type mark struct {
	upTo int64
	at   time.Time
}

// eventSize is what an event counts against MaxPendingBytes: its data and
// ids, and a fixed 64 bytes for the rest.
func eventSize(e *Event) int64 {
	return int64(len(e.Data)+len(e.RoomID)+len(e.Type)+len(e.PlayerID)) + 64
}

// EventLogStats counts what an EventLog did, and what it holds.
type EventLogStats struct {
	Written int64 // events handed to the store in batches that succeeded
	Batches int64 // batches that succeeded
	Retries int64 // failed batch writes, each retried
	Dropped int64 // events dropped because a bound was reached

	Pending      int       // events queued and not yet written
	PendingBytes int64     // their size, as MaxPendingBytes counts it
	OldestAt     time.Time // when the oldest of them was queued (zero: none)
	// Full is set while the log is saturated (see MaxPending), or dropped
	// events at its last Append: what readiness reports.
	Full bool
	// Saturated is Saturated(), and Refused what the server refused for
	// it (Refused) since it last set in.
	Saturated bool
	Refused   int64
	// MaxPending and MaxPendingBytes are the bounds in force.
	MaxPending      int
	MaxPendingBytes int64
}

// DefaultEventLogBytes is MaxPendingBytes unless set: 64 MiB, some hours
// of a busy server's moves.
const DefaultEventLogBytes = 64 << 20

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
	if opts.MaxPendingBytes <= 0 {
		opts.MaxPendingBytes = DefaultEventLogBytes
	}
	if opts.Clock == nil {
		opts.Clock = room.WallClock{}
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
	if opts.DropLogEvery <= 0 {
		opts.DropLogEvery = 10 * time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &EventLog{dst: dst, opts: opts, wake: make(chan struct{}, 1), done: make(chan struct{}), stop: cancel}
	go l.run(ctx)
	return l
}

// Append queues events for writing. It never blocks on the database.
// Past twice either bound the events that do not fit are dropped and
// counted (see MaxPending).
func (l *EventLog) Append(events ...Event) {
	l.AppendEach(len(events), func(i int, e *Event) { *e = events[i] })
}

// AppendEach is Append of count events that fill sets in place, the i-th
// into e, in the queue itself: a caller whose events are another type
// builds none of its own to hand over.
func (l *EventLog) AppendEach(count int, fill func(i int, e *Event)) {
	now := l.opts.Clock.Now()
	l.mu.Lock()
	n := 0
	if !l.closed {
		for n < count && len(l.pending) < 2*l.opts.MaxPending {
			l.pending = append(l.pending, Event{})
			e := &l.pending[len(l.pending)-1]
			fill(n, e)
			size := eventSize(e)
			if l.bytes+size > 2*l.opts.MaxPendingBytes {
				l.pending[len(l.pending)-1] = Event{}
				l.pending = l.pending[:len(l.pending)-1]
				break
			}
			l.bytes += size
			n++
		}
	}
	l.queued += int64(n)
	if n > 0 {
		l.marks = append(l.marks, mark{upTo: l.queued, at: now})
		if len(l.marks) == 1 {
			l.oldestAt.Store(now.UnixNano())
		}
	}
	l.dropped += int64(count - n)
	l.full = n < count
	full := len(l.pending) >= l.opts.MaxBatch
	saturates := !l.saturated.Load() && (4*len(l.pending) >= 3*l.opts.MaxPending || 4*l.bytes >= 3*l.opts.MaxPendingBytes)
	if saturates {
		l.saturated.Store(true)
		l.satSince = now
		l.refused.Store(0)
	}
	var logDrops int64
	if l.dropped > l.droppedLogged && now.Sub(l.droppedLogAt) >= l.opts.DropLogEvery {
		logDrops, l.droppedLogged, l.droppedLogAt = l.dropped-l.droppedLogged, l.dropped, now
	}
	pending, bytes := len(l.pending), l.bytes
	l.mu.Unlock()
	if saturates {
		l.opts.Logger.Warn("event log: saturated: new moves, rooms and joins are refused until it drains",
			"pending", pending, "pending_bytes", bytes, "max_pending", l.opts.MaxPending, "max_pending_bytes", l.opts.MaxPendingBytes)
	}
	if logDrops > 0 {
		l.opts.Logger.Error("event log: past twice its bound, events dropped", "dropped", logDrops, "dropped_total", l.dropped,
			"max_pending", l.opts.MaxPending, "max_pending_bytes", l.opts.MaxPendingBytes)
	}
	if full {
		l.poke()
	}
}

// Saturated reports whether the log holds so much not yet written (three
// quarters of either bound, until it drains below half of both) that the
// server must take no new work: a move, room or join taken now might not
// be stored. It is one atomic load.
func (l *EventLog) Saturated() bool { return l.saturated.Load() }

// Waiting is how long the oldest event not yet written has waited at now
// (0 when none waits): a write stalled on a database that does not
// answer shows here long before it times out. It is one atomic load.
func (l *EventLog) Waiting(now time.Time) time.Duration {
	at := l.oldestAt.Load()
	if at == 0 {
		return 0
	}
	return max(now.Sub(time.Unix(0, at)), 0)
}

// Refused counts a piece of work the server refused because the log was
// saturated, for the log's summary when it drains.
func (l *EventLog) Refused() { l.refused.Add(1) }

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

// Stats returns the counts so far, and what is queued.
func (l *EventLog) Stats() EventLogStats {
	l.statsMu.Lock()
	s := l.stats
	l.statsMu.Unlock()
	l.mu.Lock()
	s.Dropped = l.dropped
	s.Pending, s.PendingBytes = len(l.pending), l.bytes
	if len(l.marks) > 0 {
		s.OldestAt = l.marks[0].at
	}
	s.Saturated = l.saturated.Load()
	s.Full = l.full || s.Saturated
	s.Refused = l.refused.Load()
	l.mu.Unlock()
	s.MaxPending, s.MaxPendingBytes = l.opts.MaxPending, l.opts.MaxPendingBytes
	return s
}

func (l *EventLog) run(ctx context.Context) {
	defer close(l.done)
	clock := l.opts.Clock
	next := clock.Now().Add(l.opts.Interval)
	tick := clock.NewTimer(next)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C():
			// The next tick is an interval on, as a ticker's; at once if
			// that has passed already (writing took longer).
			next = next.Add(l.opts.Interval)
			if now := clock.Now(); next.Before(now) {
				next = now
			}
			tick.Reset(next)
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

	wait := backoff.Backoff{Min: l.opts.RetryMin, Max: l.opts.RetryMax}
	for n > 0 {
		err := l.dst.AppendEvents(ctx, batch)
		if err == nil {
			break
		}
		if fe := (*FencedError)(nil); errors.As(err, &fe) {
			// The rest of the batch is written; the fenced rooms' events
			// belong to an owner that lost the room.
			l.opts.Logger.Warn("event log: events of rooms claimed by another node dropped", "rooms", fe.Rooms)
			if l.opts.OnFenced != nil {
				l.opts.OnFenced(fe.Rooms)
			}
			break
		}
		if ctx.Err() != nil {
			return false
		}
		l.statsMu.Lock()
		l.stats.Retries++
		l.statsMu.Unlock()
		d := wait.Next()
		l.opts.Logger.Warn("event log: batch write failed, retrying", "events", n, "failures", wait.Fails(), "backoff", d, "err", err)
		retry := l.opts.Clock.NewTimer(l.opts.Clock.Now().Add(d))
		select {
		case <-ctx.Done():
			retry.Stop()
			return false
		case <-retry.C():
		}
	}
	if wait.Fails() > 0 {
		l.opts.Logger.Info("event log: batch written after retries", "events", n, "failures", wait.Fails())
	}

	l.mu.Lock()
	for i := range batch {
		l.bytes -= eventSize(&batch[i])
	}
	// What was appended while the batch was written, when it is no more
	// than a batch, moves to the front, so that the array is used again
	// rather than a new one grown for every batch. A longer backlog (an
	// outage's) is sliced past instead, not copied once a batch; and an
	// array grown past a few batches is let go once empty.
	clear(l.pending[:n]) // let the written events' data go
	if rest := len(l.pending) - n; rest <= l.opts.MaxBatch {
		copy(l.pending, l.pending[n:])
		clear(l.pending[rest:])
		l.pending = l.pending[:rest]
	} else {
		l.pending = l.pending[n:]
	}
	if len(l.pending) == 0 && cap(l.pending) > 4*l.opts.MaxBatch {
		l.pending = nil
	}
	l.written += int64(n)
	if n > 0 {
		l.full = false
	}
	var drained time.Duration
	dropped := l.dropped
	if l.saturated.Load() && 2*len(l.pending) < l.opts.MaxPending && 2*l.bytes < l.opts.MaxPendingBytes {
		l.saturated.Store(false)
		drained = max(l.opts.Clock.Now().Sub(l.satSince), time.Nanosecond)
	}
	k := 0
	for k < len(l.marks) && l.marks[k].upTo <= l.written {
		k++
	}
	l.marks = l.marks[k:]
	if len(l.marks) == 0 {
		l.marks = nil
		l.oldestAt.Store(0)
	} else {
		l.oldestAt.Store(l.marks[0].at.UnixNano())
	}
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
	if drained > 0 {
		l.opts.Logger.Info("event log: drained: taking new moves, rooms and joins again", "saturated_for", drained,
			"refused", l.refused.Load(), "dropped_total", dropped)
	}
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
