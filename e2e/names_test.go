package e2e

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestNamesAreText joins with a name that is HTML: every page shows it as
// the characters typed, and nothing of it becomes an element.
func TestNamesAreText(t *testing.T) {
	t.Parallel()
	srv := startArena(t)
	b := newBrowser(t)
	alice, mallory := b.newPage("Alice"), b.newPage("Mallory")
	const name = `<img src=x onerror=1>`
	id := createRoom(alice, srv.URL(), "race", "easy", "Alice")
	joinRoom(mallory, srv.URL()+"/r/"+id, name)
	for _, p := range []*page{alice, mallory} {
		p.wait("the name as text", playersHave(name))
		assert.Zero(t, eval[int](p, `document.querySelectorAll('#players img, #feed img, #lobby img, #board img').length`),
			"%s: the name made an element", p.name)
	}
	alice.wait("the join in the feed", feedHas("join", name))
}

// TestSpectator watches a running race: the newcomer is offered to watch,
// sees the racers' progress but not their digits, and cannot play.
func TestSpectator(t *testing.T) {
	t.Parallel()
	srv := startArena(t)
	b := newBrowser(t)
	alice, carol := b.newPage("Alice"), b.newPage("Carol")
	id := createRoom(alice, srv.URL(), "race", "easy", "Alice")
	startGame(alice)
	givens, sol := puzzle(alice)
	cells := empties(givens)

	carol.navigate(srv.URL() + "/r/" + id)
	enterRoom(carol, "Carol")
	carol.wait("the offer to watch", visible("#notice button.primary"))
	carol.click("#notice button.primary")
	waitPlaying(carol)
	carol.wait("a read-only board", `document.querySelector('#board').getAttribute('aria-readonly') === 'true'`)
	assert.False(t, eval[bool](carol, visible("#pad")), "no pad for a spectator")
	assert.Equal(t, readBoard(alice, true), readBoard(carol, false), "the givens, and no racer's digits")

	alice.place(cells[0], sol[cells[0]])
	ids := playerIDs(t, srv, id)
	carol.wait("Alice's progress", `document.querySelector('#players li[data-player="`+ids["Alice"]+`"] progress')?.value === 1`)
	assert.True(t, eval[bool](carol, digitIs(cells[0], 0)), "a racer's digit stays hers")

	carol.click(cellSel(cells[1]))
	carol.press(digitKey(int(sol[cells[1]]), false), modNone)
	assert.True(t, carol.staysFalse(digitIs(cells[1], sol[cells[1]]), time.Second), "a spectator places nothing")
	assert.Equal(t, 1, srv.room(id).Players[0].Filled)
}

// TestJoinByCode joins from the home page with the room's code, and with
// the whole link pasted in.
func TestJoinByCode(t *testing.T) {
	t.Parallel()
	srv := startArena(t)
	b := newBrowser(t)
	alice := b.newPage("Alice")
	id := createRoom(alice, srv.URL(), "coop", "medium", "Alice")
	for name, input := range map[string]string{"Bob": id, "Carol": srv.URL() + "/r/" + id} {
		p := b.newPage(name)
		p.navigate(srv.URL() + "/")
		p.wait("the home page", visible("#join-code"))
		p.typeInto("#join-code", input)
		p.click("#join")
		p.wait("the room's page", `location.pathname === '/r/`+id+`'`)
		enterRoom(p, name)
		waitJoined(p)
		alice.wait(name+" in the room", playersHave(name))
	}
	assert.Len(t, srv.room(id).Players, 3)

	// A code that names no room: the page says so and stops there.
	dave := b.newPage("Dave")
	dave.navigate(srv.URL() + "/")
	dave.wait("the home page", visible("#name"))
	dave.typeInto("#name", "Dave")
	dave.typeInto("#join-code", "zzzzzzzz")
	dave.click("#join")
	dave.wait("the page saying the room is gone", `/does not exist|ended|no room|not found/i.test([...document.querySelectorAll('#notice, #message')].map(e => e.textContent).join(' '))`)
	assert.True(t, dave.staysFalse(connIs("reconnecting")+" || "+connIs("connecting"), 2*time.Second), "no retrying a room that is not there")
}
