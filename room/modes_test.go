package room

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestModesTable(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range Modes() {
		assert.False(t, seen[m.Name], "mode %q is in the table twice", m.Name)
		seen[m.Name] = true
		r, err := rulesFor(m.Name)
		require.NoError(t, err)
		assert.Equal(t, m.Name, r.mode(), "the rules of row %q name another mode", m.Name)
		got, ok := ModeOf(m.Name)
		require.True(t, ok)
		assert.Equal(t, m.Name, got.Name)
		assert.NotEmpty(t, m.Title)
	}
	assert.Equal(t, map[string]bool{ModeRace: true, ModeCoop: true, ModeDaily: true}, seen)
	_, ok := ModeOf("chess")
	assert.False(t, ok)
	_, err := rulesFor("chess")
	assert.Error(t, err)
}

func TestModeNames(t *testing.T) {
	tests := []struct {
		word string
		keep func(Mode) bool
		want string
	}{
		{"or", nil, `"race", "coop" or "daily"`},
		{"or", func(m Mode) bool { return m.Own }, `"race" or "coop"`},
		{"and", func(m Mode) bool { return m.Date != DateNone }, `"race" and "daily"`},
		{"or", func(m Mode) bool { return m.Date == DateRequired }, `"daily"`},
		{"or", func(Mode) bool { return false }, ``},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ModeNames(tt.word, tt.keep))
	}
}
