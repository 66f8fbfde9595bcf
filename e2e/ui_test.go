package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keyTab moves the focus.
var keyTab = key{"Tab", "Tab", 9, ""}

// padPressed is a predicate: the pad's mode button is the pressed one.
func padPressed(mode string) string {
	return fmt.Sprintf(`[...document.querySelectorAll('#pad [data-pad-mode]')].map(b => b.dataset.padMode + '=' + b.getAttribute('aria-pressed')).join() ===
		['digit', 'corner', 'centre', 'colour'].map(m => m + '=' + (m === %q)).join()`, mode)
}

// marksHave is a predicate on a cell's corner or centre marks.
func marksHave(cell int, kind string, d uint8, want bool) string {
	not := "!"
	if want {
		not = ""
	}
	return fmt.Sprintf(`%s(document.querySelector('%s .%s')?.textContent || '').includes('%d')`, not, cellSel(cell), kind, d)
}

// TestKeyboard plays with the keyboard alone: arrows, digits, Backspace,
// Delete, Esc, Shift and Ctrl notes, the Z/X/C pad modes, and undo/redo
// through the server.
func TestKeyboard(t *testing.T) {
	t.Parallel()
	srv := startArena(t)
	p := newBrowser(t).newPage("Alice")
	id, givens, sol, cells := soloRace(p, srv.URL(), 0)

	// Arrows move the selection; its row, column and box are shaded.
	p.click(cellSel(40))
	p.wait("cell 40 selected", selectedIs(40))
	for _, step := range []struct {
		k    key
		cell int
	}{{keyRight, 41}, {keyDown, 50}, {keyLeft, 49}, {keyUp, 40}} {
		p.press(step.k, modNone)
		p.wait(fmt.Sprintf("%s to cell %d", step.k.key, step.cell), selectedIs(step.cell))
	}
	peers := eval[[]int](p, `[...document.querySelectorAll('#board .peer')].map(c => +c.dataset.cell)`)
	assert.Subset(t, peers, []int{36, 44, 4, 76, 30, 50}, "row, column and box of r5c5")
	assert.NotContains(t, peers, 0)

	// A digit, its label, the same digit elsewhere; Backspace and Delete
	// clear.
	e := cells[0]
	d := sol[e]
	p.click(cellSel(e))
	p.press(digitKey(int(d), false), modNone)
	p.wait("the digit", digitIs(e, d))
	assert.Equal(t, fmt.Sprintf("row %d, column %d, %d", e/9+1, e%9+1, d),
		cellLabel(p, e))
	sameWant := 0
	for _, g := range givens {
		if g == d {
			sameWant++
		}
	}
	assert.GreaterOrEqual(t, eval[int](p, `document.querySelectorAll('#board .same').length`), sameWant, "every %d highlighted", d)
	p.press(keyBackspace, modNone)
	p.wait("Backspace clears", digitIs(e, 0))
	assert.Equal(t, fmt.Sprintf("row %d, column %d, empty", e/9+1, e%9+1),
		cellLabel(p, e))
	p.press(digitKey(int(d), false), modNone)
	p.wait("the digit again", digitIs(e, d))
	p.press(keyDelete, modNone)
	p.wait("Delete clears", digitIs(e, 0))

	// Undo and redo go through the server.
	p.press(letterKey('z', false), modCtrl)
	p.wait("Ctrl+Z puts the digit back", digitIs(e, d))
	assert.Equal(t, 1, srv.room(id).Players[0].Filled, "the server undid the clear")
	p.press(letterKey('y', false), modCtrl)
	p.wait("Ctrl+Y clears it again", digitIs(e, 0))
	p.press(letterKey('z', false), modCtrl)
	p.wait("Ctrl+Z once more", digitIs(e, d))
	p.press(letterKey('z', true), modCtrl|modShift)
	p.wait("Ctrl+Shift+Z redoes", digitIs(e, 0))
	assert.Equal(t, 0, srv.room(id).Players[0].Filled, "the server redid the clear")

	// Notes: Shift+digit a corner mark, Ctrl+digit a centre mark, again to
	// take it off.
	n1, n2 := d, d%9+1
	p.press(digitKey(int(n1), true), modShift)
	p.wait("Shift+digit: a corner mark", marksHave(e, "corner", n1, true))
	p.press(digitKey(int(n2), false), modCtrl)
	p.wait("Ctrl+digit: a centre mark", marksHave(e, "centre", n2, true))
	assert.Contains(t, cellLabel(p, e), "notes")
	assert.Equal(t, 0, eval[int](p, fmt.Sprintf(`document.querySelectorAll('%s .digit:not(:empty)').length`, cellSel(e))), "marks are not digits")
	p.press(digitKey(int(n1), true), modShift)
	p.wait("Shift+digit again: the mark off", marksHave(e, "corner", n1, false))

	// Z, X and C switch the pad's mode; a plain digit follows the mode.
	n3, n4 := n2%9+1, (n2+1)%9+1
	p.press(letterKey('x', false), modNone)
	p.wait("X: corner mode", padPressed("corner"))
	p.press(digitKey(int(n3), false), modNone)
	p.wait("a corner mark in corner mode", marksHave(e, "corner", n3, true))
	p.press(letterKey('c', false), modNone)
	p.wait("C: centre mode", padPressed("centre"))
	p.press(digitKey(int(n4), false), modNone)
	p.wait("a centre mark in centre mode", marksHave(e, "centre", n4, true))
	p.press(letterKey('z', false), modNone)
	p.wait("Z: digit mode", padPressed("digit"))
	assert.True(t, eval[bool](p, digitIs(e, 0)), "no digit placed by the mode keys")

	// A given cannot change: the server says so, in words.
	g := givenCell(givens)
	assert.Equal(t, fmt.Sprintf("row %d, column %d, %d, given", g/9+1, g%9+1, givens[g]),
		cellLabel(p, g))
	p.click(cellSel(g))
	p.press(digitKey(int(givens[g])%9+1, false), modNone)
	p.wait("the given_cell message", messageIs("given_cell"))
	assert.NotContains(t, eval[string](p, `document.querySelector('#message').textContent`), "given_cell", "a sentence, not the code")
	assert.True(t, eval[bool](p, digitIs(g, givens[g])), "the given stays")

	// Esc deselects; Tab reaches the board again, and the arrows work.
	p.press(keyEscape, modNone)
	p.wait("Esc deselects", `document.querySelectorAll('#board .selected').length === 0`)
	p.run("blur", evalVoid(`document.activeElement?.blur(); window.scrollTo(0, 0)`))
	reached := false
	for range 40 {
		p.press(keyTab, modNone)
		if eval[bool](p, `!!document.activeElement?.closest('#board')`) {
			reached = true
			break
		}
	}
	require.True(t, reached, "Tab reaches the board")
	p.press(keyRight, modNone)
	p.wait("a cell selected from the keyboard", `document.querySelectorAll('#board .selected').length === 1`)
}

// TestPhone plays on a phone-sized screen: the board and the pad fit, the
// page does not scroll sideways, the pad's buttons are big enough to tap,
// and the pad places digits and counts them.
func TestPhone(t *testing.T) {
	t.Parallel()
	srv := startArena(t)
	p := newBrowser(t).newPage("phone")
	p.viewport(375, 667, true)
	noSideScroll := `document.documentElement.scrollWidth <= window.innerWidth`

	p.navigate(srv.URL() + "/")
	p.wait("the home page", visible("#create-race"))
	assert.True(t, eval[bool](p, noSideScroll), "the home page fits: scrollWidth %d", eval[int](p, `document.documentElement.scrollWidth`))
	fits := func(sel string) {
		t.Helper()
		p.wait(sel+" visible", visible(sel))
		rect := eval[map[string]float64](p, fmt.Sprintf(`(r => ({left: r.left, right: r.right}))(document.querySelector(%q).getBoundingClientRect())`, sel))
		assert.GreaterOrEqual(t, rect["left"], 0.0, "%s within the screen", sel)
		assert.LessOrEqual(t, rect["right"], 375.0, "%s within the screen", sel)
	}
	createRoom(p, srv.URL(), "race", "easy", "Alice")
	fits("#lobby")
	fits("#share-link")
	assert.True(t, eval[bool](p, noSideScroll), "the lobby fits")
	startGame(p)
	givens, sol := puzzle(p)
	cells := empties(givens)
	fits("#board")
	fits("#pad")
	assert.True(t, eval[bool](p, noSideScroll), "the room fits: scrollWidth %d", eval[int](p, `document.documentElement.scrollWidth`))
	small := eval[[]string](p, `[...document.querySelectorAll('#pad button, #undo, #redo, #hint')]
		.filter(b => b.getClientRects().length > 0)
		.map(b => [b, b.getBoundingClientRect()])
		.filter(([b, r]) => r.width < 40 || r.height < 40)
		.map(([b, r]) => (b.dataset.digit ?? b.dataset.padMode ?? b.id) + ' ' + Math.round(r.width) + 'x' + Math.round(r.height))`)
	assert.Empty(t, small, "tap targets under 40 px")

	// The pad places a digit and counts it.
	e := cells[0]
	d := sol[e]
	given := 0
	for _, g := range givens {
		if g == d {
			given++
		}
	}
	left := fmt.Sprintf(`(document.querySelector('#pad button[data-digit="%d"] .left')?.textContent || '').trim()`, d)
	assert.Equal(t, fmt.Sprint(9-given), eval[string](p, left), "the count of %d left to place", d)
	p.click(cellSel(e))
	p.click(fmt.Sprintf(`#pad button[data-digit="%d"]`, d))
	p.wait("the pad's digit on the board", digitIs(e, d))
	p.wait("one fewer left", fmt.Sprintf(`%s === %q`, left, fmt.Sprint(8-given)))
	p.click(`#pad button[data-digit="0"]`)
	p.wait("the pad's erase", digitIs(e, 0))
	tap := func(cells []int) {
		t.Helper()
		for _, c := range cells {
			p.click(cellSel(c))
			p.click(fmt.Sprintf(`#pad button[data-digit="%d"]`, sol[c]))
			p.wait("the pad's digit", digitIs(c, sol[c]))
		}
	}
	tap(cells[:8])
	p.shot("race-phone")

	// The finish fits too: the last digits tapped, the rest by moves.
	typed := len(cells) - typedCells
	p.fillByProtocol(cells[8:typed], sol)
	tap(cells[typed:])
	fits("#finish")
	assert.True(t, eval[bool](p, noSideScroll), "the finish fits")
	p.shot("finish-phone")
}

// TestDarkMode follows the system's colour scheme: dark when it is dark,
// light again when it changes.
func TestDarkMode(t *testing.T) {
	t.Parallel()
	srv := startArena(t)
	p := newBrowser(t).newPage("dark")
	p.colorScheme("dark")
	p.navigate(srv.URL() + "/")
	p.wait("dark theme", `document.documentElement.dataset.theme === 'dark'`)
	assert.Less(t, bodyLuminance(p), 0.2, "a dark background")

	_, _, sol, cells := soloRace(p, srv.URL(), 0)
	p.click(cellSel(cells[0]))
	p.fillByKeys(cells[0], cells[:12], sol)
	p.click(cellSel(cells[12]))
	p.shot("dark")

	p.colorScheme("light")
	p.wait("light theme", `document.documentElement.dataset.theme === 'light'`)
	assert.Greater(t, bodyLuminance(p), 0.6, "a light background")
}

// bodyLuminance is the relative luminance (0 black, 1 white) of the page's
// background.
func bodyLuminance(p *page) float64 {
	p.t.Helper()
	return eval[float64](p, `(() => {
		const bg = (el) => getComputedStyle(el).backgroundColor;
		let c = bg(document.body);
		if (/rgba\(.*, 0\)$/.test(c) || c === 'transparent') c = bg(document.documentElement);
		const [r, g, b] = c.match(/[\d.]+/g).slice(0, 3).map(v => {
			v /= 255;
			return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
		});
		return 0.2126 * r + 0.7152 * g + 0.0722 * b;
	})()`)
}

// TestHeldArrows holds arrow keys down in a co-op room, under the
// server's default message rate: the cursor the page shares follows, to
// the cell where the keys stop, without the page being told to slow down
// or cut off.
func TestHeldArrows(t *testing.T) {
	t.Parallel()
	srv := startArena(t, "RATE_LIMIT=20", "RATE_BURST=40")
	b := newBrowser(t)
	alice, bob := b.newPage("Alice"), b.newPage("Bob")
	id := createRoom(alice, srv.URL(), "coop", "easy", "Alice")
	joinRoom(bob, srv.URL()+"/r/"+id, "Bob")
	startGame(alice, bob)
	givens, sol := puzzle(alice)
	alice.click(cellSel(0))
	for i := range 120 { // 120 key repeats: a held key for a few seconds
		alice.pressRepeat([]key{keyRight, keyDown}[i/9%2])
	}
	at := eval[int](alice, `+document.querySelector('#board .selected').dataset.cell`)
	bob.wait("Alice's cursor where her keys stopped", cursorOf(at, playerIDs(t, srv, id)["Alice"], "Alice"))
	assert.True(t, eval[bool](alice, connIs("open")), "still connected")
	assert.NotEqual(t, "rate_limited", eval[string](alice, `document.querySelector('#message')?.dataset.code || ''`))
	e := empties(givens)[0]
	alice.place(e, sol[e])
	bob.wait("Alice's digit", digitIs(e, sol[e]))
	assert.True(t, alice.staysFalse(messageIs("rate_limited"), time.Second), "no rate limit after")
}
