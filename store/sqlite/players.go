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
		`INSERT INTO players (id, name, token_hash, created_at, last_seen) VALUES (?, ?, ?, ?, ?)`,
		p.ID, p.Name, p.TokenHash, micros(p.CreatedAt), micros(p.LastSeen))
	return mapErr(err, "create player "+p.ID)
}

const playerCols = `id, name, token_hash, created_at, last_seen`

func scanPlayer(row *sql.Row, what string) (store.Player, error) {
	var p store.Player
	var created, seen sql.NullInt64
	if err := row.Scan(&p.ID, &p.Name, &p.TokenHash, &created, &seen); err != nil {
		return store.Player{}, mapErr(err, what)
	}
	p.CreatedAt, p.LastSeen = fromMicros(created), fromMicros(seen)
	return p, nil
}

// Player finds a player by id.
func (s *Store) Player(ctx context.Context, id string) (store.Player, error) {
	return scanPlayer(s.r.QueryRowContext(ctx, `SELECT `+playerCols+` FROM players WHERE id = ?`, id), "player "+id)
}

// PlayerByToken finds a player by the hash of their token.
func (s *Store) PlayerByToken(ctx context.Context, tokenHash []byte) (store.Player, error) {
	return scanPlayer(s.r.QueryRowContext(ctx, `SELECT `+playerCols+` FROM players WHERE token_hash = ?`, tokenHash), "player by token")
}

// TouchPlayer records when the player was last seen.
func (s *Store) TouchPlayer(ctx context.Context, id string, at time.Time) error {
	return s.execOne(ctx, "touch player "+id, `UPDATE players SET last_seen = ? WHERE id = ?`, micros(at), id)
}

// RenamePlayer changes a player's display name.
func (s *Store) RenamePlayer(ctx context.Context, id, name string) error {
	return s.execOne(ctx, "rename player "+id, `UPDATE players SET name = ? WHERE id = ?`, name, id)
}
