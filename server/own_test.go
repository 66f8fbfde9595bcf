package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/server"
)

// postOwn asks for a room on a puzzle of the player's own.
func postOwn(t *testing.T, e *env, body string) (int, []byte) {
	t.Helper()
	return labDo(t, e, http.MethodPost, "/api/rooms", body, "192.0.2.20:1")
}

func TestOwnPuzzleRoomsRefuseWhatCannotBePlayed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	medium := labMedium.Givens.String()
	tests := []struct {
		name, body, code, message string
	}{
		{"many solutions", fmt.Sprintf(`{"mode":"race","puzzle":%q}`, labMany), protocol.CodeManySolutions, "more than one solution"},
		{"no solution", fmt.Sprintf(`{"mode":"coop","puzzle":%q}`, labNone), protocol.CodeNoSolution, "no solution"},
		{"clashing givens", fmt.Sprintf(`{"mode":"race","puzzle":%q}`, labConflict), protocol.CodeNoSolution, "r1c1 and r1c2 both hold 5"},
		{"not a puzzle", `{"mode":"race","puzzle":"12z"}`, protocol.CodeBadPuzzle, "line 1, column 3: unexpected character 'z'"},
		{"too short", `{"mode":"race","puzzle":"123"}`, protocol.CodeBadPuzzle, "too few cells: got 3, want 81"},
		{"daily", fmt.Sprintf(`{"mode":"daily","puzzle":%q}`, medium), protocol.CodeBadField, `"race" or "coop"`},
		{"with a date", fmt.Sprintf(`{"mode":"race","date":"2026-01-01","puzzle":%q}`, medium), protocol.CodeBadField, "no date"},
		{"with a level", fmt.Sprintf(`{"mode":"race","level":"easy","puzzle":%q}`, medium), protocol.CodeBadField, "leave level out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := postOwn(t, e, tt.body)
			assert.Equal(t, http.StatusBadRequest, status, "%s", body)
			code, msg := apiErrorOf(t, body)
			assert.Equal(t, tt.code, code)
			assert.Contains(t, msg, tt.message)
		})
	}
	assert.Zero(t, e.rooms.Stats().Rooms, "no room was made")
}

func TestOwnPuzzleRacePlaysAndIsUnranked(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// The puzzle laid out 9×9, as people paste it.
	var rows []string
	s := labMedium.Givens.String()
	for r := range 9 {
		rows = append(rows, s[r*9:r*9+9])
	}
	body, err := json.Marshal(map[string]string{"mode": "race", "puzzle": strings.Join(rows, "\n")})
	require.NoError(t, err)
	status, out := postOwn(t, e, string(body))
	require.Equal(t, http.StatusCreated, status, "%s", out)
	var created server.CreateRoomResponse
	require.NoError(t, json.Unmarshal(out, &created))
	assert.Equal(t, "medium", created.Level, "the level is the puzzle's grade")

	a, b := e.dial("Ann"), e.dial("Bob")
	a.join(created.ID)
	b.join(created.ID)
	a.send(map[string]any{"type": "start"})
	givens := awaitRunning(a)
	awaitRunning(b)
	assert.Equal(t, labMedium.Givens, givens)
	assert.Equal(t, labMedium.Solution, e.solution(created.ID, 1))

	solve(a, givens, labMedium.Solution)
	f := await(b, protocol.TypeFinish, func(f *protocol.FinishEvent) bool { return f.Player == a.id })
	assert.Equal(t, 1, f.Rank)
	rs := e.results(a.id)
	require.Len(t, rs, 1)
	assert.Equal(t, "medium", rs[0].Level)
	assert.True(t, rs[0].Flagged, "a finish on a player's own puzzle is kept off every leaderboard")
	assert.False(t, rs[0].Ranked)

	// The rematch plays the same puzzle again, still unranked.
	a.send(map[string]any{"type": "rematch"})
	st := await(b, protocol.TypeState, func(s *protocol.State) bool { return s.Room.Round == 2 })
	require.NotNil(t, st)
	pz, ok := e.kept.rooms.Puzzle(room.GameID(created.ID, 2))
	require.True(t, ok)
	assert.Equal(t, labMedium.Givens, pz.Givens)
	first, _ := e.kept.rooms.Puzzle(created.ID)
	assert.Equal(t, first.ID, pz.ID, "the same givens keep their stored id")
	_ = engine.NumCells
}
