package store

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/sudoku-arena/arena/room"
)

// CreatePlayer stores a new player, with a random seed of their own (from
// which their copies of the dailies are made).
func (a *Adapter) CreatePlayer(ctx context.Context, id, name string, tokenHash []byte) error {
	now := time.Now()
	return a.Store.CreatePlayer(ctx, Player{ID: id, Name: name, TokenHash: tokenHash, CreatedAt: now, LastSeen: now, Seed: rand.Uint64()})
}

// PlayerByToken finds the player and notes that they were seen: their id,
// their name (an account's is its handle), and whether they are a guest. A
// token that is no player's is room.ErrUnknownPlayer.
func (a *Adapter) PlayerByToken(ctx context.Context, tokenHash []byte) (id, name string, guest bool, err error) {
	p, err := a.Store.PlayerByToken(ctx, tokenHash)
	if errors.Is(err, ErrNotFound) {
		return "", "", false, room.ErrUnknownPlayer
	}
	if err != nil {
		return "", "", false, err
	}
	if err := a.Store.TouchPlayer(ctx, p.ID, time.Now()); err != nil && a.Logger != nil {
		a.Logger.Warn("touch player", "player", p.ID, "err", err)
	}
	if p.Account() {
		return p.ID, p.Handle, false, nil
	}
	return p.ID, p.Name, true, nil
}

// Ping reports whether the database answers.
func (a *Adapter) Ping(ctx context.Context) error { return a.Store.Ping(ctx) }
