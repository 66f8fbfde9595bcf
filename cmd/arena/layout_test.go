package main

import (
	"go/build"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/sudoku-arena/arena/"

// architectureRow is a row of docs/architecture.md's package table: its
// first cell names one package or several ("`store/postgres`,
// `store/sqlite`").
var architectureRow = regexp.MustCompile("^\\| (`[^|]+`) \\|")

// The packages' imports point one way, as docs/architecture.md's table
// lists them: a package imports only packages below it in the table (or
// ones the table does not list, such as internal/backoff). A package that
// reaches up fails here, and so does a row naming a package that does not
// exist.
func TestImportsPointDownTheArchitecture(t *testing.T) {
	doc, err := os.ReadFile("../../docs/architecture.md")
	require.NoError(t, err)
	rank := map[string]int{}
	row := 0
	for line := range strings.Lines(string(doc)) {
		m := architectureRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		for _, name := range strings.Split(m[1], ",") {
			name = strings.Trim(strings.TrimSpace(name), "`")
			rank[name] = row
		}
		row++
	}
	require.GreaterOrEqual(t, len(rank), 10, "the table lists the packages")

	checked := 0
	for name, r := range rank {
		pkg, err := build.ImportDir(filepath.Join("../..", name), 0)
		require.NoError(t, err, "docs/architecture.md lists %s", name)
		for _, imp := range pkg.Imports {
			dep, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			if depRank, listed := rank[dep]; listed {
				checked++
				assert.Greater(t, depRank, r, "%s imports %s, which docs/architecture.md lists above it", name, dep)
			}
		}
	}
	assert.Positive(t, checked)
}

// cmd/arena wires and only wires: its non-test Go stays small (the rules
// live in the packages it builds the graph of).
func TestCmdOnlyWires(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	lines := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		lines += strings.Count(string(b), "\n")
	}
	assert.LessOrEqual(t, lines, 1400, "cmd/arena has %d lines of non-test Go", lines)
}
