package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/store"
)

// waiting reports whether a statement of the database starting with
// prefix waits on a lock.
func waiting(t *testing.T, s *Store, prefix string) bool {
	t.Helper()
	var n int
	require.NoError(t, s.pool.QueryRow(context.Background(),
		`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1 || '%'`,
		prefix).Scan(&n))
	return n > 0
}

// renewal is a node's heartbeat and its check of the rooms it holds, as
// a node does when its lease lapsed: what HeldBy told it.
type renewal struct {
	held map[string]int64
	err  error
}

// TestClaimSeesTheOwnersRenewal: a claim that waits on a room's row (a
// write of its owner holds it: one sent into a partition holds it until
// the partition heals) judged the owner dead when it began. If the owner
// heartbeats and checks which rooms it holds meanwhile, the claim and the
// check must agree once both are done: either the owner was told the room
// is no longer its own, or the claim did not take it. Otherwise the owner
// takes moves for a room whose writes are then refused as fenced.
func TestClaimSeesTheOwnersRenewal(t *testing.T) {
	ctx := context.Background()
	s, _, tx := writeUnderWay(t)

	claimed := make(chan error, 1)
	go func() {
		_, err := s.ClaimRoom(ctx, "r1", "new", nodeTimeout)
		claimed <- err
	}()
	require.Eventually(t, func() bool { return waiting(t, s, "SELECT owner FROM rooms") || waiting(t, s, "UPDATE rooms") },
		5*time.Second, time.Millisecond, "the claim waits on the row")

	renewed := make(chan renewal, 1)
	go func() {
		err := s.Heartbeat(ctx, "old")
		var held map[string]int64
		if err == nil {
			held, err = s.HeldBy(ctx, "old", []string{"r1"})
		}
		renewed <- renewal{held, err}
	}()
	// The owner's renewal goes through, or waits for the claim.
	var r *renewal
	require.Eventually(t, func() bool {
		select {
		case got := <-renewed:
			r = &got
			return true
		default:
			return waiting(t, s, "UPDATE nodes")
		}
	}, 5*time.Second, time.Millisecond)

	require.NoError(t, tx.Rollback(ctx)) // the write ends
	claimErr := <-claimed
	if r == nil {
		got := <-renewed
		r = &got
	}
	require.NoError(t, r.err)
	o, err := s.RoomOwner(ctx, "r1", nodeTimeout)
	require.NoError(t, err)
	if epoch, ok := r.held["r1"]; ok {
		assert.ErrorIs(t, claimErr, store.ErrOwned, "the owner was told it still holds the room: no claim may take it after")
		assert.Equal(t, "old", o.Node)
		assert.Equal(t, epoch, o.Epoch)
	} else {
		assert.NoError(t, claimErr, "the owner was told it lost the room: the claim took it")
		assert.Equal(t, "new", o.Node)
	}
}
