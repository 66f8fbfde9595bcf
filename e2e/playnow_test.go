package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/backend"
)

// ratedLooks are the looks of the Play now screenshots: a 390×844 phone
// and a 1280×800 desktop, light and dark.
var ratedLooks = []look{
	{"", 1280, 800, false, "light"},
	{"-dark", 1280, 800, false, "dark"},
	{"-phone", 390, 844, true, "light"},
	{"-phone-dark", 390, 844, true, "dark"},
}

// TestPlayNowRated: two accounts press Play now (rated, easy) in two
// browsers, are matched into one race that starts by itself, and race it
// to the end as people would (past the floors, at uneven intervals);
// each finish card shows what the race did to the rating,
// the winner's up and the other's down, and the winner's player page
// charts it. Both browsers reach the server from one address, which a
// server behind a proxy (SOCKETS_PER_ADDR=0) does not tell apart.
func TestPlayNowRated(t *testing.T) {
	t.Parallel()
	srv, base := startAccountArena(t, "SOCKETS_PER_ADDR=0")
	b := newBrowser(t)
	ann, bob := b.newPage("Ann"), b.newPage("Bob")
	signUp(ann, base, "Ann")
	signUp(bob, base, "Bob")

	for _, p := range []*page{ann, bob} {
		p.navigate(base + "/")
		p.wait("the Play now card", visible("#play-now[data-ready]")+` && !document.querySelector('#play-rated').disabled`)
		p.run("pick easy, rated", evalVoid(`document.querySelector('#play-level').value = 'easy'; document.querySelector('#play-rated').checked = true`))
	}
	ann.click("#play-now")
	ann.wait("Ann waits", `document.documentElement.dataset.queue === 'waiting' && `+saysIn("#queue-status", "Easy 1"))
	assert.Contains(t, text(ann, "#queue-status"), "rating 1500")
	assert.Contains(t, text(ann, "#queue-status"), "Expert 0 · Master 0", "every level's count, by its name")
	assert.Equal(t, []string{"easy", "medium", "hard", "expert", "master"},
		eval[[]string](ann, `[...document.querySelectorAll('#play-level option')].map((o) => o.value)`), "every level can be queued for")
	ann.shotsIn(ratedLooks, "playnow-waiting", ".play-now")
	bob.click("#play-now")
	for _, p := range []*page{ann, bob} {
		p.waitFor("the race room", `location.pathname.startsWith('/r/')`, 20*time.Second)
	}
	room := strings.TrimPrefix(eval[string](ann, `location.pathname`), "/r/")
	assert.Equal(t, "/r/"+room, eval[string](bob, `location.pathname`), "one room for both")
	waitPlaying(ann, bob)

	// The race, as people play it (solveLikePeople): in an order of each
	// one's own; Ann's last digit first, once past the floor.
	solveLikePeople(easyFloor, ann, bob)
	for _, p := range []*page{ann, bob} {
		p.waitFor("the rating change on the finish card", visible("#finish-rating"), 30*time.Second)
	}
	assert.Equal(t, "You won!", text(ann, "#finish-title"))
	assert.Regexp(t, `^Rating 1500 → 1[6-7]\d\d\? \(\+\d+\)$`, text(ann, "#finish-rating"))
	assert.Regexp(t, `^Rating 1500 → 1[3-4]\d\d\? \(−\d+\)$`, text(bob, "#finish-rating"))
	ann.shotsIn(ratedLooks, "playnow-finish", "#finish")

	// The server agrees, and the winner's page charts it.
	var ratings struct {
		Changes []struct {
			Player string  `json:"player"`
			Delta  float64 `json:"delta"`
		} `json:"changes"`
	}
	resp, err := arenatest.Get(srv.URL() + "/api/rooms/" + room + "/ratings")
	require.NoError(t, err)
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&ratings))
	resp.Body.Close()
	require.Len(t, ratings.Changes, 2)
	annID := me(ann).Player.ID
	for _, c := range ratings.Changes {
		if c.Player == annID {
			assert.Positive(t, c.Delta)
		} else {
			assert.Negative(t, c.Delta)
		}
	}
	ann.navigate(base + "/p/" + annID)
	ann.wait("the rating chart", visible("#rating-card")+" && "+visible("#rating-chart svg polyline"))
	assert.Equal(t, 2, eval[int](ann, `document.querySelector('#rating-chart polyline').getAttribute('points').split(' ').length`), "before and after the one race")
	assert.Contains(t, text(ann, "#rating-now"), "1 rated race")
	ann.shotsIn(ratedLooks, "playnow-player", "#rating-card")
}

// TestRatingBoardLink: the player page's "All-time ratings" link lands on
// the home page's board, which shows while every rating is provisional,
// saying when ratings join it, and lists an account once its rating has
// settled. The ratings are stored as the rated races would store them.
func TestRatingBoardLink(t *testing.T) {
	t.Parallel()
	srv, base := startAccountArena(t)
	ann := newBrowser(t).newPage("Ann")
	signUp(ann, base, "Ann")
	annID := me(ann).Player.ID
	kind, err := backend.Parse(srv.DatabaseURL())
	require.NoError(t, err)
	st, err := backend.Open(context.Background(), kind)
	require.NoError(t, err)
	defer st.Close()
	rate := func(room string, before, after store.Rating) {
		before.PlayerID, after.PlayerID, after.Races = annID, annID, before.Races+1
		require.NoError(t, st.ApplyRatings(context.Background(), []store.RatingChange{{RoomID: room, PlayerID: annID, Before: before, After: after, At: time.Now()}}))
	}
	fresh := store.Rating{Rating: 1500, RD: 350, Volatility: 0.06}
	first := store.Rating{Rating: 1662.31, RD: 290.32, Volatility: 0.06}
	rate("race0001", fresh, first)

	ann.navigate(base + "/p/" + annID)
	ann.wait("the rating card", visible("#rating-card"))
	assert.Contains(t, text(ann, "#rating-now"), "1662?")
	assert.Equal(t, "/#ratings", eval[string](ann, `document.querySelector('#rating-card a').getAttribute('href')`))
	ann.click("#rating-card a")
	ann.wait("the board, with nobody on it yet", `location.hash === '#ratings' && `+visible("#ratings")+` && `+visible("#ratings-empty"))
	assert.Contains(t, text(ann, "#ratings-empty"), "once its ? goes")
	assert.Zero(t, eval[int](ann, `document.querySelectorAll('#ratings-rows tr').length`))
	assert.True(t, eval[bool](ann, `document.querySelector('#ratings table').hidden`), "no empty table")
	ann.shotsIn(ratedLooks, "ratings-empty", "#ratings")

	first.Races = 1
	rate("race0002", first, store.Rating{Rating: 1701.5, RD: 98.4, Volatility: 0.06})
	ann.navigate(base + "/")
	ann.wait("Ann on the board", visible("#ratings-rows tr")+` && !`+visible("#ratings-empty"))
	assert.Equal(t, "1 Ann 1702", eval[string](ann, `[...document.querySelectorAll('#ratings-rows td')].map((td) => td.textContent).join(' ')`))
	ann.shotsIn(ratedLooks, "ratings-board", "#ratings")
}
