package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
)

// clocks picture the order of the boxes in the share text: the box
// finished first shows one o'clock.
var clocks = []string{"🕐", "🕑", "🕒", "🕓", "🕔", "🕕", "🕖", "🕗", "🕘"}

// boxCells are the empty cells of box b, last in reading order first: a
// box filled that way goes against the reading order, as a person's
// finish does (a ranked daily filled by a scan is held for review).
func boxCells(givens engine.Grid, b int) []int {
	var cells []int
	for i := 8; i >= 0; i-- {
		c := (b/3*3+i/3)*9 + b%3*3 + i%3
		if givens[c] == 0 {
			cells = append(cells, c)
		}
	}
	return cells
}

// givensFull are the boxes the givens fill alone: full from the start,
// so first in the order, in reading order.
func givensFull(givens engine.Grid) []int {
	var full []int
	for b := range 9 {
		if len(boxCells(givens, b)) == 0 {
			full = append(full, b)
		}
	}
	return full
}

// fillBoxes fills the boxes in the order given, each box whole before the
// next; floor, if set, is the default floor the last digit waits past
// (waitPastFloor). It answers the boxes it filled, in the order they
// became full.
func fillBoxes(p *page, givens, sol engine.Grid, order []int, floor time.Duration) []int {
	p.t.Helper()
	var filled, cells []int
	for _, b := range order {
		if bc := boxCells(givens, b); len(bc) > 0 {
			cells = append(cells, bc...)
			filled = append(filled, b)
		}
	}
	p.solvePast(cells, sol, floor)
	return filled
}

// clockGrid is the share text's picture of the order.
func clockGrid(order []int) string {
	var rows []string
	for r := range 3 {
		row := ""
		for k := range 3 {
			row += clocks[indexOf(order, r*3+k)]
		}
		rows = append(rows, row)
	}
	return strings.Join(rows, "\n")
}

func indexOf(xs []int, x int) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

// openShare opens the share card from the finish card and answers its
// text, once its image is drawn.
func openShare(p *page) string {
	p.t.Helper()
	p.wait("the Share button in the finish card", visible("#finish #share"))
	p.click("#share")
	p.wait("the share card, drawn", visible("#share-card")+` && document.querySelector('#share-image').dataset.drawn === 'true'`)
	return eval[string](p, `document.querySelector('#share-text').value`)
}

// shareShots saves the share card on a phone and a laptop, light and
// dark, opened again for each: its image is drawn in the page's colours
// when it opens.
func shareShots(p *page, name string) {
	p.t.Helper()
	p.looks(name, func() {
		p.click("#share-close")
		p.click("#share")
		p.wait("the card drawn again", visible("#share-card")+` && document.querySelector('#share-image').dataset.drawn === 'true'`)
	})
}

// noOtherDigits checks that the share text holds no digit but those of
// the numbers it is meant to say: the text without them has none.
func noOtherDigits(t *testing.T, text string, numbers ...string) {
	t.Helper()
	rest := text
	for _, n := range numbers {
		require.Contains(t, rest, n)
		rest = strings.Replace(rest, n, "", 1)
	}
	assert.NotRegexp(t, `[0-9]`, rest, "no other digit in the share text (left: %q)", rest)
}

// mmss is a duration in ms as the page shows it, m:ss.
func mmss(ms int64) string {
	s := ms / 1000
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// grantClipboard lets the pages of base read and write the clipboard, so
// the test can read what the card copied.
func grantClipboard(p *page, base string) {
	p.t.Helper()
	p.run("grant the clipboard", chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		c := chromedp.FromContext(ctx)
		for _, name := range []string{"clipboard-read", "clipboard-write"} {
			_, err := cdp.Call(ctx, c.Browser, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
				Permission: &cdpbrowser.PermissionDescriptor{Name: name, AllowWithoutSanitization: true},
				Setting:    cdpbrowser.PermissionSettingGranted, Origin: base, BrowserContextID: c.BrowserContextID,
			})
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		return nil
	}))
}

// TestShareCard finishes a daily and a race in the browser and shares
// them: the card's text (the game, the level, the time, the mistakes,
// the hints, the rank, and the order in which the boxes were finished, as
// the test filled them, with no other digit), the copy with its
// confirmation, the image, and the challenge link, which opens the same
// puzzle for a friend: the daily's page, and a new room on the race's
// givens.
func TestShareCard(t *testing.T) {
	t.Parallel()
	srv := startArena(t, "RANK_GUESTS=true")
	// The daily waits for its floor: the rooms' games are shared meanwhile,
	// in a browser of their own.
	t.Run("daily", func(t *testing.T) {
		t.Parallel()
		shareDaily(t, &arena{Arena: srv.Arena, t: t})
	})
	t.Run("rooms", func(t *testing.T) {
		t.Parallel()
		shareRooms(t, srv.URL())
	})
}

// shareDaily is TestShareCard's daily: ranked, shared, copied, and its
// challenge opened by Bob.
func shareDaily(t *testing.T, srv *arena) {
	b := newBrowser(t)
	ann := b.newPage("Ann")
	grantClipboard(ann, srv.URL())

	// The daily, ranked, the boxes filled centre first then the corners.
	ann.navigate(srv.URL() + "/")
	ann.wait("today's dailies", `document.querySelectorAll('#daily [data-level][data-status]').length === 5`)
	ann.click(`#daily [data-level="easy"] a`)
	ann.wait("the daily's start", visible("#daily-go"))
	date := strings.Split(eval[string](ann, `location.pathname`), "/")[2]
	ann.typeInto("#name", "Ann")
	ann.click("#daily-go")
	waitPlaying(ann)
	givens, sol := puzzle(ann)
	// Three boxes, a reload (the order is kept), then the six others.
	order := append(givensFull(givens), fillBoxes(ann, givens, sol, []int{4, 0, 8}, 0)...)
	ann.navigate(srv.URL() + "/daily/" + date + "/easy")
	waitPlaying(ann)
	order = append(order, fillBoxes(ann, givens, sol, []int{2, 6, 1, 7, 3, 5}, easyFloor)...)
	ann.wait("a ranked result", visible("#finish")+` && document.querySelector('#finish-sub').dataset.ranked === 'true'`)
	lb := srv.leaderboard(date, "easy")
	require.Len(t, lb.Top, 1)
	played := mmss(lb.Top[0].TimeMS) // no mistake, no hint: the time played
	day, err := time.Parse("2006-01-02", date)
	require.NoError(t, err)

	ann.wait("the Share button", visible("#finish #share"))
	ann.shot("share-finish-daily")
	got := openShare(ann)
	head := fmt.Sprintf("Sudoku Arena daily %s · easy · %s · 0 mistakes · 0 hints · rank 1", day.Format("2 Jan 2006"), played)
	link := srv.URL() + "/daily/" + date + "/easy"
	assert.Equal(t, head+"\n"+clockGrid(order)+"\n"+link, got)
	noOtherDigits(t, got, day.Format("2 Jan 2006"), played, "0 mistakes", "0 hints", "rank 1", link)
	assert.Equal(t, played, text(ann, "#finish-rows tr:first-child .num"), "the card's time is the finish card's")

	// Copy: the clipboard holds the text, and the card says so.
	require.Equal(t, "Copy text", text(ann, "#share-go"), "no navigator.share in this browser: the card copies")
	ann.click("#share-go")
	ann.wait("Copied", `document.querySelector('#share-status').textContent === 'Copied'`)
	assert.Equal(t, got, evalAwait[string](ann, `navigator.clipboard.readText()`))
	// The image: a 1080-pixel square PNG, as Save image and Share give it.
	assert.Equal(t, "image/png 1080x1080", evalAwait[string](ann, `new Promise((ok) => document.querySelector('#share-image').toBlob(ok, 'image/png'))
		.then((b) => createImageBitmap(b).then((i) => b.type + ' ' + i.width + 'x' + i.height))`))
	shareShots(ann, "share-daily")

	// The daily's challenge: its page, where a friend plays the same
	// day's puzzle (their own copy of it, as every player's is).
	ann.click("#share-challenge")
	// The link shows at once; the card says Copied once the clipboard has
	// taken it.
	ann.wait("the challenge link, copied", visible("#share-challenge-link")+
		` && document.querySelector('#share-status').textContent.startsWith('Copied: send the link')`)
	assert.Equal(t, link, eval[string](ann, `document.querySelector('#share-challenge-link').value`))
	assert.Equal(t, link, evalAwait[string](ann, `navigator.clipboard.readText()`))
	bob := b.newPage("Bob")
	bob.navigate(link)
	bob.wait("the daily's start", visible("#daily-go"))
	bob.typeInto("#name", "Bob")
	bob.click("#daily-go")
	waitPlaying(bob)
	bobGivens, _ := puzzle(bob)
	assert.Len(t, empties(bobGivens), len(empties(givens)), "the same puzzle: as many givens")
	assert.Equal(t, givenCounts(givens), givenCounts(bobGivens), "the same puzzle: its digits relabelled at most")
	assert.Regexp(t, `^Daily · Easy · SE \d\.\d · `+day.Format("2 Jan")+`$`, text(bob, "#mode"))
	ann.click("#share-close")
	ann.wait("the card closed", `!`+visible("#share-card"))
}

// shareRooms is TestShareCard's race and co-op, and the race's challenge.
func shareRooms(t *testing.T, base string) {
	b := newBrowser(t)
	ann, bob := b.newPage("Ann"), b.newPage("Bob")
	grantClipboard(ann, base)

	// A race of two: Ann first, the boxes from the last to the first.
	roomID := createRoom(ann, base, "race", "easy", "Ann")
	joinRoom(bob, base+"/r/"+roomID, "Bob")
	startGame(ann, bob)
	givens, sol := puzzle(ann)
	order := append(givensFull(givens), fillBoxes(ann, givens, sol, []int{8, 7, 6, 5, 4, 3, 2, 1, 0}, 0)...)
	ann.wait("Ann's finish", visible("#finish")+` && !!document.querySelector('#finish-rows tr.me')`)
	played := text(ann, "#finish-rows tr.me .time")
	require.Regexp(t, `^\d+:\d\d$`, played)
	got := openShare(ann)
	head := fmt.Sprintf("Sudoku Arena race · easy · %s · 0 mistakes · 0 hints · 1st of 2", played)
	assert.Equal(t, head+"\n"+clockGrid(order)+"\n"+base+"/", got)
	noOtherDigits(t, got, played, "0 mistakes", "0 hints", "1st of 2", base)
	shareShots(ann, "share-race")

	// The race's challenge: home with the race's givens in the own-puzzle
	// card, one click from a new room on the same puzzle.
	ann.click("#share-challenge")
	ann.wait("the challenge link", visible("#share-challenge-link"))
	challenge := eval[string](ann, `document.querySelector('#share-challenge-link').value`)
	assert.Equal(t, base+"/?puzzle="+givens.String(), challenge)
	cara := b.newPage("Cara")
	cara.navigate(challenge)
	cara.wait("the own-puzzle card, filled", visible("#own-race")+` && document.querySelector('#own-puzzle').value.length === 81`)
	cara.typeInto("#name", "Cara")
	cara.click("#own-race")
	cara.wait("the new room", `location.pathname.startsWith('/r/')`)
	cara.wait("its lobby", phaseIs("waiting")+" && "+connIs("open"))
	assert.NotEqual(t, "/r/"+roomID, eval[string](cara, `location.pathname`), "a new room")
	startGame(cara)
	caraGivens, _ := puzzle(cara)
	assert.Equal(t, givens.String(), caraGivens.String(), "the challenge is the same puzzle")

	// Co-op: Ann fills the shared board; Bob's card, from the same board,
	// says the same.
	roomID = createRoom(ann, base, "coop", "easy", "Ann")
	joinRoom(bob, base+"/r/"+roomID, "Bob")
	startGame(ann, bob)
	givens, sol = puzzle(ann)
	order = append(givensFull(givens), fillBoxes(ann, givens, sol, []int{2, 4, 6, 0, 8, 1, 3, 5, 7}, 0)...)
	ann.wait("the team's finish", visible("#finish")+` && !!document.querySelector('#finish-rows tr[data-rank="1"] .time')`)
	played = text(ann, `#finish-rows tr[data-rank="1"] .time`)
	head = fmt.Sprintf("Sudoku Arena co-op · easy · %s · 0 mistakes · 0 hints · 2 together", played)
	assert.Equal(t, head+"\n"+clockGrid(order)+"\n"+base+"/", openShare(ann))
	assert.Equal(t, head+"\n"+clockGrid(order)+"\n"+base+"/", openShare(bob), "the same board, the same card")
}

// givenCounts is how many givens each digit has, sorted: what relabelling
// the digits keeps.
func givenCounts(g engine.Grid) []int {
	n := make([]int, 10)
	for _, d := range g {
		n[d]++
	}
	counts := n[1:]
	slices.Sort(counts)
	return counts
}
