package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMisspelled(t *testing.T) {
	tests := []struct {
		name string
		want string // "" when it is not warned about
	}{
		{"LISTN_ADDR", "LISTEN_ADDR"},
		{"MAX_PLAYER", "MAX_PLAYERS"},
		{"MAX_PALYERS", "MAX_PLAYERS"},
		{"DATABASE_UR", "DATABASE_URL"},
		{"DATBASE_URL", "DATABASE_URL"},
		{"LISTENADDR", "LISTEN_ADDR"},
		{"DATABASE_WAITS", "DATABASE_WAIT"},
		{"NODE_IDS", "NODE_ID"},
		{"MAX_SPECTATOR", "MAX_SPECTATORS"},
		{"LISTEN_ADDR", ""}, // a setting
		{"MAX_PLAYERS", ""},
		{"PATH", ""},
		{"HOME", ""},
		{"USER", ""},
		{"HOSTNAME", ""},
		{"NODE_ENV", ""},
		{"NODE_PATH", ""},
		{"GOPATH", ""},
		{"max_player", ""},  // not written as a setting
		{"Listen_Addr", ""}, // nor this
		{"PLAYER_RATES", "PLAYER_RATE"},
		{"NODE_XY", ""}, // 2 from NODE_ID, which is short
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Misspelled([]string{"PATH=/usr/bin", tt.name + "=x", "HOME=/root"})
			if tt.want == "" {
				assert.Empty(t, got)
				return
			}
			assert.Equal(t, []string{tt.name + " is not a setting; did you mean " + tt.want + "?"}, got)
		})
	}
}

func TestMisspelledListsEachOnceInOrder(t *testing.T) {
	got := Misspelled([]string{"MAX_PLAYER=4", "LISTN_ADDR=:1", "MAX_PLAYER=5", "TERM=xterm", "LISTEN_ADDR=:8080"})
	assert.Equal(t, []string{
		"LISTN_ADDR is not a setting; did you mean LISTEN_ADDR?",
		"MAX_PLAYER is not a setting; did you mean MAX_PLAYERS?",
	}, got)
}

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"A", "", 1}, {"ABC", "ABC", 0}, {"ABC", "ACB", 1}, {"ABC", "AXC", 1},
		{"LISTN_ADDR", "LISTEN_ADDR", 1}, {"PATH", "HOME", 4}, {"KITTEN", "SITTING", 3},
	} {
		assert.Equal(t, tt.d, editDistance(tt.a, tt.b), "%s %s", tt.a, tt.b)
		assert.Equal(t, tt.d, editDistance(tt.b, tt.a), "%s %s", tt.b, tt.a)
	}
}
