package config

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNodeSecretIsNotGuessable: NODE_SECRET is refused at start when it
// is short, docker-compose.yml's old placeholder or another "change me",
// a few characters repeated, one piece repeated, or mostly common words;
// each refusal names the setting, hides the value, says what is wanted
// and how to make a good one. A random value, as openssl writes one,
// loads.
func TestNodeSecretIsNotGuessable(t *testing.T) {
	const pg = "postgres://arena@db/arena"
	tests := []struct {
		secret string
		want   string // "" when it loads
	}{
		{"a82774c0c949ad215581e59e34bb981e4a7af0a8a834920fd80715a098a9b696", ""}, // openssl rand -hex 32
		{"f3Kq9Zr2W8xLm1Pb7TnVc4Ys0HdJ6gQe", ""},                                 // 32 characters of base62
		{"arena-prod-secret-7f3a9c1e2b4d6f8091a2b3c4d5e6f708", ""},               // words beside 32 random characters
		{"7f3a9c1e2b4d6f80", "want at least 32 characters"},
		{"change-me-a-secret-of-the-nodes", "not the placeholder docker-compose.yml once had"},
		{"CHANGE-ME-A-SECRET-OF-THE-NODES", "not the placeholder docker-compose.yml once had"},
		{"please-changeme-7f3a9c1e2b4d6f8091a2b3c4d5e6f708", "not a placeholder that says to change it"},
		{"Change Me 7f3a9c1e2b4d6f8091a2b3c4d5e6f708aabbccdd", "not a placeholder that says to change it"},
		{strings.Repeat("x", 64), "want at least 8 different characters"},
		{strings.Repeat("ab", 20), "want at least 8 different characters"},
		{strings.Repeat("0123456789abcdef", 2), "not one piece repeated"},
		{strings.Repeat("correct-horse-", 3) + "co", "not one piece repeated"},
		{"my-secret-password-of-all-the-nodes", "besides common words such as secret and password"},
		{"SecretPasswordExampleDefault1234567", "besides common words such as secret and password"},
	}
	for _, tt := range tests {
		c, err := Load(envOf(map[string]string{"DATABASE_URL": pg, "NODE_ADDR": "http://10.0.0.5:8080", "NODE_SECRET": tt.secret}))
		if tt.want == "" {
			require.NoError(t, err, tt.secret)
			assert.Equal(t, tt.secret, c.Node.Secret)
			continue
		}
		require.Error(t, err, tt.secret)
		msg := err.Error()
		assert.Contains(t, msg, tt.want, tt.secret)
		assert.Regexp(t, "^configuration: "+regexp.QuoteMeta(fmt.Sprintf(`NODE_SECRET="(%d characters, not shown)": want `, len(tt.secret))), msg)
		assert.Contains(t, msg, "make one with `openssl rand -hex 32`", tt.secret)
		assert.NotContains(t, msg, tt.secret, "the secret is not repeated")
	}

	_, err := Load(envOf(map[string]string{"DATABASE_URL": pg, "NODE_ADDR": "http://10.0.0.5:8080"}))
	assert.ErrorContains(t, err, "NODE_SECRET: several nodes need the secret they share for relays: make one with `openssl rand -hex 32`")
}

func TestRepeated(t *testing.T) {
	for v, want := range map[string]bool{
		"abab": true, "abcabcab": true, "aa": true, "abcdabce": false, "a": false, "abcab": false, "": false,
	} {
		assert.Equal(t, want, repeated(v), v)
	}
}
