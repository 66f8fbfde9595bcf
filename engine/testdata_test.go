package engine

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// puzzleFiles caches the parsed collections of testdata/: several tests and
// benchmarks read the same 49k-puzzle file, and parsing it again for each
// would cost more than some of them.
var puzzleFiles sync.Map // name -> []Grid

// loadPuzzles returns the first n puzzles (all of them when n <= 0) of the
// collection testdata/name: one puzzle a line, lines starting with '#'
// and blank lines skipped (see testdata/README.md). It fails tb when the
// file is missing, a line does not parse, or the file has fewer than n
// puzzles. The result is shared between callers and must not be written
// to; its capacity is its length, so an append copies it.
func loadPuzzles(tb testing.TB, name string, n int) []Grid {
	tb.Helper()
	all, ok := puzzleFiles.Load(name)
	if !ok {
		all, _ = puzzleFiles.LoadOrStore(name, parsePuzzleFile(tb, name))
	}
	puzzles := all.([]Grid)
	if n <= 0 {
		n = len(puzzles)
	}
	require.GreaterOrEqual(tb, len(puzzles), n, "puzzles in testdata/%s", name)
	return puzzles[:n:n]
}

// parsePuzzleFile reads and parses every puzzle of testdata/name.
func parsePuzzleFile(tb testing.TB, name string) []Grid {
	tb.Helper()
	path := filepath.Join("testdata", name)
	data, err := os.ReadFile(path)
	require.NoError(tb, err, "puzzle collection")
	var out []Grid
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		g, err := Parse(line)
		if err != nil { // checked first: require's stack walk is slow over 49k lines
			require.NoError(tb, err, "%s line %d", path, i+1)
		}
		out = append(out, g)
	}
	return out
}

// puzzleCollections are the files of testdata/ that hold puzzles.
var puzzleCollections = []string{"17-clue.txt", "magictour-top1465.txt", "serg-benchmark.txt"}

// fuzzSeeds returns the first n puzzles of each collection as text, to
// seed fuzz corpora with real puzzles.
func fuzzSeeds(tb testing.TB, n int) []string {
	tb.Helper()
	var out []string
	for _, name := range puzzleCollections {
		for _, g := range loadPuzzles(tb, name, n) {
			out = append(out, g.String())
		}
	}
	return out
}
