package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/daily"
	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/sqlite"
)

// history is a player's past as TestPlayerPage stores it: each finish of
// Pat's, in the order played. A daily (day set) is of that day's daily
// puzzle of its level, on its day unless late.
type pastGame struct {
	mode, level string
	daysAgo     int // when it was played, before today
	day         int // for a daily: the daily's day, days before today
	late        bool
	rank        int
	elapsed     time.Duration
	mistakes    int
	opponent    bool // another player finished the room too
}

// patsPast: eight dailies on their days (three up to yesterday, five in a
// row before), a medium daily solved four days late from the archive,
// four races (two won, one lost, one alone) and nine co-op games (eight
// of them before all the rest: more than a page of games in all).
var patsPast = []pastGame{
	{mode: room.ModeCoop, level: "hard", daysAgo: 22, rank: 1, elapsed: 900 * time.Second, opponent: true},
	{mode: room.ModeCoop, level: "hard", daysAgo: 21, rank: 1, elapsed: 800 * time.Second, opponent: true},
	{mode: room.ModeCoop, level: "medium", daysAgo: 20, rank: 1, elapsed: 600 * time.Second, opponent: true},
	{mode: room.ModeCoop, level: "medium", daysAgo: 19, rank: 1, elapsed: 500 * time.Second, opponent: true},
	{mode: room.ModeCoop, level: "easy", daysAgo: 18, rank: 1, elapsed: 200 * time.Second, opponent: true},
	{mode: room.ModeCoop, level: "easy", daysAgo: 17, rank: 1, elapsed: 190 * time.Second, opponent: true},
	{mode: room.ModeCoop, level: "easy", daysAgo: 16, rank: 1, elapsed: 180 * time.Second, opponent: true},
	{mode: room.ModeCoop, level: "easy", daysAgo: 15, rank: 1, elapsed: 170 * time.Second, opponent: true},
	{mode: room.ModeDaily, level: "easy", daysAgo: 13, day: 13, rank: 1, elapsed: 270 * time.Second},
	{mode: room.ModeDaily, level: "easy", daysAgo: 12, day: 12, rank: 1, elapsed: 260 * time.Second},
	{mode: room.ModeDaily, level: "easy", daysAgo: 11, day: 11, rank: 1, elapsed: 250 * time.Second},
	{mode: room.ModeDaily, level: "easy", daysAgo: 10, day: 10, rank: 1, elapsed: 240 * time.Second},
	{mode: room.ModeDaily, level: "easy", daysAgo: 9, day: 9, rank: 1, elapsed: 230 * time.Second},
	{mode: room.ModeRace, level: "easy", daysAgo: 8, rank: 1, elapsed: 300 * time.Second, opponent: true},
	{mode: room.ModeRace, level: "medium", daysAgo: 7, rank: 2, elapsed: 500 * time.Second, opponent: true},
	{mode: room.ModeCoop, level: "easy", daysAgo: 6, rank: 1, elapsed: 150 * time.Second, opponent: true},
	{mode: room.ModeRace, level: "easy", daysAgo: 4, rank: 1, elapsed: 250 * time.Second},
	{mode: room.ModeDaily, level: "easy", daysAgo: 3, day: 3, rank: 1, elapsed: 220 * time.Second},
	{mode: room.ModeDaily, level: "easy", daysAgo: 2, day: 2, rank: 1, elapsed: 210 * time.Second},
	{mode: room.ModeRace, level: "easy", daysAgo: 2, rank: 1, elapsed: 280 * time.Second, opponent: true},
	{mode: room.ModeDaily, level: "medium", daysAgo: 1, day: 5, late: true, rank: 1, elapsed: 400 * time.Second, mistakes: 1},
	{mode: room.ModeDaily, level: "easy", daysAgo: 1, day: 1, rank: 1, elapsed: 200 * time.Second},
}

// patID and oppID are Pat's and Opp's player ids.
const patID, oppID = "p_pat2k4m6q8rt", "p_opp3n5p7s9uv"

// patToken is the token of Pat's browser (as an older page kept it, which
// the page exchanges for a session).
const patToken = "pat-token-0123456789abcdef0123456789abcdef"

// seedPat stores patsPast in a new SQLite database, as the rooms store
// finishes (real puzzles, the dailies of their days, rooms, results), and
// answers its path, Pat's id and the rooms of Pat's games in patsPast's
// order.
func seedPat(t *testing.T, today time.Time) (string, string, []string) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "arena.db")
	st, err := sqlite.Open(ctx, path)
	require.NoError(t, err)
	defer st.Close()
	pat, opp := patID, oppID
	// Pat's browser comes back with patToken.
	for _, p := range []struct{ id, name, token string }{{pat, "Pat", patToken}, {opp, "Opp", "opp-token"}} {
		require.NoError(t, st.CreatePlayer(ctx, store.Player{ID: p.id, Name: p.name, TokenHash: server.HashToken(p.token),
			CreatedAt: today.AddDate(0, -1, 0), LastSeen: today, Seed: 7}))
	}

	var rooms []string
	for i, g := range patsPast {
		level, err := engine.ParseLevel(g.level)
		require.NoError(t, err)
		gen, err := engine.Generate(engine.GenerateOptions{Level: level, Seed: uint64(1000 + i)})
		require.NoError(t, err)
		pz, err := st.SavePuzzle(ctx, store.Puzzle{Givens: gen.Givens.String(), Solution: gen.Solution.String(), Level: g.level, CreatedAt: today})
		require.NoError(t, err)
		at := today.AddDate(0, 0, -g.daysAgo).Add(9 * time.Hour)
		res := store.Result{PlayerID: pat, PuzzleID: pz.ID, Mode: g.mode, Level: g.level, Elapsed: g.elapsed, Mistakes: g.mistakes,
			FinishedAt: at, RoomRank: g.rank}
		if g.mode == room.ModeDaily {
			day := today.AddDate(0, 0, -g.day).Format(store.DayLayout)
			_, err := st.SetDaily(ctx, store.Daily{Day: day, Level: g.level, PuzzleID: pz.ID})
			require.NoError(t, err)
			if !g.late {
				res.Day, res.PlayedDay, res.Score = day, day, daily.Score(room.DailyTime(g.elapsed, g.mistakes, 0))
			}
		}
		id := fmt.Sprintf("pat%02dxyz", i)
		res.RoomID = id
		require.NoError(t, st.CreateRoom(ctx, store.Room{ID: id, Mode: g.mode, PuzzleID: pz.ID, HostID: pat, State: store.StateFinished,
			CreatedAt: at.Add(-g.elapsed), StartedAt: at.Add(-g.elapsed), FinishedAt: at}))
		finish := []store.Result{res}
		if g.opponent {
			other := res
			other.PlayerID, other.RoomRank, other.Elapsed = opp, 3-g.rank, g.elapsed+time.Minute
			if g.mode == room.ModeCoop {
				other.RoomRank, other.Elapsed = 1, g.elapsed
			}
			finish = append(finish, other)
		}
		require.NoError(t, st.SaveResults(ctx, finish))
		rooms = append(rooms, id)
	}
	return path, pat, rooms
}

// enGBMonths are the months as en-GB writes them short ("Sept", not
// "Sep").
var enGBMonths = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sept", "Oct", "Nov", "Dec"}

// shortDate is a date as the pages write it: "26 Nov 2026".
func shortDate(t time.Time) string {
	return fmt.Sprintf("%d %s %d", t.Day(), enGBMonths[t.Month()-1], t.Year())
}

// clock is a duration as the pages write it: "4:12".
func clock(d time.Duration) string {
	s := int(d / time.Second)
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// TestPlayerPage opens the record of a player with a past (games of each
// mode, a streak, a daily solved late) and checks every figure the page
// shows against that past: games and wins by mode, best and average
// times by level, the streak and its calendar (days solved on the day
// filled and ticked, the late one ringed, each saying what was solved in
// its label and, focused, under the calendar), and the latest games with
// dates written one way and links to their replays. Then the daily page's
// archive calendar ticks the days solved at its level and tells the
// others' times on focus. Screenshots: phone and desktop, light and dark.
func TestPlayerPage(t *testing.T) {
	t.Parallel()
	requireChromium(t)
	now := time.Now().UTC()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	path, pat, rooms := seedPat(t, today)
	srv := &arena{Arena: arenatest.Start(t, arenatest.Options{DatabaseURL: "sqlite:" + path,
		Env: append(slices.Clone(arenaEnv), "RANK_GUESTS=true")}), t: t}
	b := newBrowser(t)
	p := b.newPage("Pat")
	p.viewport(1280, 800, false)
	p.navigate(srv.URL() + "/account")
	p.run("Pat's browser", evalVoid(fmt.Sprintf(`localStorage.setItem('arena.token', %q)`, patToken)))
	p.navigate(srv.URL() + "/p/" + pat)
	p.wait("Pat's record", `document.querySelector('#player-name').textContent === 'Pat' && document.querySelectorAll('#history tr').length > 0`)
	assert.Equal(t, "Your record", text(p, "#player-sub"), "the page knows it is Pat's own")

	// Games by mode, from the past.
	finished := map[string]int{}
	won := 0
	for _, g := range patsPast {
		finished[g.mode]++
		if g.mode == room.ModeRace && g.rank == 1 && g.opponent {
			won++
		}
	}
	require.Equal(t, 2, won)
	tile := func(mode, part string) string {
		return text(p, fmt.Sprintf(`#modes [data-mode=%q] .%s`, mode, part))
	}
	assert.Equal(t, fmt.Sprint(len(patsPast)), tile("all", "big-num"))
	assert.Equal(t, fmt.Sprint(finished[room.ModeRace]), tile("race", "big-num"))
	// Two won of three raced against someone: the race run alone is
	// neither a win nor a loss.
	assert.Equal(t, "2 won · 67%", tile("race", "sub"), "a race alone is no win, and not in the rate")
	assert.Equal(t, fmt.Sprint(finished[room.ModeCoop]), tile("coop", "big-num"))
	assert.Equal(t, fmt.Sprint(finished[room.ModeDaily]), tile("daily", "big-num"))

	// Times by level: races and dailies, as played.
	for _, level := range room.Levels {
		var n int
		var best, total time.Duration
		for _, g := range patsPast {
			if g.level != level || g.mode == room.ModeCoop {
				continue
			}
			if n == 0 || g.elapsed < best {
				best = g.elapsed
			}
			n++
			total += g.elapsed
		}
		row := fmt.Sprintf(`#times tr[data-level=%q] `, level)
		if n == 0 {
			assert.Equal(t, "–", text(p, row+".best"), level)
			assert.Equal(t, "0", text(p, row+".n"), level)
			continue
		}
		assert.Equal(t, clock(best), text(p, row+".best"), level)
		assert.Equal(t, clock(total/time.Duration(n)), text(p, row+".avg"), level)
		assert.Equal(t, fmt.Sprint(n), text(p, row+".n"), level)
	}
	assert.Equal(t, "3:20", text(p, `#times tr[data-level="easy"] .best`))
	assert.Equal(t, "7:30", text(p, `#times tr[data-level="medium"] .avg`))

	// The streak: three days up to yesterday; five before.
	assert.Equal(t, "3", text(p, "#streak-current"))
	assert.Equal(t, "5", text(p, "#streak-longest"))
	assert.Equal(t, "days", text(p, "#streak-current-unit"))

	// The calendar of this month: each day solved on its day filled and
	// ticked, the late one ringed, nothing else marked.
	month := today.Format("2006-01")
	p.wait("this month's calendar", fmt.Sprintf(`document.querySelector('#streak-cal').dataset.month === %q`, month))
	checkStreakMonth(t, p, today, month)
	y := today.AddDate(0, 0, -1)
	if y.Format("2006-01") == month {
		sel := fmt.Sprintf(`#streak-cal a[href="/daily/%s/easy"]`, y.Format(store.DayLayout))
		assert.Contains(t, eval[string](p, `document.querySelector('`+sel+`').getAttribute('aria-label')`), "solved Easy 3:20")
		assert.Equal(t, `"✓"`, eval[string](p, `getComputedStyle(document.querySelector('`+sel+`'), '::after').content`), "a tick, not only a colour")
		p.run("focus yesterday", evalVoid(`document.querySelector('`+sel+`').focus()`))
		assert.Equal(t, shortDate(y)+": Easy 3:20", text(p, "#streak-detail"))
	}
	// The month before, by its button.
	p.click("#streak-prev")
	prev := today.AddDate(0, -1, 0).Format("2006-01")
	if today.Day() > 28 {
		prev = time.Date(today.Year(), today.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, -1, 0).Format("2006-01")
	}
	p.wait("last month's calendar", fmt.Sprintf(`document.querySelector('#streak-cal').dataset.month === %q`, prev))
	checkStreakMonth(t, p, today, prev)
	p.click("#streak-next")
	p.wait("this month again", fmt.Sprintf(`document.querySelector('#streak-cal').dataset.month === %q`, month))
	assert.True(t, eval[bool](p, `document.querySelector('#streak-next').disabled`), "no month after this one")

	// The latest games, newest first, a page of 20, then the older ones:
	// each a link to its replay, each date written as the rest of the
	// site writes them.
	require.Equal(t, 20, eval[int](p, `document.querySelectorAll('#history tr').length`))
	require.True(t, eval[bool](p, visible("#history-more")), "older games to show")
	p.click("#history-more")
	p.wait("the older games", fmt.Sprintf(`document.querySelectorAll('#history tr').length === %d`, len(patsPast)))
	assert.False(t, eval[bool](p, visible("#history-more")), "no more")
	for i := range patsPast {
		g := patsPast[len(patsPast)-1-i]
		row := fmt.Sprintf(`#history tr:nth-child(%d) `, i+1)
		when := today.AddDate(0, 0, -g.daysAgo)
		if g.mode == room.ModeDaily && !g.late {
			when = today.AddDate(0, 0, -g.day)
		}
		assert.Equal(t, shortDate(when), text(p, row+".day"), "row %d", i+1)
		assert.Equal(t, "/r/"+rooms[len(patsPast)-1-i]+"/replay", eval[string](p, `document.querySelector('`+row+`a.game-link').getAttribute('href')`), "row %d", i+1)
		assert.Equal(t, clock(room.DailyTime(g.elapsed, g.mistakes, 0)), text(p, row+".time"), "row %d", i+1)
	}
	assert.Equal(t, "1st", text(p, `#history tr[data-mode="race"] .place`), "the last race, won")
	p.click(`#history tr:nth-child(1) a.game-link`)
	p.wait("the replay", `location.pathname === '/r/`+rooms[len(rooms)-1]+`/replay'`)
	p.navigate(srv.URL() + "/p/" + pat)
	p.wait("Pat's record again", `document.querySelectorAll('#history tr').length > 0 && document.querySelector('#streak-cal').dataset.month === '`+month+`'`)
	p.shotsIn(gameLooks, "player-record", "")
	p.shotsIn(gameLooks, "player-streak", "#streak-cal")
	p.shotsIn(gameLooks, "player-history", "#history-more")

	// Opp's page, seen by Pat: another's record, its own counts.
	p.navigate(srv.URL() + "/p/" + oppID)
	p.wait("Opp's record", `document.querySelector('#player-name').textContent === 'Opp' && document.querySelectorAll('#history tr').length > 0`)
	assert.Equal(t, "Player record · playing as a guest", text(p, "#player-sub"))
	assert.False(t, eval[bool](p, visible("#player-keep")), "only a guest's own record asks them to keep it")
	assert.Equal(t, "3", tile("race", "big-num"), "Opp raced Pat three times")
	assert.Equal(t, "1 won · 33%", tile("race", "sub"))
	assert.Equal(t, "9", tile("coop", "big-num"))
	assert.Equal(t, "0", tile("daily", "big-num"))
	assert.Equal(t, "0", text(p, "#streak-longest"))

	// The daily page's archive: the late medium day is ticked on the
	// medium calendar, and the easy days are not; focused, a day says
	// every level's time.
	lateDay := today.AddDate(0, 0, -5)
	p.navigate(srv.URL() + "/daily/" + lateDay.Format(store.DayLayout) + "/medium")
	p.wait("the archive's ticks", `document.querySelector('#calendar').dataset.month === '`+lateDay.Format("2006-01")+`'`)
	done := eval[[]string](p, `[...document.querySelectorAll('#calendar a.done')].map(a => a.getAttribute('href'))`)
	assert.Equal(t, []string{"/daily/" + lateDay.Format(store.DayLayout) + "/medium"}, done, "medium solved on one day")
	cur := `#calendar a[aria-current]`
	assert.Contains(t, eval[string](p, `document.querySelector('`+cur+`').getAttribute('aria-label')`), "solved in 7:10", "4 minutes 40 and a mistake's 30 s")
	if y.Format("2006-01") == lateDay.Format("2006-01") {
		p.run("focus yesterday", evalVoid(fmt.Sprintf(`document.querySelector('#calendar a[href="/daily/%s/medium"]').focus()`, y.Format(store.DayLayout))))
		assert.Equal(t, shortDate(y)+": solved Easy 3:20", text(p, "#cal-detail"))
		assert.NotContains(t, eval[string](p, fmt.Sprintf(`document.querySelector('#calendar a[href="/daily/%s/medium"]').className`, y.Format(store.DayLayout))), "done")
	}
	p.shotsIn(gameLooks, "daily-archive", "#calendar")
	p.navigate(srv.URL() + "/daily/" + y.Format(store.DayLayout) + "/easy")
	p.wait("the easy archive's ticks", `document.querySelector('#calendar').dataset.month === '`+y.Format("2006-01")+`'`)
	var easyDays []string
	for _, g := range patsPast {
		d := today.AddDate(0, 0, -g.day)
		if g.mode == room.ModeDaily && g.level == "easy" && d.Format("2006-01") == y.Format("2006-01") {
			easyDays = append(easyDays, "/daily/"+d.Format(store.DayLayout)+"/easy")
		}
	}
	slices.Sort(easyDays)
	assert.Equal(t, easyDays, eval[[]string](p, `[...document.querySelectorAll('#calendar a.done')].map(a => a.getAttribute('href'))`))
	// The day solved only at medium is dotted on the easy calendar, and
	// says so.
	if lateDay.Format("2006-01") == y.Format("2006-01") {
		other := fmt.Sprintf(`#calendar a[href="/daily/%s/easy"]`, lateDay.Format(store.DayLayout))
		assert.Equal(t, []string{"/daily/" + lateDay.Format(store.DayLayout) + "/easy"},
			eval[[]string](p, `[...document.querySelectorAll('#calendar a.other')].map(a => a.getAttribute('href'))`))
		assert.Contains(t, eval[string](p, `document.querySelector('`+other+`').getAttribute('aria-label')`), "solved Medium 7:10 (from the archive)")
		assert.Equal(t, `"•"`, eval[string](p, `getComputedStyle(document.querySelector('`+other+`'), '::after').content`))
	}
	p.shotsIn(gameLooks, "daily-archive-easy", "#calendar")
}

// checkStreakMonth checks the player page's calendar of the month against
// patsPast: the days solved on their day are .streak, the late one .late,
// and no other day is a link.
func checkStreakMonth(t *testing.T, p *page, today time.Time, month string) {
	t.Helper()
	var streak, late []string
	for _, g := range patsPast {
		if g.mode != room.ModeDaily {
			continue
		}
		d := today.AddDate(0, 0, -g.day)
		if d.Format("2006-01") != month {
			continue
		}
		href := "/daily/" + d.Format(store.DayLayout) + "/" + g.level
		if g.late {
			late = append(late, href)
		} else {
			streak = append(streak, href)
		}
	}
	slices.Sort(streak)
	links := func(sel string) []string {
		return eval[[]string](p, `[...document.querySelectorAll('`+sel+`')].map(a => a.getAttribute('href'))`)
	}
	assert.Equal(t, streak, nilIfEmpty(links("#streak-cal a.streak")), month)
	assert.Equal(t, late, nilIfEmpty(links("#streak-cal a.late")), month)
	assert.Equal(t, len(streak)+len(late), len(links("#streak-cal a")), "only solved days are links")
	want := fmt.Sprintf("%d %s solved on the day in ", len(streak), map[bool]string{true: "day", false: "days"}[len(streak) == 1])
	assert.Contains(t, text(p, "#streak-detail"), want)
}

// nilIfEmpty is nil for an empty list, as a list built by append starts.
func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}
