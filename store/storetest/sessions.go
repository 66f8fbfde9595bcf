package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/store"
)

func testSessions(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "a")
	mkAccount(t, s, "a")
	ss := store.Session{Hash: []byte("s1"), PlayerID: "a", CreatedAt: t0.Add(time.Microsecond), ExpiresAt: t0.Add(24 * time.Hour)}
	require.NoError(t, s.CreateSession(ctx, ss))
	assert.ErrorIs(t, s.CreateSession(ctx, ss), store.ErrConflict)
	assert.ErrorIs(t, s.CreateSession(ctx, store.Session{Hash: []byte("s2"), PlayerID: "ghost", CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}),
		store.ErrInvalid)

	got, err := s.Session(ctx, []byte("s1"), t0)
	require.NoError(t, err)
	assert.Equal(t, []byte("s1"), got.Hash)
	assert.Equal(t, "a", got.PlayerID)
	assert.True(t, ss.CreatedAt.Equal(got.CreatedAt))
	assert.True(t, ss.ExpiresAt.Equal(got.ExpiresAt))
	_, err = s.Session(ctx, []byte("s1"), t0.Add(24*time.Hour-time.Microsecond))
	require.NoError(t, err, "valid until its expiry")
	_, err = s.Session(ctx, []byte("s1"), t0.Add(24*time.Hour))
	assert.ErrorIs(t, err, store.ErrNotFound, "expired at its expiry")
	_, err = s.Session(ctx, []byte("nope"), t0)
	assert.ErrorIs(t, err, store.ErrNotFound)

	require.NoError(t, s.DeleteSession(ctx, []byte("s1")))
	_, err = s.Session(ctx, []byte("s1"), t0)
	assert.ErrorIs(t, err, store.ErrNotFound)
	require.NoError(t, s.DeleteSession(ctx, []byte("s1")), "ending an ended session is not an error")
	require.NoError(t, s.DeleteSession(ctx, []byte("never")))
}

func testDeleteExpired(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "a")
	mkAccount(t, s, "a")
	for i, exp := range []time.Duration{time.Hour, 3 * time.Hour} {
		h := []byte{'s', byte('0' + i)}
		require.NoError(t, s.CreateSession(ctx, store.Session{Hash: h, PlayerID: "a", CreatedAt: t0, ExpiresAt: t0.Add(exp)}))
	}
	for i, exp := range []time.Duration{time.Hour, 2 * time.Hour, 4 * time.Hour} {
		h := []byte{'c', byte('0' + i)}
		require.NoError(t, s.CreateSignInCode(ctx, store.SignInCode{Hash: h, PlayerID: "a", ExpiresAt: t0.Add(exp)}))
	}
	for i, exp := range []time.Duration{30 * time.Minute, 5 * time.Hour} {
		h := []byte{'w', byte('0' + i)}
		require.NoError(t, s.PutCeremony(ctx, store.Ceremony{Hash: h, Data: []byte("state"), ExpiresAt: t0.Add(exp)}))
	}
	n, err := s.DeleteExpired(ctx, t0)
	require.NoError(t, err)
	assert.Zero(t, n)
	n, err = s.DeleteExpired(ctx, t0.Add(2*time.Hour))
	require.NoError(t, err)
	assert.Equal(t, int64(4), n, "a session, two codes (one expiring now) and a ceremony")
	n, err = s.DeleteExpired(ctx, t0.Add(2*time.Hour))
	require.NoError(t, err)
	assert.Zero(t, n, "gone already")

	// The rest are still there (looked up as of t0, before any expiry).
	_, err = s.Session(ctx, []byte("s0"), t0)
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.Session(ctx, []byte("s1"), t0)
	require.NoError(t, err)
	_, err = s.TakeSignInCode(ctx, []byte("c1"), t0)
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.TakeSignInCode(ctx, []byte("c2"), t0)
	require.NoError(t, err)
	_, err = s.TakeCeremony(ctx, []byte("w0"), t0)
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.TakeCeremony(ctx, []byte("w1"), t0)
	require.NoError(t, err)
	left, err := s.RecoveryCodesLeft(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, 3, left, "recovery codes do not expire")
}

func testSignInCodes(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "a")
	mkAccount(t, s, "a")
	code := store.SignInCode{Hash: []byte("code-1"), PlayerID: "a", ExpiresAt: t0.Add(10 * time.Minute)}
	require.NoError(t, s.CreateSignInCode(ctx, code))
	assert.ErrorIs(t, s.CreateSignInCode(ctx, code), store.ErrConflict)
	assert.ErrorIs(t, s.CreateSignInCode(ctx, store.SignInCode{Hash: []byte("x"), PlayerID: "ghost", ExpiresAt: t0}), store.ErrInvalid)
	player, err := s.TakeSignInCode(ctx, []byte("code-1"), t0)
	require.NoError(t, err)
	assert.Equal(t, "a", player)
	_, err = s.TakeSignInCode(ctx, []byte("code-1"), t0)
	assert.ErrorIs(t, err, store.ErrNotFound, "taken once")

	require.NoError(t, s.CreateSignInCode(ctx, store.SignInCode{Hash: []byte("code-2"), PlayerID: "a", ExpiresAt: t0.Add(10 * time.Minute)}))
	_, err = s.TakeSignInCode(ctx, []byte("code-2"), t0.Add(10*time.Minute))
	assert.ErrorIs(t, err, store.ErrNotFound, "expired at its expiry")
	_, err = s.TakeSignInCode(ctx, []byte("nope"), t0)
	assert.ErrorIs(t, err, store.ErrNotFound)

	require.NoError(t, s.CreateSignInCode(ctx, store.SignInCode{Hash: []byte("code-3"), PlayerID: "a", ExpiresAt: t0.Add(time.Minute)}))
	ok := racers(t, 16, store.ErrNotFound, func(int) error {
		p, err := s.TakeSignInCode(ctx, []byte("code-3"), t0)
		if err == nil {
			assert.Equal(t, "a", p)
		}
		return err
	})
	assert.Equal(t, 1, ok, "one of the callers at once takes the code")
}

func testRecoveryCodes(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "a")
	mkPlayer(t, s, "b")
	codes := hashes("r", 4)
	require.NoError(t, s.CreateAccount(ctx, "a", "A", "a", t0, codes))
	require.NoError(t, s.CreateAccount(ctx, "b", "B", "b", t0, [][]byte{codes[0], []byte("b-only")}))
	left, err := s.RecoveryCodesLeft(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, 4, left)

	require.NoError(t, s.UseRecoveryCode(ctx, "a", codes[0], t0))
	assert.ErrorIs(t, s.UseRecoveryCode(ctx, "a", codes[0], t0), store.ErrNotFound, "used once")
	left, err = s.RecoveryCodesLeft(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, 3, left)
	assert.ErrorIs(t, s.UseRecoveryCode(ctx, "a", []byte("b-only"), t0), store.ErrNotFound, "another account's code")
	assert.ErrorIs(t, s.UseRecoveryCode(ctx, "a", []byte("nope"), t0), store.ErrNotFound)
	require.NoError(t, s.UseRecoveryCode(ctx, "b", codes[0], t0), "b's code of the same hash is b's own")
	left, err = s.RecoveryCodesLeft(ctx, "b")
	require.NoError(t, err)
	assert.Equal(t, 1, left)

	ok := racers(t, 16, store.ErrNotFound, func(int) error { return s.UseRecoveryCode(ctx, "a", codes[1], t0) })
	assert.Equal(t, 1, ok, "one of the callers at once uses the code")
	left, err = s.RecoveryCodesLeft(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, 2, left)
	left, err = s.RecoveryCodesLeft(ctx, "nobody")
	require.NoError(t, err)
	assert.Zero(t, left)
}

func testCeremonies(t *testing.T, s store.Store) {
	ctx := context.Background()
	require.NoError(t, s.PutCeremony(ctx, store.Ceremony{Hash: []byte("w1"), Data: []byte("state-1"), ExpiresAt: t0.Add(5 * time.Minute)}))
	require.NoError(t, s.PutCeremony(ctx, store.Ceremony{Hash: []byte("w1"), Data: []byte("state-1b"), ExpiresAt: t0.Add(5 * time.Minute)}),
		"a put replaces")
	data, err := s.TakeCeremony(ctx, []byte("w1"), t0)
	require.NoError(t, err)
	assert.Equal(t, []byte("state-1b"), data)
	_, err = s.TakeCeremony(ctx, []byte("w1"), t0)
	assert.ErrorIs(t, err, store.ErrNotFound, "taken once")

	require.NoError(t, s.PutCeremony(ctx, store.Ceremony{Hash: []byte("w2"), Data: []byte("state-2"), ExpiresAt: t0.Add(5 * time.Minute)}))
	_, err = s.TakeCeremony(ctx, []byte("w2"), t0.Add(5*time.Minute))
	assert.ErrorIs(t, err, store.ErrNotFound, "expired at its expiry")
	_, err = s.TakeCeremony(ctx, []byte("nope"), t0)
	assert.ErrorIs(t, err, store.ErrNotFound)

	require.NoError(t, s.PutCeremony(ctx, store.Ceremony{Hash: []byte("w3"), Data: []byte("state-3"), ExpiresAt: t0.Add(time.Minute)}))
	ok := racers(t, 16, store.ErrNotFound, func(int) error {
		data, err := s.TakeCeremony(ctx, []byte("w3"), t0)
		if err == nil {
			assert.Equal(t, []byte("state-3"), data)
		}
		return err
	})
	assert.Equal(t, 1, ok, "one of the callers at once takes the ceremony")
}
