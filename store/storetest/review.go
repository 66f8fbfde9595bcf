package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
)

const floorReason = "faster than the level's floor"

// mkHeld stores a finish held for review from the leaderboard of heldDay
// ("" for a finish on no day's board).
func mkHeld(t *testing.T, s store.Store, roomID, player string, pz store.Puzzle, heldDay string, score int, fin time.Time, elapsed time.Duration) {
	t.Helper()
	mode := room.ModeRace
	if heldDay != "" {
		mode = room.ModeDaily
	}
	mkRoom(t, s, roomID, mode, pz.ID, player)
	require.NoError(t, s.SaveResults(context.Background(), []store.Result{{
		RoomID: roomID, PlayerID: player, PuzzleID: pz.ID, Mode: mode, Level: pz.Level, Elapsed: elapsed, Score: score,
		FinishedAt: fin, Flagged: true, PlayedDay: heldDay, AllTime: true, Review: store.ReviewHeld, Reason: floorReason, HeldDay: heldDay,
	}}))
}

func rooms(rs []store.Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.RoomID)
	}
	return out
}

func testReview(t *testing.T, s store.Store) {
	ctx := context.Background()
	day := "2026-11-21"
	pz := mkPuzzle(t, s, 31, "hard")
	seedBoard(t, s, day, pz, []int{500, 300, 100}, []time.Duration{0, 0, 0}) // p00, p01, p02
	for _, id := range []string{"h", "x", "y", "z"} {
		mkPlayer(t, s, id)
	}
	mkHeld(t, s, "rh", "h", pz, day, 400, t0.Add(time.Minute), 10*time.Second)
	mkHeld(t, s, "rx", "x", pz, day, 450, t0.Add(2*time.Minute), 11*time.Second)
	// y is on the day's board already: their held finish (in another room)
	// would be a second result there.
	mkRoom(t, s, "ry1", room.ModeDaily, pz.ID, "y")
	mkResult(t, s, "ry1", "y", pz, day, 50, t0, 90*time.Second)
	mkHeld(t, s, "ry2", "y", pz, day, 350, t0.Add(3*time.Minute), 12*time.Second)
	// z's held finish is a race's: on no day's board.
	mkHeld(t, s, "rz", "z", pz, "", 0, t0.Add(4*time.Minute), 13*time.Second)

	held, err := s.HeldResults(ctx, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"rh", "rx", "ry2", "rz"}, rooms(held), "oldest first")
	h := held[0]
	assert.Equal(t, store.ReviewHeld, h.Review)
	assert.Equal(t, floorReason, h.Reason)
	assert.Equal(t, day, h.HeldDay)
	assert.Equal(t, "", h.Day, "off the day's board")
	assert.True(t, h.Flagged)
	first2, err := s.HeldResults(ctx, 2)
	require.NoError(t, err)
	assert.Equal(t, []string{"rh", "rx"}, rooms(first2))
	count := func() int {
		t.Helper()
		n, err := s.DailyCount(ctx, day, "hard")
		require.NoError(t, err)
		return n
	}
	assert.Equal(t, 4, count())
	best, err := s.BestTimes(ctx, "hard", 10)
	require.NoError(t, err)
	assert.NotContains(t, ids(best), "h", "held off the all-time board")

	// Confirmed: h joins the day's board with the score stored.
	got, err := s.ReviewResult(ctx, h.ID, true, t0.Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, h.ID, got.ID)
	assert.Equal(t, store.ReviewConfirmed, got.Review)
	assert.False(t, got.Flagged)
	assert.Equal(t, day, got.Day)
	assert.Equal(t, day, got.HeldDay)
	assert.Equal(t, 400, got.Score)
	assert.Equal(t, floorReason, got.Reason)
	hist, err := s.PlayerHistory(ctx, "h", 0)
	require.NoError(t, err)
	require.Len(t, hist, 1)
	assert.Equal(t, got, hist[0], "stored as returned")
	assert.Equal(t, 5, count(), "the day's count goes up by one")
	top, err := s.DailyTop(ctx, day, "hard", 10)
	require.NoError(t, err)
	assert.Equal(t, []string{"p00", "h", "p01", "p02", "y"}, ids(top))
	for _, e := range top {
		row, err := s.DailyAround(ctx, day, "hard", e.PlayerID, 0)
		require.NoError(t, err)
		require.Len(t, row, 1)
		assert.Equal(t, e.Rank, row[0].Rank, "the rank of %s", e.PlayerID)
	}
	around, err := s.DailyAround(ctx, day, "hard", "h", 1)
	require.NoError(t, err)
	assert.Equal(t, []string{"p00", "h", "p01"}, ids(around))
	assert.Equal(t, []int{1, 2, 3}, ranks(around))
	best, err = s.BestTimes(ctx, "hard", 10)
	require.NoError(t, err)
	assert.Equal(t, "h", best[0].PlayerID, "on the all-time board too")
	_, err = s.ReviewResult(ctx, h.ID, true, t0.Add(time.Hour))
	assert.ErrorIs(t, err, store.ErrNotFound, "no longer held")

	// Removed: x stays off the boards.
	got, err = s.ReviewResult(ctx, held[1].ID, false, t0.Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, store.ReviewRemoved, got.Review)
	assert.True(t, got.Flagged)
	assert.Equal(t, "", got.Day)
	assert.Equal(t, 5, count())
	_, err = s.ReviewResult(ctx, held[1].ID, true, t0.Add(time.Hour))
	assert.ErrorIs(t, err, store.ErrNotFound, "a removed result is not confirmed later")

	// y's would be a second result on the day's board: refused, unchanged.
	_, err = s.ReviewResult(ctx, held[2].ID, true, t0.Add(time.Hour))
	assert.ErrorIs(t, err, store.ErrConflict)
	still, err := s.HeldResults(ctx, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"ry2", "rz"}, rooms(still))
	assert.Equal(t, held[2], still[0], "nothing changes")
	assert.Equal(t, 5, count())
	top, err = s.DailyTop(ctx, day, "hard", 10)
	require.NoError(t, err)
	assert.Equal(t, []string{"p00", "h", "p01", "p02", "y"}, ids(top))

	// z's race finish goes on the all-time board only.
	got, err = s.ReviewResult(ctx, held[3].ID, true, t0.Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, "", got.Day)
	assert.False(t, got.Flagged)
	best, err = s.BestTimes(ctx, "hard", 10)
	require.NoError(t, err)
	assert.Equal(t, []string{"h", "z"}, ids(best))
	assert.Equal(t, 5, count())

	_, err = s.ReviewResult(ctx, 987654, true, t0)
	assert.ErrorIs(t, err, store.ErrNotFound)
	never, err := s.PlayerHistory(ctx, "p00", 1)
	require.NoError(t, err)
	require.Len(t, never, 1)
	_, err = s.ReviewResult(ctx, never[0].ID, false, t0)
	assert.ErrorIs(t, err, store.ErrNotFound, "a result never held")
	_, err = s.ReviewResult(ctx, held[2].ID, false, t0)
	require.NoError(t, err)
	still, err = s.HeldResults(ctx, 0)
	require.NoError(t, err)
	assert.Empty(t, still)
}
