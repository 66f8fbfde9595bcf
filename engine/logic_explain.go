package engine

import (
	"strconv"
	"strings"
)

// Explanation is one sentence a player understands, e.g. "r4c7 must be 5:
// it is the only place for 5 in box 6." It is built on every call from the
// step's fields; the solver never calls it.
func (s Step) Explanation() string {
	var e explainer
	e.step(&s)
	return e.String()
}

// explainer builds explanations.
type explainer struct{ strings.Builder }

func (e *explainer) f(parts ...string) {
	for _, p := range parts {
		e.WriteString(p)
	}
}

func (e *explainer) step(s *Step) {
	cell := func(i int) string {
		if i < len(s.Cells) {
			return CellName(s.Cells[i])
		}
		return "?"
	}
	digit := func(i int) string {
		if i < len(s.Digits) {
			return strconv.Itoa(int(s.Digits[i]))
		}
		return "?"
	}
	unit := func(i int) string {
		if i < len(s.Units) {
			return UnitName(s.Units[i])
		}
		return "?"
	}
	placed := func() string {
		if len(s.Place) == 0 {
			return "?"
		}
		return CellName(s.Place[0].Cell) + " must be " + strconv.Itoa(int(s.Place[0].Digit))
	}
	t := s.Technique
	switch t {
	case TechniqueFullHouse:
		e.f(placed(), ": it is the last empty cell in ", unit(0), ".")
	case TechniqueNakedSingle:
		e.f(placed(), ": it is the only digit ", cell(0), " can still hold.")
	case TechniqueHiddenSingle:
		e.f(placed(), ": it is the only place for ", digit(0), " in ", unit(0), ".")
	case TechniquePointing, TechniqueClaiming:
		e.f("In ", unit(0), ", ", digit(0), " can only go in ", unit(1), " (", CellList(s.Cells), "), so ",
			digit(0), " is removed from the rest of ", unit(1), ": ", elimCells(s.Eliminate), ".")
	case TechniqueNakedPair, TechniqueNakedTriple, TechniqueNakedQuad:
		e.f(t.Name(), " ", digitSet(s.Digits), " in ", CellList(s.Cells), ": no other cell of ", unit(0),
			" can be ", digitList(s.Digits, "or"), ", so ", elimsByDigit(s.Eliminate), ".")
	case TechniqueHiddenPair, TechniqueHiddenTriple, TechniqueHiddenQuad:
		e.f(t.Name(), " ", digitSet(s.Digits), " in ", CellList(s.Cells), ": in ", unit(0), ", ",
			digitList(s.Digits, "and"), " can only go in these ", countWord(len(s.Cells)),
			" cells, so their other candidates are removed: ", elimsByCell(s.Eliminate), ".")
	case TechniqueXWing, TechniqueSwordfish, TechniqueJellyfish:
		n := len(s.Units) / 2
		e.f(t.Name(), " on ", digit(0), ": in ", unitGroup(s.Units[:n]), ", ", digit(0), " can only go in ",
			unitGroup(s.Units[n:]), ", so ", digit(0), " is removed from the rest of those ",
			unitKindPlural(s.Units[n:]), ": ", elimCells(s.Eliminate), ".")
	case TechniqueSkyscraper:
		e.f("Skyscraper on ", digit(0), ": in ", unitGroup(s.Units), ", ", digit(0),
			" can only go in two cells each; ", cell(1), " and ", cell(2), " share ", commonUnit(s.Cells[1], s.Cells[2]),
			", so at least one of ", cell(0), " and ", cell(3), " is ", digit(0), ", and ", digit(0),
			" is removed from ", seeBoth(s.Eliminate, "both"), ".")
	case TechniqueTwoStringKite:
		e.f("2-String Kite on ", digit(0), ": in ", unit(0), ", ", digit(0), " can only go in ", cell(0), " and ", cell(1),
			", and in ", unit(1), " only in ", cell(2), " and ", cell(3), "; ", cell(1), " and ", cell(2), " share ", unit(2),
			", so at least one of ", cell(0), " and ", cell(3), " is ", digit(0), ", and ", digit(0),
			" is removed from ", seeBoth(s.Eliminate, "both"), ".")
	case TechniqueXYWing:
		a, b, z := digitAt(s.Digits, 0), digitAt(s.Digits, 1), digitAt(s.Digits, 2)
		e.f("XY-Wing with pivot ", cell(0), " ", digitSet(sorted(a, b)), " and pincers ", cell(1), " ", digitSet(sorted(a, z)),
			" and ", cell(2), " ", digitSet(sorted(b, z)), ": whether the pivot is ", digit(0), " or ", digit(1),
			", one of the pincers is ", digit(2), ", so ", digit(2), " is removed from ", seeBoth(s.Eliminate, "both pincers"), ".")
	case TechniqueXYZWing:
		a, b, z := digitAt(s.Digits, 0), digitAt(s.Digits, 1), digitAt(s.Digits, 2)
		e.f("XYZ-Wing with pivot ", cell(0), " ", digitSet(sorted(a, b, z)), " and pincers ", cell(1), " ", digitSet(sorted(a, z)),
			" and ", cell(2), " ", digitSet(sorted(b, z)), ": one of the three cells is ", digit(2), ", so ", digit(2),
			" is removed from ", seeBoth(s.Eliminate, "all three"), ".")
	case TechniqueWWing:
		e.f("W-Wing: ", cell(0), " and ", cell(1), " can both only be ", digit(0), " or ", digit(1), ", and in ", unit(0), ", ",
			digit(0), " can only go in ", cell(2), " (which sees ", cell(0), ") and ", cell(3), " (which sees ", cell(1),
			"); so one of ", cell(0), " and ", cell(1), " is ", digit(1), ", and ", digit(1), " is removed from ", seeBoth(s.Eliminate, "both"), ".")
	case TechniqueUniqueRectangle1:
		e.f("Unique rectangle ", digitSet(s.Digits), " in ", CellList(s.Cells), ": if ", cell(3), " were ", digitList(s.Digits, "or"),
			", these four cells could swap ", digitList(s.Digits, "and"), " and the puzzle would have two solutions, so ",
			digitList(s.Digits, "and"), " are removed from ", cell(3), ".")
	case TechniqueUniqueRectangle2:
		e.f("Unique rectangle ", digitSet(s.Digits[:2]), " in ", CellList(s.Cells), ": unless ", cell(2), " or ", cell(3), " is ", digit(2),
			", these four cells could swap ", digitList(s.Digits[:2], "and"), " and the puzzle would have two solutions; so one of them is ",
			digit(2), ", and ", digit(2), " is removed from ", seeBoth(s.Eliminate, "both"), ".")
	case TechniqueUniqueRectangle4:
		e.f("Unique rectangle ", digitSet(s.Digits), " in ", CellList(s.Cells), ": in ", unit(0), ", ", digit(0), " can only go in ", cell(2),
			" and ", cell(3), ", so one of them is ", digit(0), "; if the other were ", digit(1),
			" the puzzle would have two solutions, so ", digit(1), " is removed from both.")
	case TechniqueBUG:
		e.f("BUG+1: every empty cell but ", cell(0), " has exactly two candidates, and unless ", cell(0), " is ", digit(0),
			" the puzzle would have no solution or more than one, so ", placed(), ".")
	case TechniqueColourTrap:
		e.f("Simple colouring on ", digit(0), ": chaining the units where ", digit(0), " has only two places gives two colours, ",
			cellGroup(s.Cells), " and ", cellGroup(s.Opposite), ", one of which holds every ", digit(0), "; so ", digit(0),
			" is removed from ", seeBoth(s.Eliminate, "both colours"), ".")
	case TechniqueColourWrap:
		a, b := seeingPair(s.Cells)
		e.f("Simple colouring on ", digit(0), ": chaining the units where ", digit(0), " has only two places gives two colours, ",
			cellGroup(s.Cells), " and ", cellGroup(s.Opposite), "; ", CellName(a), " and ", CellName(b),
			" have the same colour and see each other, so that colour cannot be ", digit(0), ", and ", digit(0), " is removed from ",
			elimCells(s.Eliminate), ".")
	case TechniqueXChain:
		d := digit(0)
		e.f("X-chain on ", d, ": ", chainText(s.Chain, false), " (= joins the only two places for ", d,
			" in a unit, - two cells that see each other), so one of its ends, ", cell(0), " or ", cell(1), ", is ", d,
			", and ", d, " is removed from ", seeBoth(s.Eliminate, "both"), ".")
	case TechniqueXYChain:
		e.f("XY-chain ", chainText(s.Chain, true), ": ", xyChainReasoning(s.Chain), "; so one of ", cell(0), " and ", cell(1),
			" is ", digit(0), ", and ", digit(0), " is removed from ", seeBoth(s.Eliminate, "both"), ".")
	case TechniqueTrial:
		e.f(placed(), ": none of the techniques finds the next step here, but each other candidate of ", cell(0),
			" (", digitList(s.Digits, "or"), ") leads to a contradiction.")
	default:
		e.f(t.Name(), ": ")
		if len(s.Place) > 0 {
			e.f(placed(), ".")
		} else {
			e.f(elimsByDigit(s.Eliminate), ".")
		}
	}
}

// CellList names cells for a sentence: "r1c1", "r1c1 and r2c2" or
// "r1c1, r2c2 and r3c3".
func CellList(cells []int) string {
	names := make([]string, len(cells))
	for i, c := range cells {
		names[i] = CellName(c)
	}
	return joinAnd(names, "and")
}

// cellGroup is "{r1c1, r2c2, r3c3}".
func cellGroup(cells []int) string {
	names := make([]string, len(cells))
	for i, c := range cells {
		names[i] = CellName(c)
	}
	return "{" + strings.Join(names, ", ") + "}"
}

// joinAnd joins words as English does: "a", "a and b", "a, b and c".
func joinAnd(words []string, and string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + and + " " + words[len(words)-1]
}

// digitSet is "{3,7}".
func digitSet(ds []uint8) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, d := range ds {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('0' + d)
	}
	b.WriteByte('}')
	return b.String()
}

// digitList is "3 or 7", "1, 3 or 7" (with and = "or").
func digitList(ds []uint8, and string) string {
	words := make([]string, len(ds))
	for i, d := range ds {
		words[i] = strconv.Itoa(int(d))
	}
	return joinAnd(words, and)
}

func countWord(n int) string {
	if n >= 2 && n <= 4 {
		return [...]string{"two", "three", "four"}[n-2]
	}
	return strconv.Itoa(n)
}

// elimCells lists the cells of the eliminations.
func elimCells(es []Candidate) string {
	cells := make([]int, len(es))
	for i, e := range es {
		cells[i] = e.Cell
	}
	return CellList(cells)
}

// elimsByDigit is "3 is removed from r2c4; 7 from r2c6 and r2c8",
// digits in the order they first appear.
func elimsByDigit(es []Candidate) string {
	var order []uint8
	by := map[uint8][]int{}
	for _, e := range es {
		if _, ok := by[e.Digit]; !ok {
			order = append(order, e.Digit)
		}
		by[e.Digit] = append(by[e.Digit], e.Cell)
	}
	var parts []string
	for i, d := range order {
		if i == 0 {
			parts = append(parts, strconv.Itoa(int(d))+" is removed from "+CellList(by[d]))
		} else {
			parts = append(parts, strconv.Itoa(int(d))+" from "+CellList(by[d]))
		}
	}
	return strings.Join(parts, "; ")
}

// elimsByCell is "4 from r3c4; 5 and 8 from r3c6", cells in the order
// they first appear.
func elimsByCell(es []Candidate) string {
	var order []int
	by := map[int][]uint8{}
	for _, e := range es {
		if _, ok := by[e.Cell]; !ok {
			order = append(order, e.Cell)
		}
		by[e.Cell] = append(by[e.Cell], e.Digit)
	}
	parts := make([]string, len(order))
	for i, c := range order {
		parts[i] = digitList(by[c], "and") + " from " + CellName(c)
	}
	return strings.Join(parts, "; ")
}

// seeBoth is "r2c6, which sees both" or "r2c6 and r3c6, which see both".
func seeBoth(es []Candidate, what string) string {
	if len(es) == 1 {
		return elimCells(es) + ", which sees " + what
	}
	return elimCells(es) + ", which see " + what
}

// unitGroup names units of one kind together: "rows 2 and 7", "columns 1,
// 4 and 9". Mixed kinds are listed one by one.
func unitGroup(us []int) string {
	if len(us) == 0 {
		return ""
	}
	k := UnitKind(us[0])
	nums := make([]string, len(us))
	for i, u := range us {
		if UnitKind(u) != k {
			names := make([]string, len(us))
			for j, v := range us {
				names[j] = UnitName(v)
			}
			return joinAnd(names, "and")
		}
		nums[i] = strconv.Itoa(u%9 + 1)
	}
	if len(us) == 1 {
		return UnitName(us[0])
	}
	return unitKindPlural(us) + " " + joinAnd(nums, "and")
}

func unitKindPlural(us []int) string {
	if len(us) == 0 {
		return "units"
	}
	return [...]string{"rows", "columns", "boxes"}[UnitKind(us[0])]
}

// commonUnit names the first unit (row, column, box) two cells share.
func commonUnit(a, b int) string {
	for i := 0; i < 3; i++ {
		if CellUnits[a][i] == CellUnits[b][i] {
			return UnitName(int(CellUnits[a][i]))
		}
	}
	return "no unit"
}

// seeingPair is the first two cells of the list that see each other.
func seeingPair(cells []int) (int, int) {
	for i, a := range cells {
		for _, b := range cells[i+1:] {
			if PeerSet[a].Has(b) {
				return a, b
			}
		}
	}
	return -1, -1
}

// chainText writes a chain: for an X-chain "r1c2 = r1c8 - r5c8 = r5c3"; for
// an XY-chain, whose nodes come in pairs within each cell, "r1c1 {4,6} -
// r1c5 {6,2} - r7c5 {2,4}".
func chainText(ch []Candidate, xy bool) string {
	var b strings.Builder
	if xy {
		for i := 0; i+1 < len(ch); i += 2 {
			if i > 0 {
				b.WriteString(" - ")
			}
			b.WriteString(CellName(ch[i].Cell) + " {" + strconv.Itoa(int(ch[i].Digit)) + "," + strconv.Itoa(int(ch[i+1].Digit)) + "}")
		}
		return b.String()
	}
	for i, n := range ch {
		if i > 0 {
			if i%2 == 1 {
				b.WriteString(" = ")
			} else {
				b.WriteString(" - ")
			}
		}
		b.WriteString(CellName(n.Cell))
	}
	return b.String()
}

// xyChainReasoning is "if r1c1 is not 4 it is 6, so r1c5 is 2, so r7c5 is 4".
func xyChainReasoning(ch []Candidate) string {
	if len(ch) < 4 {
		return ""
	}
	var b strings.Builder
	b.WriteString("if " + CellName(ch[0].Cell) + " is not " + strconv.Itoa(int(ch[0].Digit)) + " it is " + strconv.Itoa(int(ch[1].Digit)))
	for i := 2; i+1 < len(ch); i += 2 {
		b.WriteString(", so " + CellName(ch[i+1].Cell) + " is " + strconv.Itoa(int(ch[i+1].Digit)))
	}
	return b.String()
}

// digitAt is ds[i], or 0 when ds is too short.
func digitAt(ds []uint8, i int) uint8 {
	if i < len(ds) {
		return ds[i]
	}
	return 0
}

// sorted returns the digits in ascending order.
func sorted(ds ...uint8) []uint8 {
	for i := 1; i < len(ds); i++ {
		for j := i; j > 0 && ds[j] < ds[j-1]; j-- {
			ds[j], ds[j-1] = ds[j-1], ds[j]
		}
	}
	return ds
}
