package server

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestHostKey(t *testing.T) {
	for _, tt := range []struct{ host, scheme, want string }{
		{"sudoku.example", "https", "sudoku.example"},
		{"Sudoku.Example:443", "https", "sudoku.example"},
		{"sudoku.example.", "https", "sudoku.example"},
		{"sudoku.example:80", "https", "sudoku.example:80"},
		{"sudoku.example:80", "http", "sudoku.example"},
		{"localhost:8080", "http", "localhost:8080"},
		{"127.0.0.1:8080", "http", "127.0.0.1:8080"},
		{"[::1]:8080", "http", "[::1]:8080"},
		{"[::1]", "http", "[::1]"},
		{"[::1]:80", "http", "[::1]"},
		{"", "http", ""},
	} {
		assert.Equal(t, tt.want, hostKey(tt.host, tt.scheme), "%s (%s)", tt.host, tt.scheme)
	}
	for url, want := range map[string]string{
		"":                           "",
		"https://Sudoku.Example":     "sudoku.example",
		"https://sudoku.example:443": "sudoku.example",
		"HTTP://localhost:8080":      "localhost:8080",
		"http://[::1]:8080":          "[::1]:8080",
	} {
		got, _ := publicHost(url)
		assert.Equal(t, want, got, url)
	}
}
