package server

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/room/roomtest"
)

// The players kept in memory are those of live rooms: once the map has
// grown, the players of rooms that ended are forgotten, and those of live
// ones kept.
func TestIdentitiesForgetThePlayersOfEndedRooms(t *testing.T) {
	t.Parallel()
	rooms := room.NewRegistry(room.RegistryConfig{}, roomtest.NewStore())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		assert.NoError(t, rooms.Shutdown(ctx))
	})
	live, err := rooms.Create(context.Background(), room.ModeCoop, "easy")
	require.NoError(t, err)

	var ids identities
	ids.remember(HashToken("kept"), identity{id: "p_kept", name: "Kept", room: live.ID()}, rooms)
	for i := range minPrune - 2 {
		ids.remember(HashToken(fmt.Sprint(i)), identity{id: fmt.Sprint("p_", i), room: "ended"}, rooms)
	}
	who, ok := ids.lookup(HashToken("0"))
	require.True(t, ok, "below the pruning size nothing is forgotten")
	assert.Equal(t, "p_0", who.id)

	ids.remember(HashToken("last"), identity{id: "p_last", room: "ended"}, rooms)
	_, ok = ids.lookup(HashToken("0"))
	assert.False(t, ok, "the players of ended rooms are forgotten")
	who, ok = ids.lookup(HashToken("kept"))
	require.True(t, ok, "a live room's players are kept")
	assert.Equal(t, identity{id: "p_kept", name: "Kept", room: live.ID()}, who)
	assert.Len(t, ids.byHash, 1)
	_, ok = ids.lookup(HashToken("never"))
	assert.False(t, ok)
}
