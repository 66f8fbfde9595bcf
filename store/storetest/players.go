package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/store"
)

func testPlayers(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := mkPlayer(t, s, "p1")
	got, err := s.Player(ctx, "p1")
	require.NoError(t, err)
	assert.Equal(t, p.Name, got.Name)
	assert.Equal(t, p.TokenHash, got.TokenHash)
	assert.True(t, p.CreatedAt.Equal(got.CreatedAt), "created %v vs %v", p.CreatedAt, got.CreatedAt)
	assert.Equal(t, p.Seed, got.Seed, "the seed, bit for bit")
	assert.False(t, got.Account(), "a new player is a guest")
	assert.Empty(t, got.Handle)
	assert.True(t, got.AccountAt.IsZero())

	byTok, err := s.PlayerByToken(ctx, []byte("hash-p1"))
	require.NoError(t, err)
	assert.Equal(t, "p1", byTok.ID)
	assert.Equal(t, p.Seed, byTok.Seed)
	_, err = s.PlayerByToken(ctx, []byte("nope"))
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.Player(ctx, "nobody")
	assert.ErrorIs(t, err, store.ErrNotFound)

	// Same id, or same token: conflict, and the first player is unchanged.
	err = s.CreatePlayer(ctx, store.Player{ID: "p1", Name: "Other", TokenHash: []byte("x"), CreatedAt: t0, LastSeen: t0})
	assert.ErrorIs(t, err, store.ErrConflict)
	err = s.CreatePlayer(ctx, store.Player{ID: "p2", Name: "Other", TokenHash: []byte("hash-p1"), CreatedAt: t0, LastSeen: t0})
	assert.ErrorIs(t, err, store.ErrConflict)
	got, err = s.Player(ctx, "p1")
	require.NoError(t, err)
	assert.Equal(t, "Player p1", got.Name)

	later := t0.Add(time.Hour + 123456*time.Microsecond)
	require.NoError(t, s.TouchPlayer(ctx, "p1", later))
	require.NoError(t, s.RenamePlayer(ctx, "p1", "Zoë"))
	got, err = s.Player(ctx, "p1")
	require.NoError(t, err)
	assert.True(t, later.Equal(got.LastSeen), "last seen %v", got.LastSeen)
	assert.Equal(t, "Zoë", got.Name)
	assert.ErrorIs(t, s.TouchPlayer(ctx, "ghost", later), store.ErrNotFound)
	assert.ErrorIs(t, s.RenamePlayer(ctx, "ghost", "x"), store.ErrNotFound)
}
