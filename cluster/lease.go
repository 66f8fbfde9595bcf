package cluster

import (
	"sync/atomic"
	"time"

	"github.com/sudoku-arena/arena/room"
)

// storeStall is how long the oldest event not yet written may wait before
// a node stops taking moves: past it the database is not answering this
// node (a partition, an outage), and what the node would acknowledge now
// could not be stored before another node takes its rooms over. Batches
// are written every 25 ms and take milliseconds, so a healthy node never
// comes near it.
const storeStall = 250 * time.Millisecond

// leaseMargin is the part of NODE_TIMEOUT a node's lease ends before the
// other nodes may count it dead: room for the event log's last batch, a
// pause of the process, and the drift between this node's clock and the
// database's over one timeout.
func leaseMargin(timeout time.Duration) time.Duration { return timeout / 5 }

// Lease is a node's right to take what changes its rooms, as Chubby's
// clients and Temporal's shard owners hold theirs: it runs from when the
// last heartbeat the database took was sent, for NODE_TIMEOUT less a
// margin, and ends sooner while the event log's writes stall. The other
// nodes count a node dead only once its heartbeat is older than
// NODE_TIMEOUT by the database's clock, which it stamped after it was
// sent: so while a node holds its lease, no other node can have claimed
// its rooms, and what it acknowledges is stored before any could.
//
// Times are kept as the offsets from the lease's start on its clock (the
// monotonic one, on the wall clock), so that a step of the wall clock
// moves no lease.
type Lease struct {
	clock   room.Clock
	start   time.Time
	timeout time.Duration
	// waiting is the event log's Waiting (nil: none is watched).
	waiting func(now time.Time) time.Duration

	// renewed is when the last heartbeat the database took was sent, and
	// standing since when the node has renewed without a lapse; both as
	// offsets from start plus one (0: never).
	renewed, standing atomic.Int64
}

// NewLease is a lease for the timeout, on the clock, not held until
// Renewed.
func NewLease(clock room.Clock, timeout time.Duration) *Lease {
	return &Lease{clock: clock, start: clock.Now(), timeout: timeout}
}

// Watch makes the lease end while the oldest event of the log not yet
// written has waited longer than storeStall (waiting is the event log's
// Waiting).
func (l *Lease) Watch(waiting func(now time.Time) time.Duration) { l.waiting = waiting }

// Now is the lease's clock's now: what a heartbeat notes as sent.
func (l *Lease) Now() time.Time { return l.clock.Now() }

// offset is t as the lease keeps times.
func (l *Lease) offset(t time.Time) int64 { return int64(t.Sub(l.start)) + 1 }

// Held reports whether the node may take what changes its rooms now.
func (l *Lease) Held() bool {
	now := l.clock.Now()
	if l.Lapsed(now) {
		return false
	}
	return l.waiting == nil || l.waiting(now) <= storeStall
}

// Lapsed reports whether the lease had ended at now, by its heartbeat
// alone: no heartbeat was taken, or the last one was sent NODE_TIMEOUT
// less the margin ago or more. After a lapse another node may own some of
// the node's rooms; a heartbeat taken then renews the lease only once the
// node has checked which rooms it still holds.
func (l *Lease) Lapsed(now time.Time) bool {
	r := l.renewed.Load()
	return r == 0 || l.offset(now)-r >= int64(l.timeout-leaseMargin(l.timeout))
}

// Renewed records a heartbeat the database took, sent at sent: the lease
// runs from there. A renewal after a lapse starts the node's standing
// again.
func (l *Lease) Renewed(sent time.Time) {
	if l.Lapsed(l.clock.Now()) {
		l.standing.Store(l.offset(sent))
	}
	if o := l.offset(sent); o > l.renewed.Load() {
		l.renewed.Store(o)
	}
}

// Standing reports whether the node has held its lease without a lapse
// for NODE_TIMEOUT at now: only then may it take rooms over from a node
// that looks dead. A node that has just renewed after an outage of its
// own, or of the whole database, gives the other nodes the timeout to
// renew theirs first.
func (l *Lease) Standing(now time.Time) bool {
	s := l.standing.Load()
	return s != 0 && !l.Lapsed(now) && l.offset(now)-s >= int64(l.timeout)
}
