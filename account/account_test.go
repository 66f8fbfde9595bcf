package account

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	arena "github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/sqlite"
)

// A code is twelve characters of the alphabet in groups of four, and is
// read back whatever its case, dashes and spaces.
func TestAccountCodeFormat(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(`^[` + codeAlphabet + `]{4}-[` + codeAlphabet + `]{4}-[` + codeAlphabet + `]{4}$`)
	seen := map[string]bool{}
	for range 1000 {
		c := newCode()
		require.Regexp(t, re, c)
		assert.False(t, seen[c], "the code %s came twice", c)
		seen[c] = true
		assert.NotContains(t, c, "I")
		assert.NotContains(t, c, "O")
		assert.Len(t, normalCode(c), codeLen)
	}
	assert.Equal(t, "ABCDEFGHJKLM", normalCode(" abcd-efgh jklm "))
	assert.Len(t, codeAlphabet, 32, "a byte's low five bits pick a letter evenly")
}

// Recovery codes are ten, all different, in small letters, each hashed as
// it is typed back in capitals.
func TestAccountRecoveryCodes(t *testing.T) {
	t.Parallel()
	codes, hashes := recoveryCodes()
	require.Len(t, codes, RecoveryCodes)
	require.Len(t, hashes, RecoveryCodes)
	seen := map[string]bool{}
	for i, c := range codes {
		assert.Equal(t, strings.ToLower(c), c)
		assert.False(t, seen[c])
		seen[c] = true
		assert.Equal(t, hash(normalCode(strings.ToUpper(c))), hashes[i])
	}
}

// The relying party is PUBLIC_URL's host and origin, or localhost on the
// listening port for `make run`.
func TestAccountRelyingParty(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		publicURL, listen string
		id, origin        string
	}{
		{"", ":8080", "localhost", "http://localhost:8080"},
		{"", "127.0.0.1:9000", "localhost", "http://localhost:9000"},
		{"", ":80", "localhost", "http://localhost"},
		{"https://arena.example.com", ":8080", "arena.example.com", "https://arena.example.com"},
		{"https://arena.example.com:8443/base", ":8080", "arena.example.com", "https://arena.example.com:8443"},
	} {
		id, origins := New(Config{PublicURL: tt.publicURL, ListenAddr: tt.listen}, nil).RelyingParty()
		assert.Equal(t, tt.id, id)
		assert.Equal(t, []string{tt.origin}, origins)
	}
	// An IP address is no relying party ID: browsers make no passkeys
	// there, and the passkey routes answer unavailable.
	s := New(Config{PublicURL: "http://10.0.0.5:8080"}, nil)
	id, _ := s.RelyingParty()
	assert.Empty(t, id)
	_, err := s.SignInBegin(t.Context())
	var pe *arena.Error
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, arena.CodeUnavailable, pe.Code)
}

// clock is a Clock moved by hand.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

// Sessions end when they expire, and the sweep deletes them.
func TestAccountSessionExpires(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "arena.db"))
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	clk := &clock{now: time.Now()}
	require.NoError(t, st.CreatePlayer(ctx, store.Player{ID: "p_a", Name: "Ann", TokenHash: hash("t"), CreatedAt: clk.now, LastSeen: clk.now}))
	s := New(Config{Clock: clk}, st)
	ns, err := s.StartSession(ctx, "p_a")
	require.NoError(t, err)
	assert.Equal(t, clk.now.Add(server.SessionLifetime), ns.Expires)
	p, err := s.Session(ctx, ns.Secret)
	require.NoError(t, err)
	assert.Equal(t, server.SessionPlayer{ID: "p_a", Name: "Ann", Guest: true}, p)
	_, err = s.Session(ctx, "another secret")
	assert.ErrorIs(t, err, server.ErrNoSession)

	n, err := s.Sweep(ctx)
	require.NoError(t, err)
	assert.Zero(t, n, "nothing has expired")
	clk.now = clk.now.Add(server.SessionLifetime + time.Second)
	_, err = s.Session(ctx, ns.Secret)
	assert.ErrorIs(t, err, server.ErrNoSession)
	n, err = s.Sweep(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(1), n)
}
