package cluster

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/sudoku-arena/arena/room/roomtest"
)

// A lease is held from the sending of the last heartbeat the database took
// for NODE_TIMEOUT less a fifth, and not while the event log's oldest
// event has waited past storeStall; a node is in good standing once it has
// held its lease without a lapse for NODE_TIMEOUT, and a lapse starts its
// standing again.
func TestLease(t *testing.T) {
	t.Parallel()
	const timeout = 10 * time.Second
	clock := roomtest.NewClock(time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC))
	l := NewLease(clock, timeout)
	assert.False(t, l.Held(), "no heartbeat taken yet")
	assert.False(t, l.Standing(clock.Now()))

	sent := clock.Now()
	clock.Advance(300 * time.Millisecond) // the heartbeat's round trip
	l.Renewed(sent)
	assert.True(t, l.Held())
	assert.False(t, l.Standing(clock.Now()), "not yet held for the timeout")

	// Held until 8 s after the heartbeat was sent, not after it returned.
	clock.Advance(8*time.Second - 300*time.Millisecond - time.Nanosecond)
	assert.True(t, l.Held())
	clock.Advance(time.Nanosecond)
	assert.False(t, l.Held(), "NODE_TIMEOUT less its fifth after the heartbeat was sent")
	assert.True(t, l.Lapsed(clock.Now()))

	// A heartbeat taken after the lapse renews it, and starts the
	// standing again.
	sent = clock.Now()
	l.Renewed(sent)
	assert.True(t, l.Held())
	for i := 1; i <= 5; i++ {
		clock.Advance(2 * time.Second)
		l.Renewed(clock.Now())
		assert.Equal(t, i == 5, l.Standing(clock.Now()), "standing once held without a lapse for the timeout (%s)", clock.Now().Sub(sent))
	}

	// An older heartbeat's answer, coming late, moves nothing back.
	l.Renewed(sent)
	assert.True(t, l.Held())
	assert.True(t, l.Standing(clock.Now()))

	// The event log's writes stall: the lease is not held, the standing
	// stays (the heartbeat goes through).
	waited := time.Duration(0)
	l.Watch(func(time.Time) time.Duration { return waited })
	waited = storeStall
	assert.True(t, l.Held())
	waited = storeStall + time.Millisecond
	assert.False(t, l.Held(), "a write waits past storeStall")
	assert.False(t, l.Lapsed(clock.Now()))
	waited = 0
	assert.True(t, l.Held())

	// A lapse ends the standing at once.
	clock.Advance(8 * time.Second)
	assert.False(t, l.Standing(clock.Now()))
	l.Renewed(clock.Now())
	assert.False(t, l.Standing(clock.Now()), "standing starts again from the renewal")
}
