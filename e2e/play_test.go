package e2e

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// pageScroll is the page's scrolling box: its scroll and client sizes.
type pageScroll struct {
	ScrollW, ClientW, ScrollH, ClientH float64
}

func scrollOf(p *page) pageScroll {
	p.t.Helper()
	return eval[pageScroll](p, `(e => ({scrollW: e.scrollWidth, clientW: e.clientWidth, scrollH: e.scrollHeight, clientH: e.clientHeight}))(document.scrollingElement)`)
}

// playerRow is how a row of the players panel is laid out.
type playerRow struct {
	Width, Bar, Font float64
	Weight           string
}

// playerRows are the players panel's rows, by name: the row's width, its
// progress bar's, and the size and weight of its stats' text.
func playerRows(p *page) map[string]playerRow {
	p.t.Helper()
	return eval[map[string]playerRow](p, `Object.fromEntries([...document.querySelectorAll('#players li')].map(li => {
		const stats = getComputedStyle(li.querySelector('.stats .count'));
		return [li.querySelector('.pname').firstChild.textContent, {width: li.getBoundingClientRect().width,
			bar: li.querySelector('progress').getBoundingClientRect().width, font: parseFloat(stats.fontSize), weight: stats.fontWeight}];
	}))`)
}

// playingPair starts a server and a game of mode between Alice (the
// host) and Bob, each in a browser context of their own; it returns once
// both play, with the room's id.
func playingPair(t *testing.T, mode string) (id string, alice, bob *page) {
	t.Helper()
	srv := startArena(t)
	b := newBrowser(t)
	alice, bob = b.newPage("Alice"), b.newPage("Bob")
	id = createRoom(alice, srv.URL(), mode, "easy", "Alice")
	joinRoom(bob, srv.URL()+"/r/"+id, "Bob")
	alice.wait("Bob in the room", playersHave("Bob"))
	startGame(alice, bob)
	return id, alice, bob
}

// TestRoomFits plays a co-op room on a phone (390x844) and a desktop, light
// and dark: every row of the players panel is as wide as the others (your
// own too), the board keeps a margin from the screen's edges, and a
// running game's page scrolls neither sideways nor up and down on the
// phone.
func TestRoomFits(t *testing.T) {
	t.Parallel()
	_, alice, bob := playingPair(t, "coop")
	givens, sol := puzzle(alice)
	cells := empties(givens)
	for _, c := range cells[:4] {
		alice.place(c, sol[c])
	}
	bob.wait("Alice's digits", digitIs(cells[3], sol[cells[3]]))

	for _, v := range []struct {
		name   string
		w, h   int64
		mobile bool
	}{{"phone", 390, 844, true}, {"desktop", 1280, 800, false}} {
		for _, scheme := range []string{"light", "dark"} {
			for _, p := range []*page{alice, bob} {
				p.viewport(v.w, v.h, v.mobile)
				p.colorScheme(scheme)
				p.run("scroll to the top", evalVoid(`window.scrollTo(0, 0)`))
				rows := playerRows(p)
				assert.Len(t, rows, 2, "%s %s: two rows", p.name, v.name)
				assert.Equal(t, rows["Alice"], rows["Bob"], "%s %s: your own row is laid out as the other's", p.name, v.name)
				assert.Greater(t, rows["Alice"].Bar, 200.0, "%s %s: the progress bars span the panel", p.name, v.name)
				board := eval[map[string]float64](p, `(r => ({left: r.left, right: r.right}))(document.querySelector('#board').getBoundingClientRect())`)
				assert.GreaterOrEqual(t, board["left"], 10.0, "%s %s: the board's left margin", p.name, v.name)
				assert.LessOrEqual(t, board["right"], float64(v.w)-10, "%s %s: the board's right margin", p.name, v.name)
				s := scrollOf(p)
				assert.LessOrEqual(t, s.ScrollW, s.ClientW, "%s %s: no sideways scroll", p.name, v.name)
				if v.mobile {
					assert.LessOrEqual(t, s.ScrollH, s.ClientH, "%s %s: a running game does not scroll", p.name, v.name)
					pad := eval[float64](p, `document.querySelector('#pad').getBoundingClientRect().bottom`)
					assert.LessOrEqual(t, pad, float64(v.h), "%s %s: the pad is on the screen", p.name, v.name)
				}
				p.shot(fmt.Sprintf("room-%s-%s-%s", v.name, scheme, p.name))
			}
		}
	}
}
