package e2e

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
)

// soloRace makes a race of one on base, starts it, and places the first n
// digits of the solution. It returns the room, the givens and solution,
// and the cells in play.
func soloRace(p *page, base string, n int) (id string, givens, sol engine.Grid, cells []int) {
	p.t.Helper()
	id = createRoom(p, base, "race", "easy", "Alice")
	startGame(p)
	givens, sol = puzzle(p)
	cells = empties(givens)
	for _, c := range cells[:n] {
		p.place(c, sol[c])
	}
	return id, givens, sol, cells
}

// storage is the page's local storage, as JSON: the player's name and
// token.
func storage(p *page) string {
	p.t.Helper()
	return eval[string](p, `JSON.stringify(Object.fromEntries(Object.entries(localStorage).sort()))`)
}

// TestReload reloads the page mid-game: the same player comes back to the
// same board and plays on. The browser's clock is an hour fast: the game's
// clock is the server's all the same.
func TestReload(t *testing.T) {
	t.Parallel()
	srv := startArena(t)
	p := newBrowser(t).newPage("Alice")
	p.skewClock(time.Hour)
	id, _, sol, cells := soloRace(p, srv.URL(), 3)
	require.Greater(t, eval[float64](p, `Date.now() - (performance.timeOrigin + performance.now())`), 3500e3, "the page's clock is fast")
	assert.Regexp(t, `^0:0\d$`, eval[string](p, `document.querySelector('#timer').textContent.trim()`), "the server's clock, seconds into the game")
	before, board := storage(p), readBoard(p, false)
	require.Contains(t, before, "Alice", "the name is kept")

	p.recordWelcomeFrame()
	p.run("reload", chromedp.Reload())
	waitPlaying(p)
	p.wait("the connection", connIs("open"))
	p.wait("the board as it was", digitIs(cells[2], sol[cells[2]]))
	assert.Equal(t, board, readBoard(p, false), "the same board")
	// The frame after the welcome may come after the board is drawn and
	// read above: a slow machine's compositor runs behind the page.
	p.wait("the first frame after the welcome", `window.__welcomeFrame !== null`)
	assert.Equal(t, board, eval[string](p, `window.__welcomeFrame`), "the board drawn at the first frame after the welcome")
	assert.Equal(t, before, storage(p), "the same player")
	assert.Equal(t, "Alice", eval[string](p, `[...document.querySelectorAll('#players li')].map(li => li.textContent.match(/Alice|Bob/)?.[0] ?? '?').join()`))

	assert.Regexp(t, `^0:[01]\d$`, eval[string](p, `document.querySelector('#timer').textContent.trim()`), "the clock after the reload")
	p.place(cells[3], sol[cells[3]])
	room := srv.room(id)
	require.Len(t, room.Players, 1, "no second player")
	assert.Equal(t, 4, room.Players[0].Filled, "the move after the reload counts")
	assert.True(t, room.Players[0].Connected)
}

// TestSocketCut drops one player's connection mid-game, without a close
// frame, as a network does: that page says it reconnects, resumes by
// itself and plays on, and the other player's feed shows them away and
// back. Each player reaches the server through a proxy of their own, so
// that only one is cut.
func TestSocketCut(t *testing.T) {
	t.Parallel()
	srv := startArena(t)
	pxAlice, pxBob := startProxy(t, srv.Addr()), startProxy(t, srv.Addr())
	b := newBrowser(t)
	alice, bob := b.newPage("Alice"), b.newPage("Bob")
	id := createRoom(alice, pxAlice.URL(), "race", "easy", "Alice")
	joinRoom(bob, pxBob.URL()+"/r/"+id, "Bob")
	startGame(alice, bob)
	givens, sol := puzzle(bob)
	cells := empties(givens)
	for _, c := range cells[:2] {
		bob.place(c, sol[c])
	}
	board := readBoard(bob, false)

	bob.recordAttr("__conn", "#conn", "data-state")
	require.Positive(t, pxBob.cut(), "connections cut")
	bob.wait("reconnecting shown", `window.__conn.includes('reconnecting')`)
	bob.wait("connected again", connIs("open"))
	assert.Equal(t, board, readBoard(bob, false), "the board is intact")
	alice.wait("Bob away in the feed", feedHas("away", "Bob"))
	alice.wait("Bob back in the feed", feedHas("back", "Bob"))
	assert.True(t, eval[bool](alice, connIs("open")), "Alice was not cut")

	bob.place(cells[2], sol[cells[2]])
	room := srv.room(id)
	require.Len(t, room.Players, 2, "Bob resumed as himself")
	for _, pl := range room.Players {
		assert.True(t, pl.Connected, pl.Name)
		if pl.Name == "Bob" {
			assert.Equal(t, 3, pl.Filled, "the move after the cut counts")
		}
	}
}

// TestServerRestart restarts the server mid-game (SIGTERM, then a new
// process on the same address and database): the page is told to come back
// later (1001), does, and plays on.
func TestServerRestart(t *testing.T) {
	t.Parallel()
	srv := startArena(t)
	p := newBrowser(t).newPage("Alice")
	id, _, sol, cells := soloRace(p, srv.URL(), 2)
	board := readBoard(p, false)

	p.recordAttr("__conn", "#conn", "data-state")
	require.Equal(t, 0, srv.Stop(), "an orderly shutdown")
	srv.Restart()
	p.waitFor("connected again", `window.__conn.includes('reconnecting') && `+connIs("open"), 30*time.Second)
	waitPlaying(p)
	assert.Equal(t, board, readBoard(p, false), "the board is intact")

	p.place(cells[2], sol[cells[2]])
	room := srv.room(id)
	require.Len(t, room.Players, 1, "resumed as the same player")
	assert.Equal(t, 3, room.Players[0].Filled, "the move after the restart counts")
}

// TestReplaced opens the room in a second tab of the same browser: the
// second tab takes over (4002), and the first says so and does not take
// it back.
func TestReplaced(t *testing.T) {
	t.Parallel()
	srv := startArena(t)
	first := newBrowser(t).newPage("first tab")
	id := createRoom(first, srv.URL(), "race", "easy", "Alice")

	second := first.newTab("second tab")
	second.navigate(srv.URL() + "/r/" + id)
	second.wait("the room in the second tab", phaseIs("waiting")+" && "+connIs("open"))
	first.wait("the first tab replaced", connIs("replaced"))
	assert.NotEmpty(t, eval[string](first, `document.querySelector('#conn').textContent.trim()`), "in words")
	assert.True(t, first.staysFalse(`!(`+connIs("replaced")+`)`, 3*time.Second), "the first tab does not reconnect")
	first.shot("replaced")
	assert.True(t, eval[bool](second, connIs("open")), "the second tab keeps the room")
	room := srv.room(id)
	require.Len(t, room.Players, 1, "one player in two tabs")
	assert.True(t, room.Players[0].Connected)

	// The first tab's offer to play there takes the room back.
	first.click("#notice button.primary")
	first.wait("the first tab back", connIs("open")+" && "+phaseIs("waiting"))
	second.wait("the second tab replaced in turn", connIs("replaced"))
}
