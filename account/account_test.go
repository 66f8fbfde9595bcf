package account

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	arena "github.com/sudoku-arena/arena/protocol"
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
