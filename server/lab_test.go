package server_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/server"
)

// Puzzles the lab tests use: a medium one from the generator, one with
// many solutions (a single row given), one with none though no two givens
// clash (r1c9 sees 1..8 in its row and 9 in its column), and one whose
// givens clash.
var (
	labMedium = func() engine.Generated {
		g, err := engine.Generate(engine.Difficulties[1].Options(server.LabSeed(42), false))
		if err != nil {
			panic(err)
		}
		return g
	}()
	labMany     = "123456789" + strings.Repeat(".", 72)
	labNone     = "12345678." + "........9" + strings.Repeat(".", 63)
	labConflict = "55" + strings.Repeat(".", 79)
)

// labDo sends a request to the server's handler from the address given
// and returns the status and body.
func labDo(t *testing.T, e *env, method, path, body, remote string) (int, []byte) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	req.RemoteAddr = remote
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

// labPost posts {"puzzle": p} to a lab route.
func labPost(t *testing.T, e *env, path, p string) (int, []byte) {
	t.Helper()
	body, err := json.Marshal(server.LabRequest{Puzzle: p})
	require.NoError(t, err)
	return labDo(t, e, http.MethodPost, path, string(body), "192.0.2.1:1234")
}

func TestLabSolve(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		name      string
		puzzle    string
		solutions int
	}{
		{"unique", labMedium.Givens.String(), 1},
		{"many", labMany, 2},
		{"none", labNone, 0},
		{"conflict", labConflict, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := labPost(t, e, "/api/solve", tt.puzzle)
			require.Equal(t, http.StatusOK, status, "%s", body)
			var out server.SolveResponse
			require.NoError(t, json.Unmarshal(body, &out))
			assert.Equal(t, tt.solutions, out.Solutions)
			assert.Equal(t, engine.MustParse(tt.puzzle).String(), out.Puzzle)
			if tt.solutions == 0 {
				assert.Empty(t, out.Solution)
				return
			}
			sol := engine.MustParse(out.Solution)
			assert.True(t, sol.Complete())
			assert.False(t, sol.HasConflict())
			if tt.solutions == 1 {
				assert.Equal(t, labMedium.Solution, sol)
				assert.Equal(t, 81-labMedium.Givens.Filled(), out.Stats.Propagations+out.Stats.Guesses,
					"each empty cell is placed by propagation or by a guess that held")
			}
		})
	}
}

func TestLabGrade(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	status, body := labPost(t, e, "/api/grade", labMedium.Givens.String())
	require.Equal(t, http.StatusOK, status, "%s", body)
	var out server.GradeResponse
	require.NoError(t, json.Unmarshal(body, &out))
	want, err := engine.GradePuzzle(labMedium.Givens)
	require.NoError(t, err)
	assert.Equal(t, "medium", out.Level)
	assert.Equal(t, want.Score, out.Score)
	assert.Equal(t, want.Hardest.String(), out.Hardest)
	assert.Equal(t, want.Hardest.Name(), out.HardestName)
	assert.True(t, out.Solved)
	got := map[string]int{}
	for _, c := range out.Counts {
		got[c.Technique] = c.Count
		assert.NotEmpty(t, c.Name)
	}
	for tech, n := range want.Counts {
		assert.Equal(t, n, got[tech.String()], tech.String())
	}
	assert.Len(t, got, len(want.Counts))
	se, ok := engine.RateSE(labMedium.Givens)
	require.True(t, ok)
	require.NotNil(t, out.SE, "%s", body)
	assert.Equal(t, se, *out.SE)
	assert.Contains(t, string(body), `"se":`+se.String())

	// The example of docs/protocol.md: Sudoku Explainer rates it 2.6
	// (pointing).
	status, body = labPost(t, e, "/api/grade", "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......")
	require.Equal(t, http.StatusOK, status, "%s", body)
	assert.Contains(t, string(body), `"se":2.6}`)

	// A puzzle beyond the rater (Easter Monster, SE 11.6) has no se.
	status, body = labPost(t, e, "/api/grade", "1.......2.9.4...5...6...7...5.9.3.......7.......85..4.7.....6...3...9.8...2.....1")
	require.Equal(t, http.StatusOK, status, "%s", body)
	assert.NotContains(t, string(body), `"se"`)
}

func TestLabSteps(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	status, body := labPost(t, e, "/api/steps", labMedium.Givens.String())
	require.Equal(t, http.StatusOK, status, "%s", body)
	var out server.StepsResponse
	require.NoError(t, json.Unmarshal(body, &out))
	assert.Equal(t, "medium", out.Level)
	assert.True(t, out.Solved)
	assert.False(t, out.Truncated)
	require.NotEmpty(t, out.Steps)
	// Playing the steps' placements on the givens gives the solution, and
	// each step highlights the cells it names.
	board := labMedium.Givens
	for i, st := range out.Steps {
		assert.NotEmpty(t, st.Explanation, "step %d", i)
		assert.NotEmpty(t, st.Name, "step %d", i)
		assert.NotEmpty(t, st.Highlight, "step %d: the lab always sends highlight", i)
		assert.True(t, slices.IsSorted(st.Highlight), "step %d", i)
		for _, p := range st.Place {
			assert.Equal(t, uint8(0), board[p.Cell], "step %d places on a filled cell", i)
			board[p.Cell] = uint8(p.Digit)
			assert.Contains(t, st.Highlight, p.Cell, "step %d", i)
		}
		for _, c := range st.Cells {
			assert.Contains(t, st.Highlight, c, "step %d", i)
		}
	}
	assert.Equal(t, labMedium.Solution, board)
}

func TestLabRefusesBadPuzzles(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		name, path, body, code, message string
	}{
		{"too few cells", "/api/solve", `{"puzzle":"123"}`, protocol.CodeBadPuzzle, "too few cells: got 3, want 81"},
		{"a letter", "/api/grade", fmt.Sprintf(`{"puzzle":%q}`, "12x"+strings.Repeat(".", 78)), protocol.CodeBadPuzzle, `line 1, column 3: unexpected character 'x'`},
		{"too many cells", "/api/steps", fmt.Sprintf(`{"puzzle":%q}`, strings.Repeat(".", 82)), protocol.CodeBadPuzzle, "line 1, column 82: more than 81 cells"},
		{"empty", "/api/solve", `{"puzzle":""}`, protocol.CodeBadPuzzle, "the puzzle is empty"},
		{"not json", "/api/solve", `puzzle=1`, protocol.CodeBadJSON, "one JSON object"},
		{"other field", "/api/solve", `{"puzzle":"1","level":"easy"}`, protocol.CodeBadJSON, "no field but puzzle"},
		{"too big", "/api/solve", `{"puzzle":"` + strings.Repeat(" ", 3000) + `"}`, protocol.CodeBadJSON, "at most 2048 bytes"},
		{"grade, many", "/api/grade", fmt.Sprintf(`{"puzzle":%q}`, labMany), protocol.CodeManySolutions, "more than one solution"},
		{"grade, none", "/api/grade", fmt.Sprintf(`{"puzzle":%q}`, labNone), protocol.CodeNoSolution, "no solution"},
		{"steps, conflict", "/api/steps", fmt.Sprintf(`{"puzzle":%q}`, labConflict), protocol.CodeNoSolution, "r1c1 and r1c2 both hold 5"},
		{"generate, level", "/api/generate?level=beyond", "", protocol.CodeBadField, "level must be"},
		{"generate, seed", "/api/generate?level=easy&seed=-1", "", protocol.CodeBadField, "seed must be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method := http.MethodPost
			if strings.HasPrefix(tt.path, "/api/generate") {
				method = http.MethodGet
			}
			status, body := labDo(t, e, method, tt.path, tt.body, "192.0.2.2:1")
			assert.Equal(t, http.StatusBadRequest, status)
			code, msg := apiErrorOf(t, body)
			assert.Equal(t, tt.code, code)
			assert.Contains(t, strings.ToLower(msg), strings.ToLower(tt.message))
		})
	}
}

func TestLabGenerateIsReproducible(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	get := func(query string) server.GenerateResponse {
		t.Helper()
		status, body := labDo(t, e, http.MethodGet, "/api/generate?"+query, "", "192.0.2.3:1")
		require.Equal(t, http.StatusOK, status, "%s", body)
		var out server.GenerateResponse
		require.NoError(t, json.Unmarshal(body, &out))
		return out
	}
	a := get("level=medium&seed=42")
	assert.Equal(t, labMedium.Givens.String(), a.Puzzle)
	assert.Equal(t, "42", a.Seed)
	assert.Equal(t, "medium", a.Level)
	assert.Equal(t, labMedium.Grade.Score, a.Score)
	se, ok := engine.RateSE(labMedium.Givens)
	require.True(t, ok)
	assert.Equal(t, se, a.SE, "the puzzle's SE rating")
	assert.True(t, engine.Difficulties[1].Holds(a.SE, true), "medium is rated %s", a.SE)

	// Above expert: master, rated 7.0 or more.
	m := get("level=master&seed=7")
	assert.Equal(t, "master", m.Level)
	mr, ok := engine.RateSE(engine.MustParse(m.Puzzle))
	assert.True(t, !ok || mr >= 70, "master rated %s", mr)
	status, body := labDo(t, e, http.MethodGet, "/api/generate?level=beyond", "", "192.0.2.3:1")
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Contains(t, string(body), `level must be \"easy\", \"medium\", \"hard\", \"expert\" or \"master\"`)

	// Without a seed the server picks one and says which: asking with it
	// gives the same puzzle.
	b := get("level=hard")
	require.NotEmpty(t, b.Seed)
	assert.Equal(t, b, get("level=hard&seed="+b.Seed))
	gr, err := engine.GradePuzzle(engine.MustParse(b.Puzzle))
	require.NoError(t, err)
	assert.Equal(t, engine.LevelHard, gr.Level)
}

func TestLabIsRateLimitedPerAddress(t *testing.T) {
	t.Parallel()
	clk := server.NewFakeClock(time.Now())
	e := newEnv(t, server.WithFakeClock(clk), func(c *server.Config) { c.LabRate = 3 })
	p := fmt.Sprintf(`{"puzzle":%q}`, labMedium.Givens.String())
	for i := range 3 {
		status, body := labDo(t, e, http.MethodPost, "/api/solve", p, "192.0.2.9:1")
		require.Equal(t, http.StatusOK, status, "request %d: %s", i, body)
	}
	req := httptest.NewRequest(http.MethodPost, "/api/grade", strings.NewReader(p))
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = "192.0.2.9:2"
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	assert.Equal(t, http.StatusTooManyRequests, rec.Code)
	assert.Equal(t, "60", rec.Header().Get("Retry-After"))
	code, _ := apiErrorOf(t, rec.Body.Bytes())
	assert.Equal(t, protocol.CodeRateLimited, code)

	// Another address has its own budget.
	status, _ := labDo(t, e, http.MethodGet, "/api/generate?level=easy&seed=1", "", "198.51.100.1:1")
	assert.Equal(t, http.StatusOK, status)

	// The Retry-After's minute refills the first one's.
	clk.Advance(time.Minute)
	status, body := labDo(t, e, http.MethodPost, "/api/solve", p, "192.0.2.9:3")
	assert.Equal(t, http.StatusOK, status, "%s", body)
}

func TestLabPageIsServed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	resp, err := arenatest.Get(e.http.URL + "/lab?level=hard&seed=42")
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.True(t, strings.Contains(string(body), `<template id="lab-tpl"`), "the lab page is index.html with the lab template")
}

// The lab's seeds pass through LabSeed, so that no lab seed is a daily
// puzzle's: asking the lab for the seed of today's or tomorrow's daily does
// not give that daily.
func TestLabSeedsAreNotDailySeeds(t *testing.T) {
	t.Parallel()
	for _, day := range []string{"2026-11-22", "2026-11-23"} {
		seed := room.DailySeed(day, "expert")
		assert.NotEqual(t, seed, server.LabSeed(seed), day)
		daily, err := engine.Generate(engine.GenerateOptions{Level: engine.LevelExpert, Seed: seed})
		require.NoError(t, err)
		lab, err := engine.Generate(engine.GenerateOptions{Level: engine.LevelExpert, Seed: server.LabSeed(seed)})
		require.NoError(t, err)
		assert.NotEqual(t, daily.Givens, lab.Givens, "the lab asked for the daily's seed gives another puzzle")
	}
}
