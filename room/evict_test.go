package room_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
)

// TestEvictClosesAsMovedWithoutSaving: a room another node has claimed
// stops at once, closes its members as moved, and does not save over the
// new owner's state; Adopt brings it back on another registry.
func TestEvictClosesAsMovedWithoutSaving(t *testing.T) {
	reg, st, clock := registry(t, room.RegistryConfig{})
	ctx := context.Background()
	r, cs := live(t, reg, room.ModeCoop, "p_a", "p_b")
	require.NoError(t, r.Message(ctx, "p_a", cs[0], &protocol.Msg{Type: protocol.TypeStart}, clock.Now()))
	settle(t, r)
	require.Eventually(t, func() bool { return st.Saved(r.ID()) != nil }, 5*time.Second, time.Millisecond)
	before := *st.Saved(r.ID())

	assert.True(t, reg.Evict(r.ID()))
	assert.False(t, reg.Evict(r.ID()), "stopped already, though not gone yet: a second refused write stops nothing more")
	for _, c := range cs {
		select {
		case why := <-c.closed:
			assert.Equal(t, room.CloseMoved, why)
		case <-time.After(5 * time.Second):
			t.Fatal("a member was not closed")
		}
	}
	<-r.Done()
	_, err := reg.Get(r.ID())
	assert.ErrorIs(t, err, room.ErrNotFound)
	assert.False(t, reg.Evict(r.ID()), "gone already")
	after := st.Saved(r.ID())
	assert.Equal(t, before.Seq, after.Seq)
	assert.False(t, after.Final, "no final save")

	other := room.NewRegistry(room.RegistryConfig{Clock: clock}, st)
	t.Cleanup(func() { _ = other.Shutdown(context.Background()) })
	n, err := other.Adopt(ctx, []*room.Saved{after})
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	back, err := other.Get(r.ID())
	require.NoError(t, err)
	snap, err := back.Snapshot(ctx)
	require.NoError(t, err)
	assert.Len(t, snap.Players, 2)
}
