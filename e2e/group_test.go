package e2e

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGroupRaceLobby: a Play now match's race room is its players' and
// starts by itself. Bob waits in the queue from his home page (through
// the API); Ann presses Play now and opens the race alone: the waiting
// room says who is missing and when it starts anyway, with no Start
// button. Cy, with the link, is offered to watch instead of playing.
// Once Bob opens it, the race runs for both.
func TestGroupRaceLobby(t *testing.T) {
	t.Parallel()
	srv := startArena(t, "SOCKETS_PER_ADDR=0", "PLAYER_RATE=0", "GROUP_WAIT=2m")
	b := newBrowser(t)
	ann, bob, cy := b.newPage("Ann"), b.newPage("Bob"), b.newPage("Cy")
	for _, p := range []*page{ann, bob} {
		p.navigate(srv.URL() + "/")
		p.wait("the Play now card", visible("#play-now[data-ready]"))
	}
	ctx, cancel := context.WithTimeout(bob.ctx, waitTimeout)
	defer cancel()
	ticket, err := chromedp.Run(ctx, chromedp.Evaluate[string](`import('/api.js').then(async (api) => {
		await api.ensurePlayer('Bob');
		return (await api.post('/api/queue', {level: 'easy', rated: false})).ticket;
	})`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	require.NotEmpty(t, ticket)

	ann.typeInto("#name", "Ann")
	ann.run("pick easy, casual", evalVoid(`document.querySelector('#play-level').value = 'easy'; document.querySelector('#play-rated').checked = false`))
	ann.click("#play-now")
	ann.wait("the race room", `location.pathname.startsWith('/r/')`)
	ann.wait("the match's waiting room", visible("#lobby")+` && document.querySelector('#lobby-kicker').textContent === 'Your match'`)
	assert.False(t, eval[bool](ann, visible("#start")), "nobody starts a match's race")
	assert.Equal(t, "The race is about to start", text(ann, "#lobby-title"))
	assert.Equal(t, "Here: Ann (1 of 2)", text(ann, "#lobby-count"))
	assert.Regexp(t, `^Starts when 1 more player is here, or in (1[01][0-9]|120) s with those who are\.$`, text(ann, "#waiting"))
	assert.Equal(t, "Friends can watch with this link", text(ann, `label[for="share-link"]`))
	ann.shotsIn(ratedLooks, "group-lobby", "#lobby")

	room := eval[string](ann, `location.pathname.slice(3)`)
	cy.navigate(srv.URL() + "/")
	cy.run("Cy's name", evalVoid(`localStorage.setItem('arena.name', 'Cy')`))
	cy.navigate(srv.URL() + "/r/" + room)
	enterRoom(cy, "Cy")
	cy.wait("the offer to watch", visible("#notice")+` && document.querySelector('#notice').textContent.includes('matched players')`)
	cy.shotsIn(ratedLooks[:1], "group-not-invited", "")
	cy.click("#notice button.primary")
	cy.wait("watching", `document.querySelector('#players')?.textContent.includes('Ann')`)

	// A bound of its own: the first one began before the screenshots.
	ctx, cancel = context.WithTimeout(bob.ctx, waitTimeout)
	defer cancel()
	st, err := chromedp.Run(ctx, chromedp.Evaluate[string](`import('/api.js').then(async (api) => (await api.get('/api/queue/`+ticket+`')).room)`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	require.Equal(t, room, st, "one room for both")
	bob.navigate(srv.URL() + "/r/" + room)
	waitPlaying(ann, bob)
	ann.wait("the feed's start", feedHas("info", "The race starts."))
	cy.wait("the race, watched", phaseIs("running"))
}
