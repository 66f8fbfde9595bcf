package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store/backend"
)

// dailyStatus is the status text home shows for the level's daily.
func dailyStatus(p *page, level string) string {
	p.t.Helper()
	return eval[string](p, fmt.Sprintf(`(document.querySelector('#daily [data-level=%q] .status')?.textContent || '').trim()`, level))
}

// text is the trimmed text of the element (empty when there is none).
func text(p *page, sel string) string {
	p.t.Helper()
	return eval[string](p, fmt.Sprintf(`(document.querySelector(%q)?.textContent || '').trim()`, sel))
}

// solveDaily waits for the daily room to run, then solves its givens; it
// answers the givens as 81 characters (solvePast: the last few cells
// typed, the rest by moves on the page's socket).
// With ranked, the last digit waits until the clock has passed an easy
// puzzle's floors (easyFloor), and the cells go in no reading order: a
// finish faster than the floor, or filled by a scan, is held off the
// leaderboard, as no person solves that way.
func solveDaily(p *page, ranked bool) string {
	p.t.Helper()
	waitPlaying(p)
	givens, sol := puzzle(p)
	cells, floor := empties(givens), time.Duration(0)
	if ranked {
		cells, floor = personOrder(givens), easyFloor
	}
	p.solvePast(cells, sol, floor)
	return givens.String()
}

// personOrder is the empty cells of the givens in the order a ranked
// finish fills them: not reading order (a board filled by a scan is held
// for review), a stride of 29 cells through the grid.
func personOrder(givens engine.Grid) []int {
	var cells []int
	for i := range engine.NumCells {
		if c := i * 29 % engine.NumCells; givens[c] == 0 {
			cells = append(cells, c)
		}
	}
	return cells
}

// leaderboard is GET /api/daily/{date}/{level}/leaderboard, without a
// token: what everyone sees.
type leaderboard struct {
	Total int `json:"total"`
	Top   []struct {
		Rank   int `json:"rank"`
		Player struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"player"`
		TimeMS int64 `json:"time_ms"`
	} `json:"top"`
}

func (a *arena) leaderboard(date, level string) leaderboard {
	a.t.Helper()
	resp, err := arenatest.Get(fmt.Sprintf("%s/api/daily/%s/%s/leaderboard", a.URL(), date, level))
	require.NoError(a.t, err)
	defer resp.Body.Close()
	require.Equal(a.t, http.StatusOK, resp.StatusCode, "GET the %s %s leaderboard", date, level)
	var lb leaderboard
	require.NoError(a.t, json.NewDecoder(resp.Body).Decode(&lb))
	return lb
}

// TestDaily plays the puzzle of the day in the browser: home's four
// dailies, the daily page's start, a ranked finish with the leaderboard,
// the streak and the player's row, a second attempt on the same puzzle
// shown as unranked (the rank stays) that a reload comes back to, home's
// status after, an archive day and a future one, a race with friends on
// the day's puzzle, and the player page from the header.
func TestDaily(t *testing.T) {
	t.Parallel()
	// Ann plays as a guest, ranked as a server that ranks guests ranks
	// her (an account's daily is TestAccount's).
	srv := startArena(t, "RANK_GUESTS=true")
	b := newBrowser(t)
	ann := b.newPage("Ann")

	// Home: today's five dailies, none started.
	ann.navigate(srv.URL() + "/")
	ann.wait("today's five dailies", `document.querySelectorAll('#daily [data-level][data-status]').length === 5`)
	for _, level := range []string{"easy", "medium", "hard", "expert", "master"} {
		assert.Equal(t, "Not started", dailyStatus(ann, level), "%s before playing", level)
	}
	assert.False(t, eval[bool](ann, visible("#me")), "no record to link to yet")
	ann.shot("daily-home")

	// The daily page: a start card, then the board at once (no lobby, no
	// countdown).
	ann.click(`#daily [data-level="easy"] a`)
	ann.wait("the daily page's start", `location.pathname.startsWith('/daily/')`+" && "+visible("#daily-go"))
	date := strings.Split(eval[string](ann, `location.pathname`), "/")[2]
	require.Regexp(t, `^\d{4}-\d{2}-\d{2}$`, date)
	assert.Contains(t, text(ann, "#start-sub"), "leaderboard", "the start says the first finish ranks")
	ann.typeInto("#name", "Ann")
	ann.click("#daily-go")
	first := solveDaily(ann, true)

	// The finish: ranked, first of one, on the leaderboard beside the
	// board with Ann's row marked and linked to her page; a streak of one.
	ann.wait("a ranked result", visible("#finish")+` && document.querySelector('#finish-sub').dataset.ranked === 'true'`)
	assert.Contains(t, text(ann, "#finish-sub"), "Rank 1 of 1")
	ann.wait("Ann's row on the leaderboard", `(document.querySelector('#lb-rows tr.me')?.textContent || '').includes('Ann')`)
	ann.wait("a streak of one day", `document.querySelector('#streak .big-num')?.textContent === '1'`)
	assert.Contains(t, text(ann, "#lb-you"), "rank 1 of 1")
	annID := eval[string](ann, `localStorage.getItem('arena.id') || ''`)
	require.NotEmpty(t, annID, "the page keeps the player's id")
	assert.Equal(t, "/p/"+annID, eval[string](ann, `document.querySelector('#lb-rows tr.me a').getAttribute('href')`))
	ann.wait("today ticked in the archive", `!!document.querySelector('#calendar a.today.done')`)
	ann.shot("daily-finish")
	lb := srv.leaderboard(date, "easy")
	require.Equal(t, 1, lb.Total, "the server's leaderboard")
	require.Len(t, lb.Top, 1)
	assert.Equal(t, annID, lb.Top[0].Player.ID)
	rankedTime := lb.Top[0].TimeMS

	// A second attempt: the same puzzle, shown as unranked while playing and
	// at the finish; the leaderboard keeps the first.
	ann.click("#again")
	ann.wait("an unranked attempt", phaseIs("running")+` && document.querySelector('.room').dataset.ranked === 'false'`)
	assert.Contains(t, text(ann, "#mode"), "Unranked")
	// A reload in the middle comes back to the same attempt.
	roomID := text(ann, "#room-tag")
	givens, sol := puzzle(ann)
	cells := empties(givens)
	ann.place(cells[0], sol[cells[0]])
	ann.navigate(srv.URL() + "/daily/" + date + "/easy")
	ann.wait("the attempt after a reload", phaseIs("running")+" && "+digitIs(cells[0], sol[cells[0]]))
	assert.Equal(t, roomID, text(ann, "#room-tag"), "the same room")
	again := solveDaily(ann, false)
	assert.Equal(t, first, again, "one puzzle a day and level")
	ann.wait("an unranked result", visible("#finish")+` && document.querySelector('#finish-sub').dataset.ranked === 'false'`)
	assert.Contains(t, text(ann, "#finish-sub"), "only your first finish of the day counts")
	ann.shot("daily-again")
	lb = srv.leaderboard(date, "easy")
	assert.Equal(t, 1, lb.Total, "a second attempt adds no row")
	require.Len(t, lb.Top, 1)
	assert.Equal(t, rankedTime, lb.Top[0].TimeMS, "nor changes the first")

	// Home says where Ann stands; the header links to her record.
	ann.navigate(srv.URL() + "/")
	ann.wait("easy solved", `(document.querySelector('#daily [data-level="easy"]')?.dataset.status) === 'solved'`)
	assert.Regexp(t, `^Solved in \d+:\d\d · rank 1 of 1$`, dailyStatus(ann, "easy"))
	assert.Equal(t, "Not started", dailyStatus(ann, "hard"))

	// An archive day plays unranked; a future day cannot be played.
	ann.navigate(srv.URL() + "/daily/2026-01-05/hard")
	ann.wait("an archive day's start", visible("#daily-go")+` && /archive/i.test(document.querySelector('#start-kicker').textContent)`)
	assert.Contains(t, text(ann, "#start-sub"), "unranked")
	ann.navigate(srv.URL() + "/daily/2999-01-01/hard")
	ann.wait("a future day's start", visible("#daily-go")+` && document.querySelector('#daily-go').disabled`)

	// Friends on the daily: a race on today's puzzle from the daily page,
	// unranked for Ann, who has her ranked finish.
	ann.navigate(srv.URL() + "/daily/" + date + "/easy")
	ann.wait("the daily page", visible("#daily-race"))
	ann.click("#daily-race")
	ann.wait("the race's lobby", `location.pathname.startsWith('/r/') && `+phaseIs("waiting"))
	startGame(ann)
	raced, _ := puzzle(ann)
	assert.Equal(t, first, raced.String(), "the race plays the day's puzzle")
	assert.Regexp(t, `^Race · Easy · SE \d\.\d · \d+ \w+ · Unranked$`, text(ann, "#mode"))

	// The player page: streaks, best times, the two finishes.
	ann.navigate(srv.URL() + "/")
	ann.wait("the header's link", visible("#me"))
	ann.click("#me")
	ann.wait("Ann's page", `location.pathname === '/p/`+annID+`' && document.querySelector('#player-name').textContent === 'Ann'`)
	ann.wait("two finishes", `document.querySelectorAll('#history tr').length === 2`)
	assert.Equal(t, "1", text(ann, "#streak-current"))
	assert.Equal(t, "1", text(ann, "#streak-longest"))
	assert.Regexp(t, `^\d+:\d\d$`, text(ann, `#times [data-level="easy"] .best`))
	assert.Equal(t, "2", text(ann, `#times [data-level="easy"] .n`), "both finishes are timed")
	assert.Equal(t, "2", text(ann, `#modes [data-mode="daily"] .big-num`))
	assert.Equal(t, 1, eval[int](ann, `document.querySelectorAll('#history tr[data-ranked="false"]').length`), "the second attempt is unranked")
	ann.shot("player")
	ann.viewport(375, 740, true)
	ann.colorScheme("dark")
	ann.wait("dark theme", `document.documentElement.dataset.theme === 'dark'`)
	assert.True(t, eval[bool](ann, `document.documentElement.scrollWidth <= window.innerWidth`), "the player page fits a phone")
	ann.shot("player-phone-dark")
	ann.navigate(srv.URL() + "/daily/" + date + "/easy")
	ann.wait("the daily page on a phone", visible("#daily-go")+` && !!document.querySelector('#lb-rows tr.me')`)
	assert.True(t, eval[bool](ann, `document.documentElement.scrollWidth <= window.innerWidth`), "the daily page fits a phone")
	ann.shot("daily-phone-dark")

	// Nobody by that id.
	ann.navigate(srv.URL() + "/p/p_nobody")
	ann.wait("no such player", `document.querySelector('#player-name').textContent === 'No such player'`)
}

// TestDailyHeldForReview: a daily filled at a machine's pace (under the
// level's floor, row by row) is held for review, by the default floors
// (FLOOR_PERCENT=100, not the other browser tests' lower ones): the
// finish says so in words, the leaderboard stays empty, the store keeps
// the floor as its reason, and the player's page shows the result as
// under review.
func TestDailyHeldForReview(t *testing.T) {
	t.Parallel()
	srv := startArena(t, "RANK_GUESTS=true", "FLOOR_PERCENT=100")
	b := newBrowser(t)
	hal := b.newPage("Hal")
	hal.navigate(srv.URL() + "/")
	hal.wait("today's dailies", `document.querySelectorAll('#daily [data-level][data-status]').length === 5`)
	hal.click(`#daily [data-level="easy"] a`)
	hal.wait("the daily's start", `location.pathname.startsWith('/daily/')`+" && "+visible("#daily-go"))
	date := strings.Split(eval[string](hal, `location.pathname`), "/")[2]
	hal.typeInto("#name", "Hal")
	hal.click("#daily-go")
	solveDaily(hal, false)

	hal.wait("the finish under review", visible("#finish")+` && document.querySelector('#finish-sub').dataset.review === 'held'`)
	assert.Contains(t, text(hal, "#finish-sub"), "Under review")
	hal.shots("daily-review", "")
	assert.Zero(t, srv.leaderboard(date, "easy").Total, "held off the leaderboard")
	kind, err := backend.Parse(srv.DatabaseURL())
	require.NoError(t, err)
	st, err := backend.Open(context.Background(), kind)
	require.NoError(t, err)
	defer st.Close()
	held, err := st.HeldResults(context.Background(), 0)
	require.NoError(t, err)
	require.Len(t, held, 1)
	assert.Equal(t, room.HoldLevelFloor, held[0].Reason, "under the default floor, whatever else")

	id := eval[string](hal, `localStorage.getItem('arena.id') || ''`)
	require.NotEmpty(t, id)
	hal.navigate(srv.URL() + "/p/" + id)
	hal.wait("the result under review", `(document.querySelector('#history tr[data-review="held"]')?.textContent || '').includes('under review')`)
}
