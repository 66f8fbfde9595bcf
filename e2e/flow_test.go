package e2e

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
)

// visible is a JavaScript expression: the element is there, not hidden,
// and laid out.
func visible(sel string) string {
	return fmt.Sprintf(`((e) => !!e && !e.closest('[hidden]') && e.getClientRects().length > 0)(document.querySelector(%q))`, sel)
}

// cellSel is the selector of a board cell.
func cellSel(cell int) string { return fmt.Sprintf(`#board [data-cell="%d"]`, cell) }

// phaseIs is a predicate on the room phase the page mirrors.
func phaseIs(phase string) string {
	return fmt.Sprintf(`document.documentElement.dataset.phase === %q`, phase)
}

// connIs is a predicate on the connection state #conn shows.
func connIs(state string) string {
	return fmt.Sprintf(`document.querySelector('#conn')?.dataset.state === %q`, state)
}

// messageIs is a predicate: #message carries the server's error code.
func messageIs(code string) string {
	return fmt.Sprintf(`document.querySelector('#message')?.dataset.code === %q`, code)
}

// playersHave is a predicate: #players names each of them.
func playersHave(names ...string) string {
	return fmt.Sprintf(`%s.every(n => (document.querySelector('#players')?.textContent || '').includes(n))`, jsStrings(names))
}

// feedHas is a predicate: an entry of the kind in #feed whose text holds
// each of the words.
func feedHas(kind string, words ...string) string {
	return fmt.Sprintf(`[...document.querySelectorAll('#feed li[data-kind=%q]')].some(li => %s.every(w => li.textContent.includes(w)))`,
		kind, jsStrings(words))
}

func jsStrings(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ",") + "]"
}

// typeInto replaces the text of an input by typing, as a person does.
func (p *page) typeInto(sel, text string) {
	p.t.Helper()
	p.run("type into "+sel,
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).value = ''`, sel)),
		chromedp.SendKeys(chromedp.CSS(sel), text))
}

// createRoom makes a room from the home page of base as name, and returns
// its id once the page is in it.
func createRoom(p *page, base, mode, level, name string) string {
	p.t.Helper()
	p.navigate(base + "/")
	p.wait("the home page", visible("#create-"+mode))
	p.typeInto("#name", name)
	p.run("choose level "+level, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(
		`(s => { s.value = %q; s.dispatchEvent(new Event('change', {bubbles: true})); })(document.querySelector('#level'))`, level)))
	p.click("#create-" + mode)
	p.wait("the room page", `location.pathname.startsWith('/r/')`)
	p.wait("the room's lobby", phaseIs("waiting")+" && "+connIs("open"))
	id := eval[string](p, `location.pathname.slice(3)`)
	require.Len(p.t, id, 8, "room id in %s", eval[string](p, `location.href`))
	return id
}

// joinRoom opens a share link as a newcomer named name and waits until
// the page is in the room.
func joinRoom(p *page, link, name string) {
	p.t.Helper()
	p.navigate(link)
	enterRoom(p, name)
	waitJoined(p)
}

// enterRoom answers the room page's question for a newcomer's name, if it
// asks.
func enterRoom(p *page, name string) {
	p.t.Helper()
	p.wait("the name prompt or the room", `!!document.querySelector('#enter') || !!document.documentElement.dataset.phase`)
	if eval[bool](p, `!!document.querySelector('#enter')`) {
		p.typeInto("#name", name)
		p.click("#enter")
	}
}

// waitJoined waits until the page is in its room and connected.
func waitJoined(p *page) {
	p.t.Helper()
	p.wait("the room", `!!document.documentElement.dataset.phase && `+connIs("open"))
}

// startGame has the host start and waits until every page plays.
func startGame(host *page, others ...*page) {
	host.t.Helper()
	host.wait("the Start button", visible("#start"))
	host.click("#start")
	waitPlaying(append([]*page{host}, others...)...)
}

// waitPlaying waits until each page plays on a full board.
func waitPlaying(pages ...*page) {
	for _, p := range pages {
		p.t.Helper()
		p.wait("play to start", phaseIs("running"))
		p.wait("a board of 81 cells", `document.querySelectorAll('#board [role=gridcell][data-cell]').length === 81`)
	}
}

// readBoard is the page's board as 81 characters: givens only, or every
// digit shown.
func readBoard(p *page, givensOnly bool) string {
	p.t.Helper()
	filter := "true"
	if givensOnly {
		filter = "c.classList.contains('given')"
	}
	return eval[string](p, fmt.Sprintf(`[...document.querySelectorAll('#board [data-cell]')]
		.sort((a, b) => a.dataset.cell - b.dataset.cell)
		.map(c => { const d = (c.querySelector('.digit')?.textContent || '').trim(); return (%s) && /^[1-9]$/.test(d) ? d : '.'; })
		.join('')`, filter))
}

// puzzle reads the givens from the page and solves them as the server
// does, so that a test can play.
func puzzle(p *page) (givens, solution engine.Grid) {
	p.t.Helper()
	s := readBoard(p, true)
	g, err := engine.Parse(s)
	require.NoError(p.t, err, "givens on the page: %s", s)
	res := engine.Solve(g, 2)
	require.Equal(p.t, 1, res.Count, "the page's givens have one solution: %s", s)
	return g, res.Solution
}

// empties are the cells the givens leave empty.
func empties(g engine.Grid) []int {
	var cells []int
	for i, d := range g {
		if d == 0 {
			cells = append(cells, i)
		}
	}
	return cells
}

// digitIs is a predicate: the cell shows the digit (0: nothing) as the
// server has it, not a digit typed and still pending.
func digitIs(cell int, d uint8) string {
	return fmt.Sprintf(`%s && !document.querySelector('%s').classList.contains('pending')`, shows(cell, d), cellSel(cell))
}

// shows is a predicate: the cell shows the digit (0: nothing), pending or
// not.
func shows(cell int, d uint8) string {
	want := ""
	if d != 0 {
		want = strconv.Itoa(int(d))
	}
	return fmt.Sprintf(`(document.querySelector('%s .digit')?.textContent || '').trim() === %q`, cellSel(cell), want)
}

// cellLabel is the cell's aria-label, what a screen reader says of it.
func cellLabel(p *page, cell int) string {
	p.t.Helper()
	return eval[string](p, fmt.Sprintf(`document.querySelector('%s').getAttribute('aria-label')`, cellSel(cell)))
}

// selectedIs is a predicate: the cell is the one selected.
func selectedIs(cell int) string {
	return fmt.Sprintf(`[...document.querySelectorAll('#board .selected')].map(c => +c.dataset.cell).join() === '%d'`, cell)
}

// place clicks the cell and types the digit, and waits until the board
// shows it.
func (p *page) place(cell int, d uint8) {
	p.t.Helper()
	p.click(cellSel(cell))
	p.wait(fmt.Sprintf("cell %d selected", cell), selectedIs(cell))
	p.press(digitKey(int(d), false), modNone)
	p.wait(fmt.Sprintf("%d in cell %d", d, cell), digitIs(cell, d))
}

// fillByKeys types the solution into the cells with the keyboard alone:
// arrow keys from the selected cell to each one, then the digit.
func (p *page) fillByKeys(from int, cells []int, sol engine.Grid) {
	p.t.Helper()
	at := from
	for _, c := range cells {
		for at/9 < c/9 {
			p.press(keyDown, modNone)
			at += 9
		}
		for at/9 > c/9 {
			p.press(keyUp, modNone)
			at -= 9
		}
		for at%9 < c%9 {
			p.press(keyRight, modNone)
			at++
		}
		for at%9 > c%9 {
			p.press(keyLeft, modNone)
			at--
		}
		// No wait for the selection: a digit typed into the wrong cell
		// fails the wait for it in the right one.
		p.press(digitKey(int(sol[c]), false), modNone)
		p.wait(fmt.Sprintf("%d in cell %d", sol[c], c), digitIs(c, sol[c]))
	}
}

// fillByProtocol places the solution's digits in the cells as the page's
// player, by move messages (docs/protocol.md) sent on the page's own
// socket in one go, without the keyboard; then it waits until the board
// shows every one as the server has it. It is the short way through the
// cells a test does not need typed: the page still draws each digit from
// the server's move events, and a test types its last cells with
// fillByKeys.
func (p *page) fillByProtocol(cells []int, sol engine.Grid) {
	p.t.Helper()
	if len(cells) == 0 {
		return
	}
	moves := make([]string, len(cells))
	shown := make([]string, len(cells))
	for i, c := range cells {
		moves[i] = fmt.Sprintf(`{"type":"move","id":"fill-%d","cell":%d,"digit":%d}`, c, c, sol[c])
		shown[i] = digitIs(c, sol[c])
	}
	sent := eval[bool](p, fmt.Sprintf(`(() => {
		const ws = window.__roomSocket;
		if (!ws || ws.readyState !== WebSocket.OPEN) return false;
		for (const m of %s) ws.send(m);
		return true;
	})()`, jsStrings(moves)))
	require.True(p.t, sent, "%s: the room's socket is open", p.name)
	p.wait(fmt.Sprintf("%d digits placed by moves", len(cells)), strings.Join(shown, " && "))
}

// solve fills the cells in their order: all but the last typedCells by
// fillByProtocol, those typed with fillByKeys from a click on the first
// of them, so that the page's keys make the finish.
func (p *page) solve(cells []int, sol engine.Grid) {
	p.t.Helper()
	p.solvePast(cells, sol, 0)
}

// typedCells is how many of the cells solve types, the last of them the
// finish.
const typedCells = 4

// solvePast is solve with, when floor is not 0, the last digit typed once
// the clock is past the floor (waitPastFloor): a ranked finish.
func (p *page) solvePast(cells []int, sol engine.Grid, floor time.Duration) {
	p.t.Helper()
	typed, last := max(0, len(cells)-typedCells), len(cells)-1
	p.fillByProtocol(cells[:typed], sol)
	p.click(cellSel(cells[typed]))
	p.fillByKeys(cells[typed], cells[typed:last], sol)
	if floor != 0 {
		waitPastFloor(p, floor)
	}
	p.fillByKeys(cells[max(typed, last-1)], cells[last:], sol)
}

// solveLikePeople solves each page's puzzle so that a ranked finish
// ranks: the cells in a shuffled order of each page's own (not row by
// row), all but the last by solve; then, page after page, the last digit
// once the clock is past the default floor (waitPastFloor). A burst of
// moves, a few keys and a wait are intervals as uneven as a person's (the
// checks look at how uneven, not how long).
func solveLikePeople(floor time.Duration, pages ...*page) {
	rng := rand.New(rand.NewPCG(1, 2))
	lasts := make([]func(), len(pages))
	for i, p := range pages {
		p.t.Helper()
		givens, sol := puzzle(p)
		cells := empties(givens)
		rng.Shuffle(len(cells), func(a, b int) { cells[a], cells[b] = cells[b], cells[a] })
		last := cells[len(cells)-1]
		p.solve(cells[:len(cells)-1], sol)
		lasts[i] = func() { p.place(last, sol[last]) }
	}
	for i, p := range pages {
		waitPastFloor(p, floor)
		lasts[i]()
	}
}

// conflictFor is an empty cell and a digit that a given in its row already
// holds: a move the server refuses as a conflict with that given.
func conflictFor(g engine.Grid) (cell int, d uint8, given int) {
	for _, c := range empties(g) {
		row := c / 9 * 9
		for i := row; i < row+9; i++ {
			if g[i] != 0 {
				return c, g[i], i
			}
		}
	}
	panic("a puzzle with no given in the row of an empty cell")
}

// clash types, into an empty cell, a digit a given of its row holds, and
// waits until the page says the server refused it; it answers the cell.
func (p *page) clash(givens engine.Grid) int {
	p.t.Helper()
	cell, d, _ := conflictFor(givens)
	p.click(cellSel(cell))
	p.press(digitKey(int(d), false), modNone)
	p.wait("the conflict said", messageIs("conflict"))
	return cell
}

// playerIDs maps the room's players' names to their ids, from the API.
func playerIDs(t *testing.T, a *arena, roomID string) map[string]string {
	t.Helper()
	ids := map[string]string{}
	for _, pl := range a.room(roomID).Players {
		ids[pl.Name] = pl.ID
	}
	return ids
}

// recordAttr makes the page keep every value an attribute of the element
// takes, in window[key], for changes too quick to poll.
func (p *page) recordAttr(key, sel, attr string) {
	p.t.Helper()
	p.run("watch "+sel+" "+attr, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		const el = document.querySelector(%[2]q);
		window[%[1]q] = [el.getAttribute(%[3]q)];
		new MutationObserver(() => window[%[1]q].push(el.getAttribute(%[3]q)))
			.observe(el, {attributes: true, attributeFilter: [%[3]q]});
	})()`, key, sel, attr)))
}

// recordFlashes makes the page keep, in window.__flashed, every cell that
// gets the class flash: the flash is brief by design.
func (p *page) recordFlashes() {
	p.t.Helper()
	p.run("watch the flashes", chromedp.Evaluate[chromedp.Void](`(() => {
		window.__flashed = [];
		const note = (el) => {
			const cell = el.closest && el.closest('[data-cell]');
			if (cell && cell.classList.contains('flash')) window.__flashed.push(+cell.dataset.cell);
		};
		new MutationObserver(ms => ms.forEach(m => {
			note(m.target);
			m.addedNodes.forEach(n => n.nodeType === 1 && (note(n), n.querySelectorAll('.flash').forEach(note)));
		})).observe(document.querySelector('#board'), {subtree: true, childList: true, attributes: true, attributeFilter: ['class']});
	})()`))
}
