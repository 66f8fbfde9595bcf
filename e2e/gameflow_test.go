package e2e

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
)

// gameLooks are the looks of the game's screens: a 1280x800 desktop and a
// 390x844 phone, light and dark.
var gameLooks = []look{
	{"", 1280, 800, false, "light"},
	{"-dark", 1280, 800, false, "dark"},
	{"-phone", 390, 844, true, "light"},
	{"-phone-dark", 390, 844, true, "dark"},
}

// padAway is a predicate: the pad is put away (out of sight, in its place,
// taking no input), or not.
func padAway(away bool) string {
	return fmt.Sprintf(`((p) => (getComputedStyle(p).visibility === 'hidden' || getComputedStyle(p).display === 'none') === %[1]v && p.inert === %[1]v)(document.querySelector('#pad'))`, away)
}

// wrongFor is an empty cell and a digit that is not the solution's but
// clashes with no given: a mistake the server takes.
func wrongFor(givens, sol engine.Grid) (int, uint8) {
	for _, c := range empties(givens) {
		for d := uint8(1); d <= 9; d++ {
			if d != sol[c] && givens.Conflicts(c, d).Empty() {
				return c, d
			}
		}
	}
	panic("no cell for a wrong digit")
}

// TestLobby: before the start the room is a lobby, not a game: the pad and
// its modes are put away, and the card over the board says what the room
// is, how to invite (the link, a copy button) and what to do next: the
// host alone is offered to start alone or wait, with friends to start the
// race; the others wait for the host. At the go the pad comes back.
// Screenshots: lobby-alone, lobby (desktop and phone, light and dark).
func TestLobby(t *testing.T) {
	t.Parallel()
	srv := startArena(t)
	b := newBrowser(t)
	alice, bob := b.newPage("Alice"), b.newPage("Bob")
	id := createRoom(alice, srv.URL(), "race", "easy", "Alice")
	alice.wait("the lobby", visible("#lobby")+" && "+visible("#start"))
	alice.wait("the pad put away", padAway(true))
	assert.False(t, eval[bool](alice, `document.elementFromPoint(...(r => [r.x + 5, r.y + 5])(document.querySelector('.modes button').getBoundingClientRect()))?.closest('.modes') != null`),
		"the mode buttons cannot be clicked")
	assert.Equal(t, "Waiting room", text(alice, "#lobby-kicker"))
	assert.Regexp(t, `^Race · Easy · SE \d\.\d$`, text(alice, "#mode"))
	assert.Equal(t, "Race your friends", text(alice, "#lobby-title"))
	assert.Equal(t, "Start alone", text(alice, "#start"))
	assert.Contains(t, text(alice, "#start-note"), "with the link")
	assert.Equal(t, srv.URL()+"/r/"+id, eval[string](alice, `document.querySelector('#share-link').value`))
	assert.True(t, eval[bool](alice, visible("#copy-link")))
	alice.shotsIn(gameLooks, "lobby-alone", "")

	joinRoom(bob, srv.URL()+"/r/"+id, "Bob")
	alice.wait("Start the race", `document.querySelector('#start').textContent === 'Start the race'`)
	assert.Contains(t, text(alice, "#lobby-count"), "Bob")
	bob.wait("Waiting for Alice", saysIn("#waiting", "Waiting for Alice"))
	assert.False(t, eval[bool](bob, visible("#start")), "only the host starts")
	assert.True(t, eval[bool](bob, padAway(true)), "Bob's pad is put away too")
	// The call to start is on the screen, on a phone too, with no scrolling.
	for _, l := range gameLooks[1:3] {
		alice.viewport(l.w, l.h, l.mobile)
		alice.wait(fmt.Sprintf("Start on a %dx%d screen", l.w, l.h), `document.querySelector('#start').getBoundingClientRect().bottom <= innerHeight`)
	}
	alice.viewport(1280, 800, false)
	alice.shotsIn(gameLooks, "lobby", "")

	alice.click("#start")
	waitPlaying(alice, bob)
	for _, p := range []*page{alice, bob} {
		p.wait("the pad back at the go", padAway(false)+" && "+visible(".modes"))
	}
}

// raceOfTwo starts an easy race between Alice, its host, and Bob, each in
// a browser context of their own, and answers their pages, the givens and
// the solution once both play.
func raceOfTwo(t *testing.T) (alice, bob *page, givens, sol engine.Grid) {
	t.Helper()
	return gameOfTwo(t, "race")
}

// gameOfTwo is raceOfTwo in the mode ("race" or "coop").
func gameOfTwo(t *testing.T, mode string) (alice, bob *page, givens, sol engine.Grid) {
	t.Helper()
	srv := startArena(t)
	b := newBrowser(t)
	alice, bob = b.newPage("Alice"), b.newPage("Bob")
	id := createRoom(alice, srv.URL(), mode, "easy", "Alice")
	joinRoom(bob, srv.URL()+"/r/"+id, "Bob")
	startGame(alice, bob)
	givens, sol = puzzle(alice)
	return alice, bob, givens, sol
}

// whyRe is a finish's score worked out, as the row under it says.
var whyRe = regexp.MustCompile(`^(\d+) − (\d+) s − (\d+) mistakes? × 50 − (\d+) hints? × 100 = (\d+)$`)

// finishRow is a finish as the finish card shows it.
type finishRow struct {
	name                    string
	seconds, score          int
	mistakes, hints, points int
}

// finishRows reads the finish card's rows, checking each one's sum.
func finishRows(t *testing.T, p *page) []finishRow {
	t.Helper()
	rows := eval[[][]string](p, `[...document.querySelectorAll('#finish-rows tr[data-rank]')].map(r => [
		r.querySelector('.name').firstChild.textContent, r.querySelector('.time').textContent, r.querySelector('.score').textContent,
		r.nextElementSibling?.classList.contains('why') ? r.nextElementSibling.textContent : ''])`)
	var out []finishRow
	for _, r := range rows {
		m := whyRe.FindStringSubmatch(r[3])
		require.NotNil(t, m, "%s: %s's score is worked out under it: %q", p.name, r[0], r[3])
		n := make([]int, 6)
		for i := 1; i < 6; i++ {
			n[i], _ = strconv.Atoi(m[i])
		}
		assert.Equal(t, n[5], max(1, n[1]-n[2]-50*n[3]-100*n[4]), "%s: the sum adds up: %q", p.name, r[3])
		assert.Equal(t, fmt.Sprintf("%d pts", n[5]), r[2], "%s: the row's score is the sum's", p.name)
		mm, ss, ok := strings.Cut(r[1], ":")
		require.True(t, ok, "a time m:ss: %q", r[1])
		mi, _ := strconv.Atoi(mm)
		si, _ := strconv.Atoi(ss)
		assert.Equal(t, mi*60+si, n[2], "%s: the seconds are the row's time", p.name)
		out = append(out, finishRow{name: r[0], seconds: n[2], mistakes: n[3], hints: n[4], score: n[5], points: n[1]})
	}
	return out
}

// TestFinishExplainsScore: Alice finishes first with a mistake and a hint,
// Bob second with neither and more points. The finish card says, under
// each finish, how its points come (the level's 1000, less the seconds,
// 50 a mistake, 100 a hint) and, under the table, that places go by who
// finished first: the order is no puzzle. Screenshots: finish-explained.
func TestFinishExplainsScore(t *testing.T) {
	t.Parallel()
	alice, bob, givens, sol := raceOfTwo(t)
	cells := empties(givens)

	// A mistake, taken back, then a hint (with its freeze).
	w, d := wrongFor(givens, sol)
	alice.place(w, d)
	alice.press(keyDelete, modNone)
	alice.wait("the mistake cleared", digitIs(w, 0))
	alice.click("#hint")
	alice.wait("the hint", feedHas("hint", "You took a hint"))
	alice.waitFor("the freeze to end", `!(`+visible("#freeze")+`)`, 5*time.Second)
	alice.solve(cells, sol)
	bob.wait("Alice's finish", feedHas("finish", "Alice"))
	bob.solve(cells, sol)

	for _, p := range []*page{alice, bob} {
		p.wait("the final table", phaseIs("finished")+" && "+visible("#finish")+` && document.querySelectorAll('#finish-rows tr.why').length === 2`)
		rows := finishRows(t, p)
		require.Len(t, rows, 2)
		assert.Equal(t, finishRow{name: "Alice", seconds: rows[0].seconds, mistakes: 1, hints: 1, points: 1000, score: rows[0].score}, rows[0], "%s: first", p.name)
		assert.Equal(t, finishRow{name: "Bob", seconds: rows[1].seconds, points: 1000, score: rows[1].score}, rows[1], "%s: second", p.name)
		assert.Greater(t, rows[1].score, rows[0].score, "%s: the second scores more, and the card says why", p.name)
		how := text(p, "#finish-how")
		for _, words := range []string{"Places go by who finished first", "1000 for Easy", "1 a second", "50 a mistake", "100 a hint", "froze the board 2 s"} {
			assert.Contains(t, how, words, "%s: the rules under the table", p.name)
		}
		assert.True(t, eval[bool](p, visible("#finish-how")))
	}
	assert.Equal(t, "You won!", text(alice, "#finish-title"))
	assert.Equal(t, "You finished 2nd", text(bob, "#finish-title"))
	assert.Equal(t, "Rematch", text(alice, "#rematch"), "a rematch among several")
	// The card fits: its last line is inside it, not cut off.
	assert.True(t, eval[bool](alice, `document.querySelector('#finish').scrollHeight <= document.querySelector('#finish').clientHeight + 1`), "the finish card needs no scrolling at 1280x800")
	bob.shotsIn(gameLooks, "finish-explained", "")
	// On a phone the table keeps to the card: each line wraps in its cell.
	bob.viewport(390, 844, true)
	bob.wait("a phone", `innerWidth === 390`)
	assert.True(t, eval[bool](bob, `[...document.querySelectorAll('#finish-rows td')].every(td => td.scrollWidth <= td.clientWidth + 1) && document.querySelector('#finish .ranks').getBoundingClientRect().right <= document.querySelector('#finish').getBoundingClientRect().right`),
		"the finish table fits a phone's card")
	bob.viewport(1280, 800, false)
}

// TestSoloRace: a race of one has no winner: its card says "Solved in"
// the time, with the points worked out, and offers to play again. "See
// the board" puts the card away and leaves a Results button by the clock,
// which brings it back with Play again and the replay; Play again starts
// round 2. Screenshots: finish-solo, finish-dismissed.
func TestSoloRace(t *testing.T) {
	t.Parallel()
	srv := startArena(t)
	p := newBrowser(t).newPage("Alice")
	_, _, sol, cells := soloRace(p, srv.URL(), 1)
	p.wait("the first game's guide", visible("#guide"))
	p.solve(cells[1:], sol)
	p.wait("the finish card", phaseIs("finished")+" && "+visible("#finish"))
	assert.False(t, eval[bool](p, `!!document.querySelector('#guide')`), "the first game's guide put away at the finish")
	title := text(p, "#finish-title")
	assert.Regexp(t, `^Solved in \d+:\d\d$`, title)
	assert.Equal(t, "Solved in "+text(p, "#timer"), title, "the time the clock stopped at")
	assert.NotContains(t, eval[string](p, `document.querySelector('#finish').textContent`), "won", "nobody to beat")
	rows := finishRows(t, p)
	require.Len(t, rows, 1)
	assert.Equal(t, fmt.Sprintf("%d points", rows[0].score), text(p, "#finish-sub"))
	assert.NotContains(t, text(p, "#finish-how"), "Places", "one place")
	assert.Equal(t, "Play again", text(p, "#rematch"))
	assert.True(t, eval[bool](p, visible("#replay-link")), "the replay")
	assert.False(t, eval[bool](p, visible("#finish-open")), "no Results button while the card shows")
	p.shotsIn(gameLooks, "finish-solo", "")

	p.click("#finish-close")
	p.wait("the card put away", `!(`+visible("#finish")+`) && `+visible("#finish-open"))
	assert.Equal(t, "Results", text(p, "#finish-open"))
	assert.True(t, eval[bool](p, `document.activeElement === document.querySelector('#finish-open')`), "the focus on the way back")
	// The solved board is there to see: the top left cell is the board's.
	assert.True(t, eval[bool](p, `!!document.elementFromPoint(...(r => [r.x + r.width / 2, r.y + r.height / 2])(document.querySelector('#board').getBoundingClientRect())).closest('#board')`), "the board, uncovered")
	at := layout(p)
	assert.LessOrEqual(t, at["padBottom"], at["height"], "the Results button moves nothing off a 1280x800 screen: %v", at)
	p.shotsIn(gameLooks, "finish-dismissed", "")

	p.click("#finish-open")
	p.wait("the card back", visible("#finish")+" && "+visible("#rematch")+" && "+visible("#replay-link")+` && !(`+visible("#finish-open")+`)`)
	assert.Regexp(t, `^Solved in `, text(p, "#finish-title"))
	// Put away and brought back twice over: it still comes back.
	p.click("#finish-close")
	p.click("#finish-open")
	p.wait("the card back again", visible("#finish"))
	p.click("#rematch")
	p.wait("round 2's lobby", phaseIs("waiting")+" && "+visible("#lobby")+` && `+saysIn("#lobby-kicker", "Round 2"))
	assert.False(t, eval[bool](p, visible("#finish-open")), "no results of a round not played")
}

// layout is where the board and the pad are on the screen, its height and
// how far it is scrolled.
func layout(p *page) map[string]float64 {
	p.t.Helper()
	return eval[map[string]float64](p, `(() => {
		const r = (s) => document.querySelector(s).getBoundingClientRect();
		return {boardTop: r('#board').top, boardBottom: r('#board').bottom, padTop: r('#pad').top, padBottom: r('#pad').bottom, height: innerHeight, scroll: scrollY};
	})()`)
}

// TestMessageLine: at 1280x800 the board and the pad fit the screen
// whatever is said under the board, and saying it moves nothing: a hint's
// explanation, then a clash's message in its place (the old explanation
// does not stay under it), then a new hint's explanation in the
// message's place. Screenshots: message-line (a hint's explanation),
// message-clash.
func TestMessageLine(t *testing.T) {
	t.Parallel()
	srv := startArena(t)
	p := newBrowser(t).newPage("Alice")
	_, givens, _, cells := soloRace(p, srv.URL(), 1)
	fits := func(what string, at map[string]float64) {
		t.Helper()
		assert.GreaterOrEqual(t, at["boardTop"], 0.0, "%s: the board's top on the screen", what)
		assert.LessOrEqual(t, at["boardBottom"], at["padTop"], "%s: the pad under the board", what)
		assert.LessOrEqual(t, at["padBottom"], at["height"], "%s: the pad on a 1280x800 screen: %v", what, at)
		assert.Zero(t, at["scroll"], "%s: no scrolling", what)
	}
	quiet := layout(p)
	fits("nothing said", quiet)

	p.click("#hint")
	p.wait("the hint's explanation", visible("#explain")+" && document.querySelector('#explain').textContent.length > 20")
	said := layout(p)
	fits("a hint's explanation", said)
	assert.Equal(t, quiet["padTop"], said["padTop"], "the pad does not move")
	p.shotsIn(gameLooks, "message-line", "")

	p.waitFor("the freeze to end", `!(`+visible("#freeze")+`)`, 5*time.Second)
	clash, d := clashFor(givens, cells[:1])
	p.click(cellSel(clash))
	p.press(digitKey(int(d), false), modNone)
	p.wait("the clash's message", messageIs("conflict")+" && "+visible("#message"))
	assert.False(t, eval[bool](p, visible("#explain")), "the old hint's explanation gives way")
	said = layout(p)
	fits("a clash's message", said)
	assert.Equal(t, quiet["padTop"], said["padTop"], "the pad does not move")
	p.shotsIn(gameLooks, "message-clash", "")

	p.click("#hint")
	p.wait("the new hint's explanation", visible("#explain"))
	assert.False(t, eval[bool](p, visible("#message")), "the stale clash message is gone")
	assert.Empty(t, text(p, "#message"))
	fits("a second hint", layout(p))
}

// TestRaceHintWrongDigit: in a race, a hint on a board with a wrong digit
// says that one of the digits is wrong, not which: no cell named, none
// marked. Once the digit is gone, the hint is the next step again, with
// its cells. Screenshots: hint-wrong.
func TestRaceHintWrongDigit(t *testing.T) {
	t.Parallel()
	srv := startArena(t)
	p := newBrowser(t).newPage("Alice")
	_, givens, sol, _ := soloRace(p, srv.URL(), 0)
	w, d := wrongFor(givens, sol)
	p.place(w, d)
	p.recordFlashes()
	p.click("#hint")
	p.wait("the hint", feedHas("hint", "You took a hint"))
	line := eval[string](p, `document.querySelector('#feed li[data-kind=hint]').textContent`)
	assert.Contains(t, line, "At least one of your digits is wrong")
	assert.NotRegexp(t, `r\dc\d`, line, "no cell named")
	p.wait("the explanation", visible("#explain"))
	assert.Contains(t, text(p, "#explain"), "does not say which")
	assert.NotRegexp(t, `r\dc\d`, text(p, "#explain"))
	assert.Zero(t, eval[int](p, `document.querySelectorAll('#board .hinted').length`), "no cell marked")
	assert.Empty(t, eval[[]int](p, `window.__flashed`), "no cell flashed")
	p.shotsIn(gameLooks, "hint-wrong", "")

	p.waitFor("the freeze to end", `!(`+visible("#freeze")+`)`, 5*time.Second)
	p.click(cellSel(w))
	p.press(keyDelete, modNone)
	p.wait("the wrong digit gone", digitIs(w, 0))
	p.click("#hint")
	p.wait("a step, with its cells", `document.querySelectorAll('#board .hinted').length > 0`)
	assert.True(t, namesTechnique(text(p, "#explain")), "a technique: %q", text(p, "#explain"))
}

// TestFeedAfterReload: after a reload the feed shows what happened before
// it, as the server kept it: Bob sees Alice's start, her clash and that
// she took a hint (not which); Alice her own hint in full. Screenshots:
// feed-reload.
func TestFeedAfterReload(t *testing.T) {
	t.Parallel()
	alice, bob, givens, _ := raceOfTwo(t)
	cc, cd, _ := conflictFor(givens)
	alice.click(cellSel(cc))
	alice.press(digitKey(int(cd), false), modNone)
	alice.wait("the clash", messageIs("conflict"))
	alice.wait("the clash in her feed", feedHas("conflict", "Your"))
	clash := eval[string](alice, `document.querySelector('#feed li[data-kind=conflict]').textContent`)
	require.Contains(t, clash, fmt.Sprintf("Your %d at %s", cd, engine.CellName(cc)), "the live line says the digit")
	alice.click("#hint")
	bob.wait("Alice's hint", feedHas("hint", "Alice"))
	alice.wait("her hint", feedHas("hint", "You"))
	mine := eval[string](alice, `document.querySelector('#feed li[data-kind=hint]').textContent`)
	require.True(t, namesTechnique(mine), "her hint names its technique: %q", mine)

	for _, p := range []*page{alice, bob} {
		p.run("reload", chromedp.Reload())
		waitPlaying(p)
		p.wait("the connection", connIs("open"))
	}
	bob.wait("the feed from before", feedHas("hint", "Alice (guest) took a hint")+" && "+feedHas("conflict", "Alice", engine.CellName(cc))+" && "+feedHas("info", "Alice (guest) started the game"))
	assert.False(t, namesTechnique(eval[string](bob, `document.querySelector('#feed li[data-kind=hint]').textContent`)), "Bob learns who, not the technique")
	assert.True(t, eval[bool](bob, `[...document.querySelectorAll('#feed li[data-kind=hint], #feed li[data-kind=conflict]')].every(li => li.hasAttribute('data-past'))`), "marked as from before")
	assert.Contains(t, text(bob, "#feed li:first-child"), "You joined as Bob", "the newest on top")
	alice.wait("her own feed from before", feedHas("hint", "You took a hint")+" && "+feedHas("conflict", "Your", engine.CellName(cc)))
	assert.Equal(t, mine, eval[string](alice, `document.querySelector('#feed li[data-kind=hint]').textContent`), "her hint as she saw it")
	assert.Equal(t, 1, eval[int](alice, `document.querySelectorAll('#feed li[data-kind=hint]').length`), "once")
	assert.Equal(t, clash, eval[string](alice, `document.querySelector('#feed li[data-kind=conflict]').textContent`), "her clash as she saw it live, digit and all")
	bob.shotsIn(gameLooks, "feed-reload", "")
}
