package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/sudoku-arena/arena/store"
)

// CreateSession stores a session.
func (s *Store) CreateSession(ctx context.Context, ss store.Session) error {
	_, err := s.w.ExecContext(ctx,
		`INSERT INTO sessions (hash, player_id, created_at, expires_at) VALUES (?, ?, ?, ?)`,
		ss.Hash, ss.PlayerID, micros(ss.CreatedAt), micros(ss.ExpiresAt))
	return mapErr(err, "create session of "+ss.PlayerID)
}

// Session finds a session that has not expired by now.
func (s *Store) Session(ctx context.Context, hash []byte, now time.Time) (store.Session, error) {
	ss := store.Session{Hash: hash}
	var created, expires sql.NullInt64
	err := s.r.QueryRowContext(ctx,
		`SELECT player_id, created_at, expires_at FROM sessions WHERE hash = ? AND expires_at > ?`, hash, now.UnixMicro()).
		Scan(&ss.PlayerID, &created, &expires)
	if err != nil {
		return store.Session{}, mapErr(err, "session")
	}
	ss.CreatedAt, ss.ExpiresAt = fromMicros(created), fromMicros(expires)
	return ss, nil
}

// DeleteSession ends a session, if there is one.
func (s *Store) DeleteSession(ctx context.Context, hash []byte) error {
	_, err := s.w.ExecContext(ctx, `DELETE FROM sessions WHERE hash = ?`, hash)
	return mapErr(err, "delete session")
}

// expiringTables are the tables whose rows DeleteExpired deletes.
var expiringTables = []string{"sessions", "signin_codes", "ceremonies"}

// DeleteExpired deletes the sessions, sign-in codes and ceremonies expired
// by now (their expiry is not after it), in one transaction.
func (s *Store) DeleteExpired(ctx context.Context, now time.Time) (int64, error) {
	var total int64
	err := s.inTx(ctx, "delete expired", func(tx *sql.Tx) error {
		for _, table := range expiringTables {
			res, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE expires_at <= ?`, now.UnixMicro())
			if err != nil {
				return fmt.Errorf("%s: %w", table, err)
			}
			n, err := res.RowsAffected()
			if err != nil {
				return fmt.Errorf("%s: %w", table, err)
			}
			total += n
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return total, nil
}

// CreateSignInCode stores a one-time sign-in code.
func (s *Store) CreateSignInCode(ctx context.Context, c store.SignInCode) error {
	_, err := s.w.ExecContext(ctx,
		`INSERT INTO signin_codes (hash, player_id, expires_at) VALUES (?, ?, ?)`, c.Hash, c.PlayerID, micros(c.ExpiresAt))
	return mapErr(err, "create sign-in code of "+c.PlayerID)
}

// take deletes the row of table (sign-in codes or ceremonies) with the
// hash, unless it has expired by now, and scans its column col into dest:
// one statement, its own transaction on the one writer connection, so
// that of callers taking the same row at once one gets it and the others
// ErrNotFound.
func (s *Store) take(ctx context.Context, what, table, col string, hash []byte, now time.Time, dest any) error {
	err := s.w.QueryRowContext(ctx,
		`DELETE FROM `+table+` WHERE hash = ? AND expires_at > ? RETURNING `+col, hash, now.UnixMicro()).Scan(dest)
	return mapErr(err, what)
}

// TakeSignInCode uses a sign-in code up and returns its player.
func (s *Store) TakeSignInCode(ctx context.Context, hash []byte, now time.Time) (string, error) {
	var player string
	err := s.take(ctx, "take sign-in code", "signin_codes", "player_id", hash, now, &player)
	return player, err
}

// UseRecoveryCode uses one of the account's unused recovery codes up.
func (s *Store) UseRecoveryCode(ctx context.Context, playerID string, hash []byte, at time.Time) error {
	return s.execOne(ctx, "use recovery code of "+playerID,
		`UPDATE recovery_codes SET used_at = ? WHERE player_id = ? AND hash = ? AND used_at IS NULL`, micros(at), playerID, hash)
}

// RecoveryCodesLeft counts the account's unused recovery codes.
func (s *Store) RecoveryCodesLeft(ctx context.Context, playerID string) (int, error) {
	var n int
	err := s.r.QueryRowContext(ctx,
		`SELECT count(*) FROM recovery_codes WHERE player_id = ? AND used_at IS NULL`, playerID).Scan(&n)
	return n, mapErr(err, "recovery codes of "+playerID)
}

// PutCeremony stores a ceremony's state, replacing any with its hash.
func (s *Store) PutCeremony(ctx context.Context, c store.Ceremony) error {
	_, err := s.w.ExecContext(ctx,
		`INSERT INTO ceremonies (hash, data, expires_at) VALUES (?, ?, ?)
		 ON CONFLICT (hash) DO UPDATE SET data = excluded.data, expires_at = excluded.expires_at`,
		c.Hash, c.Data, micros(c.ExpiresAt))
	return mapErr(err, "put ceremony")
}

// TakeCeremony returns a ceremony's state and deletes it.
func (s *Store) TakeCeremony(ctx context.Context, hash []byte, now time.Time) ([]byte, error) {
	var data []byte
	err := s.take(ctx, "take ceremony", "ceremonies", "data", hash, now, &data)
	return data, err
}
