package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/sudoku-arena/arena/store"
)

// CreatePlayer stores a new player.
func (s *Store) CreatePlayer(ctx context.Context, p store.Player) error {
	_, err := s.w.ExecContext(ctx,
		`INSERT INTO players (id, name, token_hash, created_at, last_seen, seed) VALUES (?, ?, ?, ?, ?, ?)`,
		p.ID, p.Name, p.TokenHash, micros(p.CreatedAt), micros(p.LastSeen), int64(p.Seed))
	return mapErr(err, "create player "+p.ID)
}

const playerCols = `id, name, token_hash, created_at, last_seen, coalesce(handle, ''), coalesce(handle_key, ''), account_at, seed`

// player finds the player whose column where (a trusted name) is arg.
func (s *Store) player(ctx context.Context, what, where string, arg any) (store.Player, error) {
	var p store.Player
	var created, seen, accountAt sql.NullInt64
	var seed int64
	row := s.r.QueryRowContext(ctx, `SELECT `+playerCols+` FROM players WHERE `+where+` = ?`, arg)
	if err := row.Scan(&p.ID, &p.Name, &p.TokenHash, &created, &seen, &p.Handle, &p.HandleKey, &accountAt, &seed); err != nil {
		return store.Player{}, mapErr(err, what)
	}
	p.CreatedAt, p.LastSeen, p.AccountAt, p.Seed = fromMicros(created), fromMicros(seen), fromMicros(accountAt), uint64(seed)
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
	return s.execOne(ctx, "touch player "+id, `UPDATE players SET last_seen = ? WHERE id = ?`, micros(at), id)
}

// RenamePlayer changes a player's display name.
func (s *Store) RenamePlayer(ctx context.Context, id, name string) error {
	return s.execOne(ctx, "rename player "+id, `UPDATE players SET name = ? WHERE id = ?`, name, id)
}
