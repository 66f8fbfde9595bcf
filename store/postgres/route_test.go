package postgres

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
)

// TestHandOff: a room its maker hands off moves its epoch on (the maker's
// writes are refused from then on), stays its maker's for the takeover
// pass while the maker lives, and is claimed once, by the first node that
// asks, alive as the maker is; only its maker at its epoch hands it off.
func TestHandOff(t *testing.T) {
	ctx := context.Background()
	s, pz := openCluster(t)
	register(t, s, "maker", "other")
	ownedRoom(t, s, pz, "r1", "maker")
	assert.ErrorIs(t, s.HandOff(ctx, "r1", "other", 1), store.ErrOwned, "not its room")
	assert.ErrorIs(t, s.HandOff(ctx, "r1", "maker", 2), store.ErrOwned, "not its epoch")
	assert.ErrorIs(t, s.HandOff(ctx, "none", "maker", 1), store.ErrOwned, "no such room")
	require.NoError(t, s.HandOff(ctx, "r1", "maker", 1))

	o, err := s.RoomOwner(ctx, "r1", nodeTimeout)
	require.NoError(t, err)
	assert.Equal(t, store.Owner{Node: "maker", Addr: "http://maker.internal", Alive: true, Epoch: 2}, o)
	stale := store.Room{ID: "r1", Mode: room.ModeCoop, PuzzleID: pz.ID, HostID: "host", State: store.StateRunning,
		CreatedAt: time.Now(), Settings: json.RawMessage(`{"by":"maker"}`), Epoch: 1}
	assert.ErrorIs(t, s.UpdateRoom(ctx, stale), store.ErrFenced, "the maker's epoch is over")
	cs, err := s.ClaimOrphans(ctx, "other", nodeTimeout, 10)
	require.NoError(t, err)
	assert.Empty(t, cs, "the maker lives: no takeover")

	epoch, err := s.ClaimHanded(ctx, "r1.2", "other")
	require.NoError(t, err)
	assert.Equal(t, int64(3), epoch)
	o, err = s.RoomOwner(ctx, "r1", nodeTimeout)
	require.NoError(t, err)
	assert.Equal(t, "other", o.Node)
	assert.Equal(t, int64(3), o.Epoch)
	_, err = s.ClaimHanded(ctx, "r1", "maker")
	assert.ErrorIs(t, err, store.ErrOwned, "claimed once")
}

// TestHandOffEndsWithAnyClaim: a room handed off and then claimed in
// another way (its maker claiming it back for a join relayed to it, or a
// takeover once its maker left) is run by a node: ClaimHanded leaves it
// alone, as it does a room never handed off, and no room at all.
func TestHandOffEndsWithAnyClaim(t *testing.T) {
	ctx := context.Background()
	s, pz := openCluster(t)
	register(t, s, "maker", "other", "third")
	for _, id := range []string{"back", "left", "plain"} {
		ownedRoom(t, s, pz, id, "maker")
	}
	require.NoError(t, s.HandOff(ctx, "back", "maker", 1))
	require.NoError(t, s.HandOff(ctx, "left", "maker", 1))

	_, err := s.ClaimRoom(ctx, "back", "maker", nodeTimeout)
	require.NoError(t, err)
	_, err = s.ClaimHanded(ctx, "back", "other")
	assert.ErrorIs(t, err, store.ErrOwned, "claimed back by its maker")
	_, err = s.LeaveNode(ctx, "maker")
	require.NoError(t, err)
	cs, err := s.ClaimOrphans(ctx, "third", nodeTimeout, 10)
	require.NoError(t, err)
	got := map[string]int64{}
	for _, c := range cs {
		got[c.RoomID] = c.Epoch
	}
	assert.Equal(t, map[string]int64{"back": 4, "left": 3, "plain": 2}, got, "the maker left: its rooms are taken over")

	for _, id := range []string{"back", "left", "plain", "none"} {
		_, err := s.ClaimHanded(ctx, id, "other")
		assert.ErrorIs(t, err, store.ErrOwned, id)
	}
}

// TestClaimHandedConcurrent: of nodes racing for a handed-off room (its
// players reaching several nodes at once), exactly one wins.
func TestClaimHandedConcurrent(t *testing.T) {
	ctx := context.Background()
	s, pz := openCluster(t)
	claimers := []string{"c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7"}
	register(t, s, append(claimers, "maker")...)
	ownedRoom(t, s, pz, "r1", "maker")
	require.NoError(t, s.HandOff(ctx, "r1", "maker", 1))
	var wg sync.WaitGroup
	errs := make([]error, len(claimers))
	epochs := make([]int64, len(claimers))
	for i, c := range claimers {
		wg.Go(func() { epochs[i], errs[i] = s.ClaimHanded(ctx, "r1", c) })
	}
	wg.Wait()
	var won []string
	for i, err := range errs {
		if err != nil {
			assert.ErrorIs(t, err, store.ErrOwned, claimers[i])
			continue
		}
		won = append(won, claimers[i])
		assert.Equal(t, int64(3), epochs[i], claimers[i])
	}
	require.Len(t, won, 1, "one claimer wins")
	o, err := s.RoomOwner(ctx, "r1", nodeTimeout)
	require.NoError(t, err)
	assert.Equal(t, won[0], o.Node)
}
