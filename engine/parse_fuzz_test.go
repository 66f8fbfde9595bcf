package engine

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary text to Parse: it must never panic, and whatever
// it accepts must format back to 81 characters that parse to the same grid.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds(f, 200) {
		f.Add(s)
	}
	f.Add(MustParse(inkala).Pretty())
	f.Add("")
	f.Add("x")
	f.Fuzz(func(t *testing.T, s string) {
		g, err := Parse(s)
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error of type %T, want *ParseError", err)
			}
			if g != (Grid{}) {
				t.Fatal("failed parse returned a non-zero grid")
			}
			return
		}
		out := g.String()
		if len(out) != NumCells {
			t.Fatalf("String() has %d characters", len(out))
		}
		back, err := Parse(out)
		if err != nil || back != g {
			t.Fatalf("round trip of %q: %v", out, err)
		}
		for _, v := range g {
			if v > 9 {
				t.Fatalf("digit %d out of range", v)
			}
		}
	})
}

// fuzzSeeds returns up to n puzzle lines from each shared collection, to seed
// fuzz corpora with real puzzles.
func fuzzSeeds(tb testing.TB, n int) []string {
	tb.Helper()
	var out []string
	for _, name := range []string{"17-clue.txt", "magictour-top1465.txt", "serg-benchmark.txt"} {
		out = append(out, fuzzSeedsFrom(tb, name, n)...)
	}
	return out
}

// fuzzSeedsFrom returns the first n puzzle lines of one shared collection.
func fuzzSeedsFrom(tb testing.TB, name string, n int) []string {
	tb.Helper()
	f, err := os.Open(dataPath(name))
	if err != nil {
		tb.Fatalf("puzzle collection: %v", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(out) < n {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, line)
	}
	return out
}

// dataPath is where the shared puzzle collections are, seen from this package.
func dataPath(name string) string { return "../../shared/data/" + name }
