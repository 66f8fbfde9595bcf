package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/sudoku-arena/arena/store"
)

// CreateAccount turns a guest into an account and stores its recovery
// codes, in one transaction.
func (s *Store) CreateAccount(ctx context.Context, playerID, handle, handleKey string, at time.Time, recovery [][]byte) error {
	what := "create account " + playerID
	if handleKey == "" {
		return fmt.Errorf("sqlite: %s: %w: an empty handle key", what, store.ErrInvalid)
	}
	return s.inTx(ctx, what, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx,
			`UPDATE players SET handle = ?, handle_key = ?, account_at = ? WHERE id = ? AND handle_key IS NULL`,
			handle, handleKey, micros(at), playerID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return notGuest(ctx, tx, playerID)
		}
		for _, h := range recovery {
			if _, err := tx.ExecContext(ctx, `INSERT INTO recovery_codes (player_id, hash) VALUES (?, ?)`, playerID, h); err != nil {
				return fmt.Errorf("recovery code: %w", err)
			}
		}
		return nil
	})
}

// notGuest says why a player could not become an account: there is no
// such player (ErrNotFound), or they are one already (ErrConflict).
func notGuest(ctx context.Context, tx *sql.Tx, playerID string) error {
	var exists bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM players WHERE id = ?)`, playerID).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return fmt.Errorf("%w: the player is an account already", store.ErrConflict)
	}
	return sql.ErrNoRows // ErrNotFound, by mapErr
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
	return s.inTx(ctx, "delete account "+playerID, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx,
			`UPDATE players SET name = ?, token_hash = ?, handle = NULL, handle_key = NULL, account_at = NULL, settings = NULL
			 WHERE id = ? AND handle_key IS NOT NULL`, name, tokenHash, playerID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return sql.ErrNoRows // ErrNotFound, by mapErr
		}
		for _, table := range accountTables {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE player_id = ?`, playerID); err != nil {
				return fmt.Errorf("%s: %w", table, err)
			}
		}
		return nil
	})
}

// AccountSettings reads the account's settings.
func (s *Store) AccountSettings(ctx context.Context, playerID string) ([]byte, error) {
	var settings sql.NullString
	err := s.r.QueryRowContext(ctx, `SELECT settings FROM players WHERE id = ? AND handle_key IS NOT NULL`, playerID).Scan(&settings)
	if err != nil {
		return nil, mapErr(err, "settings of "+playerID)
	}
	if !settings.Valid {
		return nil, nil
	}
	return []byte(settings.String), nil
}

// PutAccountSettings stores the account's settings.
func (s *Store) PutAccountSettings(ctx context.Context, playerID string, settings []byte) error {
	return s.execOne(ctx, "put settings of "+playerID,
		`UPDATE players SET settings = ? WHERE id = ? AND handle_key IS NOT NULL`, string(settings), playerID)
}

// AddCredential stores a passkey.
func (s *Store) AddCredential(ctx context.Context, c store.Credential) error {
	_, err := s.w.ExecContext(ctx,
		`INSERT INTO credentials (id, player_id, data, created_at, last_used) VALUES (?, ?, ?, ?, ?)`,
		c.ID, c.PlayerID, c.Data, micros(c.CreatedAt), micros(c.LastUsed))
	return mapErr(err, "add credential of "+c.PlayerID)
}

const credentialCols = `id, player_id, data, created_at, last_used`

func scanCredential(row scanner) (store.Credential, error) {
	var c store.Credential
	var created, used sql.NullInt64
	err := row.Scan(&c.ID, &c.PlayerID, &c.Data, &created, &used)
	c.CreatedAt, c.LastUsed = fromMicros(created), fromMicros(used)
	return c, err
}

// Credential finds a passkey by its ID.
func (s *Store) Credential(ctx context.Context, id []byte) (store.Credential, error) {
	c, err := scanCredential(s.r.QueryRowContext(ctx, `SELECT `+credentialCols+` FROM credentials WHERE id = ?`, id))
	return c, mapErr(err, "credential")
}

// Credentials are the account's passkeys, oldest first.
func (s *Store) Credentials(ctx context.Context, playerID string) ([]store.Credential, error) {
	return queryAll(ctx, s.r, "credentials of "+playerID, scanCredential,
		`SELECT `+credentialCols+` FROM credentials WHERE player_id = ? ORDER BY created_at, id`, playerID)
}

// UpdateCredential stores a passkey's data and when it was used.
func (s *Store) UpdateCredential(ctx context.Context, id, data []byte, usedAt time.Time) error {
	return s.execOne(ctx, "update credential", `UPDATE credentials SET data = ?, last_used = ? WHERE id = ?`, data, micros(usedAt), id)
}
