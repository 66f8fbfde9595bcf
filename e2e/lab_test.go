package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/server"
)

// labStep is one step of POST /api/steps, as far as the page shows it.
type labStep struct {
	Name        string `json:"name"`
	Explanation string `json:"explanation"`
	Eliminate   []any  `json:"eliminate"`
	Highlight   []int  `json:"highlight"`
}

// labSteps asks the server for the puzzle's logical solution, to check the
// page against.
func (a *arena) labSteps(puzzle string) []labStep {
	a.t.Helper()
	body := fmt.Sprintf(`{"puzzle":%q}`, puzzle)
	resp, err := arenatest.Post(a.URL()+"/api/steps", "application/json", strings.NewReader(body))
	require.NoError(a.t, err)
	defer resp.Body.Close()
	require.Equal(a.t, http.StatusOK, resp.StatusCode)
	var out struct {
		Steps []labStep `json:"steps"`
	}
	require.NoError(a.t, json.NewDecoder(resp.Body).Decode(&out))
	return out.Steps
}

// labHighlight is the cells the lab's board highlights, ascending.
func labHighlight(p *page) []int {
	p.t.Helper()
	return eval[[]int](p, `[...document.querySelectorAll('#lab-board .cell.hl')].map(c => Number(c.dataset.cell))`)
}

// labDigits is the lab board's digits as 81 characters ('.' for none).
func labDigits(p *page) string {
	p.t.Helper()
	return eval[string](p, `[...document.querySelectorAll('#lab-board .cell')].map(c => c.querySelector('.digit').textContent || '.').join('')`)
}

// labPage starts a server and a browser page on the desktop, for a lab
// test that runs in parallel with others.
func labPage(t *testing.T, name string) (*arena, *page) {
	t.Helper()
	t.Parallel()
	srv := startArena(t)
	p := newBrowser(t).newPage(name)
	p.viewport(1280, 800, false)
	return srv, p
}

// labScheme switches the colour scheme and waits until the page has
// followed it, its colour transitions over.
func labScheme(p *page, scheme string) {
	p.t.Helper()
	p.colorScheme(scheme)
	p.wait(scheme+" theme", fmt.Sprintf(`document.documentElement.dataset.theme === %q && document.getAnimations().length === 0`, scheme))
}

// TestLab opens the lab on a generated medium puzzle by its level and
// seed, solves it, then steps through its logical solution forward and
// back, checking each step's highlighted cells and explanation against
// the server's; it takes the lab's screenshots on desktop and phone, light
// and dark. Then the home page refuses a pasted puzzle with two
// solutions, saying so, and makes a room on one with a single solution.
func TestLab(t *testing.T) {
	srv, p := labPage(t, "Lab")

	gen, err := engine.Generate(engine.Difficulties[1].Options(server.LabSeed(42), false))
	require.NoError(t, err)
	puzzle := gen.Givens.String()

	// The link with a level and a seed reproduces the puzzle.
	p.navigate(srv.URL() + "/lab?level=medium&seed=42")
	p.wait("the generated puzzle", `document.querySelectorAll('#lab-board .cell.given').length > 0`)
	assert.Equal(t, puzzle, labDigits(p))
	assert.Equal(t, puzzle, eval[string](p, `document.querySelector('#lab-puzzle').value`))
	assert.Equal(t, "42", eval[string](p, `document.querySelector('#lab-seed').value`))
	assert.Equal(t, "?level=medium&seed=42", eval[string](p, `location.search`))

	// Solve: one solution, its statistics, the solution on the board.
	p.click("#lab-solve")
	p.wait("the solver's answer", visible("#lab-result")+` && document.querySelector('#lab-result-title').textContent === 'One solution'`)
	facts := text(p, "#lab-facts")
	for _, f := range []string{"Solutions1", "Guesses", "Propagations", "Time"} {
		assert.Contains(t, facts, f)
	}
	assert.Equal(t, gen.Solution.String(), labDigits(p))

	// Grade: the level and the techniques.
	p.click("#lab-grade")
	p.wait("the grade", `document.querySelector('#lab-result-title').textContent.startsWith('Medium · score')`)
	assert.Positive(t, eval[int](p, `document.querySelectorAll('#lab-techs tr').length`))
	se, ok := engine.RateSE(gen.Givens)
	require.True(t, ok)
	assert.Contains(t, text(p, "#lab-facts"), "SE rating"+se.String(), "the Sudoku Explainer rating")
	p.shot("lab-grade-desktop-light")
	labScheme(p, "dark")
	p.viewport(390, 844, true)
	p.run("scroll to the grade", evalVoid(`document.querySelector('#lab-result').scrollIntoView()`))
	p.shot("lab-grade-phone-dark")
	p.viewport(1280, 800, false)
	labScheme(p, "light")

	// Solve like a person: the steps as the server lists them, forward and
	// back, each highlighting the cells it names.
	steps := srv.labSteps(puzzle)
	require.Greater(t, len(steps), 3)
	p.click("#lab-human")
	p.wait("the steps", visible("#lab-steps")+` && document.querySelector('#lab-board').dataset.step === '0'`)
	assert.Empty(t, labHighlight(p), "the puzzle before the first step")
	assert.Equal(t, puzzle, labDigits(p))
	atStep := func(n int) {
		t.Helper()
		p.wait(fmt.Sprintf("step %d", n), fmt.Sprintf(`document.querySelector('#lab-board').dataset.step === '%d'`, n))
		st := steps[n-1]
		assert.Equal(t, st.Highlight, labHighlight(p), "step %d's cells", n)
		assert.Equal(t, st.Explanation, text(p, "#lab-explain"), "step %d", n)
		assert.Contains(t, text(p, "#lab-step-title"), st.Name)
		assert.Equal(t, fmt.Sprintf("Step %d of %d", n, len(steps)), text(p, "#lab-count"))
	}
	p.click("#lab-next")
	atStep(1)
	p.click("#lab-next")
	atStep(2)
	p.click("#lab-next")
	atStep(3)
	p.click("#lab-back")
	atStep(2)
	p.press(keyRight, modNone)
	atStep(3)
	p.press(keyLeft, modNone)
	atStep(2)

	// A step that removes candidates, for the screenshots: its struck
	// pencil marks show.
	elim := 0
	for i, st := range steps {
		if len(st.Eliminate) > 0 {
			elim = i + 1
			break
		}
	}
	require.NotZero(t, elim, "a medium puzzle needs a step above the singles")
	p.run("slide to the step", evalVoid(fmt.Sprintf(
		`(s => { s.value = '%d'; s.dispatchEvent(new Event('input', {bubbles: true})); })(document.querySelector('#lab-slider'))`, elim)))
	atStep(elim)
	assert.Positive(t, eval[int](p, `document.querySelectorAll('#lab-board .corner i.elim').length`))
	p.wait("the board's transitions", `document.getAnimations().length === 0`)
	p.shot("lab-desktop-light")
	labScheme(p, "dark")
	p.shot("lab-desktop-dark")
	p.viewport(375, 667, true)
	assert.True(t, eval[bool](p, `document.documentElement.scrollWidth <= window.innerWidth`), "the lab fits a phone")
	p.shot("lab-phone-dark")
	labScheme(p, "light")
	p.shot("lab-phone-light")
	p.run("scroll to the steps", evalVoid(`document.querySelector('#lab-steps').scrollIntoView()`))
	p.shot("lab-phone-steps")
	p.viewport(1280, 800, false)

	// The last step leaves the solution.
	p.click("#lab-last")
	atStep(len(steps))
	p.click("#lab-next")
	assert.Equal(t, gen.Solution.String(), labDigits(p))

	// A pasted puzzle that does not parse: the parser's words.
	p.typeInto("#lab-puzzle", "12x")
	p.click("#lab-solve")
	p.wait("the parser's message", `document.querySelector('#lab-message').textContent.includes("unexpected character 'x'")`)

	// Home: a pasted puzzle with two solutions is refused, saying why, and
	// no room is made.
	many := "123456789" + strings.Repeat(".", 72)
	p.navigate(srv.URL() + "/?puzzle=" + many)
	p.wait("the own puzzle field", visible("#own-puzzle"))
	assert.Equal(t, many, eval[string](p, `document.querySelector('#own-puzzle').value`), "/?puzzle= fills the field")
	p.typeInto("#name", "Lab")
	p.click("#own-race")
	p.wait("the refusal", `document.querySelector('#own-message').textContent.includes('more than one solution')`)
	assert.Equal(t, "The puzzle has more than one solution: it needs more givens.", text(p, "#own-message"))
	assert.Equal(t, "/", eval[string](p, `location.pathname`))
	p.shot("lab-own-refused")

	// One with a single solution makes a room, graded.
	p.typeInto("#own-puzzle", puzzle)
	p.click("#own-race")
	p.wait("the room page", `location.pathname.startsWith('/r/')`)
	p.wait("the room's lobby", phaseIs("waiting")+" && "+connIs("open"))
	assert.Contains(t, text(p, "#mode"), "Medium")
}

// TestLabSeed checks the lab's seed field as a player uses it: empty with
// "random" showing, so each Generate is a new puzzle whose seed shows
// above the board and in the address (never in the field); a seed typed
// into it generates that seed's puzzle, again and again; a seed from a
// link is in the field, and clicking into the field and typing replaces
// it rather than adding to it; Enter generates.
func TestLabSeed(t *testing.T) {
	srv, p := labPage(t, "LabSeed")
	puzzleOf := func(seed uint64) string {
		t.Helper()
		gen, err := engine.Generate(engine.Difficulties[1].Options(server.LabSeed(seed), false))
		require.NoError(t, err)
		return gen.Givens.String()
	}
	seedShown := func() string {
		t.Helper()
		what := text(p, "#lab-what")
		require.True(t, strings.HasPrefix(what, "Medium · seed "), "the badge names the seed: %q", what)
		return strings.TrimPrefix(what, "Medium · seed ")
	}

	// No seed asked for: a random one, shown above the board and in the
	// address, and the field stays empty.
	p.navigate(srv.URL() + "/lab")
	p.wait("a random puzzle", `document.querySelectorAll('#lab-board .cell.given').length > 0 && document.querySelector('#lab-what').textContent.includes('seed')`)
	assert.Equal(t, "", eval[string](p, `document.querySelector('#lab-seed').value`), "the field is not filled in")
	assert.Equal(t, "random", eval[string](p, `document.querySelector('#lab-seed').placeholder`))
	first := seedShown()
	assert.Equal(t, "?level=medium&seed="+first, eval[string](p, `location.search`))
	var n uint64
	_, err := fmt.Sscan(first, &n)
	require.NoError(t, err)
	assert.Equal(t, puzzleOf(n), labDigits(p), "the badge's seed is the puzzle's")

	// Generate again, still empty: another random puzzle.
	p.click("#lab-generate")
	p.wait("another random puzzle", fmt.Sprintf(`!document.querySelector('#lab-what').textContent.endsWith(' %s')`, first))
	assert.NotEqual(t, first, seedShown())
	assert.Equal(t, "", eval[string](p, `document.querySelector('#lab-seed').value`))

	// Typed "42": exactly 42, whatever was generated before, twice over.
	p.run("click into the seed and type 42", chromedp.Click(chromedp.CSS("#lab-seed")), chromedp.KeyEvent("42"))
	assert.Equal(t, "42", eval[string](p, `document.querySelector('#lab-seed').value`))
	p.click("#lab-generate")
	p.wait("seed 42's puzzle", `document.querySelector('#lab-what').textContent === 'Medium · seed 42'`)
	assert.Equal(t, puzzleOf(42), labDigits(p))
	assert.Equal(t, "42", eval[string](p, `document.querySelector('#lab-seed').value`))
	assert.Equal(t, "?level=medium&seed=42", eval[string](p, `location.search`))

	// Clicking into a filled field and typing replaces its seed; Enter
	// generates it.
	p.run("click into the seed and type 7, Enter", chromedp.Click(chromedp.CSS("#lab-seed")), chromedp.KeyEvent("7"))
	assert.Equal(t, "7", eval[string](p, `document.querySelector('#lab-seed').value`), "typing replaces the seed")
	p.run("press Enter", chromedp.KeyEvent("\r"))
	p.wait("seed 7's puzzle", `document.querySelector('#lab-what').textContent === 'Medium · seed 7'`)
	assert.Equal(t, puzzleOf(7), labDigits(p))

	// Emptied: random again.
	p.run("clear the seed", chromedp.Click(chromedp.CSS("#lab-seed")), chromedp.KeyEvent(kb.Backspace))
	assert.Equal(t, "", eval[string](p, `document.querySelector('#lab-seed').value`))
	p.click("#lab-generate")
	p.wait("a random puzzle again", `document.querySelector('#lab-what').textContent !== 'Medium · seed 7'`)
	assert.NotEqual(t, "7", seedShown())
	assert.Equal(t, "", eval[string](p, `document.querySelector('#lab-seed').value`))

	// Not a number: said in words, and the puzzle shown stays.
	before := labDigits(p)
	p.typeInto("#lab-seed", "abc")
	p.click("#lab-generate")
	p.wait("the refusal", `document.querySelector('#lab-message').textContent !== ''`)
	assert.Equal(t, "The seed is a whole number, from 0 up.", text(p, "#lab-message"))
	assert.Equal(t, before, labDigits(p))
	p.shot("lab-seed-refused")
}
