package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
)

// deadLinkBound is how soon after the network goes away the page must
// say it reconnects.
const deadLinkBound = 5 * time.Second

// networkConditions are the parameters of DevTools'
// Network.emulateNetworkConditions, which this cdproto no longer lists
// (Chromium still has it, and its offline stops an open WebSocket's
// traffic as well as new connections; the newer ...ByRule is refused by
// this Chromium).
type networkConditions struct {
	Offline            bool    `json:"offline"`
	Latency            float64 `json:"latency"`
	DownloadThroughput float64 `json:"downloadThroughput"`
	UploadThroughput   float64 `json:"uploadThroughput"`
}

var emulateNetworkConditions = cdp.Command[networkConditions, cdp.Empty]{Method: "Network.emulateNetworkConditions"}

// offline takes the page's network away, or gives it back: nothing more
// goes or comes on its open WebSocket, with no close and no error, and
// new connections fail. The page is told (navigator.onLine, the offline
// and online events), as a browser is when its computer loses its
// network.
func (p *page) offline(off bool) {
	p.t.Helper()
	p.run(fmt.Sprintf("offline: %v", off), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulateNetworkConditions, networkConditions{Offline: off, DownloadThroughput: -1, UploadThroughput: -1})
		return err
	}))
}

// recordMoves makes the page keep, from the next document on, every move
// frame it sends: window.__moves, "id:cell:digit".
func (p *page) recordMoves() {
	p.t.Helper()
	p.initScript("watch the moves sent", `(() => {
		const send = WebSocket.prototype.send;
		window.__moves = [];
		WebSocket.prototype.send = function (data) {
			try {
				const m = JSON.parse(data);
				if (m.type === 'move') window.__moves.push(m.id + ':' + m.cell + ':' + m.digit);
			} catch {}
			return send.call(this, data);
		};
	})()`)
}

// recordStates makes the page keep every connection state it shows from
// now on, with the page's time: window.__states, [state, ms].
func (p *page) recordStates() {
	p.t.Helper()
	p.run("watch the connection", evalVoid(`(() => {
		const el = document.querySelector('#conn');
		window.__states = [];
		new MutationObserver(() => window.__states.push([el.dataset.state, performance.now()]))
			.observe(el, {attributes: true, attributeFilter: ['data-state']});
	})()`))
}

// reconnectingAfter waits until the page shows "Reconnecting…", and
// answers how long after the page's time t0 it first did.
func (p *page) reconnectingAfter(t0 float64) time.Duration {
	p.t.Helper()
	p.waitFor("Reconnecting…", `window.__states.some(s => s[0] === 'reconnecting')`, 2*deadLinkBound)
	at := eval[float64](p, `window.__states.find(s => s[0] === 'reconnecting')[1]`)
	took := time.Duration((at - t0) * float64(time.Millisecond)).Round(time.Millisecond)
	p.t.Logf("%s: Reconnecting… %v after", p.name, took)
	return took
}

// pendingIs is a predicate: the cell shows its digit as pending (or not),
// to the eye and in its label.
func pendingIs(cell int, want bool) string {
	return fmt.Sprintf(`((c) => c.classList.contains('pending') === %[2]v && c.getAttribute('aria-label').includes('pending') === %[2]v)(document.querySelector('%[1]s'))`,
		cellSel(cell), want)
}

// typeDigit selects the cell and types the digit, without waiting for
// the server.
func (p *page) typeDigit(cell int, d uint8) {
	p.t.Helper()
	p.click(cellSel(cell))
	p.wait(fmt.Sprintf("cell %d selected", cell), selectedIs(cell))
	p.press(digitKey(int(d), false), modNone)
}

// TestNetworkGone takes Alice's network away mid-game in co-op, as a
// train's tunnel does: within 5 s her page says it reconnects, the digits
// she types meanwhile show as pending (one typed before the page knew,
// one after, and one that clashes with a given), and when the network
// comes back the page resumes by itself, the digits are answered and on
// the shared board, Bob's and the server's, but for the clash, which the
// server refuses as ever. Screenshots: offline-pending (phone and
// desktop, light and dark).
func TestNetworkGone(t *testing.T) {
	t.Parallel()
	srv := startArena(t)
	b := newBrowser(t)
	alice, bob := b.newPage("Alice"), b.newPage("Bob")
	id := createRoom(alice, srv.URL(), "coop", "easy", "Alice")
	joinRoom(bob, srv.URL()+"/r/"+id, "Bob")
	startGame(alice, bob)
	givens, sol := puzzle(alice)
	cells := empties(givens)
	alice.place(cells[0], sol[cells[0]])
	bob.wait("Alice's first digit", digitIs(cells[0], sol[cells[0]]))

	alice.recordStates()
	t0 := eval[float64](alice, `performance.now()`)
	alice.offline(true)
	before, after := cells[1], cells[2]
	alice.typeDigit(before, sol[before])
	alice.wait("the digit typed before the page knew, pending", shows(before, sol[before])+" && "+pendingIs(before, true))
	took := alice.reconnectingAfter(t0)
	assert.Less(t, took, deadLinkBound, "Reconnecting… %v after the network went", took)
	alice.wait("the banner by the board", visible("#offline"))

	alice.typeDigit(after, sol[after])
	alice.wait("the digit typed offline, pending", shows(after, sol[after])+" && "+pendingIs(after, true))
	clash, clashDigit := clashFor(givens, cells[:4])
	alice.typeDigit(clash, clashDigit)
	alice.wait("the clash, pending", shows(clash, clashDigit)+" && "+pendingIs(clash, true))
	alice.wait("the banner counts them", `document.querySelector('#offline').textContent.includes('3 digits')`)
	assert.Contains(t, cellLabel(alice, after), "pending", "a screen reader hears it")
	// Once it has waited a moment, it is grey and dotted underneath.
	alice.wait("a dotted underline", fmt.Sprintf(`((s) => s.textDecorationStyle === 'dotted' && s.textDecorationColor === s.color && s.color === %s)(getComputedStyle(document.querySelector('%s .digit')))`,
		"getComputedStyle(document.querySelector('.badge')).color", cellSel(after)))
	assert.Equal(t, "Reconnecting…", strings.TrimSpace(eval[string](alice, `document.querySelector('#conn').textContent.replace(/ in \d+s/, '')`)))
	alice.shots("offline-pending", "")
	// On a phone the banner and the header fit: nothing makes the page
	// wider than the screen (which a phone would zoom out to show).
	alice.viewport(375, 740, true)
	alice.wait("the phone's width", `window.innerWidth === 375`)
	assert.True(t, eval[bool](alice, `[...document.querySelectorAll('.top > *, .bar > *')].every(e => e.getBoundingClientRect().right <= 375)`), "the header and the bar fit a phone")
	alice.viewport(1280, 800, false)
	for _, c := range []int{before, after} {
		assert.True(t, bob.staysFalse(shows(c, sol[c]), 0), "Bob does not see %d yet", c)
	}

	alice.offline(false)
	alice.waitFor("connected again", connIs("open"), waitTimeout)
	for _, c := range []int{before, after} {
		alice.wait(fmt.Sprintf("cell %d answered", c), digitIs(c, sol[c])+" && "+pendingIs(c, false))
		bob.wait(fmt.Sprintf("Alice's digit in cell %d", c), digitIs(c, sol[c]))
	}
	alice.wait("the banner gone", `document.querySelector('#offline').hidden`)
	board := srv.room(id).Board
	require.Len(t, board, 81, "the shared board")
	for _, c := range []int{cells[0], before, after} {
		assert.Equal(t, string(rune('0'+sol[c])), board[c:c+1], "cell %d on the server's board", c)
	}
	alice.wait("the clash refused", messageIs("conflict")+" && "+digitIs(clash, 0))
	assert.Equal(t, ".", board[clash:clash+1], "no clash on the server's board")

	// And play goes on.
	alice.place(cells[3], sol[cells[3]])
	bob.wait("Alice's digit after", digitIs(cells[3], sol[cells[3]]))
}

// clashFor is an empty cell, none of those used, and a digit a given in
// its row holds: a move the server refuses.
func clashFor(givens engine.Grid, used []int) (int, uint8) {
	for _, c := range empties(givens) {
		if slices.Contains(used, c) {
			continue
		}
		for i := c / 9 * 9; i < c/9*9+9; i++ {
			if givens[i] != 0 {
				return c, givens[i]
			}
		}
	}
	panic("no cell for a clash")
}

// TestDeadLink makes the server's side of Alice's socket go silent, as a
// network that dies without a word does (no close, no error, no offline
// event): the page's pings go unanswered, and within 5 s it says it
// reconnects, and does. Then again with a digit typed into the silence:
// the move reaches the server but its answer does not, so it shows
// pending; the resume's replay answers it, and it is not sent twice.
func TestDeadLink(t *testing.T) {
	t.Parallel()
	srv := startArena(t)
	px := startProxy(t, srv.Addr())
	p := newBrowser(t).newPage("Alice")
	p.recordMoves()
	id, _, sol, cells := soloRace(p, px.URL(), 1)

	p.recordStates()
	t0 := eval[float64](p, `performance.now()`)
	require.Positive(t, px.mute(), "connections muted")
	took := p.reconnectingAfter(t0)
	assert.Less(t, took, deadLinkBound, "Reconnecting… %v after the link went silent", took)
	assert.True(t, eval[bool](p, `navigator.onLine`), "the browser was not told")
	p.waitFor("connected again", connIs("open"), waitTimeout)

	p.recordStates()
	t0 = eval[float64](p, `performance.now()`)
	require.Positive(t, px.mute(), "connections muted")
	c := cells[1]
	p.typeDigit(c, sol[c])
	p.wait("the digit pending", shows(c, sol[c])+" && "+pendingIs(c, true))
	took = p.reconnectingAfter(t0)
	assert.Less(t, took, deadLinkBound, "Reconnecting… %v after the link went silent", took)
	p.waitFor("connected again", connIs("open"), waitTimeout)
	p.wait("the digit answered", digitIs(c, sol[c])+" && "+pendingIs(c, false))
	moves := eval[[]string](p, `window.__moves`)
	sent := 0
	for _, m := range moves {
		if strings.HasSuffix(m, fmt.Sprintf(":%d:%d", c, sol[c])) {
			sent++
		}
	}
	assert.Equal(t, 1, sent, "the move went once: %v", moves)
	room := srv.room(id)
	require.Len(t, room.Players, 1)
	assert.Equal(t, 2, room.Players[0].Filled, "both digits on the server's board")
}
