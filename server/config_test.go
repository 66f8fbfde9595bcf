package server_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/server"
)

func envOf(m map[string]string) func(string) string {
	return func(name string) string { return m[name] }
}

func TestConfigDefaults(t *testing.T) {
	c, err := server.ConfigFromEnv(envOf(nil))
	require.NoError(t, err)
	assert.Equal(t, ":8080", c.ListenAddr)
	assert.Equal(t, int64(4096), c.ReadLimit)
	assert.Equal(t, 20.0, c.RateLimit)
	assert.Equal(t, 40, c.RateBurst)
	assert.Equal(t, 256, c.SendQueue)
	assert.Equal(t, "text", c.LogFormat)
}

func TestConfigFromEnvironment(t *testing.T) {
	c, err := server.ConfigFromEnv(envOf(map[string]string{
		"LISTEN_ADDR": "127.0.0.1:9000", "PUBLIC_URL": "https://sudoku.example/", "ALLOWED_ORIGINS": "a.example, *.b.example",
		"RECONNECT_WINDOW": "2m", "HINT_PENALTY": "30s", "MAX_PLAYERS": "4", "RATE_LIMIT": "5", "LOG_FORMAT": "json",
	}))
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:9000", c.ListenAddr)
	assert.Equal(t, "https://sudoku.example", c.PublicURL)
	assert.Equal(t, []string{"a.example", "*.b.example"}, c.AllowedOrigins)
	assert.Equal(t, 2*time.Minute, c.Rooms.Game.ReconnectWindow)
	assert.Equal(t, 30*time.Second, c.Rooms.Game.HintPenalty)
	assert.Equal(t, 4, c.Rooms.Game.MaxPlayers)
	assert.Equal(t, 5.0, c.RateLimit)
	assert.Equal(t, "json", c.LogFormat)
}

func TestConfigErrorsNameTheVariable(t *testing.T) {
	for name, value := range map[string]string{
		"LISTEN_ADDR":      "8080",
		"PUBLIC_URL":       "sudoku.example",
		"LOG_FORMAT":       "xml",
		"COUNTDOWN":        "soon",
		"HINT_PENALTY":     "-5s",
		"RECONNECT_WINDOW": "0s",
		"IDLE_TIMEOUT":     "10",
		"MAX_PLAYERS":      "0",
		"MAX_SPECTATORS":   "many",
		"RATE_LIMIT":       "1.5",
		"RATE_BURST":       "-1",
		"SEND_QUEUE":       "0",
		"POOL_STOCK":       "x",
	} {
		_, err := server.ConfigFromEnv(envOf(map[string]string{name: value}))
		if assert.Error(t, err, name) {
			assert.Contains(t, err.Error(), name+"=")
		}
	}
}
