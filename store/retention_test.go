package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/store"
)

// pruner is an EventPruner that hands out its rooms' events batch by batch
// and records each call.
type pruner struct {
	mu      sync.Mutex
	rooms   []int64 // events per room, oldest finish first
	befores []time.Time
	fail    error
}

func (p *pruner) DeleteFinishedEvents(ctx context.Context, before time.Time, maxRooms int) (int64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.befores = append(p.befores, before)
	if p.fail != nil {
		return 0, p.fail
	}
	var n int64
	for len(p.rooms) > 0 && maxRooms > 0 {
		n += p.rooms[0]
		p.rooms = p.rooms[1:]
		maxRooms--
	}
	return n, nil
}

func (p *pruner) calls() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.befores)
}

func TestRetentionPrunesBatchAfterBatch(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	p := &pruner{rooms: []int64{3, 4, 5, 6, 7}}
	r := &store.Retention{Store: p, Keep: 30 * 24 * time.Hour, BatchRooms: 2, Now: func() time.Time { return now }}
	n, err := r.Prune(context.Background())
	require.NoError(t, err)
	assert.Equal(t, int64(25), n)
	require.Len(t, p.befores, 4, "three batches of up to two rooms, then one that finds none")
	for _, b := range p.befores {
		assert.Equal(t, now.Add(-30*24*time.Hour), b)
	}

	boom := errors.New("database away")
	p.fail = boom
	_, err = r.Prune(context.Background())
	assert.ErrorIs(t, err, boom)
}

func TestRetentionZeroKeepsForever(t *testing.T) {
	t.Parallel()
	p := &pruner{rooms: []int64{3}}
	r := &store.Retention{Store: p}
	n, err := r.Prune(context.Background())
	require.NoError(t, err)
	assert.Zero(t, n)
	r.Run(context.Background()) // returns at once
	assert.Zero(t, p.calls())
}

func TestRetentionRunsAtOnceAndThenEvery(t *testing.T) {
	t.Parallel()
	p := &pruner{fail: errors.New("database away")}
	r := &store.Retention{Store: p, Keep: time.Hour, Every: 5 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.Run(ctx)
	}()
	require.Eventually(t, func() bool { return p.calls() >= 3 }, 5*time.Second, time.Millisecond,
		"a failed run does not stop the next")
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not stop with its context")
	}
}
