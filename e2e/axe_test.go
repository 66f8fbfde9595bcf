package e2e

import (
	_ "embed"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// axeSource is axe-core, vendored (testdata/README.md): the browser tests
// need no npm.
//
//go:embed testdata/axe.min.js
var axeSource string

// axeTags are the rule sets every page is checked against: WCAG 2.0 and
// 2.1, levels A and AA, and axe's best practices.
var axeTags = []string{"wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"}

// axeLook is a size and colour scheme a page is checked in.
type axeLook struct {
	name   string
	w, h   int64
	mobile bool
	scheme string
}

// axeLooks are a laptop and a phone, each light and dark.
var axeLooks = []axeLook{
	{"desktop light", 1280, 800, false, "light"},
	{"desktop dark", 1280, 800, false, "dark"},
	{"phone light", 390, 844, true, "light"},
	{"phone dark", 390, 844, true, "dark"},
}

// axeFinding is one element that breaks one rule, as axe reports it.
type axeFinding struct {
	Rule    string `json:"rule"`
	Impact  string `json:"impact"`
	Help    string `json:"help"`
	Target  string `json:"target"`
	Summary string `json:"summary"`
}

// axeRun is the script that runs axe on the document and answers its
// violations, one finding per element.
var axeRun = fmt.Sprintf(`axe.run(document, {runOnly: {type: 'tag', values: %s}, resultTypes: ['violations']})
	.then(r => r.violations.flatMap(v => v.nodes.map(n => ({
		rule: v.id, impact: v.impact || '', help: v.help,
		target: n.target.map(t => Array.isArray(t) ? t.join(' >>> ') : t).join(' '),
		summary: (n.failureSummary || '').replace(/\s+/g, ' ').trim(),
	}))))`, jsStrings(axeTags))

// audit runs axe on the page in each look and fails the test with every
// violation found (rule, impact, element, why), each once with the looks it
// was found in; it saves a screenshot of each look as a11y-STATE-LOOK.png.
// The page is left on a light laptop.
func (p *page) audit(state string) {
	p.t.Helper()
	type seen struct {
		f     axeFinding
		looks []string
	}
	var order []string
	found := map[string]*seen{}
	for _, l := range axeLooks {
		p.viewport(l.w, l.h, l.mobile)
		p.colorScheme(l.scheme)
		p.wait(l.scheme+" theme", fmt.Sprintf(`document.documentElement.dataset.theme === %q`, l.scheme))
		p.settle()
		if !eval[bool](p, `typeof window.axe === 'object'`) {
			p.run("inject axe", chromedp.Evaluate[chromedp.Void](axeSource))
		}
		findings := evalAsync[[]axeFinding](p, axeRun)
		for _, f := range findings {
			key := f.Rule + "\x00" + f.Target + "\x00" + f.Summary
			if found[key] == nil {
				found[key] = &seen{f: f}
				order = append(order, key)
			}
			found[key].looks = append(found[key].looks, l.name)
		}
		p.shot("a11y-" + fileName(state) + "-" + strings.ReplaceAll(l.name, " ", "-"))
	}
	for _, key := range order {
		s := found[key]
		p.t.Errorf("%s: %s (%s) at %s [%s]: %s. %s", state, s.f.Rule, s.f.Impact, s.f.Target,
			strings.Join(s.looks, ", "), s.f.Help, s.f.Summary)
	}
	p.viewport(1280, 800, false)
	p.colorScheme("light")
	p.wait("light theme", `document.documentElement.dataset.theme === 'light'`)
	p.settle()
}

// settle waits two frames and for the colours' transitions to end, so that
// axe measures the colours a person sees.
func (p *page) settle() {
	p.t.Helper()
	p.run("two frames", chromedp.Evaluate[chromedp.Void](`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))`, chromedp.EvalAwaitPromise))
	p.wait("the transitions to end", `document.getAnimations().every(a => !(a instanceof CSSTransition) || a.playState !== 'running')`)
}

// evalAsync is the value a JavaScript promise resolves to.
func evalAsync[T any](p *page, expr string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	require.NoError(p.t, err, "%s: evaluate", p.name)
	return v
}

// TestAccessibility runs axe (WCAG 2.1 A and AA, and best practices) on
// every page and state of the client, on a laptop and a phone, light and
// dark: home, a room's name prompt, a race's lobby, the race, its finish
// and its solved board, co-op, a replay, the daily before, during and
// after with its leaderboard, an archive day, the lab and its steps, the
// account's sign-up, recovery codes and account, and the player page. Any
// violation fails the test, listed with its rule, impact and element.
// A spectator's view, with the notice that offers it, a co-op board with a
// digit pending while the network is gone, a room that does not exist, a
// day to come and a refused sign-in link are checked too.
func TestAccessibility(t *testing.T) {
	t.Parallel()
	srv, base := startAccountArena(t, "RANK_GUESTS=true")
	// Three people's ways through the client, each in a browser of its own
	// and at once.
	t.Run("daily and account", func(t *testing.T) {
		t.Parallel()
		auditDailyAndAccount(t, &arena{Arena: srv.Arena, t: t}, base)
	})
	t.Run("rooms", func(t *testing.T) {
		t.Parallel()
		auditRooms(t, base)
	})
	t.Run("pages", func(t *testing.T) {
		t.Parallel()
		auditPages(t, base)
	})
}

// auditDailyAndAccount is Ann's way: home, today's daily before, during
// and after with its leaderboard, then her account and her player page.
func auditDailyAndAccount(t *testing.T, srv *arena, base string) {
	ann := newBrowser(t).newPage("Ann")

	// Home, for someone new.
	ann.navigate(base + "/")
	ann.wait("today's dailies", `document.querySelectorAll('#daily [data-level][data-status]').length === 5`)
	ann.audit("home")

	// Ann starts today's daily: its start card, then its board. She fills
	// it in a person's order but for one digit, which waits until the
	// clock passes the level's floor, so that her finish ranks; the other
	// ways through the client are checked meanwhile (auditRooms,
	// auditPages).
	ann.click(`#daily [data-level="easy"] a`)
	ann.wait("the daily's start", `location.pathname.startsWith('/daily/')`+" && "+visible("#daily-go"))
	date := strings.Split(eval[string](ann, `location.pathname`), "/")[2]
	ann.audit("daily before")
	ann.typeInto("#name", "Ann")
	ann.click("#daily-go")
	waitPlaying(ann)
	dGivens, dSol := puzzle(ann)
	dCells := personOrder(dGivens)
	ann.click(cellSel(dCells[0]))
	ann.fillByKeys(dCells[0], dCells[:3], dSol)
	ann.audit("daily during")

	// Ann's daily ends, ranked: the finish beside the leaderboard, the
	// streak and the archive.
	ann.solvePast(dCells[3:], dSol, easyFloor)
	ann.wait("a ranked result", visible("#finish")+` && document.querySelector('#finish-sub').dataset.ranked === 'true'`)
	ann.wait("Ann on the leaderboard", `!!document.querySelector('#lb-rows tr.me')`)
	ann.audit("daily after")

	// Her account: sign-up, the recovery codes, the account, a sign-in
	// code; the leaderboard with her handle; her record; home signed in.
	annID := eval[string](ann, `localStorage.getItem('arena.id') || ''`)
	require.NotEmpty(t, annID)
	ann.authenticator()
	ann.navigate(base + "/account")
	ann.wait("the sign-up", accountView("guest")+" && "+visible("#signup-handle"))
	ann.click("#recovery-box summary")
	ann.audit("account sign up")
	ann.typeInto("#signup-handle", "Ann")
	ann.click("#signup")
	ann.wait("the recovery codes", accountView("codes")+` && document.querySelectorAll('#codes-list li').length === 10`)
	ann.audit("account codes")
	ann.click("#codes-done")
	ann.wait("the account", accountView("account"))
	ann.click("#link-make")
	ann.wait("the sign-in code", visible("#link-box"))
	ann.click("#delete-open")
	ann.audit("account")
	ann.navigate(base + "/daily/" + date + "/easy")
	ann.wait("the leaderboard", saysIn("#lb-rows tr.me", "Ann"))
	ann.audit("leaderboard")
	ann.navigate(base + "/p/" + annID)
	ann.wait("Ann's page", `document.querySelectorAll('#history tr').length === 1`)
	ann.audit("player")
	ann.navigate(base + "/")
	ann.wait("home, signed in", visible("#me")+` && document.querySelector('#daily [data-level="easy"]')?.dataset.status === 'solved'`)
	ann.audit("home signed in")

	require.NotEmpty(t, srv.leaderboard(date, "easy").Top, "the daily ranked")
}

// auditRooms is Bo's, Cy's and Di's way: a race from its lobby to its
// solved board, its replay, and co-op, online and off.
func auditRooms(t *testing.T, base string) {
	b := newBrowser(t)
	bo, cy := b.newPage("Bo"), b.newPage("Cy")

	// A race: the lobby, a newcomer's name prompt, the race with a
	// conflict said, the finish, the solved board.
	raceID := createRoom(bo, base, "race", "easy", "Bo")
	bo.audit("race lobby")
	cy.navigate(base + "/r/" + raceID)
	cy.wait("the name prompt", visible("#enter"))
	cy.audit("name prompt")
	startGame(bo)
	givens, sol := puzzle(bo)
	cells := empties(givens)
	cc := bo.clash(givens)
	bo.fillByKeys(cc, cells[:5], sol)
	bo.click(cellSel(cells[5]))
	bo.press(digitKey(1, true), modShift)
	bo.press(digitKey(5, true), modShift)
	bo.click(cellSel(cells[6]))
	bo.press(digitKey(3, false), modCtrl)
	bo.press(digitKey(7, false), modCtrl)
	bo.click(cellSel(cells[7]))
	bo.press(digitKey(2, true), modShift)
	bo.press(digitKey(4, true), modShift)
	bo.press(digitKey(6, false), modCtrl)
	bo.press(digitKey(8, false), modCtrl)
	bo.wait("the notes", marksHave(cells[5], "corner", 5, true)+" && "+marksHave(cells[6], "centre", 7, true)+" && "+marksHave(cells[7], "centre", 8, true))
	require.Equal(t, fmt.Sprintf("row %d, column %d, notes 2 4 (and centre notes) 6 8", cells[7]/9+1, cells[7]%9+1), cellLabel(bo, cells[7]))
	bo.audit("race running")
	// Several cells selected and coloured.
	bo.drag(modNone, cells[5], cells[6])
	bo.drag(modShift, cells[7])
	bo.press(letterKey('v', false), modNone)
	bo.press(digitKey(4, false), modNone)
	bo.wait("the colours", colouredAll(cells[5:8], 4, true)+" && "+selectedAre(cells[5:8]...))
	bo.audit("race several selected")
	bo.press(letterKey('z', false), modNone)
	di := b.newPage("Di")
	di.navigate(base + "/r/" + raceID)
	enterRoom(di, "Di")
	di.wait("the race-started notice", visible("#notice button.primary"))
	di.audit("race started notice")
	di.click("#notice button.primary")
	di.wait("watching", `document.querySelector('.room')?.classList.contains('spectating') && `+phaseIs("running"))
	di.audit("watching")
	bo.solve(cells[5:], sol)
	bo.wait("the finish card", visible("#finish"))
	bo.audit("race finish")
	bo.click("#finish-close")
	bo.wait("the solved board", `!(`+visible("#finish")+`)`)
	bo.audit("race solved")

	// Its replay, paused at the start and at the end.
	cy.navigate(base + "/r/" + raceID + "/replay?round=1")
	cy.wait("the replay", replayIs("paused")+` && document.querySelectorAll('.rp-card').length === 1`)
	cy.audit("replay")
	cy.click(`[data-speed="16"]`)
	cy.click("#rp-play")
	cy.waitFor("the replay's end", replayIs("ended"), waitTimeout*4)
	cy.audit("replay ended")

	// Co-op: two players' digits, notes and cursors.
	coopID := createRoom(bo, base, "coop", "easy", "Bo")
	joinRoom(cy, base+"/r/"+coopID, "Cy")
	bo.wait("Cy in the lobby", playersHave("Cy"))
	startGame(bo, cy)
	givens, sol = puzzle(bo)
	cells = empties(givens)
	bo.click(cellSel(cells[0]))
	bo.fillByKeys(cells[0], cells[:4], sol)
	cy.click(cellSel(cells[4]))
	cy.fillByKeys(cells[4], cells[4:8], sol)
	cy.press(digitKey(int(sol[cells[8]]), true), modShift)
	bo.wait("Cy's digits", digitIs(cells[7], sol[cells[7]]))
	bo.audit("coop running")

	// Offline: the page says so, and a digit typed meanwhile is pending.
	bo.offline(true)
	bo.typeDigit(cells[8], sol[cells[8]])
	bo.waitFor("the offline banner and a pending digit", visible("#offline")+" && "+pendingIs(cells[8], true), deadLinkBound+waitTimeout)
	bo.audit("coop offline")
	bo.offline(false)
	bo.wait("back online, the digit answered", connIs("open")+" && "+digitIs(cells[8], sol[cells[8]]))
	bo.solve(cells[9:], sol)
	bo.wait("the co-op finish", visible("#finish"))
	bo.audit("coop finish")
}

// auditPages is the pages around the games: a room that does not exist,
// the lab and its steps, an archive day, a day to come and a refused
// sign-in link.
func auditPages(t *testing.T, base string) {
	cy := newBrowser(t).newPage("Cy")

	// A room that does not exist.
	cy.navigate(base + "/r/nosuch00")
	enterRoom(cy, "Cy")
	cy.wait("the notice", visible("#notice"))
	cy.audit("no such room")

	// The lab: empty, a generated puzzle, solved, graded, and its steps.
	cy.navigate(base + "/lab")
	cy.wait("the lab", `document.querySelectorAll('#lab-board .cell').length === 81`)
	cy.audit("lab")
	cy.navigate(base + "/lab?level=medium&seed=42")
	cy.wait("the generated puzzle", `document.querySelectorAll('#lab-board .cell.given').length > 0`)
	cy.click("#lab-solve")
	cy.wait("the solution", visible("#lab-result")+` && document.querySelector('#lab-result-title').textContent === 'One solution'`)
	cy.audit("lab solved")
	cy.click("#lab-grade")
	cy.wait("the grade", `document.querySelector('#lab-result-title').textContent.startsWith('Medium')`)
	cy.audit("lab graded")
	cy.click("#lab-human")
	cy.wait("the steps", visible("#lab-steps")+` && document.querySelector('#lab-board').dataset.step === '0'`)
	cy.audit("lab step 0")
	cy.click("#lab-next")
	cy.click("#lab-next")
	cy.wait("step 2", `document.querySelector('#lab-board').dataset.step === '2'`)
	cy.audit("lab step 2")

	// An archive day.
	cy.navigate(base + "/daily/2026-01-05/hard")
	cy.wait("an archive day", visible("#daily-go")+` && /archive/i.test(document.querySelector('#start-kicker').textContent)`)
	cy.audit("archive day")
	cy.navigate(base + "/daily/2999-01-01/hard")
	cy.wait("a day to come", visible("#daily-go")+` && document.querySelector('#daily-go').disabled`)
	cy.audit("future day")
	cy.navigate(base + "/signin#ABCD-EFGH-JKLM")
	cy.wait("the refused sign-in link", accountView("guest")+` && (document.querySelector('#code-message')?.textContent || '').length > 0`)
	cy.audit("sign-in link refused")
}
