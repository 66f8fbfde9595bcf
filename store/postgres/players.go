package postgres

import (
	"context"
	"time"

	"github.com/sudoku-arena/arena/store"
)

// CreatePlayer stores a new player.
func (s *Store) CreatePlayer(ctx context.Context, p store.Player) error {
	_, err := s.pool.Exec(ctx,
		`INSERT INTO players (id, name, token_hash, created_at, last_seen, seed) VALUES ($1, $2, $3, $4, $5, $6)`,
		p.ID, p.Name, p.TokenHash, p.CreatedAt, p.LastSeen, int64(p.Seed))
	return mapErr(err, "create player "+p.ID)
}

const playerCols = `id, name, token_hash, created_at, last_seen, coalesce(handle, ''), coalesce(handle_key, ''), account_at, seed`

// player finds the player whose column where (a trusted name) is arg.
func (s *Store) player(ctx context.Context, what, where string, arg any) (store.Player, error) {
	var p store.Player
	var accountAt *time.Time
	var seed int64
	err := s.pool.QueryRow(ctx, `SELECT `+playerCols+` FROM players WHERE `+where+` = $1`, arg).
		Scan(&p.ID, &p.Name, &p.TokenHash, &p.CreatedAt, &p.LastSeen, &p.Handle, &p.HandleKey, &accountAt, &seed)
	if err != nil {
		return store.Player{}, mapErr(err, what)
	}
	p.CreatedAt, p.LastSeen, p.AccountAt, p.Seed = p.CreatedAt.UTC(), p.LastSeen.UTC(), fromTS(accountAt), uint64(seed)
	return p, nil
}

// Player finds a player by id.
func (s *Store) Player(ctx context.Context, id string) (store.Player, error) {
	return s.player(ctx, "player "+id, "id", id)
}

// PlayerByToken finds a player by the hash of their token.
func (s *Store) PlayerByToken(ctx context.Context, tokenHash []byte) (store.Player, error) {
	return s.player(ctx, "player by token", "token_hash", tokenHash)
}

// TouchPlayer records when the player was last seen.
func (s *Store) TouchPlayer(ctx context.Context, id string, at time.Time) error {
	return s.execOne(ctx, "touch player "+id, `UPDATE players SET last_seen = $1 WHERE id = $2`, at, id)
}

// RenamePlayer changes a player's display name.
func (s *Store) RenamePlayer(ctx context.Context, id, name string) error {
	return s.execOne(ctx, "rename player "+id, `UPDATE players SET name = $1 WHERE id = $2`, name, id)
}
