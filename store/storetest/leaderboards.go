package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
)

// seedBoard stores a day's results for players p00..p(n-1) with the given
// scores and finish offsets, each in a room of its own.
func seedBoard(t *testing.T, s store.Store, day string, pz store.Puzzle, scores []int, finishes []time.Duration) {
	t.Helper()
	for i := range scores {
		id := fmt.Sprintf("p%02d", i)
		mkPlayer(t, s, id)
		mkRoom(t, s, "room-"+day+"-"+id, room.ModeDaily, pz.ID, id)
		mkResult(t, s, "room-"+day+"-"+id, id, pz, day, scores[i], t0.Add(finishes[i]), time.Duration(60+i)*time.Second)
	}
}

func ids(es []store.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.PlayerID)
	}
	return out
}

func ranks(es []store.Entry) []int {
	var out []int
	for _, e := range es {
		out = append(out, e.Rank)
	}
	return out
}

func testLeaderboard(t *testing.T, s store.Store) {
	ctx := context.Background()
	pz := mkPuzzle(t, s, 7, "medium")
	// p01 and p02 tie on score; p02 finished first. p03 and p04 tie on
	// score and finish: the player id decides.
	scores := []int{100, 300, 300, 200, 200, 50}
	fin := []time.Duration{0, 5 * time.Second, 2 * time.Second, time.Second, time.Second, 0}
	seedBoard(t, s, "2026-11-21", pz, scores, fin)
	top, err := s.DailyTop(ctx, "2026-11-21", "medium", 10)
	require.NoError(t, err)
	assert.Equal(t, []string{"p02", "p01", "p03", "p04", "p00", "p05"}, ids(top))
	assert.Equal(t, []int{1, 2, 3, 4, 5, 6}, ranks(top))
	assert.Equal(t, "Player p02", top[0].Name)
	assert.Equal(t, 300, top[0].Score)
	assert.Equal(t, 62*time.Second, top[0].Elapsed)
	top3, err := s.DailyTop(ctx, "2026-11-21", "medium", 3)
	require.NoError(t, err)
	assert.Equal(t, []string{"p02", "p01", "p03"}, ids(top3))
	other, err := s.DailyTop(ctx, "2026-11-21", "hard", 10)
	require.NoError(t, err)
	assert.Empty(t, other, "levels do not mix")
	n, err := s.DailyCount(ctx, "2026-11-21", "medium")
	require.NoError(t, err)
	assert.Equal(t, 6, n)
	n, err = s.DailyCount(ctx, "2026-11-21", "hard")
	require.NoError(t, err)
	assert.Zero(t, n)
	_, err = s.DailyCount(ctx, "21/11/2026", "medium")
	assert.ErrorIs(t, err, store.ErrInvalid)
}

func testAround(t *testing.T, s store.Store) {
	ctx := context.Background()
	pz := mkPuzzle(t, s, 8, "hard")
	var scores []int
	var fin []time.Duration
	for i := 0; i < 30; i++ {
		scores = append(scores, 1000-i*10)
		fin = append(fin, time.Duration(i)*time.Second)
	}
	seedBoard(t, s, "2026-11-20", pz, scores, fin)
	around, err := s.DailyAround(ctx, "2026-11-20", "hard", "p10", 3)
	require.NoError(t, err)
	assert.Equal(t, []string{"p07", "p08", "p09", "p10", "p11", "p12", "p13"}, ids(around))
	assert.Equal(t, []int{8, 9, 10, 11, 12, 13, 14}, ranks(around))
	head, err := s.DailyAround(ctx, "2026-11-20", "hard", "p01", 3)
	require.NoError(t, err)
	assert.Equal(t, []string{"p00", "p01", "p02", "p03", "p04"}, ids(head), "clipped at the top")
	assert.Equal(t, 1, head[0].Rank)
	tail, err := s.DailyAround(ctx, "2026-11-20", "hard", "p29", 2)
	require.NoError(t, err)
	assert.Equal(t, []string{"p27", "p28", "p29"}, ids(tail), "clipped at the bottom")
	assert.Equal(t, 30, tail[2].Rank)
	_, err = s.DailyAround(ctx, "2026-11-20", "hard", "nobody", 3)
	assert.ErrorIs(t, err, store.ErrNotFound)

	// Scores far apart (a daily's are near 2,000,000,000, in ms), with
	// ties: every rank is still one plus the rows ahead.
	// The players of the day before play again.
	for i := range 30 {
		id, rm := fmt.Sprintf("p%02d", i), fmt.Sprintf("room-2026-11-19-p%02d", i)
		mkRoom(t, s, rm, room.ModeDaily, pz.ID, id)
		mkResult(t, s, rm, id, pz, "2026-11-19", 2_000_000_000-(i/2)*70_001-i%3, t0.Add(time.Duration(i%2)*time.Second), time.Minute)
	}
	top, err := s.DailyTop(ctx, "2026-11-19", "hard", 30)
	require.NoError(t, err)
	require.Len(t, top, 30)
	for _, e := range top {
		row, err := s.DailyAround(ctx, "2026-11-19", "hard", e.PlayerID, 0)
		require.NoError(t, err)
		require.Len(t, row, 1)
		assert.Equal(t, e.Rank, row[0].Rank, "the rank of %s", e.PlayerID)
	}

	// DailyRanks reads a player's ranks on several boards at once, as
	// DailyAround gives each: 0 on a board without the player's result.
	boards := []store.Board{{Day: "2026-11-19", Level: "hard"}, {Day: "2026-11-20", Level: "hard"},
		{Day: "2026-11-20", Level: "easy"}, {Day: "2026-11-18", Level: "hard"}, {Day: "2026-11-19", Level: "hard"}}
	for _, id := range []string{"p00", "p07", "p16", "p29"} {
		want := make([]int, len(boards))
		for i, b := range boards {
			if row, err := s.DailyAround(ctx, b.Day, b.Level, id, 0); err == nil {
				want[i] = row[0].Rank
			}
		}
		got, err := s.DailyRanks(ctx, id, boards)
		require.NoError(t, err)
		assert.Equal(t, want, got, "the ranks of %s", id)
		assert.Positive(t, got[0]*got[1], "%s is on both hard boards", id)
	}
	got, err := s.DailyRanks(ctx, "nobody", boards)
	require.NoError(t, err)
	assert.Equal(t, make([]int, len(boards)), got)
	got, err = s.DailyRanks(ctx, "p00", nil)
	require.NoError(t, err)
	assert.Empty(t, got)
	_, err = s.DailyRanks(ctx, "p00", []store.Board{{Day: "2026-11-31", Level: "hard"}})
	assert.ErrorIs(t, err, store.ErrInvalid)
}

func testStreaks(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "a")
	pz := mkPuzzle(t, s, 9, "easy")
	pz2 := mkPuzzle(t, s, 10, "medium")
	days := []string{"2026-11-01", "2026-11-02", "2026-11-03", "2026-11-04", "2026-11-10", "2026-11-19", "2026-11-20"}
	for _, d := range days {
		mkRoom(t, s, "d"+d, room.ModeDaily, pz.ID, "a")
		mkResult(t, s, "d"+d, "a", pz, d, 10, t0, time.Minute)
	}
	// Two levels on one day count once.
	mkRoom(t, s, "dm", room.ModeDaily, pz2.ID, "a")
	mkResult(t, s, "dm", "a", pz2, "2026-11-20", 10, t0, time.Minute)

	st, err := s.PlayerStreak(ctx, "a", "2026-11-21")
	require.NoError(t, err)
	assert.Equal(t, store.Streak{Current: 2, Longest: 4, LastDay: "2026-11-20"}, st, "today not yet played: the run to yesterday counts")
	st, err = s.PlayerStreak(ctx, "a", "2026-11-22")
	require.NoError(t, err)
	assert.Equal(t, 0, st.Current, "a missed day breaks the streak")
	assert.Equal(t, 4, st.Longest)
	st, err = s.PlayerStreak(ctx, "a", "2026-11-03")
	require.NoError(t, err)
	assert.Equal(t, store.Streak{Current: 3, Longest: 3, LastDay: "2026-11-03"}, st, "days after today are not counted")
	// Month boundary.
	mkRoom(t, s, "dec1", room.ModeDaily, pz.ID, "a")
	mkResult(t, s, "dec1", "a", pz, "2026-10-31", 10, t0, time.Minute)
	st, err = s.PlayerStreak(ctx, "a", "2026-11-04")
	require.NoError(t, err)
	assert.Equal(t, 5, st.Current)
	st, err = s.PlayerStreak(ctx, "nobody", "2026-11-04")
	require.NoError(t, err)
	assert.Equal(t, store.Streak{}, st)

	// A finish of the day's daily on its day counts, ranked or not (an
	// unranked one has no leaderboard day); one on an archive day does not.
	mkRoom(t, s, "unranked", room.ModeDaily, pz.ID, "a")
	require.NoError(t, s.SaveResults(ctx, []store.Result{{RoomID: "unranked", PlayerID: "a", PuzzleID: pz.ID, Mode: room.ModeDaily,
		Level: "easy", Elapsed: time.Minute, FinishedAt: t0, PlayedDay: "2026-11-05"}}))
	mkRoom(t, s, "archive", room.ModeDaily, pz2.ID, "a")
	require.NoError(t, s.SaveResults(ctx, []store.Result{{RoomID: "archive", PlayerID: "a", PuzzleID: pz2.ID, Mode: room.ModeDaily,
		Level: "medium", Elapsed: time.Minute, FinishedAt: t0}}))
	st, err = s.PlayerStreak(ctx, "a", "2026-11-06")
	require.NoError(t, err)
	assert.Equal(t, store.Streak{Current: 6, Longest: 6, LastDay: "2026-11-05"}, st, "the unranked finish on its day counts")

	// PlayedOn is the finishes of a day's dailies on that day, ranked or
	// not, of every level, oldest first.
	on, err := s.PlayedOn(ctx, "a", "2026-11-20")
	require.NoError(t, err)
	assert.Equal(t, []string{"d2026-11-20", "dm"}, rooms(on))
	assert.Equal(t, []string{"2026-11-20", "2026-11-20"}, []string{on[0].Day, on[1].PlayedDay})
	on, err = s.PlayedOn(ctx, "a", "2026-11-05")
	require.NoError(t, err)
	assert.Equal(t, []string{"unranked"}, rooms(on))
	assert.Equal(t, "", on[0].Day)
	on, err = s.PlayedOn(ctx, "a", "2026-11-06")
	require.NoError(t, err)
	assert.Empty(t, on)
	_, err = s.PlayedOn(ctx, "a", "2026-11-5")
	assert.ErrorIs(t, err, store.ErrInvalid)
}

func testBestTimes(t *testing.T, s store.Store) {
	ctx := context.Background()
	pz := mkPuzzle(t, s, 11, "expert")
	for _, p := range []string{"a", "b", "c"} {
		mkPlayer(t, s, p)
	}
	// Results count on the all-time board when AllTime (never co-op).
	add := func(roomID, player string, mode string, secs int, fin time.Duration) {
		mkRoom(t, s, roomID, mode, pz.ID, player)
		require.NoError(t, s.SaveResults(ctx, []store.Result{{RoomID: roomID, PlayerID: player, PuzzleID: pz.ID, Mode: mode, Level: "expert",
			Elapsed: time.Duration(secs) * time.Second, FinishedAt: t0.Add(fin), AllTime: mode != room.ModeCoop}}))
	}
	add("1", "a", room.ModeRace, 300, 0)
	add("2", "a", room.ModeRace, 200, time.Hour) // a's best
	add("3", "b", room.ModeRace, 200, 0)         // ties a's best, finished earlier
	add("4", "c", room.ModeCoop, 10, 0)          // co-op times are a team's, not counted
	add("5", "c", room.ModeRace, 400, 0)
	// A finish that is not for the all-time board (a solo race, say) does
	// not count, however fast.
	mkRoom(t, s, "solo", room.ModeRace, pz.ID, "c")
	require.NoError(t, s.SaveResults(ctx, []store.Result{{RoomID: "solo", PlayerID: "c", PuzzleID: pz.ID, Mode: room.ModeRace, Level: "expert",
		Elapsed: 5 * time.Second, FinishedAt: t0}}))
	// A finish under the level's floor is kept, flagged, and counts on no
	// board.
	mkRoom(t, s, "6", room.ModeDaily, pz.ID, "c")
	require.NoError(t, s.SaveResults(ctx, []store.Result{{RoomID: "6", PlayerID: "c", PuzzleID: pz.ID, Mode: room.ModeDaily, Level: "expert",
		Elapsed: time.Second, FinishedAt: t0.Add(2 * time.Hour), Flagged: true, AllTime: true}}))
	hist, err := s.PlayerHistory(ctx, "c", 1)
	require.NoError(t, err)
	require.Len(t, hist, 1)
	assert.True(t, hist[0].Flagged)
	mine, err := s.PlayerBest(ctx, "a")
	require.NoError(t, err)
	require.Len(t, mine, 1)
	assert.Equal(t, "2", mine[0].RoomID, "a's fastest")
	assert.Equal(t, 200*time.Second, mine[0].Elapsed)
	assert.Equal(t, "expert", mine[0].Level)
	mine, err = s.PlayerBest(ctx, "c")
	require.NoError(t, err)
	require.Len(t, mine, 1)
	assert.Equal(t, "5", mine[0].RoomID, "neither co-op, nor a finish off the all-time board, nor a flagged one counts")
	mine, err = s.PlayerBest(ctx, "nobody")
	require.NoError(t, err)
	assert.Empty(t, mine)
	best, err := s.BestTimes(ctx, "expert", 10)
	require.NoError(t, err)
	assert.Equal(t, []string{"b", "a", "c"}, ids(best))
	assert.Equal(t, []int{1, 2, 3}, ranks(best))
	assert.Equal(t, 200*time.Second, best[1].Elapsed)
	assert.Equal(t, 400*time.Second, best[2].Elapsed)
}

func testGuests(t *testing.T, s store.Store) {
	ctx := context.Background()
	day := "2026-11-21"
	pz := mkPuzzle(t, s, 12, "easy")
	seedBoard(t, s, day, pz, []int{300, 200, 100}, []time.Duration{0, 0, 0}) // p00, p01, p02
	mkAccount(t, s, "p01")
	for i, p := range []string{"p00", "p01", "p02"} {
		rm := "race-" + p
		mkRoom(t, s, rm, room.ModeRace, pz.ID, p)
		require.NoError(t, s.SaveResults(ctx, []store.Result{{RoomID: rm, PlayerID: p, PuzzleID: pz.ID, Mode: room.ModeRace, Level: "easy",
			Elapsed: time.Duration(30+i) * time.Second, FinishedAt: t0, AllTime: true}}))
	}
	guests := func(es []store.Entry) []bool {
		var out []bool
		for _, e := range es {
			out = append(out, e.Guest)
		}
		return out
	}
	want := []bool{true, false, true}
	top, err := s.DailyTop(ctx, day, "easy", 10)
	require.NoError(t, err)
	assert.Equal(t, []string{"p00", "p01", "p02"}, ids(top))
	assert.Equal(t, want, guests(top))
	around, err := s.DailyAround(ctx, day, "easy", "p01", 1)
	require.NoError(t, err)
	assert.Equal(t, []string{"p00", "p01", "p02"}, ids(around))
	assert.Equal(t, want, guests(around))
	best, err := s.BestTimes(ctx, "easy", 10)
	require.NoError(t, err)
	assert.Equal(t, []string{"p00", "p01", "p02"}, ids(best))
	assert.Equal(t, want, guests(best))
}
