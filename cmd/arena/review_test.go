package main

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/config"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/backend"
)

// arena review: a bad command line is a usage error that opens nothing; an
// id no held result has is said so; a list of none says none; remove keeps
// a held result off the boards and says so, and the same id again is no
// held result any more. (TestAttackBotOnTheAllTimeBoard lists and
// confirms one a real server held.)
func TestReviewCommand(t *testing.T) {
	migrated(t)
	for _, args := range [][]string{{"review", "bogus"}, {"review", "confirm"}, {"review", "remove", "abc"}, {"review", "confirm", "-3"}, {"review", "list", "extra"}} {
		code, out, errOut := arena(t, "", args...)
		assert.Equal(t, exitUsage, code, "%v", args)
		assert.Empty(t, out)
		assert.NotEmpty(t, errOut)
	}
	code, out, errOut := arena(t, "", "review")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "0 held")

	code, _, errOut = arena(t, "", "review", "confirm", "999")
	assert.Equal(t, exitFail, code)
	assert.Equal(t, "arena review confirm: no held result has the id 999\n", errOut)

	// One held result, stored as the rooms store it.
	ctx := context.Background()
	kind, err := config.LoadStore(os.Getenv)
	require.NoError(t, err)
	st, err := backend.Open(ctx, kind)
	require.NoError(t, err)
	now := time.Now().UTC()
	require.NoError(t, st.CreatePlayer(ctx, store.Player{ID: "p_bot", Name: "Bot", TokenHash: []byte("t"), CreatedAt: now, LastSeen: now}))
	pz, err := st.SavePuzzle(ctx, store.Puzzle{Givens: strings.Repeat(".", 80) + "1", Solution: strings.Repeat("1", 81), Level: "easy", CreatedAt: now})
	require.NoError(t, err)
	require.NoError(t, st.CreateRoom(ctx, store.Room{ID: "r00m", Mode: "race", PuzzleID: pz.ID, State: store.StateFinished, CreatedAt: now}))
	require.NoError(t, st.SaveResults(ctx, []store.Result{{RoomID: "r00m", PlayerID: "p_bot", PuzzleID: pz.ID, Mode: "race", Level: "easy",
		Elapsed: 12 * time.Second, Score: 1, FinishedAt: now, AllTime: true, Flagged: true, Review: store.ReviewHeld, Reason: "faster than the level's floor"}}))
	held, err := st.HeldResults(ctx, 0)
	require.NoError(t, err)
	require.Len(t, held, 1)
	st.Close()
	id := held[0].ID

	code, out, errOut = arena(t, "", "review", "list")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "Bot (p_bot)")
	assert.Contains(t, out, "faster than the level's floor")
	assert.Contains(t, out, "1 held")

	code, out, errOut = arena(t, "", "review", "remove", strconv.FormatInt(id, 10))
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "result "+strconv.FormatInt(id, 10)+" removed\n", out)
	code, _, errOut = arena(t, "", "review", "confirm", strconv.FormatInt(id, 10))
	assert.Equal(t, exitFail, code, "removed: no longer held")
	assert.Contains(t, errOut, "no held result")
	code, out, _ = arena(t, "", "review")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "0 held")
}
