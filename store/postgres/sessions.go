package postgres

import (
	"context"
	"time"

	"github.com/sudoku-arena/arena/store"
)

// CreateSession stores a session.
func (s *Store) CreateSession(ctx context.Context, ss store.Session) error {
	_, err := s.pool.Exec(ctx,
		`INSERT INTO sessions (hash, player_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
		ss.Hash, ss.PlayerID, ss.CreatedAt, ss.ExpiresAt)
	return mapErr(err, "create session of "+ss.PlayerID)
}

// Session finds a session that has not expired by now.
func (s *Store) Session(ctx context.Context, hash []byte, now time.Time) (store.Session, error) {
	ss := store.Session{Hash: hash}
	err := s.pool.QueryRow(ctx,
		`SELECT player_id, created_at, expires_at FROM sessions WHERE hash = $1 AND expires_at > $2`, hash, now).
		Scan(&ss.PlayerID, &ss.CreatedAt, &ss.ExpiresAt)
	if err != nil {
		return store.Session{}, mapErr(err, "session")
	}
	ss.CreatedAt, ss.ExpiresAt = ss.CreatedAt.UTC(), ss.ExpiresAt.UTC()
	return ss, nil
}

// DeleteSession ends a session, if there is one.
func (s *Store) DeleteSession(ctx context.Context, hash []byte) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE hash = $1`, hash)
	return mapErr(err, "delete session")
}

// DeleteExpired deletes the sessions, sign-in codes and ceremonies expired
// by now (their expiry is not after it), in one statement.
func (s *Store) DeleteExpired(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := s.pool.QueryRow(ctx,
		`WITH s AS (DELETE FROM sessions WHERE expires_at <= $1 RETURNING 1),
		      c AS (DELETE FROM signin_codes WHERE expires_at <= $1 RETURNING 1),
		      w AS (DELETE FROM ceremonies WHERE expires_at <= $1 RETURNING 1)
		 SELECT (SELECT count(*) FROM s) + (SELECT count(*) FROM c) + (SELECT count(*) FROM w)`, now).Scan(&n)
	return n, mapErr(err, "delete expired")
}

// CreateSignInCode stores a one-time sign-in code.
func (s *Store) CreateSignInCode(ctx context.Context, c store.SignInCode) error {
	_, err := s.pool.Exec(ctx,
		`INSERT INTO signin_codes (hash, player_id, expires_at) VALUES ($1, $2, $3)`, c.Hash, c.PlayerID, c.ExpiresAt)
	return mapErr(err, "create sign-in code of "+c.PlayerID)
}

// take deletes the row of table (sign-in codes or ceremonies) with the
// hash, unless it has expired by now, and scans its column col into dest:
// one statement, so that of callers taking the same row at once one gets
// it and the others ErrNotFound.
func (s *Store) take(ctx context.Context, what, table, col string, hash []byte, now time.Time, dest any) error {
	err := s.pool.QueryRow(ctx,
		`DELETE FROM `+table+` WHERE hash = $1 AND expires_at > $2 RETURNING `+col, hash, now).Scan(dest)
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
		`UPDATE recovery_codes SET used_at = $3 WHERE player_id = $1 AND hash = $2 AND used_at IS NULL`, playerID, hash, at)
}

// RecoveryCodesLeft counts the account's unused recovery codes.
func (s *Store) RecoveryCodesLeft(ctx context.Context, playerID string) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx,
		`SELECT count(*) FROM recovery_codes WHERE player_id = $1 AND used_at IS NULL`, playerID).Scan(&n)
	return n, mapErr(err, "recovery codes of "+playerID)
}

// PutCeremony stores a ceremony's state, replacing any with its hash.
func (s *Store) PutCeremony(ctx context.Context, c store.Ceremony) error {
	_, err := s.pool.Exec(ctx,
		`INSERT INTO ceremonies (hash, data, expires_at) VALUES ($1, $2, $3)
		 ON CONFLICT (hash) DO UPDATE SET data = EXCLUDED.data, expires_at = EXCLUDED.expires_at`,
		c.Hash, c.Data, c.ExpiresAt)
	return mapErr(err, "put ceremony")
}

// TakeCeremony returns a ceremony's state and deletes it.
func (s *Store) TakeCeremony(ctx context.Context, hash []byte, now time.Time) ([]byte, error) {
	var data []byte
	err := s.take(ctx, "take ceremony", "ceremonies", "data", hash, now, &data)
	return data, err
}
