package e2e

import (
	"fmt"
	"testing"
	"time"

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

// settled waits until no CSS transition runs (a colour scheme just
// changed fades the page's colours in), so that a screenshot shows the
// page as it stays.
func (p *page) settled() {
	p.t.Helper()
	p.wait("transitions over", `document.getAnimations().filter(a => a instanceof CSSTransition).length === 0`)
}

// playLook is a screen the play features are looked at on.
type playLook struct {
	name   string // phone-light, desktop-dark…
	w, h   int64
	mobile bool
}

// inEachLook shows p on a phone (390x844) and a laptop (1280x800), light
// and dark, and calls fn in each once the page has settled; it leaves p
// on a light laptop.
func (p *page) inEachLook(fn func(l playLook)) {
	p.t.Helper()
	for _, l := range []playLook{{"phone", 390, 844, true}, {"desktop", 1280, 800, false}} {
		for _, scheme := range []string{"light", "dark"} {
			p.viewport(l.w, l.h, l.mobile)
			p.colorScheme(scheme)
			p.settled()
			fn(playLook{l.name + "-" + scheme, l.w, l.h, l.mobile})
		}
	}
	p.viewport(1280, 800, false)
	p.colorScheme("light")
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

	for _, p := range []*page{alice, bob} {
		p.inEachLook(func(v playLook) {
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
			p.shot(fmt.Sprintf("room-%s-%s", v.name, p.name))
		})
	}
}

// coloursAre is a predicate: the cell shows the colours (1 to 9, in order;
// "" for none), as its fill.
func coloursAre(cell int, want string) string {
	fill := `getComputedStyle(document.querySelector('` + cellSel(cell) + ` .fill')).backgroundImage`
	has := fill + ` !== 'none'`
	if want == "" {
		has = fill + ` === 'none'`
	}
	return fmt.Sprintf(`document.querySelector('%s')?.dataset.colours === %q && %s`, cellSel(cell), want, has)
}

// TestCoopColours colours cells as SudokuPad does, in a co-op room: V
// switches the pad to colours (a button does too), a digit key or a pad
// swatch toggles a colour on the cell, a cell takes several, a given
// takes one; the partner sees them at once, and again after a reload;
// erase in colour mode clears the cell's colours.
func TestCoopColours(t *testing.T) {
	t.Parallel()
	_, alice, bob := playingPair(t, "coop")
	givens, _ := puzzle(alice)
	open, given := empties(givens)[0], givenCell(givens)

	alice.click(cellSel(open))
	alice.press(letterKey('v', false), modNone)
	alice.wait("V: colour mode", padPressed("colour"))
	alice.press(digitKey(3, false), modNone)
	alice.click(`#pad button[data-digit="5"]`)
	for _, p := range []*page{alice, bob} {
		p.wait("two colours on the cell", coloursAre(open, "35"))
	}
	assert.Contains(t, cellLabel(bob, open), "colour 3 5", "the cell's label says its colours")
	assert.True(t, eval[bool](alice, digitIs(open, 0)), "colours place no digit")
	assert.Equal(t, "Colour 5", eval[string](alice, `document.querySelector('#pad button[data-digit="5"]').getAttribute('aria-label')`))

	alice.click(cellSel(given))
	alice.press(digitKey(1, false), modNone)
	bob.wait("a given coloured", coloursAre(given, "1"))
	alice.press(digitKey(1, false), modNone)
	bob.wait("the colour taken off again", coloursAre(given, ""))
	alice.press(digitKey(7, false), modNone)
	bob.wait("another colour", coloursAre(given, "7"))

	bob.run("reload", evalVoid(`location.reload()`))
	waitPlaying(bob)
	bob.wait("the colours after a reload", coloursAre(open, "35")+" && "+coloursAre(given, "7"))

	alice.inEachLook(func(l playLook) { alice.shot("colours-" + l.name) })

	bob.click(cellSel(open))
	bob.click(`#pad [data-pad-mode="colour"]`)
	bob.wait("the Colour button: colour mode", padPressed("colour"))
	bob.press(keyDelete, modNone)
	alice.wait("erase clears the colours", coloursAre(open, ""))
	assert.True(t, eval[bool](alice, coloursAre(given, "7")), "the other cell keeps its colour")
}

var keyEnter = key{"Enter", "Enter", 13, "\r"}

// count is the number of elements the selector finds.
func count(p *page, sel string) int {
	p.t.Helper()
	return eval[int](p, fmt.Sprintf(`document.querySelectorAll(%q).length`, sel))
}

// peerDigit is one of the empty cells and a given of its row: a mark of
// that digit there clashes.
func peerDigit(p *page, givens []uint8, empty []int) (int, uint8) {
	p.t.Helper()
	for _, c := range empty {
		r := c / 9
		for k := range 9 {
			if d := givens[r*9+k]; d != 0 {
				return c, d
			}
		}
	}
	p.t.Fatal("no empty cell with a given in its row")
	return 0, 0
}

// TestSettings changes every setting from the settings dialog, opened
// from the keyboard, and checks what the player sees: no same-digit or
// peer shading when those are off, marks that clash shown or not, the
// colour-blind-safe palette, the pad left of the board for the
// left-handed (mirrored on a phone), a sound for a digit; Esc closes the
// dialog and the focus goes back to its button; the settings outlive a
// reload. A racer's colours stay in the browser, and survive a reload too.
func TestSettings(t *testing.T) {
	t.Parallel()
	srv := startArena(t)
	p := newBrowser(t).newPage("Alice")
	_, givens, sol, cells := soloRace(p, srv.URL(), 1)
	p.wait("the first game's guide", visible("#guide"))
	p.click("#guide-ok")
	p.wait("the guide dismissed", `!document.querySelector('#guide')`)
	e := cells[0]
	p.click(cellSel(e))
	p.wait("shading on", `document.querySelectorAll('#board .same').length > 0 && document.querySelectorAll('#board .peer').length === 20`)

	open := func() {
		t.Helper()
		p.run("focus the settings button", evalVoid(`document.querySelector('#settings-open').focus()`))
		p.press(keyEnter, modNone)
		p.wait("the settings dialog", `document.querySelector('#settings')?.open === true`)
		assert.True(t, eval[bool](p, `!!document.activeElement.closest('#settings')`), "the focus is in the dialog")
	}
	open()
	p.inEachLook(func(l playLook) { p.shot("settings-" + l.name) })
	p.run("focus the dialog's close button", evalVoid(`document.querySelector('#settings button').focus()`))
	p.press(letterKey('x', false), modNone)
	assert.True(t, p.staysFalse("!("+padPressed("digit")+")", 300*time.Millisecond), "the board's keys do nothing in the dialog")
	for _, id := range []string{"#set-same", "#set-peers", "#set-conflicts", "#set-palette-safe", "#set-left", "#set-sound"} {
		p.click(id)
	}
	p.wait("settings applied", `document.documentElement.dataset.palette === 'safe' && document.documentElement.dataset.hand === 'left'`)
	p.press(keyEscape, modNone)
	p.wait("Esc closes the dialog", `!document.querySelector('#settings')`)
	assert.Equal(t, "settings-open", eval[string](p, `document.activeElement.id`), "the focus back on the button")
	assert.JSONEq(t, `{"same":false,"peers":false,"conflicts":false,"palette":"safe","left":true,"sound":true}`,
		eval[string](p, `localStorage.getItem('arena.settings')`))

	p.click(cellSel(e))
	p.wait("no shading", `document.querySelectorAll('#board .same, #board .peer').length === 0 && document.querySelectorAll('#board .selected').length === 1`)
	pad := eval[map[string]float64](p, `(r => ({right: r.right}))(document.querySelector('#pad').getBoundingClientRect())`)
	board := eval[map[string]float64](p, `(r => ({left: r.left}))(document.querySelector('#board').getBoundingClientRect())`)
	assert.Less(t, pad["right"], board["left"], "left-handed: the pad left of the board")

	p.place(cells[1], sol[cells[1]])
	p.wait("a tone for the digit", `document.documentElement.dataset.blip === 'place'`)

	// A corner mark that a peer's digit rules out: unmarked while
	// conflicts are off, in red once they are on.
	x, d := peerDigit(p, givens[:], cells[3:])
	p.click(cellSel(x))
	p.press(digitKey(int(d), true), modShift)
	p.wait("the mark", marksHave(x, "corner", d, true))
	assert.Equal(t, 0, count(p, "#board .corner i.clash"), "conflicts off: the mark is not flagged")
	open()
	p.click("#set-conflicts")
	p.press(keyEscape, modNone)
	p.wait("conflicts on: the mark flagged", fmt.Sprintf(`document.querySelectorAll('%s .corner i.clash').length === 1`, cellSel(x)))

	// Colours in a race are the racer's own: kept here, not sent.
	y := cells[2]
	p.click(cellSel(y))
	p.press(letterKey('v', false), modNone)
	p.press(digitKey(2, false), modNone)
	p.wait("a colour", coloursAre(y, "2"))
	p.shot("left-desktop-light")

	p.run("reload", evalVoid(`location.reload()`))
	waitPlaying(p)
	p.wait("the settings and the colour after a reload", `document.documentElement.dataset.palette === 'safe' && document.documentElement.dataset.hand === 'left' && `+coloursAre(y, "2"))
	assert.NotEqual(t, "coop_only", eval[string](p, `document.querySelector('#message').dataset.code || ''`), "no colour went to the server")
	assert.False(t, eval[bool](p, visible("#guide")), "the guide shows once")

	p.viewport(390, 844, true)
	p.colorScheme("dark")
	p.settled()
	tools := eval[map[string]float64](p, `({undo: document.querySelector('#undo').getBoundingClientRect().left, digit: document.querySelector('[data-pad-mode="digit"]').getBoundingClientRect().left,
		erase: document.querySelector('#pad .erase').getBoundingClientRect().left, one: document.querySelector('#pad [data-digit="1"]').getBoundingClientRect().left})`)
	assert.Less(t, tools["undo"], tools["digit"], "left-handed phone: the controls on the left")
	assert.Less(t, tools["erase"], tools["one"], "left-handed phone: erase on the left")
	p.shot("left-phone-dark")
	open()
	s := scrollOf(p)
	assert.LessOrEqual(t, s.ScrollW, s.ClientW, "the dialog fits the phone")
	p.click("#settings .buttons button:not(.primary)")
	p.wait("the keys, from the dialog's Keys button", `document.querySelector('#keys')?.open === true && !document.querySelector('#settings')`)
}

// TestGuideAndKeys: a player's first game shows a short guide beside the
// board, once; ? opens the keys on any page, and Esc closes them.
func TestGuideAndKeys(t *testing.T) {
	t.Parallel()
	srv := startArena(t)
	p := newBrowser(t).newPage("Alice")
	p.navigate(srv.URL() + "/")
	p.wait("the home page", visible("#create-race"))
	question := key{"?", "Slash", 191, "?"}
	p.press(question, modShift)
	p.wait("? opens the keys", `document.querySelector('#keys')?.open === true`)
	assert.Contains(t, eval[string](p, `document.querySelector('#keys').textContent`), "colour mode")
	p.press(keyEscape, modNone)
	p.wait("Esc closes them", `!document.querySelector('#keys')`)

	soloRace(p, srv.URL(), 0)
	p.wait("the guide", visible("#guide"))
	assert.Contains(t, eval[string](p, `document.querySelector('#guide').textContent`), "Z X C V")
	p.inEachLook(func(l playLook) { p.shot("guide-" + l.name) })
	p.click(cellSel(0))
	p.press(question, modShift)
	p.wait("? in a game", `document.querySelector('#keys')?.open === true`)
	p.inEachLook(func(l playLook) { p.shot("keys-" + l.name) })
	p.press(keyEscape, modNone)
	p.wait("Esc closes them", `!document.querySelector('#keys')`)
	p.click("#guide-ok")
	p.wait("the guide dismissed", `!document.querySelector('#guide')`)

	p.run("reload", evalVoid(`location.reload()`))
	waitPlaying(p)
	assert.True(t, p.staysFalse(visible("#guide"), 500*time.Millisecond), "the guide shows once")
}

// TestSettingsFollowTheAccount: a guest's settings go with them when they
// make an account, a change made on one device is the account's, and
// another device that signs in to the account takes them.
func TestSettingsFollowTheAccount(t *testing.T) {
	t.Parallel()
	_, base := startAccountArena(t)
	b := newBrowser(t)
	ann := b.newPage("Ann")
	ann.navigate(base + "/")
	ann.wait("the home page", visible("#create-race"))
	ann.run("a guest's setting", evalVoid(`localStorage.setItem('arena.settings', JSON.stringify({left: true}))`))
	annAuth := ann.authenticator()
	ann.navigate(base + "/account")
	ann.wait("the sign-up form", accountView("guest"))
	ann.typeInto("#signup-handle", "Ann")
	ann.click("#signup")
	ann.wait("the recovery codes", accountView("codes"))
	ann.wait("the browser's settings kept with the new account", `fetch('/api/me').then(r => r.json()).then(m => m.account.settings?.left === true)`)

	ann.navigate(base + "/")
	ann.wait("the home page", visible("#create-race"))
	ann.click("#create-race")
	ann.wait("the room's lobby", `location.pathname.startsWith('/r/') && `+phaseIs("waiting")+" && "+connIs("open"))
	startGame(ann)
	ann.click("#settings-open")
	ann.wait("the settings dialog", `document.querySelector('#settings')?.open === true`)
	assert.Contains(t, text(ann, "#settings"), "Kept with your account")
	ann.click("#set-palette-safe")
	ann.click("#set-peers")
	ann.wait("the change kept with the account", `fetch('/api/me').then(r => r.json()).then(m => m.account.settings?.palette === 'safe' && m.account.settings?.peers === false)`)

	bea := b.newPage("Ann's tablet")
	beaAuth := bea.authenticator()
	bea.addCredentials(beaAuth, ann.credentials(annAuth))
	bea.navigate(base + "/account")
	bea.wait("the sign-in", accountView("guest")+" && "+visible("#signin"))
	bea.click("#signin")
	bea.wait("signed in", accountView("account"))
	bea.navigate(base + "/")
	bea.wait("the account's settings on the tablet", `document.documentElement.dataset.palette === 'safe' && document.documentElement.dataset.hand === 'left' && JSON.parse(localStorage.getItem('arena.settings')).peers === false`)
}
