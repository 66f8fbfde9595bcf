package engine

import (
	"errors"
	"fmt"
)

// Errors of GradePuzzle and NextHint: the puzzle does not have exactly one
// solution. Test for them with errors.Is; ErrConflict's message names the
// clashing cells.
var (
	ErrConflict          = errors.New("engine: two givens in the same row, column or box hold the same digit")
	ErrNoSolution        = errors.New("engine: the puzzle has no solution")
	ErrMultipleSolutions = errors.New("engine: the puzzle has more than one solution")
)

// maxSteps bounds the logical solver's loop: every step removes at least
// one of the 729 (cell, digit) candidates, so a correct solver never
// reaches it; it only guards against a technique that reports a step that
// changes nothing.
const maxSteps = NumCells * 9

// Grade is what the logical solver made of a puzzle.
type Grade struct {
	// Level is the tier of the hardest technique used, or LevelBeyond when
	// the techniques could not finish the puzzle.
	Level Level `json:"level"`
	// Score is the sum of the scores of all steps taken (see Technique).
	Score int `json:"score"`
	// Hardest is the highest-scoring technique used (TechniqueNone when the
	// puzzle was already full).
	Hardest Technique `json:"hardest"`
	// Counts is how many steps used each technique.
	Counts map[Technique]int `json:"counts"`
	// Steps are the steps taken, in order.
	Steps []Step `json:"steps"`
	// Solved is false when the techniques got stuck (Level is LevelBeyond).
	Solved bool `json:"solved"`
	// Board is the digits placed when the solver stopped: the solution when
	// Solved, otherwise where it got stuck.
	Board Grid `json:"board"`
	// Candidates is the candidate grid when the solver stopped.
	Candidates Candidates `json:"-"`
}

// checkUnique returns the unique solution of g, or ErrConflict,
// ErrNoSolution or ErrMultipleSolutions.
func checkUnique(g Grid) (Grid, error) {
	for i, v := range g {
		if v > 9 {
			return Grid{}, fmt.Errorf("%w: %s holds %d", ErrNoSolution, CellName(i), v)
		}
	}
	if cs := g.AllConflicts(); len(cs) > 0 {
		k := cs[0]
		return Grid{}, fmt.Errorf("%w: %s and %s both hold %d", ErrConflict, CellName(k.A), CellName(k.B), k.Digit)
	}
	res := Solve(g, 2)
	switch res.Count {
	case 0:
		return Grid{}, ErrNoSolution
	case 1:
		return res.Solution, nil
	default:
		return Grid{}, ErrMultipleSolutions
	}
}

// singleScore is what each digit placed by a full house, naked single or
// hidden single adds to a puzzle's score.
const singleScore = 4

// GradePuzzle solves g with the human techniques and rates it by the hardest
// technique needed. It first checks with Solve that g has exactly one
// solution (the uniqueness techniques rely on it) and returns ErrConflict,
// ErrNoSolution or ErrMultipleSolutions when it has not.
//
// It works in rounds: each round finds the easiest technique with something
// to do and applies it until it has nothing left, then the next round starts
// again from the easiest.
//
// The score adds the technique's score once per round for every technique
// above the singles, and singleScore for every digit a single places,
// whichever single it was. Which of two equal patterns a technique finds
// first depends on where the cells are, and one pattern can turn another
// into a single; scored this way such choices do not move the grade, so a
// puzzle and every puzzle isomorphic to it (relabelled digits, swapped rows,
// bands, columns and stacks, transposed) get the same level, hardest
// technique and score. Counts holds the rounds of each technique above the
// singles and the digits each single placed; how the singles split between
// full house, naked and hidden single may differ between isomorphs.
func GradePuzzle(g Grid) (Grade, error) {
	if _, err := checkUnique(g); err != nil {
		return Grade{}, err
	}
	return grade(g, true), nil
}

// grade is GradePuzzle for a puzzle known to have one solution; without
// keepSteps it leaves Grade.Steps empty and saves copying every step.
func grade(g Grid, keepSteps bool) Grade {
	gr := Grade{Counts: map[Technique]int{}}
	c := NewCandidates(g)
	var buf stepBuf
	st := buf.init()
	for n := 0; n < maxSteps && !c.Solved(); {
		if !nextStep(&c, st, LevelExpert) {
			break
		}
		t := st.Technique
		placed := 0
		for ok := true; ok && n < maxSteps; ok = findStep(t, &c, st) {
			if !c.Apply(st) {
				n = maxSteps
				break
			}
			if keepSteps {
				gr.Steps = append(gr.Steps, st.clone())
			}
			placed += len(st.Place)
			n++
		}
		if t.Level() == LevelEasy {
			gr.Counts[t] += placed
			gr.Score += placed * singleScore
		} else {
			gr.Counts[t]++
			gr.Score += t.Score()
		}
		if h := gr.Hardest; t.Score() > h.Score() || (t.Score() == h.Score() && t > h) {
			gr.Hardest = t
		}
	}
	gr.Solved = c.Solved()
	gr.Board = c.Grid()
	gr.Candidates = c
	if gr.Solved {
		gr.Level = gr.Hardest.Level()
	} else {
		gr.Level = LevelBeyond
	}
	return gr
}

// SolvableWithin reports whether the techniques of level max and below
// solve g, and the level of the hardest technique used (so far, when they
// do not). It is the generator's fast path: it builds no explanations, keeps
// no steps and allocates nothing, places all singles at once, and stops as
// soon as it would need a technique above max. For a puzzle with one
// solution it agrees with GradePuzzle: solved exactly when GradePuzzle's
// Level is at most max, with hardest equal to that Level.
//
// It does not check that g has one solution: a puzzle with several gets
// stuck (or, through the uniqueness techniques, may reach one of its
// solutions), and one with none gets stuck on a contradiction.
func SolvableWithin(g Grid, max Level) (solved bool, hardest Level) {
	c, ok := newCandidates(&g)
	if !ok {
		return false, LevelEasy
	}
	return c.solveWithin(max)
}

// solveWithin is SolvableWithin on a board in play: it takes c as far as
// the techniques of level max and below go, and reports whether that
// solves it and the level of the hardest technique it used. The generator
// calls it again on a board it stopped on, with a clue added.
func (c *Candidates) solveWithin(max Level) (solved bool, hardest Level) {
	buf := stepBufs.Get().(*stepBuf)
	defer stepBufs.Put(buf)
	st := buf.init()
	if !c.propagateSingles() {
		return false, hardest
	}
	if c.Solved() {
		return true, hardest
	}
	// Tier by tier, take the board to the closure of the techniques up to
	// that tier. The techniques are confluent (the closure does not depend
	// on the order they are applied in), so the level reached is the one
	// GradePuzzle's easiest-first order reaches, and the order can instead
	// favour speed: fastOrder puts cheap, productive techniques first, each
	// one that fires is applied as long as it finds something, and the
	// search then starts again from the top, so the costly, rarely needed
	// ones run only when everything before them is stuck.
	dv := derived{batch: true}
	for tier := LevelMedium; tier <= max && tier <= LevelExpert; tier++ {
		for i := 0; i < len(fastOrder); i++ {
			t := fastOrder[i]
			if t.Level() > tier {
				continue
			}
			fired := false
			for findStepWith(t, c, st, &dv) {
				dv.reset()
				if !c.applyFast(st) {
					return false, hardest
				}
				fired = true
				if c.Solved() {
					return true, maxLevel(hardest, t.Level())
				}
			}
			if fired {
				hardest = maxLevel(hardest, t.Level())
				i = -1
			}
		}
	}
	return false, hardest
}

// fastOrder is the order SolvableWithin tries the techniques in: by tier,
// and within a tier the cheap and often useful ones first.
var fastOrder = [...]Technique{
	TechniquePointing, TechniqueClaiming, TechniqueNakedPair, TechniqueHiddenPair,
	TechniqueSkyscraper, TechniqueTwoStringKite, TechniqueXWing, TechniqueXYWing, TechniqueWWing,
	TechniqueXYZWing, TechniqueSwordfish, TechniqueNakedTriple, TechniqueHiddenTriple,
	TechniqueJellyfish, TechniqueNakedQuad, TechniqueHiddenQuad,
	TechniqueUniqueRectangle1, TechniqueUniqueRectangle2, TechniqueUniqueRectangle4, TechniqueBUG,
	TechniqueColourTrap, TechniqueColourWrap, TechniqueXChain, TechniqueXYChain,
}

// applyFast applies a step and the singles it leads to, looking only where
// the step changed the board; false on a contradiction or a step that
// changes nothing.
func (c *Candidates) applyFast(st *Step) bool {
	if len(st.Place) > 0 {
		return c.Apply(st) && c.propagateSingles()
	}
	var dirty uint32
	var check CellSet
	changed := false
	for _, e := range st.Eliminate {
		if c.Eliminate(e.Cell, e.Digit) {
			changed = true
			u := &CellUnits[e.Cell]
			dirty |= 1<<u[0] | 1<<u[1] | 1<<u[2]
			check.Add(e.Cell)
		}
	}
	return changed && c.propagate(dirty, check)
}

func maxLevel(a, b Level) Level {
	if a > b {
		return a
	}
	return b
}

// Unlocked groups the cells the singles placed after each run of steps
// above the singles, until the next such run: the cells that run opened,
// in the order the runs were taken. The solver tries every single before
// it turns to a harder technique, so none of those cells could be placed
// before the run: a person meets them after the thinking it took. Steps
// are a Grade's (GradePuzzle keeps them).
func Unlocked(steps []Step) [][]int {
	var out [][]int
	open := false
	for _, st := range steps {
		if st.Technique.Level() != LevelEasy {
			out = append(out, nil)
			open = true
			continue
		}
		if open {
			for _, p := range st.Place {
				out[len(out)-1] = append(out[len(out)-1], p.Cell)
			}
		}
	}
	// A step that unlocked no single (its eliminations fed the next
	// harder step) is the next one's thinking: it has no cells of its own.
	kept := out[:0]
	for _, cells := range out {
		if len(cells) > 0 {
			kept = append(kept, cells)
		}
	}
	return kept
}
