package room_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
)

func TestOwnPuzzleChecksAndGrades(t *testing.T) {
	gen, err := engine.Generate(engine.GenerateOptions{Level: engine.LevelHard, Seed: 7})
	require.NoError(t, err)
	pz, err := room.OwnPuzzle(gen.Givens)
	require.NoError(t, err)
	assert.Equal(t, "hard", pz.Level, "the level is the grade's")
	assert.Equal(t, gen.Givens, pz.Givens)
	assert.Equal(t, gen.Solution, pz.Solution)

	tests := []struct {
		name, puzzle, code, message string
	}{
		{"several solutions", "123456789" + strings.Repeat(".", 72), protocol.CodeManySolutions, "more than one solution"},
		{"none", "12345678." + "........9" + strings.Repeat(".", 63), protocol.CodeNoSolution, "no solution"},
		{"clashing givens", "1.......1" + strings.Repeat(".", 72), protocol.CodeNoSolution, "r1c1 and r1c9 both hold 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := room.OwnPuzzle(engine.MustParse(tt.puzzle))
			var rerr *protocol.Error
			require.True(t, errors.As(err, &rerr), "%v", err)
			assert.Equal(t, tt.code, rerr.Code)
			assert.Contains(t, rerr.Message, tt.message)
		})
	}
}

func TestOwnPuzzleFinishesAreFlaggedAcrossARestart(t *testing.T) {
	g := newGame(t, room.ModeRace, room.Config{})
	g.PlayOwn()
	g.join("a")
	g.begin()
	// Saved and brought back mid-game, the room still plays its own puzzle.
	r, saved := g.restored(room.Config{})
	assert.True(t, saved.Own)
	assert.True(t, r.Own())
	st := r.fill("a")
	var results []room.Result
	for _, e := range st.Eff {
		results = append(results, e.Results...)
	}
	require.Len(t, results, 1)
	assert.True(t, results[0].Flagged, "a finish on a player's own puzzle is kept off the leaderboards")
	assert.False(t, results[0].Ranked)
}
