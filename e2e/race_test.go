package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
)

// TestRace plays a race between two browsers from the home page to the
// ranks: the lobby, the countdown, a conflict both see, a hint with its
// freeze, live progress, both finishes and the host's rematch button.
func TestRace(t *testing.T) {
	t.Parallel()
	srv := startArena(t)
	b := newBrowser(t)
	alice, bob := b.newPage("Alice"), b.newPage("Bob")

	alice.navigate(srv.URL() + "/")
	alice.wait("the home page", visible("#create-race")+" && "+visible("#daily"))
	alice.shot("home")
	// The client's modules and styles came gzipped.
	packed := eval[[]string](alice, `performance.getEntriesByType('resource')
		.filter(r => /\.(js|css)$/.test(r.name))
		.map(r => r.name.replace(location.origin, '') + (r.encodedBodySize < r.decodedBodySize ? ' gzip' : ' plain'))`)
	require.NotEmpty(t, packed, "the page loads modules and styles")
	for _, r := range packed {
		assert.True(t, strings.HasSuffix(r, " gzip"), "%s", r)
	}
	id := createRoom(alice, srv.URL(), "race", "easy", "Alice")

	// The lobby: the share link, the host's Start, the others waiting.
	alice.wait("the lobby", visible("#lobby")+" && "+visible("#share-link"))
	link := eval[string](alice, `document.querySelector('#share-link').value`)
	require.Equal(t, srv.URL()+"/r/"+id, link, "the share link is the full URL")
	assert.True(t, eval[bool](alice, visible("#copy-link")), "a copy button")
	joinRoom(bob, link, "Bob")
	bob.wait("Waiting for Alice", `(document.querySelector('#waiting')?.textContent || '').includes('Waiting for Alice')`)
	assert.False(t, eval[bool](bob, visible("#start")), "only the host has Start")
	for _, p := range []*page{alice, bob} {
		p.wait("both players listed", playersHave("Alice", "Bob"))
	}
	alice.shot("lobby")
	ids := playerIDs(t, srv, id)
	require.Len(t, ids, 2)

	// The server's countdown, then the same puzzle on both boards.
	alice.click("#start")
	bob.wait("the countdown", visible("#countdown")+` && /[1-9]/.test(document.querySelector('#countdown').textContent)`)
	waitPlaying(alice, bob)
	givens, sol := puzzle(alice)
	require.Equal(t, readBoard(alice, true), readBoard(bob, true), "one puzzle for both")
	cells := empties(givens)
	assert.True(t, eval[bool](alice, `document.querySelector('#board').getAttribute('aria-readonly') !== 'true'`))
	label := cellLabel(alice, cells[0])
	assert.Equal(t, fmt.Sprintf("row %d, column %d, empty", cells[0]/9+1, cells[0]%9+1), label)

	// A digit its row already has: refused, told to the mover in words,
	// to the room in the feed, and the clashing given flashes.
	cc, cd, given := conflictFor(givens)
	alice.recordFlashes()
	bob.recordFlashes()
	alice.click(cellSel(cc))
	alice.press(digitKey(int(cd), false), modNone)
	alice.wait("the conflict message", messageIs("conflict"))
	msg := eval[string](alice, `document.querySelector('#message').textContent.trim()`)
	assert.NotEmpty(t, msg)
	assert.NotEqual(t, "conflict", msg, "a sentence, not the code")
	alice.wait("the conflict in Alice's feed", feedHas("conflict"))
	bob.wait("the conflict in Bob's feed", feedHas("conflict", "Alice"))
	alice.wait("the given flashed", fmt.Sprintf(`window.__flashed.includes(%d)`, given))
	bob.wait("the given flashed for the others too", fmt.Sprintf(`window.__flashed.includes(%d)`, given))
	alice.wait("the refused digit gone", digitIs(cc, 0))

	// A hint: the technique in the asker's feed, who asked in the other's,
	// its cells for the asker only, and the freeze on the asker's board.
	alice.click("#hint")
	alice.wait("the hint in Alice's feed", feedHas("hint"))
	hintText := eval[string](alice, `document.querySelector('#feed li[data-kind=hint]').textContent`)
	assert.True(t, namesTechnique(hintText), "the hint names its technique: %q", hintText)
	alice.wait("the hint's cells", `document.querySelectorAll('#board .hinted').length > 0`)
	bob.wait("the hint in Bob's feed", feedHas("hint", "Alice"))
	bobHint := eval[string](bob, `document.querySelector('#feed li[data-kind=hint]').textContent`)
	assert.False(t, namesTechnique(bobHint), "the others learn who asked, not the technique: %q", bobHint)
	assert.Zero(t, eval[int](bob, `document.querySelectorAll('#board .hinted').length`), "a race hint's cells are the asker's")
	if eval[bool](alice, visible("#freeze")) {
		assert.Regexp(t, `[0-9]`, eval[string](alice, `document.querySelector('#freeze').textContent`), "the freeze counts down")
		alice.click(cellSel(cells[0]))
		alice.press(digitKey(int(sol[cells[0]]), false), modNone)
		alice.wait("the frozen message", messageIs("frozen"))
		assert.NotEqual(t, "frozen", eval[string](alice, `document.querySelector('#message').textContent.trim()`))
	} else {
		t.Error("Alice: #freeze not visible right after a race hint (HINT_PENALTY=2s)")
	}
	alice.waitFor("the freeze to end", `!(`+visible("#freeze")+`)`, 5*time.Second)

	// Half the board each, and the progress shows live on the other side.
	half := len(cells) / 2
	alice.click(cellSel(cells[0]))
	alice.fillByKeys(cells[0], cells[:typedCells], sol)
	alice.fillByProtocol(cells[typedCells:half], sol)
	bob.click(cellSel(cells[0]))
	bob.fillByKeys(cells[0], cells[:5], sol)
	alice.wait("Bob's progress", fmt.Sprintf(`document.querySelector('#players li[data-player=%q] progress')?.value === 5`, ids["Bob"]))
	bob.wait("Alice's progress", fmt.Sprintf(`document.querySelector('#players li[data-player=%q] progress')?.value === %d`, ids["Alice"], half))
	assert.Equal(t, len(cells), eval[int](bob, fmt.Sprintf(`document.querySelector('#players li[data-player=%q] progress').max`, ids["Alice"])))
	alice.wait("the clock running", `/[1-9]/.test(document.querySelector('#timer')?.textContent || '')`)
	alice.shot("race-desktop")

	// Alice finishes first, then Bob.
	alice.solve(cells[half:], sol)
	bob.wait("Alice's finish in the feed", feedHas("finish", "Alice"))
	bob.solve(cells[5:], sol)
	timeRe := regexp.MustCompile(`\d+:\d\d`)
	for _, p := range []*page{alice, bob} {
		p.wait("the finish banner", visible("#finish")+` && !!document.querySelector('#finish [data-rank="2"]')`)
		for rank, name := range map[int]string{1: "Alice", 2: "Bob"} {
			row := eval[string](p, fmt.Sprintf(`document.querySelector('#finish [data-rank="%d"]').textContent`, rank))
			assert.Contains(t, row, name, "%s: rank %d", p.name, rank)
			assert.Regexp(t, timeRe, row, "%s: rank %d shows a time", p.name, rank)
			assert.Regexp(t, `\d{2,}`, timeRe.ReplaceAllString(row, ""), "%s: rank %d shows a score", p.name, rank)
		}
	}
	alice.wait("the host's Rematch", visible("#rematch"))
	assert.False(t, eval[bool](bob, visible("#rematch")), "only the host has Rematch")
	alice.shot("finish")
	for _, pl := range srv.room(id).Players {
		want := map[string]int{"Alice": 1, "Bob": 2}[pl.Name]
		assert.Equal(t, want, pl.Rank, "the server's rank of %s", pl.Name)
	}

	// The rematch: a new round, back in the lobby, same players.
	alice.click("#rematch")
	for _, p := range []*page{alice, bob} {
		p.wait("the new round's lobby", phaseIs("waiting")+" && "+visible("#lobby")+" && !("+visible("#finish")+")")
	}
	assert.True(t, eval[bool](alice, visible("#start")), "the host starts the rematch")
}

// namesTechnique says whether the text names one of the engine's
// techniques, by display name or id.
func namesTechnique(text string) bool {
	lower := strings.ToLower(text)
	for _, tq := range engine.Techniques() {
		if strings.Contains(lower, strings.ToLower(tq.Name())) || strings.Contains(lower, tq.String()) {
			return true
		}
	}
	return false
}
