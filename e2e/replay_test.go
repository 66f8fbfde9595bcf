package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replayBoard is a predicate's piece: the digits of the replay board of
// the player (every cell, '.' for none), as 81 characters.
func replayBoard(p *page, playerID string) string {
	p.t.Helper()
	return eval[string](p, fmt.Sprintf(`[...document.querySelectorAll('.rp-card[data-player=%q] .rp-board [data-cell]')]
		.sort((a, b) => a.dataset.cell - b.dataset.cell)
		.map(c => { const d = (c.querySelector('.digit')?.textContent || '').trim(); return /^[1-9]$/.test(d) ? d : '.'; })
		.join('')`, playerID))
}

// replayIs is a predicate: the replay page's playback state.
func replayIs(state string) string {
	return fmt.Sprintf(`document.querySelector('.replay')?.dataset.state === %q`, state)
}

// TestReplay plays a race to the end, then opens its replay from the
// finish banner in a browser that never joined the room: it plays to the
// end at 16× and shows each racer's final board, the winner's first; it
// steps back by one event; it looks right on a phone and in the dark.
func TestReplay(t *testing.T) {
	t.Parallel()
	srv := startArena(t)
	b := newBrowser(t)
	alice, bob := b.newPage("Alice"), b.newPage("Bob")

	id := createRoom(alice, srv.URL(), "race", "easy", "Alice")
	joinRoom(bob, srv.URL()+"/r/"+id, "Bob")
	alice.wait("both players listed", playersHave("Alice", "Bob"))
	startGame(alice, bob)
	ids := playerIDs(t, srv, id)
	givens, sol := puzzle(alice)
	cells := empties(givens)

	// A conflict for the feed, then Bob finishes first, then Alice.
	alice.clash(givens)
	bob.solve(cells, sol)
	alice.wait("Bob's finish", feedHas("finish", "Bob"))
	// No replay while Alice races: the round is live.
	alice.wait("no replay link while the race is live", `!(`+visible("#replay-link")+`)`)
	alice.solve(cells, sol)
	alice.wait("the replay link", visible("#replay-link"))
	link := eval[string](alice, `document.querySelector('#replay-link').href`)
	require.Equal(t, srv.URL()+"/r/"+id+"/replay?round=1", link)

	// Someone who never joined opens the link.
	carol := b.newPage("Carol")
	carol.viewport(1280, 800, false)
	carol.navigate(link)
	carol.wait("the replay, paused at the start", replayIs("paused")+` && document.querySelectorAll('.rp-card').length === 2`)
	order := eval[[]string](carol, `[...document.querySelectorAll('.rp-card')].map(c => c.dataset.player)`)
	assert.Equal(t, []string{ids["Bob"], ids["Alice"]}, order, "the winner's board first")
	assert.Equal(t, givens.String(), replayBoard(carol, ids["Bob"]), "the start: the givens")
	sub := eval[string](carol, `document.querySelector('#rp-sub').textContent`)
	assert.Contains(t, sub, "Bob (guest) won", "the players have no accounts: shown as guests, as in the room")
	assert.Contains(t, sub, "Alice (guest)")

	carol.click(`[data-speed="16"]`)
	assert.Equal(t, "true", eval[string](carol, `document.querySelector('[data-speed="16"]').getAttribute('aria-pressed')`))
	carol.click("#rp-play")
	carol.wait("the replay playing", replayIs("playing")+" || "+replayIs("ended"))
	carol.waitFor("the replay to end", replayIs("ended"), time.Minute)
	for name, pid := range ids {
		assert.Equal(t, sol.String(), replayBoard(carol, pid), "%s's final board is the solution", name)
	}
	assert.Contains(t, eval[string](carol, `document.querySelector('.rp-card[data-player="`+ids["Bob"]+`"] .rp-badge').textContent`), "1st")
	assert.Contains(t, eval[string](carol, `document.querySelector('.rp-card[data-player="`+ids["Alice"]+`"] .rp-badge').textContent`), "2nd")
	carol.wait("the conflict in the feed", feedHas("conflict", "Alice"))
	carol.wait("the finishes in the feed", feedHas("finish", "Bob"))
	assert.Equal(t, eval[string](carol, `document.querySelector('#rp-slider').max`), eval[string](carol, `document.querySelector('#rp-slider').value`),
		"the slider at the end")
	carol.shot("replay-desktop")
	// Laid out as a player sees it (a stylesheet that failed to apply
	// would leave one column of cells): on a laptop the two boards sit side
	// by side, each a square grid of nine cells a row.
	layout := eval[map[string]float64](carol, `(() => {
		const [a, b] = [...document.querySelectorAll('.rp-board')].map(x => x.getBoundingClientRect());
		const cells = [...document.querySelectorAll('.rp-board')[0].querySelectorAll('[data-cell]')].slice(0, 10).map(c => c.getBoundingClientRect());
		return {gap: b.left - a.right, top: Math.abs(b.top - a.top), ratio: a.width / a.height,
			rowTop: Math.abs(cells[8].top - cells[0].top), wrapped: cells[9].top - cells[0].top, cell: cells[0].width};
	})()`)
	assert.GreaterOrEqual(t, layout["gap"], 0.0, "the second board to the right of the first")
	assert.Less(t, layout["top"], 2.0, "the boards level")
	assert.InDelta(t, 1.0, layout["ratio"], 0.05, "a square board")
	assert.Less(t, layout["rowTop"], 1.0, "nine cells a row")
	assert.Greater(t, layout["wrapped"], 20.0, "the tenth cell on the next row")
	assert.Greater(t, layout["cell"], 30.0, "cells big enough to read")

	// Back by one event at a time: past the race's end and Alice's
	// finish, her last digit goes.
	for i := 0; i < 10 && replayBoard(carol, ids["Alice"]) == sol.String(); i++ {
		carol.click("#rp-back")
	}
	carol.wait("paused after stepping", replayIs("paused"))
	assert.NotEqual(t, sol.String(), replayBoard(carol, ids["Alice"]), "stepping back takes Alice's last digit away")
	assert.Equal(t, sol.String(), replayBoard(carol, ids["Bob"]), "Bob had finished long before")

	// Alice filled her board once Bob had finished: at four fifths of the
	// game she is on her way. Then on a phone, light and dark.
	carol.run("seek to 4/5", evalVoid(`(s => { s.value = String(Math.round(s.max * .8 / 100) * 100); s.dispatchEvent(new Event('input')); })(document.querySelector('#rp-slider'))`))
	at := eval[int](carol, `Math.round(document.querySelector('#rp-slider').max * .8 / 100) * 100`)
	assert.Equal(t, at, eval[int](carol, `+document.querySelector('#rp-slider').value`), "the slider stays where it was put")
	assert.Less(t, strings.Count(replayBoard(carol, ids["Alice"]), "."), len(cells), "Alice has digits")
	assert.Positive(t, strings.Count(replayBoard(carol, ids["Alice"]), "."), "Alice has cells to fill")
	settled := "document.getAnimations().length === 0"
	carol.wait("the page settled", settled)
	carol.shot("replay-desktop-mid")
	carol.colorScheme("dark")
	carol.wait("dark and settled", `document.documentElement.dataset.theme === 'dark' && `+settled)
	carol.shot("replay-desktop-dark")
	carol.viewport(375, 667, true)
	carol.colorScheme("light")
	carol.wait("light and settled", `document.documentElement.dataset.theme === 'light' && `+settled)
	carol.wait("the boards fit the phone", `document.querySelector('.rp-board').getBoundingClientRect().width <= 375`)
	carol.shot("replay-phone")
	carol.colorScheme("dark")
	carol.wait("dark and settled", `document.documentElement.dataset.theme === 'dark' && `+settled)
	carol.shot("replay-phone-dark")
}

// TestReplayOfALiveRound opens the replay of a race still running: the
// page says so, and links back to the room.
func TestReplayOfALiveRound(t *testing.T) {
	t.Parallel()
	srv := startArena(t)
	b := newBrowser(t)
	alice := b.newPage("Alice")
	id := createRoom(alice, srv.URL(), "race", "easy", "Alice")
	carol := b.newPage("Carol")
	carol.navigate(srv.URL() + "/r/" + id + "/replay")
	carol.wait("the refusal", `document.querySelector('.rp-fail')?.dataset.code === 'replay_live'`)
	assert.Contains(t, eval[string](carol, `document.querySelector('.rp-fail').textContent`), "still being played")
	assert.Equal(t, "/r/"+id, eval[string](carol, `new URL(document.querySelector('#rp-boards a').href).pathname`))
}

// TestReplayCoop replays a co-op game: one shared board whose digits carry
// the colour of the player who placed them, with each player's last move
// as their cursor.
func TestReplayCoop(t *testing.T) {
	t.Parallel()
	srv := startArena(t)
	b := newBrowser(t)
	alice, bob := b.newPage("Alice"), b.newPage("Bob")
	id := createRoom(alice, srv.URL(), "coop", "easy", "Alice")
	joinRoom(bob, srv.URL()+"/r/"+id, "Bob")
	alice.wait("Bob in the lobby", playersHave("Bob"))
	ids := playerIDs(t, srv, id)
	startGame(alice, bob)
	givens, sol := puzzle(alice)
	cells := empties(givens)
	half := len(cells) / 2
	alice.solve(cells[:half], sol)
	bob.solve(cells[half:], sol)
	alice.wait("the replay link", visible("#replay-link"))

	carol := b.newPage("Carol")
	carol.viewport(1280, 800, false)
	carol.navigate(srv.URL() + "/r/" + id + "/replay")
	carol.wait("the replay", replayIs("paused")+` && document.querySelectorAll('.rp-card').length === 1`)
	carol.click(`[data-speed="16"]`)
	carol.click("#rp-play")
	carol.waitFor("the replay to end", replayIs("ended"), time.Minute)
	board := eval[string](carol, `[...document.querySelectorAll('.rp-board [data-cell]')]
		.sort((a, b) => a.dataset.cell - b.dataset.cell)
		.map(c => (c.querySelector('.digit')?.textContent || '').trim() || '.').join('')`)
	assert.Equal(t, sol.String(), board, "the shared board ends solved")
	for i, c := range cells {
		want := ids["Alice"]
		if i >= half {
			want = ids["Bob"]
		}
		assert.Equal(t, want, eval[string](carol, fmt.Sprintf(`document.querySelector('.rp-board [data-cell="%d"]').dataset.by || ''`, c)), "who placed cell %d", c)
	}
	assert.NotEqual(t,
		eval[string](carol, fmt.Sprintf(`getComputedStyle(document.querySelector('.rp-board [data-cell="%d"] .digit')).color`, cells[0])),
		eval[string](carol, fmt.Sprintf(`getComputedStyle(document.querySelector('.rp-board [data-cell="%d"] .digit')).color`, cells[len(cells)-1])),
		"each player's digits in their colour")
	for name, cell := range map[string]int{"Alice": cells[half-1], "Bob": cells[len(cells)-1]} {
		assert.True(t, eval[bool](carol, fmt.Sprintf(`(document.querySelector('.rp-board [data-cell="%d"] .cursor[data-player=%q] .label')?.dataset.name || '').includes(%q)`, cell, ids[name], name)),
			"%s's cursor on their last move", name)
	}
	carol.wait("the page settled", "document.getAnimations().length === 0")
	carol.shot("replay-coop")
}
