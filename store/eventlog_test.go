package store_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/store"
)

// outage is an EventAppender whose database is away until up is called;
// once up, it keeps each (room, seq) once, as the real stores do.
type outage struct {
	mu    sync.Mutex
	down  bool
	tries int
	kept  map[int64]int // times each seq was stored
}

func (o *outage) AppendEvents(ctx context.Context, events []store.Event) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.tries++
	if o.down {
		return errors.New("connection refused")
	}
	for _, e := range events {
		if _, ok := o.kept[e.Seq]; !ok {
			o.kept[e.Seq]++
		}
	}
	return nil
}

func (o *outage) up() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.down = false
}

func (o *outage) stored() map[int64]int {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make(map[int64]int, len(o.kept))
	for k, v := range o.kept {
		out[k] = v
	}
	return out
}

func event(seq int64, data string) store.Event {
	return store.Event{RoomID: "r00m", Seq: seq, Type: "move", PlayerID: "p_a", Data: []byte(data)}
}

// t0 is when the event log tests' clocks start.
var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// moveUntil moves the clock on by step until done holds (a write that
// waits out its back-off runs once the clock has passed it), for at most
// 5 seconds of the test's own time.
func moveUntil(t *testing.T, clock *clock, step time.Duration, done func() bool) {
	t.Helper()
	require.Eventually(t, func() bool {
		if done() {
			return true
		}
		clock.Advance(step)
		return done()
	}, 5*time.Second, time.Millisecond)
}

// flush is the log's Flush while the clock moves on by step, so that a
// write waiting out its back-off is tried again.
func flush(t *testing.T, l *store.EventLog, clock *clock, step time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	flushed := make(chan error, 1)
	go func() { flushed <- l.Flush(ctx) }()
	var err error
	moveUntil(t, clock, step, func() bool {
		select {
		case err = <-flushed:
			return true
		default:
			return false
		}
	})
	require.NoError(t, err)
}

// While the database is away the log holds its events, says how many and
// since when, and retries; when the database is back it catches up, and
// every event is stored exactly once.
func TestEventLogHoldsThroughAnOutageAndCatchesUp(t *testing.T) {
	t.Parallel()
	db := &outage{down: true, kept: map[int64]int{}}
	clock := newClock(t0)
	l := store.NewEventLog(db, store.EventLogOptions{
		Interval: time.Millisecond, MaxBatch: 10, RetryMin: time.Millisecond, RetryMax: 5 * time.Millisecond, Clock: clock,
	})
	defer l.Close(context.Background())
	for i := int64(1); i <= 25; i++ {
		l.Append(event(i, `{"d":1}`))
		clock.Advance(time.Second)
	}
	moveUntil(t, clock, 5*time.Millisecond, func() bool { return l.Stats().Retries >= 3 })
	st := l.Stats()
	assert.Equal(t, 25, st.Pending)
	assert.Equal(t, t0, st.OldestAt, "the oldest unwritten event's queueing time")
	assert.Equal(t, clock.Now().Sub(t0), l.Waiting(clock.Now()), "how long the oldest has waited")
	assert.Equal(t, int64(25*(7+4+4+3+64)), st.PendingBytes)
	assert.False(t, st.Full)
	assert.Zero(t, st.Written)

	db.up()
	flush(t, l, clock, 5*time.Millisecond)
	st = l.Stats()
	assert.Equal(t, int64(25), st.Written)
	assert.Zero(t, st.Pending)
	assert.Zero(t, st.PendingBytes)
	assert.True(t, st.OldestAt.IsZero())
	assert.Zero(t, l.Waiting(clock.Now()), "nothing waits")
	kept := db.stored()
	require.Len(t, kept, 25)
	for seq, n := range kept {
		assert.Equal(t, 1, n, "event %d stored once", seq)
	}
}

// The queue is bounded in bytes as well as in events. From three
// quarters of the bound the log is saturated (the server takes no new
// work) and reports itself full; what comes meanwhile (what was taken
// before) is held up to twice the bound, and past that dropped, counted
// and logged once per DropLogEvery, not once per event. Once written out,
// the log takes work again.
func TestEventLogIsBoundedInBytes(t *testing.T) {
	t.Parallel()
	db := &outage{down: true, kept: map[int64]int{}}
	big := `"` + strings.Repeat("x", 1000) + `"`
	size := int64(len(big) + len("r00m") + len("move") + len("p_a") + 64)
	clock := newClock(t0)
	var logs lockedBuffer
	l := store.NewEventLog(db, store.EventLogOptions{
		Interval: time.Millisecond, MaxBatch: 100, MaxPendingBytes: 10 * size, RetryMin: time.Millisecond, RetryMax: 2 * time.Millisecond,
		Clock: clock, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
	})
	defer l.Close(context.Background())
	for i := int64(1); i <= 7; i++ {
		l.Append(event(i, big))
	}
	assert.False(t, l.Saturated(), "seven tenths of the bound")
	l.Append(event(8, big))
	assert.True(t, l.Saturated(), "three quarters of the bound")
	for i := int64(9); i <= 25; i++ {
		l.Append(event(i, big))
		l.Refused()
	}
	// The database is away: the writes fail and wait out their back-off.
	moveUntil(t, clock, 2*time.Millisecond, func() bool { return l.Stats().Retries >= 2 })
	st := l.Stats()
	assert.Equal(t, 20, st.Pending, "twice the bytes allowed are held")
	assert.Equal(t, 20*size, st.PendingBytes)
	assert.Equal(t, int64(5), st.Dropped)
	assert.True(t, st.Full)
	assert.True(t, st.Saturated)
	assert.Equal(t, int64(17), st.Refused)
	assert.Equal(t, 10*size, st.MaxPendingBytes)
	assert.Equal(t, 1, strings.Count(logs.String(), "events dropped"), "one log for the five drops in one interval:\n%s", logs.String())
	assert.Equal(t, 1, strings.Count(logs.String(), "event log: saturated"))

	db.up()
	flush(t, l, clock, 2*time.Millisecond)
	assert.False(t, l.Stats().Full, "written out, it is no longer full")
	assert.False(t, l.Saturated(), "nor saturated")
	assert.Contains(t, logs.String(), "event log: drained")
	assert.Contains(t, logs.String(), "refused=17")
	assert.Contains(t, logs.String(), "dropped_total=5", "the drain tells the drops")
	l.Append(event(26, big))
	flush(t, l, clock, 2*time.Millisecond)
	assert.Len(t, db.stored(), 21)
	assert.Equal(t, int64(5), l.Stats().Dropped)
}

// AppendEach fills its events in the queue itself, and past the bytes
// bound drops the rest of them as Append does, leaving no half-made one.
func TestEventLogAppendEachFillsInPlace(t *testing.T) {
	t.Parallel()
	db := &outage{down: true, kept: map[int64]int{}}
	big := `"` + strings.Repeat("y", 500) + `"`
	size := int64(len(big) + len("r00m") + len("move") + len("p_a") + 64)
	clock := newClock(t0)
	l := store.NewEventLog(db, store.EventLogOptions{
		Interval: time.Millisecond, MaxBatch: 100, MaxPendingBytes: 3 * size, RetryMin: time.Millisecond, RetryMax: 2 * time.Millisecond,
		Clock: clock,
	})
	defer l.Close(context.Background())
	var asked []int
	l.AppendEach(8, func(i int, e *store.Event) {
		asked = append(asked, i)
		*e = event(int64(i+1), big)
	})
	st := l.Stats()
	assert.Equal(t, 6, st.Pending, "twice the bound")
	assert.Equal(t, 6*size, st.PendingBytes)
	assert.Equal(t, int64(2), st.Dropped)
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6}, asked, "filled in order, up to the one that did not fit")

	db.up()
	flush(t, l, clock, 2*time.Millisecond)
	assert.Equal(t, map[int64]int{1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1}, db.stored())
}

// lockedBuffer is a log's output that the test reads while the log's
// goroutine writes it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
