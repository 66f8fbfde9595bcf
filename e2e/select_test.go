package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
)

// middle is where the cell's centre is in the page's viewport.
func middle(p *page, cell int) (x, y float64) {
	p.t.Helper()
	xy := eval[[]float64](p, fmt.Sprintf(`(r => [r.x + r.width / 2, r.y + r.height / 2])(document.querySelector('%s').getBoundingClientRect())`, cellSel(cell)))
	require.Len(p.t, xy, 2)
	return xy[0], xy[1]
}

// drag presses the mouse on the first cell, moves it over the others with
// the button down and lets go on the last.
func (p *page) drag(mods int64, cells ...int) {
	p.t.Helper()
	var evs []input.DispatchMouseEventParams
	for i, c := range cells {
		x, y := middle(p, c)
		ev := input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: x, Y: y, Modifiers: mods, Button: input.MouseButtonLeft, Buttons: 1}
		if i == 0 {
			ev.Type, ev.ClickCount = input.DispatchMouseEventTypeMousePressed, 1
		}
		evs = append(evs, ev)
		if i == len(cells)-1 {
			ev.Type, ev.ClickCount, ev.Buttons = input.DispatchMouseEventTypeMouseReleased, 1, 0
			evs = append(evs, ev)
		}
	}
	p.run(fmt.Sprintf("drag the mouse over %v (modifiers %d)", cells, mods), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for _, ev := range evs {
			if _, err := cdp.Call(ctx, t, input.DispatchMouseEvent, ev); err != nil {
				return err
			}
		}
		return nil
	}))
}

// swipe touches the first cell and slides the finger over the others.
func (p *page) swipe(cells ...int) {
	p.t.Helper()
	var evs []input.DispatchTouchEventParams
	for i, c := range cells {
		x, y := middle(p, c)
		typ := input.DispatchTouchEventTypeTouchMove
		if i == 0 {
			typ = input.DispatchTouchEventTypeTouchStart
		}
		evs = append(evs, input.DispatchTouchEventParams{Type: typ, TouchPoints: []*input.TouchPoint{{X: x, Y: y}}})
	}
	evs = append(evs, input.DispatchTouchEventParams{Type: input.DispatchTouchEventTypeTouchEnd, TouchPoints: []*input.TouchPoint{}})
	p.run(fmt.Sprintf("swipe over %v", cells), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for _, ev := range evs {
			if _, err := cdp.Call(ctx, t, input.DispatchTouchEvent, ev); err != nil {
				return err
			}
		}
		return nil
	}))
}

// selectedAre is a predicate: the cells marked selected, and read as
// selected (aria-selected), are these, in board order.
func selectedAre(cells ...int) string {
	want := strings.Trim(jsInts(cells), "[]")
	return fmt.Sprintf(`[...document.querySelectorAll('#board .selected')].map(c => c.dataset.cell).join() === %[1]q &&
		[...document.querySelectorAll('#board [aria-selected=true]')].map(c => c.dataset.cell).join() === %[1]q`, want)
}

// colouredAll is a predicate: each cell has colour k (or, with !has, not).
func colouredAll(cells []int, k int, has bool) string {
	return fmt.Sprintf(`%s.every(c => (document.querySelector('#board [data-cell="' + c + '"]').dataset.colours || '').includes('%d') === %v)`, jsInts(cells), k, has)
}

func jsInts(cs []int) string {
	s := "["
	for i, c := range cs {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprint(c)
	}
	return s + "]"
}

// TestMultiSelect: in co-op, Alice selects several cells as in SudokuPad
// (a mouse drag, Ctrl+click and Shift+click, Ctrl+click again to take one
// out), colours them all at once (Bob sees every one), undoes and redoes
// the colours (keys and buttons, for Bob too), puts a corner mark on the
// empty ones among them, and the arrow keys and Escape bring the selection
// back to one cell, while Shift+arrow adds a cell. Bob selects with a
// finger on a phone. A hint's cells stop being marked once a newer message
// takes its place under the board.
// Screenshots: multi-select (desktop and phone, light and dark).
func TestMultiSelect(t *testing.T) {
	t.Parallel()
	alice, bob, givens, _ := gameOfTwo(t, "coop")
	assert.Equal(t, "true", eval[string](alice, `document.querySelector('#board').getAttribute('aria-multiselectable')`))

	// A drag along the top row, then Ctrl+click and Shift+click add; a
	// Ctrl+click on a selected cell takes it out.
	row := []int{0, 1, 2, 3}
	alice.drag(modNone, row...)
	alice.wait("the dragged cells selected", selectedAre(row...))
	alice.drag(modCtrl, 40)
	alice.drag(modShift, 41)
	alice.wait("two more", selectedAre(0, 1, 2, 3, 40, 41))
	alice.drag(modCtrl, 41)
	alice.wait("41 taken out", selectedAre(0, 1, 2, 3, 40))
	many := []int{0, 1, 2, 3, 40}

	// Colour 3 on them all, one message a cell: everyone's board.
	alice.press(letterKey('v', false), modNone)
	alice.press(digitKey(3, false), modNone)
	for _, p := range []*page{alice, bob} {
		p.wait("colour 3 on every selected cell", colouredAll(many, 3, true))
	}
	assert.False(t, eval[bool](alice, `(document.querySelector('#board [data-cell="4"]').dataset.colours || '').includes('3')`), "a cell not selected keeps its colours")
	alice.shotsIn(gameLooks, "multi-select", "")

	// Undo takes the colours back, on every cell and for everyone; redo
	// puts them on again; the button undoes as the key does.
	alice.press(letterKey('z', false), modCtrl)
	for _, p := range []*page{alice, bob} {
		p.wait("the colours undone", colouredAll(many, 3, false))
	}
	alice.press(letterKey('y', false), modCtrl)
	for _, p := range []*page{alice, bob} {
		p.wait("the colours redone", colouredAll(many, 3, true))
	}
	alice.click("#undo")
	bob.wait("the colours undone by the button", colouredAll(many, 3, false))
	alice.wait("the colours undone by the button", colouredAll(many, 3, false))
	alice.click("#redo")
	bob.wait("the colours redone by the button", colouredAll(many, 3, true))

	// A corner mark goes on the empty ones; a given takes none, and no
	// error comes of it.
	var empty []int
	for _, c := range many {
		if givens[c] == 0 {
			empty = append(empty, c)
		}
	}
	require.NotEmpty(t, empty)
	alice.press(letterKey('x', false), modNone)
	alice.press(digitKey(5, false), modNone)
	for _, p := range []*page{alice, bob} {
		p.wait("the corner marks", fmt.Sprintf(`%s.every(c => document.querySelector('#board [data-cell="' + c + '"] .corner').textContent.includes('5'))`, jsInts(empty)))
	}
	assert.Empty(t, eval[string](alice, `document.querySelector('#message').dataset.code || ''`), "no refusal")

	// The arrows move one cell again; Escape brings several back to one.
	alice.press(keyRight, modNone)
	alice.wait("one cell, right of the last selected", selectedAre(41))
	alice.drag(modShift, 42)
	alice.wait("two", selectedAre(41, 42))
	alice.press(keyEscape, modNone)
	alice.wait("one again", selectedAre(42))
	alice.press(keyDown, modShift)
	alice.wait("Shift+arrow adds the next cell", selectedAre(42, 51))
	alice.press(keyEscape, modNone)
	alice.wait("one again, where the arrow went", selectedAre(51))

	// A finger selects as the mouse does.
	bob.viewport(390, 844, true)
	bob.swipe(72, 73, 74)
	bob.wait("the swiped cells selected", selectedAre(72, 73, 74))
	bob.viewport(1280, 800, false)

	// A hint marks its cells; a newer message (a refused digit on a
	// given) takes its place, and the marks go with it.
	alice.press(letterKey('z', false), modNone)
	alice.click("#hint")
	alice.wait("the hint's cells", `document.querySelectorAll('#board .hinted').length > 0`)
	g := givenCell(givens)
	alice.click(cellSel(g))
	alice.press(digitKey(int(givens[g])%9+1, false), modNone)
	alice.wait("the given's refusal", messageIs("given_cell"))
	alice.wait("no cell marked by the old hint", `document.querySelectorAll('#board .hinted').length === 0`)
}

// TestMultiSelectRace: a racer selects several cells of their own board
// and colours them at once (colours a race keeps in the browser); undo
// takes them back and redo puts them on again, and a reload keeps them.
// A digit typed on two cells goes in both, Delete clears both, and each
// is one step for undo and redo.
func TestMultiSelectRace(t *testing.T) {
	t.Parallel()
	srv := startArena(t)
	p := newBrowser(t).newPage("Alice")
	_, givens, _, _ := soloRace(p, srv.URL(), 0)
	a, b, d := apart(givens)
	p.drag(modNone, a)
	p.drag(modCtrl, b)
	p.wait("two cells", selectedAre(min(a, b), max(a, b)))
	p.press(digitKey(int(d), false), modNone)
	p.wait("the digit in both", digitIs(a, d)+" && "+digitIs(b, d))
	p.press(keyDelete, modNone)
	p.wait("both cleared", digitIs(a, 0)+" && "+digitIs(b, 0))
	// One entry on several cells is one step for undo and redo.
	p.press(letterKey('z', false), modCtrl)
	p.wait("the clearing undone, on both", digitIs(a, d)+" && "+digitIs(b, d))
	p.press(letterKey('z', false), modCtrl)
	p.wait("the digits undone, on both", digitIs(a, 0)+" && "+digitIs(b, 0))
	p.press(letterKey('y', false), modCtrl)
	p.wait("the digits redone, on both", digitIs(a, d)+" && "+digitIs(b, d))
	p.press(keyDelete, modNone)
	p.wait("both cleared again", digitIs(a, 0)+" && "+digitIs(b, 0))

	cells := []int{9, 10, 11, 20}
	p.drag(modNone, 9, 10, 11)
	p.drag(modShift, 20)
	p.wait("four cells selected", selectedAre(cells...))
	p.click(`#pad [data-pad-mode="colour"]`)
	p.click(`#pad [data-digit="6"]`)
	p.wait("colour 6 on each", colouredAll(cells, 6, true))
	p.press(letterKey('z', false), modCtrl)
	p.wait("undone", colouredAll(cells, 6, false))
	p.press(letterKey('z', true), modCtrl|modShift)
	p.wait("redone (Ctrl+Shift+Z)", colouredAll(cells, 6, true))
	p.run("reload", chromedp.Reload())
	waitPlaying(p)
	p.wait("kept in the browser", colouredAll(cells, 6, true))
}

// apart is two empty cells that share no row, column or box, and a digit
// that clashes with no given in either.
func apart(g engine.Grid) (a, b int, d uint8) {
	cells := empties(g)
	for _, a := range cells {
		for _, b := range cells {
			if a/9 == b/9 || a%9 == b%9 || (a/27 == b/27 && a%9/3 == b%9/3) {
				continue
			}
			for d := uint8(1); d <= 9; d++ {
				if g.Conflicts(a, d).Empty() && g.Conflicts(b, d).Empty() {
					return a, b, d
				}
			}
		}
	}
	panic("no two cells apart")
}
