package main

import (
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/internal/config"
	"github.com/sudoku-arena/arena/migrations"
)

// terminal makes the command's stdin count as a terminal for one test.
func terminal(t *testing.T) {
	was := isTerminal
	isTerminal = func(io.Reader) bool { return true }
	t.Cleanup(func() { isTerminal = was })
}

// migrated is a new SQLite store, migrated up, under DATABASE_URL.
func migrated(t *testing.T) {
	t.Helper()
	t.Setenv(config.DatabaseURL, "sqlite:"+filepath.Join(t.TempDir(), "m.db"))
	code, out, errOut := arena(t, "", "migrate", "up")
	require.Equal(t, exitOK, code, errOut)
	require.Equal(t, schemaLatest(), out)
}

// schemaVersion is what `arena migrate version` prints.
func schemaVersion(t *testing.T) string {
	t.Helper()
	code, out, errOut := arena(t, "", "migrate", "version")
	require.Equal(t, exitOK, code, errOut)
	return out
}

// TestMigrateDownAsks: without a terminal, down refuses unless given
// -yes; on one, it goes on only when the answer is "down" or "yes".
func TestMigrateDownAsks(t *testing.T) {
	migrated(t)
	code, out, errOut := arena(t, "down\n", "migrate", "down")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, out)
	assert.Regexp(t, `^arena migrate down: refusing to drop every table of the SQLite file .*m\.db without asking: run it on a terminal to confirm, or give -yes\n$`, errOut)
	assert.Equal(t, schemaLatest(), schemaVersion(t), "nothing was dropped")

	terminal(t)
	for _, no := range []string{"", "\n", "n\n", "no\n", "do\n"} {
		code, out, errOut = arena(t, no, "migrate", "down")
		assert.Equal(t, exitFail, code, "%q", no)
		assert.Empty(t, out)
		assert.Contains(t, errOut, `Type "down" to go on: `)
		assert.Contains(t, errOut, "arena migrate down: not confirmed; nothing was dropped\n")
		assert.Equal(t, schemaLatest(), schemaVersion(t), "nothing was dropped on %q", no)
	}
	for _, yes := range []string{"down\n", " YES \n"} {
		code, out, errOut = arena(t, yes, "migrate", "down")
		require.Equal(t, exitOK, code, errOut)
		assert.Equal(t, "schema version 0 (clean)\n", out)
		code, _, _ = arena(t, "", "migrate", "up")
		require.Equal(t, exitOK, code)
	}
}

// TestMigrateDownYes: -yes goes on without asking, before the action or
// after it.
func TestMigrateDownYes(t *testing.T) {
	for _, args := range [][]string{{"-yes", "down"}, {"down", "-yes"}} {
		migrated(t)
		code, out, errOut := arena(t, "", append([]string{"migrate"}, args...)...)
		require.Equal(t, exitOK, code, errOut)
		assert.Equal(t, "schema version 0 (clean)\n", out, "%v", args)
		assert.NotContains(t, errOut, "go on")
	}
	code, _, _ := arena(t, "", "migrate", "down", "up")
	assert.Equal(t, exitUsage, code, "one action")
}

// TestMigrateUnreachable: a database that cannot be reached is exit code
// 2, naming DATABASE_URL; a mistyped setting is warned about.
func TestMigrateUnreachable(t *testing.T) {
	t.Setenv(config.DatabaseURL, "postgres://arena@"+arenatest.FreeAddr(t)+"/arena?sslmode=disable&connect_timeout=5")
	t.Setenv("DATABSE_URL", "x")
	code, _, errOut := arena(t, "", "migrate", "version")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "arena migrate: warning: DATABSE_URL is not a setting; did you mean DATABASE_URL?\n")
	assert.Contains(t, errOut, "arena migrate version: DATABASE_URL: postgres: connect for migrations: failed to connect to ")
	assert.Contains(t, errOut, "connection refused")
}

// TestMigrateHelpListsItsFlags: the help ends with its flags, -yes among
// them.
func TestMigrateHelpListsItsFlags(t *testing.T) {
	code, _, errOut := arena(t, "", "migrate", "-h")
	assert.Equal(t, exitOK, code)
	assert.Regexp(t, `(?s)\nFlags:\n  -yes\n\s+revert \(down\) without asking`, errOut)
}

// TestHelpHasNoEmptyHeading: a subcommand's help that has a "Flags:"
// heading lists a flag under it.
func TestHelpHasNoEmptyHeading(t *testing.T) {
	for _, c := range commands() {
		code, out, errOut := arena(t, "", c.name, "-h")
		assert.Equal(t, exitOK, code, c.name)
		help := out + errOut
		require.NotEmpty(t, help, c.name)
		for _, m := range regexp.MustCompile(`(?m)^[A-Z][a-z ]*:\n(.*)`).FindAllStringSubmatch(help, -1) {
			assert.True(t, strings.HasPrefix(m[1], "  "), "%s -h: heading %q has nothing under it", c.name, strings.TrimSpace(m[0]))
		}
	}
}

// schemaLatest is what `arena migrate version` says of an embedded store
// with every migration applied.
func schemaLatest() string {
	return fmt.Sprintf("schema version %d (clean)\n", migrations.Latest(migrations.SQLite()))
}
