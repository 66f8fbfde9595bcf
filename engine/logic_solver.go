package engine

import "sync"

// findStep runs technique t's search on c and, when it finds a deduction
// that changes the board, fills st (which it resets first) and returns
// true. A direct switch rather than a table of funcs keeps st on the
// caller's stack.
func findStep(t Technique, c *Candidates, st *Step) bool {
	var dv derived
	return findStepWith(t, c, st, &dv)
}

// derived caches what several techniques compute from the same board; reset
// it whenever the board changes.
type derived struct {
	um   unitMasks
	umOK bool
	bv   CellSet
	bvOK bool
	// batch asks the finders that can (locked candidates) to gather every
	// elimination they find on the board into one step rather than stop
	// at the first pattern: SolvableWithin's fast path, which needs no
	// pattern to explain.
	batch bool
}

func (dv *derived) masks(c *Candidates) *unitMasks {
	if !dv.umOK {
		c.unitMasks(&dv.um)
		dv.umOK = true
	}
	return &dv.um
}

func (dv *derived) bivalue(c *Candidates) CellSet {
	if !dv.bvOK {
		dv.bv = c.bivalueCells()
		dv.bvOK = true
	}
	return dv.bv
}

func (dv *derived) reset() { dv.umOK, dv.bvOK = false, false }

// findStepWith is findStep with a cache of derived data for the board.
func findStepWith(t Technique, c *Candidates, st *Step, dv *derived) bool {
	st.reset(t)
	switch t {
	case TechniqueFullHouse:
		return findFullHouse(c, st)
	case TechniqueNakedSingle:
		return findNakedSingle(c, st)
	case TechniqueHiddenSingle:
		return findHiddenSingle(c, st)
	case TechniquePointing:
		return findPointing(c, st, dv)
	case TechniqueClaiming:
		return findClaiming(c, st, dv)
	case TechniqueNakedPair:
		return findNakedSubset(c, st, 2)
	case TechniqueHiddenPair:
		return findHiddenSubset(c, st, dv, 2)
	case TechniqueNakedTriple:
		return findNakedSubset(c, st, 3)
	case TechniqueHiddenTriple:
		return findHiddenSubset(c, st, dv, 3)
	case TechniqueNakedQuad:
		return findNakedSubset(c, st, 4)
	case TechniqueHiddenQuad:
		return findHiddenSubset(c, st, dv, 4)
	case TechniqueXWing:
		return findFish(c, st, dv, 2)
	case TechniqueSwordfish:
		return findFish(c, st, dv, 3)
	case TechniqueJellyfish:
		return findFish(c, st, dv, 4)
	case TechniqueSkyscraper:
		return findSkyscraper(c, st, dv)
	case TechniqueTwoStringKite:
		return findTwoStringKite(c, st, dv)
	case TechniqueXYWing:
		return findXYWing(c, st, dv)
	case TechniqueXYZWing:
		return findXYZWing(c, st, dv)
	case TechniqueWWing:
		return findWWing(c, st, dv)
	case TechniqueUniqueRectangle1:
		return findUniqueRectangle(c, st, 1)
	case TechniqueUniqueRectangle2:
		return findUniqueRectangle(c, st, 2)
	case TechniqueUniqueRectangle4:
		return findUniqueRectangle(c, st, 4)
	case TechniqueBUG:
		return findBUG(c, st)
	case TechniqueColourTrap:
		return findColouring(c, st, false)
	case TechniqueColourWrap:
		return findColouring(c, st, true)
	case TechniqueXChain:
		return findXChain(c, st)
	case TechniqueXYChain:
		return findXYChain(c, st, dv)
	}
	return false
}

// nextStep finds the easiest step whose technique is at most max, trying
// the techniques in order, and fills st with it.
func nextStep(c *Candidates, st *Step, max Level) bool {
	return nextStepFrom(TechniqueFullHouse, c, st, max)
}

// nextStepFrom is nextStep starting the search at technique first, for
// callers that know the easier ones have nothing to find.
func nextStepFrom(first Technique, c *Candidates, st *Step, max Level) bool {
	var dv derived
	for t := first; t < TechniqueTrial; t++ {
		if t.Level() > max {
			return false
		}
		if findStepWith(t, c, st, &dv) {
			return true
		}
	}
	return false
}

// stepBuf is a scratch Step with room for any step's slices, so that the
// search can fill and reuse one step without allocating.
type stepBuf struct {
	st       Step
	place    [4]Candidate
	elim     [256]Candidate
	cells    [48]int
	digits   [12]uint8
	units    [12]int
	chain    [96]Candidate
	opposite [48]int
}

func (b *stepBuf) init() *Step {
	b.st = Step{
		Place:     b.place[:0],
		Eliminate: b.elim[:0],
		Cells:     b.cells[:0],
		Digits:    b.digits[:0],
		Units:     b.units[:0],
		Chain:     b.chain[:0],
		Opposite:  b.opposite[:0],
	}
	return &b.st
}

// stepBufs recycles scratch steps for SolvableWithin, which would otherwise
// allocate one per call: the finders append to the step, so escape analysis
// cannot keep it on the stack.
var stepBufs = sync.Pool{New: func() any { return new(stepBuf) }}
