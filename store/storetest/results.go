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

// mkResult stores a race result, or with a day a ranked daily result
// played on its day.
func mkResult(t *testing.T, s store.Store, roomID, player string, pz store.Puzzle, day string, score int, fin time.Time, elapsed time.Duration) {
	t.Helper()
	mode := room.ModeRace
	if day != "" {
		mode = room.ModeDaily
	}
	require.NoError(t, s.SaveResults(context.Background(), []store.Result{{
		RoomID: roomID, PlayerID: player, PuzzleID: pz.ID, Mode: mode, Level: pz.Level,
		Elapsed: elapsed, Mistakes: 1, Hints: 2, Score: score, FinishedAt: fin, Day: day, PlayedDay: day,
	}}))
}

func testResults(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "a")
	mkPlayer(t, s, "b")
	pz := mkPuzzle(t, s, 4, "hard")
	mkRoom(t, s, "r1", room.ModeRace, pz.ID, "a")
	mkRoom(t, s, "r2", room.ModeDaily, pz.ID, "a")
	mkRoom(t, s, "r3", room.ModeDaily, pz.ID, "a")
	mkResult(t, s, "r1", "a", pz, "", 500, t0, 90*time.Second)
	again := store.Result{RoomID: "r1", PlayerID: "a", PuzzleID: pz.ID, Mode: room.ModeRace, Level: "hard", Score: 900, FinishedAt: t0.Add(time.Hour)}
	require.NoError(t, s.SaveResults(ctx, []store.Result{again}), "a second result of the room and player is skipped")
	mkResult(t, s, "r2", "a", pz, "2026-11-21", 500, t0, 90*time.Second)
	err := s.SaveResults(ctx, []store.Result{{RoomID: "r3", PlayerID: "a", PuzzleID: pz.ID, Mode: room.ModeDaily, Level: "hard", FinishedAt: t0, Day: "2026-11-21"}})
	assert.ErrorIs(t, err, store.ErrConflict, "one daily result per day, level and player")
	mkResult(t, s, "r3", "b", pz, "2026-11-21", 400, t0, 80*time.Second)

	hist, err := s.PlayerHistory(ctx, "a", 10)
	require.NoError(t, err)
	require.Len(t, hist, 2, "one result per room and player")
	assert.NotZero(t, hist[1].ID)
	assert.Equal(t, 500, hist[1].Score, "the first result of the room and player is kept")
	assert.Equal(t, "r2", hist[0].RoomID, "newest first (ties: later id first)")
	assert.Equal(t, "2026-11-21", hist[0].Day)
	assert.Equal(t, "", hist[1].Day)
	assert.Equal(t, 90*time.Second, hist[1].Elapsed)
	assert.Equal(t, 1, hist[1].Mistakes)
	assert.Equal(t, 2, hist[1].Hints)
	assert.Equal(t, pz.ID, hist[1].PuzzleID)
	assert.Equal(t, "2026-11-21", hist[0].PlayedDay)
	assert.Equal(t, "", hist[1].PlayedDay)

	// A race's places in the room come back with each racer's result.
	mkRoom(t, s, "r5", room.ModeRace, pz.ID, "a")
	require.NoError(t, s.SaveResults(ctx, []store.Result{{RoomID: "r5", PlayerID: "b", PuzzleID: pz.ID, Mode: room.ModeRace, Level: "hard",
		Elapsed: time.Minute, FinishedAt: t0.Add(-time.Hour), RoomRank: 1}}))
	require.NoError(t, s.SaveResults(ctx, []store.Result{{RoomID: "r5", PlayerID: "a", PuzzleID: pz.ID, Mode: room.ModeRace, Level: "hard",
		Elapsed: 2 * time.Minute, FinishedAt: t0.Add(-time.Hour + time.Minute), RoomRank: 2}}))
	for player, want := range map[string]int{"a": 2, "b": 1} {
		hist, err := s.PlayerHistory(ctx, player, 0)
		require.NoError(t, err)
		require.NotEmpty(t, hist)
		last := hist[len(hist)-1]
		assert.Equal(t, "r5", last.RoomID, player)
		assert.Equal(t, want, last.RoomRank, "%s's place in the race", player)
	}

	// Every field comes back as it was stored.
	mkRoom(t, s, "r4", room.ModeDaily, pz.ID, "b")
	held := store.Result{RoomID: "r4", PlayerID: "b", PuzzleID: pz.ID, Mode: room.ModeDaily, Level: "hard",
		Elapsed: 3 * time.Second, Mistakes: 3, Hints: 4, Score: 77, FinishedAt: t0.Add(time.Hour + 5*time.Millisecond),
		Flagged: true, PlayedDay: "2026-11-22", AllTime: true, Review: store.ReviewHeld, Reason: "faster than the level's floor",
		HeldDay: "2026-11-22", RoomRank: 1}
	require.NoError(t, s.SaveResults(ctx, []store.Result{held}))
	hist, err = s.PlayerHistory(ctx, "b", 1)
	require.NoError(t, err)
	require.Len(t, hist, 1)
	assert.NotZero(t, hist[0].ID)
	held.ID = hist[0].ID
	assert.Equal(t, held, hist[0])
}

func testSaveResults(t *testing.T, s store.Store) {
	ctx := context.Background()
	for _, id := range []string{"a", "b", "c"} {
		mkPlayer(t, s, id)
	}
	pz := mkPuzzle(t, s, 5, "medium")
	mkRoom(t, s, "team", room.ModeCoop, pz.ID, "a")
	mkRoom(t, s, "d1", room.ModeDaily, pz.ID, "a")
	mkRoom(t, s, "d2", room.ModeDaily, pz.ID, "a")
	finish := func(room, mode, day string, players ...string) []store.Result {
		var rs []store.Result
		for i, p := range players {
			rs = append(rs, store.Result{RoomID: room, PlayerID: p, PuzzleID: pz.ID, Mode: mode, Level: pz.Level,
				Elapsed: 70 * time.Second, Mistakes: i, Hints: 1, Score: 1800 - i, FinishedAt: t0, Day: day})
		}
		return rs
	}
	count := func(player string) int {
		t.Helper()
		hist, err := s.PlayerHistory(ctx, player, 0)
		require.NoError(t, err)
		return len(hist)
	}

	team := finish("team", room.ModeCoop, "", "a", "b", "c")
	require.NoError(t, s.SaveResults(ctx, team))
	require.NoError(t, s.SaveResults(ctx, team), "a retried finish is a no-op")
	require.NoError(t, s.SaveResults(ctx, team[1:]), "so is part of one")
	for i, p := range []string{"a", "b", "c"} {
		hist, err := s.PlayerHistory(ctx, p, 0)
		require.NoError(t, err)
		require.Len(t, hist, 1, "stored once: %s", p)
		assert.Equal(t, i, hist[0].Mistakes)
		assert.Equal(t, 1800-i, hist[0].Score)
	}

	require.NoError(t, s.SaveResults(ctx, finish("d1", room.ModeDaily, "2026-11-21", "a")))
	// b's daily result would be new, a's breaks one daily result per day:
	// neither is stored.
	err := s.SaveResults(ctx, finish("d2", room.ModeDaily, "2026-11-21", "b", "a"))
	require.ErrorIs(t, err, store.ErrConflict)
	assert.Equal(t, 1, count("b"), "all of a finish or none")
	// A missing player is refused the same way, and rolls back the rest.
	err = s.SaveResults(ctx, finish("d2", room.ModeDaily, "2026-11-22", "c", "ghost"))
	require.ErrorIs(t, err, store.ErrInvalid)
	assert.Equal(t, 1, count("c"))
	err = s.SaveResults(ctx, finish("d2", room.ModeDaily, "2026-13-01", "c"))
	require.ErrorIs(t, err, store.ErrInvalid)
	require.NoError(t, s.SaveResults(ctx, nil), "an empty finish stores nothing")
}

// finish stores one player's finish in a room (made here when new), for
// the tests of a player's record.
type finish struct {
	room, player string
	pz           store.Puzzle
	mode         string
	rank         int
	elapsed      time.Duration
	at           time.Time
	flagged      bool
	playedDay    string
}

func (f finish) save(t *testing.T, s store.Store) {
	t.Helper()
	ctx := context.Background()
	if _, err := s.Room(ctx, f.room); err != nil {
		mkRoom(t, s, f.room, f.mode, f.pz.ID, f.player)
	}
	require.NoError(t, s.SaveResults(ctx, []store.Result{{
		RoomID: f.room, PlayerID: f.player, PuzzleID: f.pz.ID, Mode: f.mode, Level: f.pz.Level, Elapsed: f.elapsed,
		FinishedAt: f.at, RoomRank: f.rank, Flagged: f.flagged, PlayedDay: f.playedDay,
	}}))
}

// testTallies checks a player's counts by mode and level: a race won is
// first of two or more finishers, of the races contested (another
// player finished them too); co-op and flagged finishes are counted but
// not timed.
func testTallies(t *testing.T, s store.Store) {
	ctx := context.Background()
	for _, id := range []string{"a", "b"} {
		mkPlayer(t, s, id)
	}
	easy, hard := mkPuzzle(t, s, 21, "easy"), mkPuzzle(t, s, 22, "hard")
	for _, f := range []finish{
		{room: "r1", player: "a", pz: easy, mode: room.ModeRace, rank: 1, elapsed: 60 * time.Second},
		{room: "r1", player: "b", pz: easy, mode: room.ModeRace, rank: 2, elapsed: 90 * time.Second},
		// Alone in the race: first, and no win.
		{room: "r2", player: "a", pz: easy, mode: room.ModeRace, rank: 1, elapsed: 40 * time.Second},
		{room: "r3", player: "b", pz: hard, mode: room.ModeRace, rank: 1, elapsed: 150 * time.Second},
		{room: "r3", player: "a", pz: hard, mode: room.ModeRace, rank: 2, elapsed: 200 * time.Second},
		{room: "c1", player: "a", pz: easy, mode: room.ModeCoop, rank: 1, elapsed: 30 * time.Second},
		{room: "c1", player: "b", pz: easy, mode: room.ModeCoop, rank: 1, elapsed: 30 * time.Second},
		{room: "d1", player: "a", pz: easy, mode: room.ModeDaily, rank: 1, elapsed: 120 * time.Second, playedDay: "2026-11-20"},
		{room: "d2", player: "a", pz: hard, mode: room.ModeDaily, rank: 1, elapsed: 10 * time.Second, flagged: true},
	} {
		f.at = t0
		f.save(t, s)
	}
	got, err := s.PlayerTallies(ctx, "a")
	require.NoError(t, err)
	assert.ElementsMatch(t, []store.Tally{
		{Mode: room.ModeRace, Level: "easy", Finished: 2, Won: 1, Contested: 1, Timed: 2, Best: 40 * time.Second, Total: 100 * time.Second},
		{Mode: room.ModeRace, Level: "hard", Finished: 1, Won: 0, Contested: 1, Timed: 1, Best: 200 * time.Second, Total: 200 * time.Second},
		{Mode: room.ModeCoop, Level: "easy", Finished: 1},
		{Mode: room.ModeDaily, Level: "easy", Finished: 1, Timed: 1, Best: 120 * time.Second, Total: 120 * time.Second},
		{Mode: room.ModeDaily, Level: "hard", Finished: 1},
	}, got)
	got, err = s.PlayerTallies(ctx, "b")
	require.NoError(t, err)
	assert.ElementsMatch(t, []store.Tally{
		{Mode: room.ModeRace, Level: "easy", Finished: 1, Contested: 1, Timed: 1, Best: 90 * time.Second, Total: 90 * time.Second},
		{Mode: room.ModeRace, Level: "hard", Finished: 1, Won: 1, Contested: 1, Timed: 1, Best: 150 * time.Second, Total: 150 * time.Second},
		{Mode: room.ModeCoop, Level: "easy", Finished: 1},
	}, got)
	got, err = s.PlayerTallies(ctx, "nobody")
	require.NoError(t, err)
	assert.Empty(t, got)
}

// testDailiesSolved checks the finishes of a span's dailies: found by the
// daily's puzzle in any room, on its day or from the archive, and none
// outside the span or of another player.
func testDailiesSolved(t *testing.T, s store.Store) {
	ctx := context.Background()
	for _, id := range []string{"a", "b"} {
		mkPlayer(t, s, id)
	}
	pz := map[string]store.Puzzle{}
	for i, d := range []struct{ day, level string }{
		{"2026-10-31", "easy"}, {"2026-11-01", "easy"}, {"2026-11-01", "hard"}, {"2026-11-02", "easy"}, {"2026-12-01", "easy"},
	} {
		p := mkPuzzle(t, s, 31+i, d.level)
		_, err := s.SetDaily(ctx, store.Daily{Day: d.day, Level: d.level, PuzzleID: p.ID})
		require.NoError(t, err)
		pz[d.day+" "+d.level] = p
	}
	other := mkPuzzle(t, s, 40, "easy")
	for _, f := range []finish{
		{room: "oct31", player: "a", pz: pz["2026-10-31 easy"], mode: room.ModeDaily, elapsed: time.Minute, at: t0, playedDay: "2026-10-31"},
		{room: "nov1", player: "a", pz: pz["2026-11-01 easy"], mode: room.ModeDaily, elapsed: 3 * time.Minute, at: t0, playedDay: "2026-11-01"},
		// The same daily again from the archive, faster, and in a race.
		{room: "nov1b", player: "a", pz: pz["2026-11-01 easy"], mode: room.ModeRace, rank: 2, elapsed: 2 * time.Minute, at: t0.Add(time.Hour)},
		{room: "nov2", player: "a", pz: pz["2026-11-02 easy"], mode: room.ModeDaily, elapsed: 4 * time.Minute, at: t0.Add(2 * time.Hour)},
		{room: "dec1", player: "a", pz: pz["2026-12-01 easy"], mode: room.ModeDaily, elapsed: time.Minute, at: t0, playedDay: "2026-12-01"},
		{room: "nov1h", player: "b", pz: pz["2026-11-01 hard"], mode: room.ModeDaily, elapsed: 5 * time.Minute, at: t0, playedDay: "2026-11-01"},
		{room: "race", player: "a", pz: other, mode: room.ModeRace, rank: 1, elapsed: time.Minute, at: t0},
	} {
		f.save(t, s)
	}
	got, err := s.DailiesSolved(ctx, "a", "2026-11-01", "2026-11-30")
	require.NoError(t, err)
	assert.Equal(t, []store.SolvedDaily{
		{Day: "2026-11-01", Level: "easy", Elapsed: 3 * time.Minute, OnDay: true, FinishedAt: t0},
		{Day: "2026-11-01", Level: "easy", Elapsed: 2 * time.Minute, FinishedAt: t0.Add(time.Hour)},
		{Day: "2026-11-02", Level: "easy", Elapsed: 4 * time.Minute, FinishedAt: t0.Add(2 * time.Hour)},
	}, got)
	got, err = s.DailiesSolved(ctx, "b", "2026-10-01", "2026-12-01")
	require.NoError(t, err)
	assert.Equal(t, []store.SolvedDaily{{Day: "2026-11-01", Level: "hard", Elapsed: 5 * time.Minute, OnDay: true, FinishedAt: t0}}, got)
	got, err = s.DailiesSolved(ctx, "nobody", "2026-11-01", "2026-11-30")
	require.NoError(t, err)
	assert.Empty(t, got)
	for _, span := range [][2]string{{"2026-11-01", "2027-01-02"}, {"2026-11-02", "2026-11-01"}, {"2026-11-31", "2026-12-01"}, {"2026-11-01", ""}} {
		_, err := s.DailiesSolved(ctx, "a", span[0], span[1])
		assert.ErrorIs(t, err, store.ErrInvalid, "%s to %s", span[0], span[1])
	}
}

// testHistoryPages reads a player's history a page at a time: each page
// starts after the last result of the one before, ties on the time going
// by id as PlayerHistory orders them, and another player's results never
// show.
func testHistoryPages(t *testing.T, s store.Store) {
	ctx := context.Background()
	for _, id := range []string{"a", "b"} {
		mkPlayer(t, s, id)
	}
	pz := mkPuzzle(t, s, 23, "easy")
	// Seven finishes of a's, two of them at the same moment, and b's
	// among them.
	ats := []time.Duration{0, time.Minute, 2 * time.Minute, 2 * time.Minute, 3 * time.Minute, 5 * time.Minute, 8 * time.Minute}
	for i, at := range ats {
		finish{room: fmt.Sprintf("h%d", i), player: "a", pz: pz, mode: room.ModeRace, rank: 1, elapsed: time.Minute, at: t0.Add(at)}.save(t, s)
		finish{room: fmt.Sprintf("g%d", i), player: "b", pz: pz, mode: room.ModeRace, rank: 1, elapsed: time.Minute, at: t0.Add(at)}.save(t, s)
	}
	all, err := s.PlayerHistory(ctx, "a", 0)
	require.NoError(t, err)
	require.Len(t, all, len(ats))
	var paged []store.Result
	// Pages of two: the second ends between the two at the same moment.
	page, err := s.PlayerHistory(ctx, "a", 2)
	require.NoError(t, err)
	for len(page) > 0 {
		assert.LessOrEqual(t, len(page), 2)
		paged = append(paged, page...)
		last := page[len(page)-1]
		page, err = s.PlayerHistoryBefore(ctx, "a", last.FinishedAt, last.ID, 2)
		require.NoError(t, err)
	}
	assert.Equal(t, all, paged, "the pages together are the history, each result once")
	for _, r := range paged {
		assert.Equal(t, "a", r.PlayerID)
	}
	rest, err := s.PlayerHistoryBefore(ctx, "a", all[3].FinishedAt, all[3].ID, 0)
	require.NoError(t, err)
	assert.Equal(t, all[4:], rest, "no limit: all the older ones")
}
