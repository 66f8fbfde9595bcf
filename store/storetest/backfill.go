package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/store"
)

// BackfillDay is the day of the ranked daily result that the rows of
// CheckAccountsBackfill hold.
const BackfillDay = "2026-11-20"

// CheckAccountsBackfill checks what the accounts migration (PostgreSQL's
// 000009, SQLite's 000006) made of rows stored before it. Each store's
// test writes them with the schema before, on an "easy" puzzle: players
// "old1" and "old2"; old1's results in rooms "daily" (ranked on
// BackfillDay, 60 s), "coop" (10 s), "flagged" (a daily finish under the
// floor, off the board, 1 s) and "race" (50 s).
func CheckAccountsBackfill(t *testing.T, s store.Store) {
	ctx := context.Background()
	old1, err := s.Player(ctx, "old1")
	require.NoError(t, err)
	old2, err := s.Player(ctx, "old2")
	require.NoError(t, err)
	assert.False(t, old1.Account(), "players were guests")
	assert.NotEqual(t, old1.Seed, old2.Seed, "each player draws a seed")
	assert.NotZero(t, old1.Seed)

	hist, err := s.PlayerHistory(ctx, "old1", 0)
	require.NoError(t, err)
	byRoom := map[string]store.Result{}
	for _, r := range hist {
		byRoom[r.RoomID] = r
	}
	require.Len(t, byRoom, 4)
	daily := byRoom["daily"]
	assert.Equal(t, BackfillDay, daily.Day)
	assert.Equal(t, BackfillDay, daily.PlayedDay, "a ranked daily was played on its day")
	assert.True(t, daily.AllTime)
	assert.Equal(t, store.ReviewNone, daily.Review)
	assert.False(t, byRoom["coop"].AllTime, "co-op is on no all-time board")
	assert.Equal(t, "", byRoom["coop"].PlayedDay)
	assert.True(t, byRoom["race"].AllTime)
	flagged := byRoom["flagged"]
	assert.True(t, flagged.Flagged)
	assert.False(t, flagged.AllTime)
	assert.Equal(t, store.ReviewHeld, flagged.Review, "flagged finishes are held")
	assert.Equal(t, "faster than the level's floor", flagged.Reason)
	assert.Equal(t, "", flagged.HeldDay)

	// The boards are as they were.
	best, err := s.BestTimes(ctx, "easy", 10)
	require.NoError(t, err)
	require.Len(t, best, 1)
	assert.Equal(t, "old1", best[0].PlayerID)
	assert.Equal(t, 50*time.Second, best[0].Elapsed)
	assert.True(t, best[0].Guest)
	top, err := s.DailyTop(ctx, BackfillDay, "easy", 10)
	require.NoError(t, err)
	assert.Equal(t, []string{"old1"}, ids(top))
	n, err := s.DailyCount(ctx, BackfillDay, "easy")
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	held, err := s.HeldResults(ctx, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"flagged"}, rooms(held))
	st, err := s.PlayerStreak(ctx, "old1", BackfillDay)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Current)
	// The ranked daily's attempt is over: a later one is unranked.
	a, err := s.Attempt(ctx, "old1", BackfillDay, "easy")
	require.NoError(t, err)
	assert.True(t, a.FinishedAt.Equal(daily.FinishedAt), "finished by the ranked result")
	assert.True(t, a.StartedAt.Equal(daily.FinishedAt.Add(-daily.Elapsed)), "begun its time before")
	_, err = s.Attempt(ctx, "old1", BackfillDay, "medium")
	assert.ErrorIs(t, err, store.ErrNotFound, "none where no ranked result was")
}

// CheckRoomRankBackfill checks what the room rank migration (PostgreSQL's
// 000010, SQLite's 000007) made of results stored before it. Each store's
// test writes them with the schema before, on an "easy" puzzle: players
// "old1" and "old2"; a race "race2" that old2 finished first (at the
// earlier finished_at) and old1 second, and a co-op room "coop2" that
// both finished as a team.
func CheckRoomRankBackfill(t *testing.T, s store.Store) {
	ctx := context.Background()
	want := map[string]map[string]int{
		"old1": {"race2": 2, "coop2": 1},
		"old2": {"race2": 1, "coop2": 1},
	}
	for player, rooms := range want {
		hist, err := s.PlayerHistory(ctx, player, 0)
		require.NoError(t, err)
		got := map[string]int{}
		for _, r := range hist {
			got[r.RoomID] = r.RoomRank
		}
		assert.Equal(t, rooms, got, "%s's places in their rooms", player)
	}
}
