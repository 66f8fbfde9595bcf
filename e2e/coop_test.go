package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
)

// TestCoop solves one shared board from two browsers: notes placed by one
// appear for the other, each sees the other's cursor, digits carry who
// placed them (for a third player who joins late too), a placed digit
// clears its peers' notes, and the team finishes together, when the mode
// buttons are disabled.
func TestCoop(t *testing.T) {
	t.Parallel()
	srv := startArena(t)
	b := newBrowser(t)
	alice, bob := b.newPage("Alice"), b.newPage("Bob")

	id := createRoom(alice, srv.URL(), "coop", "easy", "Alice")
	joinRoom(bob, srv.URL()+"/r/"+id, "Bob")
	alice.wait("Bob in the lobby", playersHave("Bob"))
	ids := playerIDs(t, srv, id)
	require.Len(t, ids, 2)
	startGame(alice, bob)
	givens, sol := puzzle(alice)
	require.Equal(t, readBoard(alice, true), readBoard(bob, true), "one board")
	cells := empties(givens)

	// Alice's notes on x: a corner mark (Shift+digit) and a centre mark
	// (Ctrl+digit); Bob sees both, and Alice's cursor on x.
	x, y := rowPair(givens)
	other := sol[x]%9 + 1
	alice.click(cellSel(x))
	alice.press(digitKey(int(sol[x]), true), modShift)
	alice.press(digitKey(int(other), false), modCtrl)
	for _, p := range []*page{alice, bob} {
		p.wait("Alice's corner mark", fmt.Sprintf(`(document.querySelector('%s .corner')?.textContent || '').includes('%d')`, cellSel(x), sol[x]))
		p.wait("Alice's centre mark", fmt.Sprintf(`(document.querySelector('%s .centre')?.textContent || '').includes('%d')`, cellSel(x), other))
	}
	bob.wait("Alice's cursor", cursorOf(x, ids["Alice"], "Alice"))

	// Bob's cursor and a note of his on y, in the same row as x: Alice
	// sees them.
	bob.click(cellSel(y))
	bob.press(digitKey(int(sol[x]), true), modShift)
	alice.wait("Bob's cursor", cursorOf(y, ids["Bob"], "Bob"))
	alice.wait("Bob's corner mark", fmt.Sprintf(`(document.querySelector('%s .corner')?.textContent || '').includes('%d')`, cellSel(y), sol[x]))
	assert.Contains(t, cellLabel(alice, y), "notes",
		"the cell's label reads its notes")
	alice.shot("coop")

	// Alice places x: its notes go, and so does that digit from y's notes
	// (the move's cleared list), on both boards.
	alice.place(x, sol[x])
	for _, p := range []*page{alice, bob} {
		p.wait("Alice's digit", digitIs(x, sol[x]))
		p.wait("y's mark cleared", fmt.Sprintf(`!(document.querySelector('%s .corner')?.textContent || '').includes('%d')`, cellSel(y), sol[x]))
	}

	// The rest, in turns (the first two typed, then by moves on each
	// page's socket); each digit carries who placed it.
	var rest []int
	for _, c := range cells {
		if c != x {
			rest = append(rest, c)
		}
	}
	last := rest[len(rest)-1]
	turns := [2][]int{}
	for i, c := range rest[:len(rest)-1] {
		turns[i%2] = append(turns[i%2], c)
	}
	bob.place(rest[0], sol[rest[0]])
	alice.place(rest[1], sol[rest[1]])
	bob.fillByProtocol(turns[0][1:], sol)
	alice.fillByProtocol(turns[1][1:], sol)
	for _, p := range []*page{alice, bob} {
		p.wait("Bob's last digit", digitIs(rest[len(rest)-2], sol[rest[len(rest)-2]]))
		assert.Equal(t, ids["Alice"], byOf(p, x), "%s: x placed by Alice", p.name)
		assert.Equal(t, ids["Bob"], byOf(p, rest[0]), "%s: placed by Bob", p.name)
		assert.Equal(t, ids["Alice"], byOf(p, rest[1]), "%s: placed by Alice", p.name)
		assert.Empty(t, byOf(p, givenCell(givens)), "%s: a given is nobody's", p.name)
		assert.NotEqual(t, digitColor(p, x), digitColor(p, rest[0]), "%s: each player's digits in their colour", p.name)
		assert.Equal(t, digitColor(p, rest[1]), digitColor(p, x), "%s: one colour for one player", p.name)
	}

	// Carol joins now, in a browser context of her own: her first
	// snapshot tints the digits placed before she came, as the others see
	// them.
	carol := b.newPage("Carol")
	joinRoom(carol, srv.URL()+"/r/"+id, "Carol")
	waitPlaying(carol)
	carol.wait("the digits so far", digitIs(rest[len(rest)-2], sol[rest[len(rest)-2]]))
	for c, who := range map[int]string{x: "Alice", rest[0]: "Bob", rest[1]: "Alice"} {
		assert.Equal(t, ids[who], byOf(carol, c), "Carol: %s placed %s", who, engine.CellName(c))
		assert.Equal(t, digitColor(alice, c), digitColor(carol, c), "Carol: %s's colour at %s", who, engine.CellName(c))
	}
	assert.Empty(t, byOf(carol, givenCell(givens)), "Carol: a given is nobody's")
	bob.place(last, sol[last])

	placed := map[string]int{}
	for _, pl := range srv.room(id).Players {
		placed[pl.Name] = pl.Filled
	}
	require.Equal(t, len(cells), placed["Alice"]+placed["Bob"], "the server counts every digit once")
	for _, p := range []*page{alice, bob} {
		p.wait("the team's finish", visible("#finish")+` && ['Alice', 'Bob'].every(n => document.querySelector('#finish').textContent.includes(n))`)
		assert.Zero(t, eval[int](p, `document.querySelectorAll('#finish [data-rank="2"]').length`), "%s: a team has no second place", p.name)
		assert.Equal(t, "finished", eval[string](p, `document.documentElement.dataset.phase`))
		// Nothing to enter now: the mode buttons show it, disabled and faded.
		assert.True(t, eval[bool](p, `[...document.querySelectorAll('[data-pad-mode]')].every(b => b.disabled && +getComputedStyle(b).opacity < 1)`), "%s: the modes are off", p.name)
		for name, n := range placed {
			// The row (or line) of the banner that names the player says
			// how many digits they placed.
			row := eval[string](p, fmt.Sprintf(`[...document.querySelectorAll('#finish tr, #finish li, #finish p')]
				.map(e => e.textContent).filter(t => t.includes(%q)).join(' | ')`, name))
			assert.Regexp(t, fmt.Sprintf(`(^|\D)%d(\D|$)`, n), strings.ReplaceAll(row, name, " "),
				"%s: the finish says %s placed %d", p.name, name, n)
		}
	}
	alice.shot("coop-finish")
}

// cursorOf is a predicate: the player's cursor, labelled with their name,
// is in the cell.
func cursorOf(cell int, playerID, name string) string {
	return fmt.Sprintf(`(document.querySelector('%s .cursor[data-player=%q] .label')?.dataset.name || '').includes(%q)`, cellSel(cell), playerID, name)
}

// byOf is the data-by of the cell's digit: who placed it.
func byOf(p *page, cell int) string {
	p.t.Helper()
	return eval[string](p, fmt.Sprintf(`(c => c.dataset.by || c.querySelector('[data-by]')?.dataset.by || '')(document.querySelector('%s'))`, cellSel(cell)))
}

// rowPair is two empty cells in one row.
func rowPair(g engine.Grid) (x, y int) {
	for x := range g {
		for y := x + 1; y < x/9*9+9; y++ {
			if g[x] == 0 && g[y] == 0 {
				return x, y
			}
		}
	}
	panic("no row with two empty cells")
}

// givenCell is the first given.
func givenCell(g engine.Grid) int {
	for i, d := range g {
		if d != 0 {
			return i
		}
	}
	panic("no givens")
}

// digitColor is the computed colour of the cell's digit.
func digitColor(p *page, cell int) string {
	p.t.Helper()
	return eval[string](p, fmt.Sprintf(`getComputedStyle(document.querySelector('%s .digit')).color`, cellSel(cell)))
}
