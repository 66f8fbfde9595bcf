package e2e

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// activeIs is a predicate: the element with the id has the keyboard's
// focus.
func activeIs(id string) string {
	return fmt.Sprintf(`document.activeElement?.id === %q`, id)
}

// tabTo presses Tab until the element with the id has the focus, at most
// limit times, and answers how many it took.
func (p *page) tabTo(id string, limit int) int {
	p.t.Helper()
	for n := 1; n <= limit; n++ {
		p.press(keyTab, modNone)
		if eval[bool](p, activeIs(id)) {
			return n
		}
	}
	p.t.Fatalf("%s: #%s not reached in %d Tabs (at %s)", p.name, id, limit,
		eval[string](p, `document.activeElement?.id || document.activeElement?.tagName || ''`))
	return 0
}

// typeKeys types the text key by key into the focused field.
func (p *page) typeKeys(s string) {
	p.t.Helper()
	for _, c := range []byte(s) {
		p.press(letterKey(c, c >= 'A' && c <= 'Z'), modNone)
	}
}

// TestKeyboardOnly makes a room and plays it with the keyboard alone: a
// few Tabs to the name and the button, Enter; the room's Start has the
// focus, Enter; the board has it once the game begins (for the host and
// for a player who joined), with a focus ring to see, light and dark;
// digits go in by keys; from the top of the page the board is a few Tabs
// away.
func TestKeyboardOnly(t *testing.T) {
	t.Parallel()
	srv := startArena(t)
	b := newBrowser(t)
	p := b.newPage("Kim")

	p.navigate(srv.URL() + "/")
	p.wait("the home page", visible("#create-race"))
	p.tabTo("name", 12)
	p.typeKeys("Kim")
	p.tabTo("create-race", 3)
	p.press(keyEnter, modNone)
	p.wait("the room's lobby", phaseIs("waiting")+" && "+connIs("open"))
	p.wait("Start has the focus", activeIs("start"))
	id := eval[string](p, `location.pathname.slice(3)`)

	lee := b.newPage("Lee")
	joinRoom(lee, srv.URL()+"/r/"+id, "Lee")
	p.wait("Lee in the lobby", playersHave("Lee"))
	p.wait("Start still has the focus", activeIs("start"))
	p.press(keyEnter, modNone)
	waitPlaying(p, lee)
	p.wait("the board has the focus", activeIs("board"))
	lee.wait("the board has Lee's focus too", activeIs("board"))

	// The focus ring: an outline in the accent colour, in each scheme.
	ring := func() string {
		return eval[string](p, `(s => s.outlineStyle + ' ' + s.outlineWidth + ' ' + s.outlineColor)(getComputedStyle(document.querySelector('#board')))`)
	}
	accent := func() string {
		return eval[string](p, `(e => { e.style.color = 'var(--accent)'; document.body.append(e); const c = getComputedStyle(e).color; e.remove(); return c; })(document.createElement('span'))`)
	}
	require.True(t, eval[bool](p, `document.querySelector('#board').matches(':focus-visible')`), "the keyboard's focus shows")
	for _, scheme := range []string{"light", "dark"} {
		p.colorScheme(scheme)
		p.wait(scheme+" theme", fmt.Sprintf(`document.documentElement.dataset.theme === %q`, scheme))
		p.settle()
		assert.Equal(t, "solid 3px "+accent(), ring(), "the board's focus ring, %s", scheme)
		p.shot("focus-" + scheme)
	}
	p.colorScheme("light")

	// Digits by keys: the focus stays on the board.
	p.wait("a cell selected by the focus", `document.querySelectorAll('#board .selected').length === 1`)
	at := eval[int](p, `+document.querySelector('#board .selected').dataset.cell`)
	givens, sol := puzzle(p)
	cells := empties(givens)
	p.fillByKeys(at, cells[:4], sol)
	assert.True(t, eval[bool](p, activeIs("board")), "the board keeps the focus")
	assert.Equal(t, 4, srv.room(id).Players[0].Filled+srv.room(id).Players[1].Filled, "the digits reached the server")

	// From the top of the page (its first link), the board is a few Tabs
	// away: past the header's links and the settings button.
	p.run("focus the first link", evalVoid(`document.querySelector('.brand').focus(); window.scrollTo(0, 0)`))
	n := p.tabTo("board", 10)
	assert.LessOrEqual(t, n, 5, "Tabs from the top of the page to the board")
}
