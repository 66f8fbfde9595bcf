package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sudoku-arena/arena/store"
)

// CreateAccount turns a guest into an account and stores its recovery
// codes, in one transaction.
func (s *Store) CreateAccount(ctx context.Context, playerID, handle, handleKey string, at time.Time, recovery [][]byte) error {
	what := "create account " + playerID
	if handleKey == "" {
		return fmt.Errorf("postgres: %s: %w: an empty handle key", what, store.ErrInvalid)
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx,
			`UPDATE players SET handle = $2, handle_key = $3, account_at = $4 WHERE id = $1 AND handle_key IS NULL`,
			playerID, handle, handleKey, at)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return notGuest(ctx, tx, playerID)
		}
		_, err = tx.Exec(ctx, `INSERT INTO recovery_codes (player_id, hash) SELECT $1, unnest($2::bytea[])`, playerID, recovery)
		return err
	})
	return mapErr(err, what)
}

// notGuest says why a player could not become an account: there is no
// such player (ErrNotFound), or they are one already (ErrConflict).
func notGuest(ctx context.Context, tx pgx.Tx, playerID string) error {
	var exists bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM players WHERE id = $1)`, playerID).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return fmt.Errorf("%w: the player is an account already", store.ErrConflict)
	}
	return pgx.ErrNoRows // ErrNotFound, by mapErr
}

// PlayerByHandle finds the account whose handle has the key.
func (s *Store) PlayerByHandle(ctx context.Context, handleKey string) (store.Player, error) {
	return s.player(ctx, "player by handle "+handleKey, "handle_key", handleKey)
}

// accountTables are the tables of an account's sign-ins, which
// DeleteAccount empties of the account's rows.
var accountTables = []string{"credentials", "sessions", "signin_codes", "recovery_codes"}

// DeleteAccount makes the account an anonymous player again, in one
// transaction.
func (s *Store) DeleteAccount(ctx context.Context, playerID, name string, tokenHash []byte) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx,
			`UPDATE players SET name = $2, token_hash = $3, handle = NULL, handle_key = NULL, account_at = NULL, settings = NULL
			 WHERE id = $1 AND handle_key IS NOT NULL`, playerID, name, tokenHash)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return pgx.ErrNoRows // ErrNotFound, by mapErr
		}
		for _, table := range accountTables {
			if _, err := tx.Exec(ctx, `DELETE FROM `+table+` WHERE player_id = $1`, playerID); err != nil {
				return fmt.Errorf("%s: %w", table, err)
			}
		}
		return nil
	})
	return mapErr(err, "delete account "+playerID)
}

// AccountSettings reads the account's settings.
func (s *Store) AccountSettings(ctx context.Context, playerID string) ([]byte, error) {
	var settings *string
	err := s.pool.QueryRow(ctx, `SELECT settings FROM players WHERE id = $1 AND handle_key IS NOT NULL`, playerID).Scan(&settings)
	if err != nil {
		return nil, mapErr(err, "settings of "+playerID)
	}
	if settings == nil {
		return nil, nil
	}
	return []byte(*settings), nil
}

// PutAccountSettings stores the account's settings.
func (s *Store) PutAccountSettings(ctx context.Context, playerID string, settings []byte) error {
	return s.execOne(ctx, "put settings of "+playerID,
		`UPDATE players SET settings = $2 WHERE id = $1 AND handle_key IS NOT NULL`, playerID, string(settings))
}

// AddCredential stores a passkey.
func (s *Store) AddCredential(ctx context.Context, c store.Credential) error {
	_, err := s.pool.Exec(ctx,
		`INSERT INTO credentials (id, player_id, data, created_at, last_used) VALUES ($1, $2, $3, $4, $5)`,
		c.ID, c.PlayerID, c.Data, c.CreatedAt, ts(c.LastUsed))
	return mapErr(err, "add credential of "+c.PlayerID)
}

const credentialCols = `id, player_id, data, created_at, last_used`

func scanCredential(row pgx.Row) (store.Credential, error) {
	var c store.Credential
	var used *time.Time
	err := row.Scan(&c.ID, &c.PlayerID, &c.Data, &c.CreatedAt, &used)
	c.CreatedAt, c.LastUsed = c.CreatedAt.UTC(), fromTS(used)
	return c, err
}

// Credential finds a passkey by its ID.
func (s *Store) Credential(ctx context.Context, id []byte) (store.Credential, error) {
	c, err := scanCredential(s.pool.QueryRow(ctx, `SELECT `+credentialCols+` FROM credentials WHERE id = $1`, id))
	return c, mapErr(err, "credential")
}

// Credentials are the account's passkeys, oldest first.
func (s *Store) Credentials(ctx context.Context, playerID string) ([]store.Credential, error) {
	what := "credentials of " + playerID
	rows, err := s.pool.Query(ctx,
		`SELECT `+credentialCols+` FROM credentials WHERE player_id = $1 ORDER BY created_at, id`, playerID)
	if err != nil {
		return nil, mapErr(err, what)
	}
	cs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Credential, error) { return scanCredential(row) })
	return cs, mapErr(err, what)
}

// UpdateCredential stores a passkey's data and when it was used.
func (s *Store) UpdateCredential(ctx context.Context, id, data []byte, usedAt time.Time) error {
	return s.execOne(ctx, "update credential", `UPDATE credentials SET data = $2, last_used = $3 WHERE id = $1`, id, data, ts(usedAt))
}
