package room_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/room/roomtest"
)

// welcomeOf is the welcome frame a connection got.
func welcomeOf(t *testing.T, c *conn) protocol.Welcome {
	t.Helper()
	var w protocol.Welcome
	require.NoError(t, json.Unmarshal(c.await(t, protocol.TypeWelcome, nil), &w))
	require.NotNil(t, w.Room)
	return w
}

// playDaily makes a room of the mode on the daily of day, joins player id
// and returns the room, its connection and the puzzle.
func playDaily(t *testing.T, reg *room.Registry, st *roomtest.Store, mode, day, id string) (*room.Room, *conn, room.Puzzle) {
	t.Helper()
	ctx := context.Background()
	r, err := reg.CreateDaily(ctx, mode, "easy", day)
	require.NoError(t, err)
	c := newConn()
	require.NoError(t, r.Attach(ctx, room.Join{ID: id, Name: "Name " + id}, c))
	pz, ok := st.Puzzle(r.ID())
	require.True(t, ok)
	return r, c, pz
}

// resultOf waits for the player's result in the game to be stored.
func resultOf(t *testing.T, st *roomtest.Store, gameID, player string) room.Result {
	t.Helper()
	var got room.Result
	require.Eventually(t, func() bool {
		for _, r := range st.Results() {
			if r.GameID == gameID && r.PlayerID == player {
				got = r
				return true
			}
		}
		return false
	}, 5*time.Second, time.Millisecond)
	return got
}

// A daily room runs from the player's join, with no start: the welcome
// carries the board, the date and the clock's start; a second player is
// refused, there is no rematch, and the finish is ranked with its time.
func TestDailyRoomRunsFromTheJoinAndRanksTheFirstFinish(t *testing.T) {
	reg, st, clock := registry(t, room.RegistryConfig{})
	ctx := context.Background()
	today := reg.Today()
	require.Equal(t, "2026-03-01", today)
	r, c, pz := playDaily(t, reg, st, room.ModeDaily, today, "p_a")

	w := welcomeOf(t, c)
	assert.Equal(t, room.ModeDaily, w.Room.Mode)
	assert.Equal(t, today, w.Room.Date)
	assert.Equal(t, protocol.PhaseRunning, w.Room.Phase)
	require.NotNil(t, w.Room.StartedAt)
	assert.Equal(t, clock.Now(), *w.Room.StartedAt, "the clock starts as the board is sent")
	assert.Equal(t, pz.Givens.String(), w.Room.Board)
	assert.Empty(t, w.Room.Solution)
	require.Len(t, w.Room.Players, 1)
	require.NotNil(t, w.Room.Players[0].Ranked)
	assert.True(t, *w.Room.Players[0].Ranked)
	assert.Zero(t, w.Room.HintPenaltyMS, "a daily's hint costs time, not a freeze")

	err := r.Attach(ctx, room.Join{ID: "p_b", Name: "Bob"}, newConn())
	var rerr *protocol.Error
	require.ErrorAs(t, err, &rerr)
	assert.Equal(t, protocol.CodeGameStarted, rerr.Code)
	require.NoError(t, r.Attach(ctx, room.Join{ID: "s_1", Name: "Sam", Spectator: true}, newConn()), "spectators may watch")

	// A wrong digit is not told while the game runs.
	wrong := -1
	for cell, g := range pz.Givens {
		if g == 0 {
			wrong = cell
			break
		}
	}
	d := int(pz.Solution[wrong])%9 + 1
	for !okDigit(pz, wrong, d) {
		d = d%9 + 1
	}
	if d != int(pz.Solution[wrong]) {
		require.NoError(t, r.Message(ctx, "p_a", c, &protocol.Msg{Type: protocol.TypeMove, Cell: &wrong, Digit: &d}, time.Now()))
	}
	snap, err := r.Snapshot(ctx)
	require.NoError(t, err)
	assert.Nil(t, snap.Players[0].Mistakes, "no live word on a digit")
	require.NotNil(t, snap.Players[0].Ranked)
	assert.True(t, *snap.Players[0].Ranked, "outsiders see that the attempt is ranked")

	clock.Advance(4 * time.Minute)
	settle(t, r)
	solve(t, r, pz, "p_a", c, 0)
	res := resultOf(t, st, r.ID(), "p_a")
	assert.Equal(t, today, res.Day)
	assert.True(t, res.Ranked)
	assert.False(t, res.Flagged)
	assert.Equal(t, 4*time.Minute, res.Elapsed)
	mistakes := 0
	if d != int(pz.Solution[wrong]) {
		mistakes = 1
	}
	assert.Equal(t, mistakes, res.Mistakes)
	assert.Equal(t, 4*time.Minute+time.Duration(mistakes)*room.DailyMistakePenalty, res.Time())

	c.await(t, protocol.TypeFinish, finishOf("p_a"))
	// The finisher's own final state keeps the givens and their board,
	// though not the solution, which others may still be playing for.
	var final protocol.State
	require.NoError(t, json.Unmarshal(c.await(t, protocol.TypeState, func(data []byte) bool {
		var st protocol.State
		return json.Unmarshal(data, &st) == nil && st.Room.Phase == protocol.PhaseFinished
	}), &final))
	assert.Equal(t, pz.Givens.String(), final.Room.Givens)
	assert.Equal(t, pz.Solution.String(), final.Room.Board, "the finisher sees their own solved board")
	assert.Empty(t, final.Room.Solution)
	require.Eventually(t, func() bool {
		s, err := r.Snapshot(ctx)
		return err == nil && s.Phase == protocol.PhaseFinished && s.Solution == ""
	}, 5*time.Second, time.Millisecond, "over, and today's solution still hidden from everyone else")
	require.NoError(t, r.Message(ctx, "p_a", c, &protocol.Msg{Type: protocol.TypeRematch}, time.Now()))
	var e protocol.ErrorEvent
	require.NoError(t, json.Unmarshal(c.await(t, protocol.TypeError, nil), &e))
	assert.Equal(t, protocol.CodeNotFinished, e.Code, "a daily has no rematch")
}

// okDigit reports whether d in cell clashes with no given.
func okDigit(pz room.Puzzle, cell, d int) bool {
	for other, g := range pz.Givens {
		if g == 0 || other == cell {
			continue
		}
		sameRow, sameCol := other/9 == cell/9, other%9 == cell%9
		sameBox := other/27 == cell/27 && other%9/3 == cell%9/3
		if (sameRow || sameCol || sameBox) && int(g) == d {
			return false
		}
	}
	return true
}

// A player's second attempt at a day's daily is played the same way but
// unranked, and says so from the welcome; so is every attempt on an
// archive day, and a finish under the level's floor is held for review.
func TestDailyLaterAttemptsArchiveDaysAndTooFastFinishesAreUnranked(t *testing.T) {
	reg, st, clock := registry(t, room.RegistryConfig{})
	today := reg.Today()

	first, c, pz := playDaily(t, reg, st, room.ModeDaily, today, "p_a")
	clock.Advance(5 * time.Minute)
	settle(t, first)
	solve(t, first, pz, "p_a", c, 0)
	assert.True(t, resultOf(t, st, first.ID(), "p_a").Ranked)

	second, c2, pz2 := playDaily(t, reg, st, room.ModeDaily, today, "p_a")
	assert.Equal(t, pz, pz2, "the same day and level is the same puzzle")
	w := welcomeOf(t, c2)
	require.NotNil(t, w.Room.Players[0].Ranked)
	assert.False(t, *w.Room.Players[0].Ranked, "a second attempt says it is unranked")
	clock.Advance(3 * time.Minute)
	settle(t, second)
	solve(t, second, pz, "p_a", c2, 0)
	res := resultOf(t, st, second.ID(), "p_a")
	assert.False(t, res.Ranked)
	assert.Equal(t, today, res.Day)

	yesterday := clock.Now().AddDate(0, 0, -1).Format(room.DayLayout)
	archive, c3, pz3 := playDaily(t, reg, st, room.ModeDaily, yesterday, "p_b")
	w = welcomeOf(t, c3)
	assert.Equal(t, yesterday, w.Room.Date)
	assert.False(t, *w.Room.Players[0].Ranked, "an archive day is unranked")
	assert.NotEqual(t, pz.Givens, pz3.Givens, "another day is another puzzle")
	clock.Advance(5 * time.Minute)
	settle(t, archive)
	solve(t, archive, pz3, "p_b", c3, 0)
	assert.False(t, resultOf(t, st, archive.ID(), "p_b").Ranked)

	fast, c4, pz4 := playDaily(t, reg, st, room.ModeDaily, today, "p_c")
	clock.Advance(room.LevelFloor("easy") - time.Second)
	settle(t, fast)
	solve(t, fast, pz4, "p_c", c4, 0)
	res = resultOf(t, st, fast.ID(), "p_c")
	assert.True(t, res.Ranked, "a finish under the floor would rank")
	assert.Equal(t, room.HoldLevelFloor, res.Held, "and is held for review")
	assert.False(t, res.Flagged)
}

// A server's FloorPercent moves the level's floor: at 50 a daily finished
// in 59 s is not held for it (the default's 60 s), and one in 29 s is.
func TestDailyFloorFollowsFloorPercent(t *testing.T) {
	reg, st, clock := registry(t, room.RegistryConfig{Game: room.Config{FloorPercent: 50}})
	today := reg.Today()
	r, c, pz := playDaily(t, reg, st, room.ModeDaily, today, "p_a")
	clock.Advance(room.LevelFloor("easy") - time.Second)
	settle(t, r)
	solve(t, r, pz, "p_a", c, 0)
	res := resultOf(t, st, r.ID(), "p_a")
	assert.True(t, res.Ranked)
	assert.NotEqual(t, room.HoldLevelFloor, res.Held, "59 s is past half the floor")

	r, c, pz = playDaily(t, reg, st, room.ModeDaily, today, "p_b")
	clock.Advance(room.LevelFloor("easy")/2 - time.Second)
	settle(t, r)
	solve(t, r, pz, "p_b", c, 0)
	res = resultOf(t, st, r.ID(), "p_b")
	assert.True(t, res.Ranked)
	assert.Equal(t, room.HoldLevelFloor, res.Held, "29 s is not")
}

// Dates are checked against the registry's clock: a future date, one
// before the archive's first day, or one that is not a date, is refused; a room made before midnight UTC keeps
// its day after it, and the same date asked after midnight is an archive
// day.
func TestDailyDatesFollowTheClockAcrossMidnight(t *testing.T) {
	reg, st, clock := registry(t, room.RegistryConfig{})
	ctx := context.Background()
	for _, bad := range []string{"2026-03-02", "2026-3-01", "2026-02-30", "yesterday", "", "2025-02-27", "1970-01-01"} {
		_, err := reg.CreateDaily(ctx, room.ModeDaily, "easy", bad)
		assert.ErrorIs(t, err, room.ErrBadDay, bad)
	}
	first := clock.Now().UTC().AddDate(0, 0, -room.ArchiveDays).Format(room.DayLayout)
	require.Equal(t, "2025-02-28", first)
	assert.NoError(t, reg.CheckDay(first), "the archive's first day is playable")
	_, err := reg.CreateDaily(ctx, room.ModeCoop, "easy", reg.Today())
	assert.Error(t, err, "co-op has no daily")

	clock.Advance(11*time.Hour + 58*time.Minute) // 23:58 UTC
	day := reg.Today()
	r, c, pz := playDaily(t, reg, st, room.ModeDaily, day, "p_a")
	clock.Advance(3 * time.Minute) // 00:01 the next day
	settle(t, r)
	assert.NotEqual(t, day, reg.Today())
	solve(t, r, pz, "p_a", c, 0)
	res := resultOf(t, st, r.ID(), "p_a")
	assert.Equal(t, day, res.Day, "the finish counts for the day the room was made on")
	assert.True(t, res.Ranked)

	_, c2, _ := playDaily(t, reg, st, room.ModeDaily, day, "p_b")
	assert.False(t, *welcomeOf(t, c2).Room.Players[0].Ranked, "yesterday's daily is an archive day now")
}

// A race can be opened on a daily: it keeps its start and countdown, each
// racer's first finish is ranked on the day, and its rematch is a fresh
// puzzle that is no daily.
func TestRaceOnADaily(t *testing.T) {
	reg, st, clock := registry(t, room.RegistryConfig{})
	ctx := context.Background()
	today := reg.Today()
	r, err := reg.CreateDaily(ctx, room.ModeRace, "easy", today)
	require.NoError(t, err)
	a, b := newConn(), newConn()
	require.NoError(t, r.Attach(ctx, room.Join{ID: "p_a", Name: "Ann"}, a))
	require.NoError(t, r.Attach(ctx, room.Join{ID: "p_b", Name: "Bob"}, b))
	assert.Equal(t, protocol.PhaseWaiting, welcomeOf(t, a).Room.Phase)
	startRace(t, r, clock, a, "p_a")
	pz, _ := st.Puzzle(r.ID())
	daily, err := st.DailyGame(ctx, "x", "x", room.ModeDaily, "easy", today)
	require.NoError(t, err)
	assert.Equal(t, daily, pz, "the race plays the daily puzzle")
	clock.Advance(2 * time.Minute)
	settle(t, r)
	solve(t, r, pz, "p_a", a, 0)
	res := resultOf(t, st, r.ID(), "p_a")
	assert.True(t, res.Ranked)
	assert.Equal(t, today, res.Day)
	assert.Equal(t, room.ModeRace, res.Mode)
	// Stored is not yet announced: the rematch waits for the room to know
	// the finish (before, it is refused as not_finished).
	a.await(t, protocol.TypeFinish, finishOf("p_a"))

	require.NoError(t, r.Message(ctx, "p_a", a, &protocol.Msg{Type: protocol.TypeRematch}, time.Now()))
	require.Eventually(t, func() bool {
		s, err := r.Snapshot(ctx)
		return err == nil && s.Round == 2 && s.Phase == protocol.PhaseWaiting
	}, 5*time.Second, time.Millisecond)
	s, err := r.Snapshot(ctx)
	require.NoError(t, err)
	assert.Empty(t, s.Date, "a rematch's puzzle is not the daily")
	assert.Nil(t, s.Players[0].Ranked)
}

// A daily room brought back after a restart keeps its date and whether
// its player is ranked.
func TestDailyRoomSurvivesARestart(t *testing.T) {
	reg, st, _ := registry(t, room.RegistryConfig{})
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	pz, err := st.DailyGame(ctx, "d4ily", "d4ily", room.ModeDaily, "easy", "2026-03-01")
	require.NoError(t, err)
	g, err := room.NewGame(room.Config{}, "d4ily", room.ModeDaily, pz, now)
	require.NoError(t, err)
	g.PlayDaily("2026-03-01", false)
	check := room.CheckReplay(t, g, now)
	g.Attempted("p_a")
	_, _, jerr := g.Join(now, "p_a", "Ann", false, 0)
	require.Nil(t, jerr)
	require.Equal(t, protocol.PhaseRunning, g.Phase())
	_, eff := g.Drain()
	check.Step(g, eff, now)
	s := g.Save(now)
	require.NoError(t, st.SaveRoom(ctx, s))
	n, err := reg.Restore(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	r, err := reg.Get("d4ily")
	require.NoError(t, err)
	snap, err := r.Snapshot(ctx)
	require.NoError(t, err)
	assert.Equal(t, "2026-03-01", snap.Date)
	assert.Equal(t, room.ModeDaily, snap.Mode)
	require.NotNil(t, snap.Players[0].Ranked)
	assert.False(t, *snap.Players[0].Ranked)
}

// A daily tells nobody, the player included, whether a digit is right
// while it runs: nothing live carries a count, a spectator sees neither
// digits nor boards, and the count comes with the finish.
func TestDailyTellsNoMistakeBeforeTheFinish(t *testing.T) {
	g := newGame(t, room.ModeDaily, room.Config{})
	g.join("a")
	require.Equal(t, protocol.PhaseRunning, g.Phase(), "the join starts a daily")
	g.watch("s")
	cell, d := g.wrong("a")
	outs := g.ok("a", move(cell, d)).Out
	assert.Equal(t, 1, g.mistakes("a"), "counted")
	for _, o := range outs {
		data, err := json.Marshal(o.Event)
		require.NoError(t, err)
		assert.NotContains(t, string(data), "mistakes", "nothing in a live daily tells a count")
	}
	assert.Empty(t, ofType[*protocol.MoveEvent](seen(outs, "s")), "a spectator sees no digit")
	for _, id := range []string{"a", "s", ""} {
		snap := g.Snapshot(id, g.now)
		assert.Nil(t, snap.Players[0].Mistakes, "%q's snapshot", id)
		assert.Empty(t, snap.Solution)
		if id != "a" {
			assert.Empty(t, snap.Board, "%q sees no board", id)
		}
	}
	s := g.fill("a")
	rs := results(t, s)
	assert.Equal(t, 1, rs[0].Mistakes)
	fin := ofType[*protocol.FinishEvent](seen(g.saved(rs).Out, "s"))
	require.Len(t, fin, 1)
	assert.Equal(t, 1, fin[0].Mistakes, "the finish tells the count")
	assert.Equal(t, protocol.PhaseFinished, g.Phase())
}

// A room on today's daily never shows the solution, not even once it is
// over: a player who joins and leaves at once ends their room as finished,
// and its snapshot (the HTTP one too) must not hand the day's solution to
// anyone still playing it for a rank. An archive day's room shows it.
func TestDailySolutionStaysHiddenWhileTheDayIsRanked(t *testing.T) {
	reg, st, _ := registry(t, room.RegistryConfig{})
	ctx := context.Background()
	today := reg.Today()
	r, c, pz := playDaily(t, reg, st, room.ModeDaily, today, "p_a")
	require.NoError(t, r.Message(ctx, "p_a", c, &protocol.Msg{Type: protocol.TypeLeave}, time.Now()))
	settle(t, r)
	snap, err := r.Snapshot(ctx)
	require.NoError(t, err)
	require.Equal(t, protocol.PhaseFinished, snap.Phase, "the room is over once its only player left")
	assert.Empty(t, snap.Solution, "today's solution stays hidden")
	for _, p := range snap.Players {
		assert.NotEqual(t, pz.Solution.String(), p.Board, "no board shows it either")
	}

	past, err := time.Parse(room.DayLayout, today)
	require.NoError(t, err)
	old, oc, opz := playDaily(t, reg, st, room.ModeDaily, past.AddDate(0, 0, -3).Format(room.DayLayout), "p_b")
	require.NoError(t, old.Message(ctx, "p_b", oc, &protocol.Msg{Type: protocol.TypeLeave}, time.Now()))
	settle(t, old)
	osnap, err := old.Snapshot(ctx)
	require.NoError(t, err)
	require.Equal(t, protocol.PhaseFinished, osnap.Phase)
	assert.Equal(t, opz.Solution.String(), osnap.Solution, "an archive day's room shows its solution once over")
}

// A room made for a day but whose play starts after it is an archive room:
// held open past midnight, it is no longer played for that day's rank.
func TestDailyRoomStartedAfterItsDayIsUnranked(t *testing.T) {
	// Long enough an idle timeout that the unjoined room waits a day.
	reg, st, clock := registry(t, room.RegistryConfig{IdleTimeout: 48 * time.Hour})
	ctx := context.Background()
	today := reg.Today()
	r, err := reg.CreateDaily(ctx, room.ModeDaily, "easy", today)
	require.NoError(t, err)
	clock.Advance(24 * time.Hour) // made today, joined tomorrow
	c := newConn()
	require.NoError(t, r.Attach(ctx, room.Join{ID: "p_late", Name: "Late"}, c))
	pz, ok := st.Puzzle(r.ID())
	require.True(t, ok)
	clock.Advance(5 * time.Minute)
	settle(t, r)
	solve(t, r, pz, "p_late", c, 0)
	res := resultOf(t, st, r.ID(), "p_late")
	assert.Equal(t, today, res.Day)
	assert.False(t, res.Ranked, "play that starts after the day ranks nothing")
}

// The first view counts: a player shown the daily's board in one room who
// leaves and finishes it in another is timed from that first view, and
// the second room says so (since); past AttemptLimit the finish is
// unranked.
func TestDailyTimeRunsFromTheFirstView(t *testing.T) {
	reg, st, clock := registry(t, room.RegistryConfig{})
	today := reg.Today()
	ctx := context.Background()

	look, c, pz := playDaily(t, reg, st, room.ModeDaily, today, "p_a")
	firstView := clock.Now()
	settle(t, look)
	look.Detach("p_a", c)
	require.Eventually(t, func() bool {
		a, err := st.DailyAttempt(ctx, today, "easy", "p_a")
		return err == nil && a.Since.Equal(firstView)
	}, 5*time.Second, time.Millisecond, "the look started the attempt")

	clock.Advance(10 * time.Minute)
	again, c2, pz2 := playDaily(t, reg, st, room.ModeDaily, today, "p_a")
	require.Equal(t, pz, pz2)
	w := welcomeOf(t, c2)
	require.NotNil(t, w.Room.Players[0].Since, "the welcome tells the clock's start")
	assert.True(t, w.Room.Players[0].Since.Equal(firstView))
	assert.True(t, *w.Room.Players[0].Ranked)
	clock.Advance(2 * time.Minute)
	settle(t, again)
	solve(t, again, pz2, "p_a", c2, 0)
	res := resultOf(t, st, again.ID(), "p_a")
	assert.True(t, res.Ranked)
	assert.Equal(t, 12*time.Minute, res.Elapsed, "timed from the first view, not the second room's start")

	// An attempt older than the limit: unranked.
	late, c3, _ := playDaily(t, reg, st, room.ModeDaily, today, "p_b")
	settle(t, late)
	late.Detach("p_b", c3)
	clock.Advance(room.AttemptLimit + time.Minute)
	require.Equal(t, today, reg.Today(), "the registry's clock starts at noon: still the same day")
	last, c4, pz4 := playDaily(t, reg, st, room.ModeDaily, today, "p_b")
	settle(t, last)
	solve(t, last, pz4, "p_b", c4, 0)
	res = resultOf(t, st, last.ID(), "p_b")
	assert.False(t, res.Ranked, "past the attempt's limit")
	assert.Greater(t, res.Elapsed, room.AttemptLimit)
}

// Each player is shown their own copy of the daily: the same puzzle up to
// an isomorph, so that one player's solution does not fit another's board.
// A race on the daily plays its first player's copy, and a replay of the
// round (its saved state) shows that copy.
func TestEachPlayerHasTheirOwnCopyOfTheDaily(t *testing.T) {
	reg, st, clock := registry(t, room.RegistryConfig{})
	st.Copies = true
	today := reg.Today()

	a, ca, pz := playDaily(t, reg, st, room.ModeDaily, today, "p_a")
	b, cb, _ := playDaily(t, reg, st, room.ModeDaily, today, "p_b")
	boardA, boardB := welcomeOf(t, ca).Room.Givens, welcomeOf(t, cb).Room.Givens
	require.NotEmpty(t, boardA)
	assert.NotEqual(t, pz.Givens.String(), boardA, "not the stored puzzle")
	assert.NotEqual(t, boardA, boardB, "not the other player's copy")
	ga, err := engine.Parse(boardA)
	require.NoError(t, err)
	assert.Equal(t, pz.Givens.Filled(), ga.Filled(), "the same puzzle: as many givens")

	// A's solution does not fit B's board, and A's own copy solves.
	copyA := room.Puzzle{ID: pz.ID, Level: pz.Level, Givens: ga}
	sr := engine.Solve(ga, 2)
	require.Equal(t, 1, sr.Count, "the copy has one solution")
	solA := sr.Solution
	copyA.Solution = solA
	assert.NotEqual(t, pz.Solution, solA)
	clock.Advance(5 * time.Minute)
	settle(t, a)
	settle(t, b)
	solve(t, a, copyA, "p_a", ca, 0)
	res := resultOf(t, st, a.ID(), "p_a")
	assert.Equal(t, pz.ID, res.PuzzleID, "the same puzzle for the leaderboard")
	assert.True(t, res.Ranked)
	saved := st.Saved(a.ID())
	require.NotNil(t, saved)
	assert.Equal(t, boardA, saved.Puzzle.Givens, "its saved state, which replays read, is the copy")
	assert.NotEmpty(t, saved.Puzzle.Copy)

	// B's board takes A's solution nowhere: some cell differs.
	gb, err := engine.Parse(boardB)
	require.NoError(t, err)
	clash := false
	for cell, d := range gb {
		clash = clash || d != 0 && d != solA[cell]
	}
	assert.True(t, clash, "A's solution does not fit B's givens")
}
