package room_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
)

// TestReleaseSavesAndStops: a room released as it was made (a node of
// several hands it to the node its players reach) is saved as final, with
// what it was made with (its daily, its puzzle), leaves the registry, and
// comes back whole on another registry, where players join it.
func TestReleaseSavesAndStops(t *testing.T) {
	reg, st, clock := registry(t, room.RegistryConfig{})
	ctx := context.Background()
	day := reg.Today()
	r, err := reg.CreateDaily(ctx, room.ModeRace, "easy", day)
	require.NoError(t, err)

	require.NoError(t, reg.Release(ctx, r.ID()))
	select {
	case <-r.Done():
	default:
		t.Fatal("Release returned before the room ended")
	}
	_, err = reg.Get(r.ID())
	assert.ErrorIs(t, err, room.ErrNotFound)
	assert.ErrorIs(t, reg.Release(ctx, r.ID()), room.ErrNotFound, "gone already")
	saved := st.Saved(r.ID())
	require.NotNil(t, saved, "saved as it stopped")
	assert.True(t, saved.Final)
	assert.False(t, saved.Ended, "released, not over")
	assert.Equal(t, protocol.PhaseWaiting, saved.Phase)
	assert.Equal(t, day, saved.Day)
	pz, ok := st.Puzzle(r.ID())
	require.True(t, ok)
	assert.Equal(t, pz.Givens.String(), saved.Puzzle.Givens)

	other := room.NewRegistry(room.RegistryConfig{Clock: clock}, st)
	t.Cleanup(func() { _ = other.Shutdown(context.Background()) })
	n, err := other.Adopt(ctx, []*room.Saved{saved})
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	back, err := other.Get(r.ID())
	require.NoError(t, err)
	require.NoError(t, back.Attach(ctx, room.Join{ID: "p_a", Name: "Ada"}, newConn()))
	snap, err := back.Snapshot(ctx)
	require.NoError(t, err)
	assert.Len(t, snap.Players, 1)
	assert.Equal(t, int64(0), saved.Seq, "nothing happened before the release")
}
