package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/server"
)

// A player's own puzzle is stored once, with its grade's level, and a
// finish on it (flagged, as the room makes it) counts on no leaderboard,
// while a finish on a dealt puzzle does.
func TestOwnGameOnEveryStore(t *testing.T) {
	gen, err := engine.Generate(engine.GenerateOptions{Level: engine.LevelMedium, Seed: 42})
	require.NoError(t, err)
	own, err := room.OwnPuzzle(gen.Givens)
	require.NoError(t, err)
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			sg, _ := newStorage(t, st)
			require.NoError(t, sg.CreatePlayer(ctx, "p_a", "Ann", server.HashToken("a")))

			pz, err := sg.OwnGame(ctx, "0wn", "0wn", room.ModeRace, own)
			require.NoError(t, err)
			assert.NotZero(t, pz.ID)
			assert.Equal(t, "medium", pz.Level)
			assert.Equal(t, gen.Givens, pz.Givens)
			assert.Equal(t, gen.Solution, pz.Solution)
			again, err := sg.OwnGame(ctx, "0wn", room.GameID("0wn", 2), room.ModeRace, own)
			require.NoError(t, err)
			assert.Equal(t, pz.ID, again.ID, "the same givens are stored once")
			stored, err := st.Puzzle(ctx, pz.ID)
			require.NoError(t, err)
			assert.Equal(t, gen.Solution.String(), stored.Solution)

			dealt, err := sg.NewGame(ctx, "d3alt", "d3alt", room.ModeRace, "medium")
			require.NoError(t, err)
			now := time.Now().UTC().Truncate(time.Millisecond)
			finish := func(gameID string, pz room.Puzzle, elapsed time.Duration, flagged bool) room.Result {
				return room.Result{
					GameID: gameID, PlayerID: "p_a", PuzzleID: pz.ID, Mode: room.ModeRace, Level: "medium",
					Rank: 1, Elapsed: elapsed, Score: 100, FinishedAt: now, Flagged: flagged,
				}
			}
			require.NoError(t, sg.SaveResults(ctx, []room.Result{finish("0wn", pz, 30*time.Second, true)}))
			require.NoError(t, sg.SaveResults(ctx, []room.Result{finish("d3alt", dealt, 5*time.Minute, false)}))

			best, err := st.PlayerBest(ctx, "p_a")
			require.NoError(t, err)
			require.Len(t, best, 1)
			assert.Equal(t, "d3alt", best[0].RoomID, "the faster finish on the own puzzle is not a best time")
			board, err := st.BestTimes(ctx, "medium", 10)
			require.NoError(t, err)
			require.Len(t, board, 1)
			assert.Equal(t, 5*time.Minute, board[0].Elapsed)
		})
	}
}
