package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
)

const (
	inkala         = "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4.."
	inkalaSolution = "812753649943682175675491283154237896369845721287169534521974368438526917796318452"
	multiple       = "8.........95.......76.........426798...571243...893165......916....3.487....1.532"
	// Two 8s in row 1: no solution.
	conflicting = "88.........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4.."
)

// arena runs the command line in-process and returns its exit code and
// output streams.
func arena(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestHelpListsEveryCommand(t *testing.T) {
	code, out, _ := arena(t, "", "help")
	require.Equal(t, exitOK, code)
	for _, c := range commands() {
		assert.Contains(t, out, c.name)
		hcode, _, herr := arena(t, "", c.name, "-h")
		assert.Equal(t, exitOK, hcode, c.name)
		assert.Contains(t, herr, "Usage: arena "+c.name, c.name)
	}
	code, _, errOut := arena(t, "", "frobnicate")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, `unknown command "frobnicate"`)
	code, _, _ = arena(t, "")
	assert.Equal(t, exitUsage, code)
}

func TestSolveLines(t *testing.T) {
	in := strings.Join([]string{
		"# a comment",
		inkala,
		"",
		multiple,
		conflicting,
		inkala[:80] + "x",
		inkala[:70],
		inkala,
	}, "\n")
	code, out, errOut := arena(t, in, "solve")
	assert.Equal(t, exitFail, code, "an invalid line makes the exit code 1")
	assert.Equal(t, strings.Join([]string{
		inkalaSolution,
		"multiple",
		"none",
		`invalid: column 81: unexpected character 'x'`,
		"invalid: too few cells: got 70, want 81",
		inkalaSolution,
	}, "\n")+"\n", out)
	assert.Contains(t, errOut, "2 invalid line(s)")

	code, out, _ = arena(t, inkala+"\n", "solve")
	assert.Equal(t, exitOK, code)
	assert.Equal(t, inkalaSolution+"\n", out)
}

func TestSolveFilesAndJSON(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "p.txt")
	require.NoError(t, os.WriteFile(f, []byte(inkala+"\n"+multiple+"\n"), 0o644))
	code, out, _ := arena(t, "", "solve", "-json", "-limit", "5", f)
	require.Equal(t, exitOK, code)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2)
	var first, second solveJSON
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &first))
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &second))
	assert.Equal(t, inkalaSolution, first.Solution)
	assert.Equal(t, 1, first.Count)
	require.NotNil(t, first.Stats)
	assert.Positive(t, first.Stats.Propagations)
	assert.Equal(t, 5, second.Count, "count is capped at the limit")
	assert.Empty(t, second.Solution)

	code, _, errOut := arena(t, "", "solve", filepath.Join(dir, "missing.txt"))
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errOut, "missing.txt")
	code, _, _ = arena(t, "", "solve", "-limit", "1")
	assert.Equal(t, exitUsage, code)
}

func TestGenerateDeterministic(t *testing.T) {
	code, out1, errOut := arena(t, "", "generate", "-level", "easy", "-n", "3", "-seed", "42")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, "generated 3 easy puzzle(s)")
	assert.Contains(t, errOut, "p99")
	_, out2, _ := arena(t, "", "generate", "-level", "easy", "-n", "3", "-seed", "42", "-workers", "2")
	assert.Equal(t, out1, out2, "same seed, same puzzles, whatever the workers")
	lines := strings.Split(strings.TrimSpace(out1), "\n")
	require.Len(t, lines, 3)
	for _, l := range lines {
		g, err := engine.Parse(l)
		require.NoError(t, err)
		assert.Equal(t, 1, engine.Solve(g, 2).Count)
	}

	code, out, _ := arena(t, "", "generate", "-level", "medium", "-n", "2", "-seed", "7", "-json", "-symmetric")
	require.Equal(t, exitOK, code)
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var j generateJSON
		require.NoError(t, json.Unmarshal([]byte(l), &j))
		assert.Equal(t, "medium", j.Level)
		g := engine.MustParse(j.Puzzle)
		for c := 0; c < engine.NumCells; c++ {
			assert.Equal(t, g[c] == 0, g[80-c] == 0, "symmetric clue pattern")
		}
		res := engine.Solve(g, 2)
		assert.Equal(t, 1, res.Count)
		assert.Equal(t, j.Solution, res.Solution.String())
		assert.Positive(t, j.Score)
		assert.NotEmpty(t, j.Counts)
	}

	// Above expert: expert puzzles rated 7.0 or more by Sudoku Explainer,
	// as master or as expert with -min-se.
	for _, args := range [][]string{{"-level", "master"}, {"-level", "expert", "-min-se", "7"}} {
		code, out, _ = arena(t, "", append([]string{"generate", "-n", "2", "-seed", "5"}, args...)...)
		require.Equal(t, exitOK, code)
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			se, ok := engine.RateSE(engine.MustParse(l))
			assert.True(t, !ok || se >= 70, "%v: %s rated %s", args, l, se)
		}
	}
	// Expert stays under master's range.
	code, out, _ = arena(t, "", "generate", "-level", "expert", "-n", "2", "-seed", "5")
	require.Equal(t, exitOK, code)
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		se, ok := engine.RateSE(engine.MustParse(l))
		assert.True(t, ok && se >= 50 && se <= 69, "%s rated %s", l, se)
	}
	code, _, errOut = arena(t, "", "generate", "-level", "fiendish")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "easy, medium, hard, expert or master")

	for _, bad := range [][]string{{"-level", "impossible"}, {"-level", "beyond"}, {"-n", "0"}, {"-workers", "0"}} {
		code, _, _ := arena(t, "", append([]string{"generate"}, bad...)...)
		assert.Equal(t, exitUsage, code, "%v", bad)
	}
}

func TestGrade(t *testing.T) {
	easy := "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."
	in := strings.Join([]string{easy, multiple, conflicting, "nonsense"}, "\n")
	code, out, _ := arena(t, in, "grade")
	assert.Equal(t, exitFail, code)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 4)
	var j gradeJSON
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &j))
	assert.Equal(t, "easy", j.Level)
	assert.Positive(t, j.Score)
	assert.Empty(t, j.Error)
	require.NotNil(t, j.SE, lines[0])
	assert.Equal(t, "1.2", j.SE.String(), "SE rating of a puzzle solved by hidden singles in boxes")
	for _, l := range lines[1:] {
		var e gradeJSON
		require.NoError(t, json.Unmarshal([]byte(l), &e))
		assert.NotEmpty(t, e.Error, l)
		assert.Empty(t, e.Level, l)
	}

	// Sukaku Explainer rates this one 7.1: it needs a forcing chain.
	code, out, _ = arena(t, "...........52893..2..7.4..8..........4.1.5.8..3.6.7.4.9..453..1.1.....2...79.26..", "grade")
	require.Equal(t, exitOK, code)
	j = gradeJSON{}
	require.NoError(t, json.Unmarshal([]byte(out), &j))
	require.NotNil(t, j.SE, out)
	assert.Equal(t, "7.1", j.SE.String())
	assert.Contains(t, out, `"se":7.1,`)

	code, out, _ = arena(t, easy, "grade", "-steps")
	require.Equal(t, exitOK, code)
	require.NoError(t, json.Unmarshal([]byte(out), &j))
	require.NotEmpty(t, j.Steps)
	assert.NotEmpty(t, j.Steps[0].Explanation)
}

func TestHint(t *testing.T) {
	code, out, errOut := arena(t, inkala+"\n", "hint")
	require.Equal(t, exitOK, code, errOut)
	var h hintJSON
	require.NoError(t, json.Unmarshal([]byte(out), &h))
	require.NotNil(t, h.Step)
	assert.NotEmpty(t, h.Explanation)
	assert.NotEmpty(t, h.Step.Digits)
	for _, d := range h.Step.Digits {
		assert.True(t, d >= 1 && d <= 9, "digits are numbers 1..9 in JSON")
	}
	for _, p := range h.Step.Place {
		assert.Equal(t, int(inkalaSolution[p.Cell]-'0'), p.Digit, "a hint never contradicts the solution")
	}
	for _, e := range h.Step.Eliminate {
		assert.NotEqual(t, int(inkalaSolution[e.Cell]-'0'), e.Digit, "a hint never eliminates the solution digit")
	}

	// The player put a wrong digit in r1c2 (cell 1): the hint names it.
	board := []byte(inkala)
	board[1] = '4'
	require.NotEqual(t, byte('4'), inkalaSolution[1])
	code, out, errOut = arena(t, inkala+"\n"+string(board)+"\n", "hint")
	require.Equal(t, exitOK, code, errOut)
	h = hintJSON{}
	require.NoError(t, json.Unmarshal([]byte(out), &h))
	assert.Equal(t, []int{1}, h.WrongCells)
	assert.Equal(t, []string{"r1c2"}, h.Wrong)
	assert.Nil(t, h.Step)

	code, _, errOut = arena(t, "garbage\n", "hint")
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errOut, "unexpected character")
	code, _, _ = arena(t, inkalaSolution+"\n", "hint")
	assert.Equal(t, exitFail, code, "a solved board has no next step")
}

func TestBench(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "few.txt")
	require.NoError(t, os.WriteFile(f, []byte("# two\n"+inkala+"\n"+multiple+"\n"), 0o644))
	code, out, errOut := arena(t, "", "bench", "-t", "0.05", f)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "puzzles/s")
	assert.Contains(t, out, "few.txt")
	row := strings.Fields(strings.Split(out, "\n")[1])
	require.Len(t, row, 7)
	assert.Equal(t, "2", row[1], "puzzles in the file")
	assert.Equal(t, "1", row[6], "one of the two is unique")
	var guesses, noGuess int
	for _, p := range []string{inkala, multiple} {
		_, g := engine.CountGuesses(engine.MustParse(p), 2)
		guesses += g
		if g == 0 {
			noGuess++
		}
	}
	assert.Equal(t, fmt.Sprintf("%.2f", float64(guesses)/2), row[5], "guesses per puzzle, the counting solver's")
	assert.Equal(t, fmt.Sprintf("%.1f", float64(100*noGuess)/2), row[4], "the share solved without a guess")
	assert.Contains(t, out, "; counted by "+engine.Counter()+"\n")

	code, _, _ = arena(t, "", "bench")
	assert.Equal(t, exitUsage, code)
}

func TestMigrate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new", "m.db")
	t.Setenv("DATABASE_URL", "sqlite:"+path)
	code, out, errOut := arena(t, "", "migrate", "version")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "schema version 0 (clean)\n", out)
	code, out, _ = arena(t, "", "migrate", "up")
	require.Equal(t, exitOK, code)
	assert.Equal(t, schemaLatest(), out)
	code, out, _ = arena(t, "", "migrate", "-yes", "down")
	require.Equal(t, exitOK, code)
	assert.Equal(t, "schema version 0 (clean)\n", out)

	code, _, errOut = arena(t, "", "migrate", "sideways")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "unknown action")
	t.Setenv("DATABASE_URL", "mysql://x")
	code, _, errOut = arena(t, "", "migrate", "up")
	assert.Equal(t, exitUsage, code, "a bad setting is a usage error, as for serve")
	assert.Contains(t, errOut, `DATABASE_URL="mysql://x"`)
}
