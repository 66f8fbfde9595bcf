package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
)

// hashes are n distinct fake secret hashes named after prefix.
func hashes(prefix string, n int) [][]byte {
	var out [][]byte
	for i := range n {
		out = append(out, []byte(fmt.Sprintf("%s-%d", prefix, i)))
	}
	return out
}

// mkAccount makes the player id an account whose handle and key are its
// id, with three recovery codes (hashes(id, 3)).
func mkAccount(t *testing.T, s store.Store, id string) {
	t.Helper()
	require.NoError(t, s.CreateAccount(context.Background(), id, id, id, t0, hashes(id, 3)))
}

// racers runs fn from n goroutines at once and returns how many succeeded;
// every failure must be want.
func racers(t *testing.T, n int, want error, fn func(i int) error) int {
	t.Helper()
	errs := make(chan error, n)
	start := make(chan struct{})
	for i := range n {
		go func() {
			<-start
			errs <- fn(i)
		}()
	}
	close(start)
	ok := 0
	for range n {
		if err := <-errs; err == nil {
			ok++
		} else {
			assert.ErrorIs(t, err, want)
		}
	}
	return ok
}

// testAccountSettings: an account's settings are nil until saved, come
// back as saved, are replaced by the next save, go with the account when
// it is deleted; a guest or an unknown player has none to read or save.
func testAccountSettings(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "a")
	mkPlayer(t, s, "g")
	mkAccount(t, s, "a")

	got, err := s.AccountSettings(ctx, "a")
	require.NoError(t, err)
	assert.Nil(t, got, "none saved yet")
	first := []byte(`{"same":false,"palette":"safe","note":"Zoë"}`)
	require.NoError(t, s.PutAccountSettings(ctx, "a", first))
	got, err = s.AccountSettings(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, string(first), string(got), "kept byte for byte")
	require.NoError(t, s.PutAccountSettings(ctx, "a", []byte(`{"left":true}`)))
	got, err = s.AccountSettings(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, `{"left":true}`, string(got), "the last save wins")

	for _, id := range []string{"g", "nobody"} {
		_, err = s.AccountSettings(ctx, id)
		assert.ErrorIs(t, err, store.ErrNotFound, "%s has no account", id)
		assert.ErrorIs(t, s.PutAccountSettings(ctx, id, first), store.ErrNotFound, "%s has no account", id)
	}

	require.NoError(t, s.DeleteAccount(ctx, "a", "Deleted player", []byte("new-hash")))
	_, err = s.AccountSettings(ctx, "a")
	assert.ErrorIs(t, err, store.ErrNotFound, "a deleted account has no settings")
	mkAccount(t, s, "a")
	got, err = s.AccountSettings(ctx, "a")
	require.NoError(t, err)
	assert.Nil(t, got, "an account made again starts without the old settings")
}

func testAccounts(t *testing.T, s store.Store) {
	ctx := context.Background()
	for _, id := range []string{"a", "b", "c"} {
		mkPlayer(t, s, id)
	}
	at := t0.Add(time.Hour + 7*time.Microsecond)
	require.NoError(t, s.CreateAccount(ctx, "a", "Zoë", "zoe", at, hashes("a", 3)))
	got, err := s.Player(ctx, "a")
	require.NoError(t, err)
	assert.True(t, got.Account())
	assert.Equal(t, "Zoë", got.Handle)
	assert.Equal(t, "zoe", got.HandleKey)
	assert.True(t, at.Equal(got.AccountAt), "account at %v", got.AccountAt)
	assert.Equal(t, "Player a", got.Name, "the name is the player's own")
	assert.Equal(t, seedOf("a"), got.Seed)
	byHandle, err := s.PlayerByHandle(ctx, "zoe")
	require.NoError(t, err)
	assert.Equal(t, got, byHandle)
	byToken, err := s.PlayerByToken(ctx, []byte("hash-a"))
	require.NoError(t, err)
	assert.Equal(t, got, byToken)
	_, err = s.PlayerByHandle(ctx, "Zoë")
	assert.ErrorIs(t, err, store.ErrNotFound, "found by the key, not the handle")
	_, err = s.PlayerByHandle(ctx, "")
	assert.ErrorIs(t, err, store.ErrNotFound, "guests have no key")
	left, err := s.RecoveryCodesLeft(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, 3, left)

	// Another player with the same key: refused, and nothing of it stored.
	assert.ErrorIs(t, s.CreateAccount(ctx, "b", "ZOE", "zoe", at, hashes("b", 2)), store.ErrConflict)
	b, err := s.Player(ctx, "b")
	require.NoError(t, err)
	assert.False(t, b.Account())
	assert.Empty(t, b.Handle)
	left, err = s.RecoveryCodesLeft(ctx, "b")
	require.NoError(t, err)
	assert.Zero(t, left)
	// The same player twice: refused, and the first account stays.
	assert.ErrorIs(t, s.CreateAccount(ctx, "a", "Other", "other", at, hashes("other", 2)), store.ErrConflict)
	got, err = s.Player(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, "zoe", got.HandleKey)
	left, err = s.RecoveryCodesLeft(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, 3, left)
	_, err = s.PlayerByHandle(ctx, "other")
	assert.ErrorIs(t, err, store.ErrNotFound)
	assert.ErrorIs(t, s.CreateAccount(ctx, "ghost", "Ghost", "ghost", at, nil), store.ErrNotFound)
	assert.ErrorIs(t, s.CreateAccount(ctx, "c", "", "", at, nil), store.ErrInvalid, "an account has a key")

	// Guests' missing keys do not collide; b takes a key of its own.
	require.NoError(t, s.CreateAccount(ctx, "b", "Bob", "bob", at, nil))
	c, err := s.Player(ctx, "c")
	require.NoError(t, err)
	assert.False(t, c.Account())
	left, err = s.RecoveryCodesLeft(ctx, "b")
	require.NoError(t, err)
	assert.Zero(t, left)
}

func testHandleRace(t *testing.T, s store.Store) {
	ctx := context.Background()
	const n = 8
	for i := range n {
		mkPlayer(t, s, fmt.Sprintf("p%d", i))
	}
	ok := racers(t, n, store.ErrConflict, func(i int) error {
		return s.CreateAccount(ctx, fmt.Sprintf("p%d", i), "Same", "same", t0, hashes(fmt.Sprintf("p%d", i), 2))
	})
	assert.Equal(t, 1, ok, "one account takes the key")
	p, err := s.PlayerByHandle(ctx, "same")
	require.NoError(t, err)
	left, err := s.RecoveryCodesLeft(ctx, p.ID)
	require.NoError(t, err)
	assert.Equal(t, 2, left)
}

func testDeleteAccount(t *testing.T, s store.Store) {
	ctx := context.Background()
	day := "2026-11-21"
	mkPlayer(t, s, "a")
	mkPlayer(t, s, "b")
	mkPlayer(t, s, "c")
	mkAccount(t, s, "a")
	mkAccount(t, s, "b")
	pz := mkPuzzle(t, s, 21, "easy")
	mkRoom(t, s, "daily", room.ModeDaily, pz.ID, "a")
	mkResult(t, s, "daily", "a", pz, day, 900, t0, time.Minute)
	mkRoom(t, s, "race", room.ModeRace, pz.ID, "a")
	require.NoError(t, s.SaveResults(ctx, []store.Result{{RoomID: "race", PlayerID: "a", PuzzleID: pz.ID, Mode: room.ModeRace,
		Level: "easy", Elapsed: 50 * time.Second, FinishedAt: t0, AllTime: true}}))
	_, err := s.StartAttempt(ctx, store.Attempt{PlayerID: "a", Day: day, Level: "easy", StartedAt: t0})
	require.NoError(t, err)
	cred := store.Credential{ID: []byte("cred-a"), PlayerID: "a", Data: []byte("key"), CreatedAt: t0}
	require.NoError(t, s.AddCredential(ctx, cred))
	require.NoError(t, s.AddCredential(ctx, store.Credential{ID: []byte("cred-b"), PlayerID: "b", Data: []byte("key"), CreatedAt: t0}))
	for _, p := range []string{"a", "b"} {
		require.NoError(t, s.CreateSession(ctx, store.Session{Hash: []byte("session-" + p), PlayerID: p, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}))
		require.NoError(t, s.CreateSignInCode(ctx, store.SignInCode{Hash: []byte("code-" + p), PlayerID: p, ExpiresAt: t0.Add(time.Hour)}))
	}
	top, err := s.DailyTop(ctx, day, "easy", 10)
	require.NoError(t, err)
	require.Len(t, top, 1)
	assert.Equal(t, "Player a", top[0].Name)
	assert.False(t, top[0].Guest)

	require.NoError(t, s.DeleteAccount(ctx, "a", "Anonymous 7", []byte("new-token")))
	p, err := s.Player(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, "Anonymous 7", p.Name)
	assert.False(t, p.Account())
	assert.Empty(t, p.Handle)
	assert.Empty(t, p.HandleKey)
	assert.True(t, p.AccountAt.IsZero())
	assert.Equal(t, []byte("new-token"), p.TokenHash)
	assert.Equal(t, seedOf("a"), p.Seed, "the seed stays")
	_, err = s.PlayerByHandle(ctx, "a")
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.PlayerByToken(ctx, []byte("hash-a"))
	assert.ErrorIs(t, err, store.ErrNotFound, "the old token no longer signs in")
	byToken, err := s.PlayerByToken(ctx, []byte("new-token"))
	require.NoError(t, err)
	assert.Equal(t, "a", byToken.ID)

	creds, err := s.Credentials(ctx, "a")
	require.NoError(t, err)
	assert.Empty(t, creds)
	_, err = s.Credential(ctx, cred.ID)
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.Session(ctx, []byte("session-a"), t0)
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.TakeSignInCode(ctx, []byte("code-a"), t0)
	assert.ErrorIs(t, err, store.ErrNotFound)
	left, err := s.RecoveryCodesLeft(ctx, "a")
	require.NoError(t, err)
	assert.Zero(t, left)
	assert.ErrorIs(t, s.UseRecoveryCode(ctx, "a", hashes("a", 1)[0], t0), store.ErrNotFound)

	// Another account's are untouched.
	ss, err := s.Session(ctx, []byte("session-b"), t0)
	require.NoError(t, err)
	assert.Equal(t, "b", ss.PlayerID)
	creds, err = s.Credentials(ctx, "b")
	require.NoError(t, err)
	assert.Len(t, creds, 1)
	left, err = s.RecoveryCodesLeft(ctx, "b")
	require.NoError(t, err)
	assert.Equal(t, 3, left)

	// The results and the attempt stay, the boards show the new name.
	hist, err := s.PlayerHistory(ctx, "a", 0)
	require.NoError(t, err)
	assert.Len(t, hist, 2)
	_, err = s.Attempt(ctx, "a", day, "easy")
	require.NoError(t, err)
	top, err = s.DailyTop(ctx, day, "easy", 10)
	require.NoError(t, err)
	require.Len(t, top, 1)
	assert.Equal(t, "Anonymous 7", top[0].Name)
	assert.True(t, top[0].Guest)
	best, err := s.BestTimes(ctx, "easy", 10)
	require.NoError(t, err)
	require.Len(t, best, 1)
	assert.Equal(t, "Anonymous 7", best[0].Name)
	around, err := s.DailyAround(ctx, day, "easy", "a", 2)
	require.NoError(t, err)
	require.Len(t, around, 1)
	assert.Equal(t, "Anonymous 7", around[0].Name)

	// The key is free again; an account no longer, and no player, is not found.
	require.NoError(t, s.CreateAccount(ctx, "c", "A", "a", t0, nil))
	assert.ErrorIs(t, s.DeleteAccount(ctx, "a", "x", []byte("t2")), store.ErrNotFound)
	assert.ErrorIs(t, s.DeleteAccount(ctx, "ghost", "x", []byte("t3")), store.ErrNotFound)
	p, err = s.Player(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, "Anonymous 7", p.Name, "a refused delete changes nothing")
}

func testCredentials(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "a")
	mkPlayer(t, s, "b")
	mkAccount(t, s, "a")
	mkAccount(t, s, "b")
	newer := store.Credential{ID: []byte{1, 2, 3}, PlayerID: "a", Data: []byte("key-1"), CreatedAt: t0.Add(2 * time.Minute)}
	older := store.Credential{ID: []byte{4, 5}, PlayerID: "a", Data: []byte("key-2"), CreatedAt: t0.Add(time.Minute),
		LastUsed: t0.Add(90 * time.Second)}
	for _, c := range []store.Credential{newer, older, {ID: []byte{9}, PlayerID: "b", Data: []byte("key-b"), CreatedAt: t0}} {
		require.NoError(t, s.AddCredential(ctx, c))
	}
	assert.ErrorIs(t, s.AddCredential(ctx, store.Credential{ID: []byte{1, 2, 3}, PlayerID: "b", Data: []byte("x"), CreatedAt: t0}),
		store.ErrConflict, "a passkey's ID is stored once")
	assert.ErrorIs(t, s.AddCredential(ctx, store.Credential{ID: []byte{7}, PlayerID: "ghost", Data: []byte("x"), CreatedAt: t0}),
		store.ErrInvalid)

	got, err := s.Credential(ctx, newer.ID)
	require.NoError(t, err)
	assert.Equal(t, newer.ID, got.ID)
	assert.Equal(t, "a", got.PlayerID)
	assert.Equal(t, []byte("key-1"), got.Data)
	assert.True(t, newer.CreatedAt.Equal(got.CreatedAt))
	assert.True(t, got.LastUsed.IsZero(), "never used")
	list, err := s.Credentials(ctx, "a")
	require.NoError(t, err)
	require.Len(t, list, 2)
	assert.Equal(t, older.ID, list[0].ID, "oldest first")
	assert.Equal(t, newer.ID, list[1].ID)
	assert.True(t, older.LastUsed.Equal(list[0].LastUsed))

	used := t0.Add(time.Hour + 3*time.Microsecond)
	require.NoError(t, s.UpdateCredential(ctx, newer.ID, []byte("key-1, counter 2"), used))
	got, err = s.Credential(ctx, newer.ID)
	require.NoError(t, err)
	assert.Equal(t, []byte("key-1, counter 2"), got.Data)
	assert.True(t, used.Equal(got.LastUsed), "last used %v", got.LastUsed)
	assert.True(t, newer.CreatedAt.Equal(got.CreatedAt), "created stays")
	other, err := s.Credential(ctx, older.ID)
	require.NoError(t, err)
	assert.Equal(t, []byte("key-2"), other.Data, "other passkeys untouched")

	assert.ErrorIs(t, s.UpdateCredential(ctx, []byte{42}, []byte("x"), used), store.ErrNotFound)
	_, err = s.Credential(ctx, []byte{42})
	assert.ErrorIs(t, err, store.ErrNotFound)
	list, err = s.Credentials(ctx, "nobody")
	require.NoError(t, err)
	assert.Empty(t, list)
}
