package engine

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// Level is how hard a puzzle is for a human: the tier of the hardest
// technique the logical solver needed. The tiers, easiest first:
//
//	easy    full house, naked single, hidden single
//	medium  locked candidates (pointing, claiming), naked pair, hidden pair
//	hard    naked/hidden triples and quads, X-Wing, Swordfish, Jellyfish,
//	        Skyscraper, 2-String Kite, XY-Wing, XYZ-Wing, W-Wing
//	expert  unique rectangles (types 1, 2, 4), BUG+1, simple colouring
//	        (colour trap, colour wrap), X-chain, XY-chain
//	beyond  none of the above finishes the puzzle
//
// A puzzle is "beyond" when the techniques get stuck: it may still be
// solvable by forcing chains, nets or trial and error, which this engine
// does not rate.
type Level uint8

// The levels, easiest first. The zero Level is LevelEasy.
const (
	LevelEasy Level = iota
	LevelMedium
	LevelHard
	LevelExpert
	LevelBeyond
	numLevels
)

var levelNames = [numLevels]string{"easy", "medium", "hard", "expert", "beyond"}

// String is the level's stable lower-case id: "easy", "medium", "hard",
// "expert" or "beyond".
func (l Level) String() string {
	if l < numLevels {
		return levelNames[l]
	}
	return "Level(" + strconv.Itoa(int(l)) + ")"
}

// ErrUnknownLevel is what ParseLevel returns for a name it does not know.
var ErrUnknownLevel = errors.New("unknown level")

// ParseLevel reads a level's id as String writes it; case and surrounding
// spaces are ignored.
func ParseLevel(s string) (Level, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for l, n := range levelNames {
		if n == t {
			return Level(l), nil
		}
	}
	return 0, fmt.Errorf("%w %q (want easy, medium, hard, expert or beyond)", ErrUnknownLevel, s)
}

// MarshalText writes the level's id, so that JSON shows "hard", not 2.
func (l Level) MarshalText() ([]byte, error) {
	if l >= numLevels {
		return nil, fmt.Errorf("engine: invalid level %d", l)
	}
	return []byte(l.String()), nil
}

// UnmarshalText reads a level's id.
func (l *Level) UnmarshalText(b []byte) error {
	v, err := ParseLevel(string(b))
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// Technique is a human solving technique. The constants are declared in
// the order the logical solver tries them: easiest (lowest score) first.
//
// Scores follow HoDoKu's default ratings, adjusted so that every technique
// of a harder tier scores more than any technique of an easier one (HoDoKu
// rates uniqueness tests at 100, below X-Wing; here they are expert):
//
//	id                          level    score
//	full-house                  easy         4
//	naked-single                easy         4
//	hidden-single               easy        14
//	locked-candidates-pointing  medium      50
//	locked-candidates-claiming  medium      50
//	naked-pair                  medium      60
//	hidden-pair                 medium      70
//	naked-triple                hard        80
//	hidden-triple               hard       100
//	naked-quad                  hard       120
//	skyscraper                  hard       130
//	x-wing                      hard       140
//	2-string-kite               hard       150
//	w-wing                      hard       150
//	swordfish                   hard       150
//	hidden-quad                 hard       150
//	xy-wing                     hard       160
//	jellyfish                   hard       160
//	xyz-wing                    hard       180
//	unique-rectangle-1          expert     200
//	unique-rectangle-2          expert     210
//	unique-rectangle-4          expert     210
//	bug-plus-1                  expert     210
//	colour-trap                 expert     220
//	colour-wrap                 expert     220
//	x-chain                     expert     260
//	xy-chain                    expert     260
//	trial                       beyond    1000  (hints only, never in a Grade)
//
// A puzzle's score adds 4 for every digit the singles place and, for every
// round of a harder technique (see GradePuzzle), that technique's score: a
// puzzle with fewer clues and more rounds of harder techniques scores more.
type Technique uint8

// The techniques, in search order. TechniqueNone is the zero value.
const (
	TechniqueNone Technique = iota
	TechniqueFullHouse
	TechniqueNakedSingle
	TechniqueHiddenSingle
	TechniquePointing
	TechniqueClaiming
	TechniqueNakedPair
	TechniqueHiddenPair
	TechniqueNakedTriple
	TechniqueHiddenTriple
	TechniqueNakedQuad
	TechniqueSkyscraper
	TechniqueXWing
	TechniqueTwoStringKite
	TechniqueWWing
	TechniqueSwordfish
	TechniqueHiddenQuad
	TechniqueXYWing
	TechniqueJellyfish
	TechniqueXYZWing
	TechniqueUniqueRectangle1
	TechniqueUniqueRectangle2
	TechniqueUniqueRectangle4
	TechniqueBUG
	TechniqueColourTrap
	TechniqueColourWrap
	TechniqueXChain
	TechniqueXYChain
	// TechniqueTrial is not a deduction: a hint that reveals a cell from
	// the solution when the techniques above are stuck.
	TechniqueTrial
	NumTechniques
)

type techniqueInfo struct {
	id, name string
	level    Level
	score    int
}

var techniqueTable = [NumTechniques]techniqueInfo{
	TechniqueNone:             {"none", "None", LevelEasy, 0},
	TechniqueFullHouse:        {"full-house", "Full House", LevelEasy, 4},
	TechniqueNakedSingle:      {"naked-single", "Naked Single", LevelEasy, 4},
	TechniqueHiddenSingle:     {"hidden-single", "Hidden Single", LevelEasy, 14},
	TechniquePointing:         {"locked-candidates-pointing", "Locked Candidates (Pointing)", LevelMedium, 50},
	TechniqueClaiming:         {"locked-candidates-claiming", "Locked Candidates (Claiming)", LevelMedium, 50},
	TechniqueNakedPair:        {"naked-pair", "Naked Pair", LevelMedium, 60},
	TechniqueHiddenPair:       {"hidden-pair", "Hidden Pair", LevelMedium, 70},
	TechniqueNakedTriple:      {"naked-triple", "Naked Triple", LevelHard, 80},
	TechniqueHiddenTriple:     {"hidden-triple", "Hidden Triple", LevelHard, 100},
	TechniqueNakedQuad:        {"naked-quad", "Naked Quad", LevelHard, 120},
	TechniqueSkyscraper:       {"skyscraper", "Skyscraper", LevelHard, 130},
	TechniqueXWing:            {"x-wing", "X-Wing", LevelHard, 140},
	TechniqueTwoStringKite:    {"2-string-kite", "2-String Kite", LevelHard, 150},
	TechniqueWWing:            {"w-wing", "W-Wing", LevelHard, 150},
	TechniqueSwordfish:        {"swordfish", "Swordfish", LevelHard, 150},
	TechniqueHiddenQuad:       {"hidden-quad", "Hidden Quad", LevelHard, 150},
	TechniqueXYWing:           {"xy-wing", "XY-Wing", LevelHard, 160},
	TechniqueJellyfish:        {"jellyfish", "Jellyfish", LevelHard, 160},
	TechniqueXYZWing:          {"xyz-wing", "XYZ-Wing", LevelHard, 180},
	TechniqueUniqueRectangle1: {"unique-rectangle-1", "Unique Rectangle Type 1", LevelExpert, 200},
	TechniqueUniqueRectangle2: {"unique-rectangle-2", "Unique Rectangle Type 2", LevelExpert, 210},
	TechniqueUniqueRectangle4: {"unique-rectangle-4", "Unique Rectangle Type 4", LevelExpert, 210},
	TechniqueBUG:              {"bug-plus-1", "BUG+1", LevelExpert, 210},
	TechniqueColourTrap:       {"colour-trap", "Simple Colouring (Colour Trap)", LevelExpert, 220},
	TechniqueColourWrap:       {"colour-wrap", "Simple Colouring (Colour Wrap)", LevelExpert, 220},
	TechniqueXChain:           {"x-chain", "X-Chain", LevelExpert, 260},
	TechniqueXYChain:          {"xy-chain", "XY-Chain", LevelExpert, 260},
	TechniqueTrial:            {"trial", "Trial", LevelBeyond, 1000},
}

// String is the technique's stable kebab-case id, e.g. "hidden-single".
func (t Technique) String() string {
	if t < NumTechniques {
		return techniqueTable[t].id
	}
	return "Technique(" + strconv.Itoa(int(t)) + ")"
}

// Name is the technique's display name, e.g. "Hidden Single".
func (t Technique) Name() string {
	if t < NumTechniques {
		return techniqueTable[t].name
	}
	return t.String()
}

// Level is the tier the technique belongs to.
func (t Technique) Level() Level {
	if t < NumTechniques {
		return techniqueTable[t].level
	}
	return LevelBeyond
}

// Score is the technique's base score; a puzzle's score adds it once per
// step that used the technique.
func (t Technique) Score() int {
	if t < NumTechniques {
		return techniqueTable[t].score
	}
	return 0
}

// ErrUnknownTechnique is what ParseTechnique returns for an unknown id.
var ErrUnknownTechnique = errors.New("unknown technique")

// ParseTechnique reads a technique's id as String writes it.
func ParseTechnique(s string) (Technique, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for i := range techniqueTable {
		if techniqueTable[i].id == t {
			return Technique(i), nil
		}
	}
	return 0, fmt.Errorf("%w %q", ErrUnknownTechnique, s)
}

// MarshalText writes the technique's id, so that JSON (including map keys)
// shows "x-wing", not a number.
func (t Technique) MarshalText() ([]byte, error) {
	if t >= NumTechniques {
		return nil, fmt.Errorf("engine: invalid technique %d", t)
	}
	return []byte(t.String()), nil
}

// UnmarshalText reads a technique's id.
func (t *Technique) UnmarshalText(b []byte) error {
	v, err := ParseTechnique(string(b))
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// Techniques lists every deduction technique in the order the logical solver
// tries them (TechniqueNone and TechniqueTrial excluded).
func Techniques() []Technique {
	out := make([]Technique, 0, NumTechniques)
	for t := TechniqueFullHouse; t < TechniqueTrial; t++ {
		out = append(out, t)
	}
	return out
}

// Candidate is one digit in one cell: a placement or an elimination.
type Candidate struct {
	Cell  int   `json:"cell"`
	Digit uint8 `json:"digit"`
}

// String is "r4c7=5".
func (c Candidate) String() string { return CellName(c.Cell) + "=" + strconv.Itoa(int(c.Digit)) }

// DigitList is a list of digits. It is a plain []uint8 that JSON writes as
// numbers ([3,7]) rather than base64.
type DigitList []uint8

// MarshalJSON writes the digits as a JSON array of numbers.
func (d DigitList) MarshalJSON() ([]byte, error) {
	if d == nil {
		return []byte("null"), nil
	}
	b := make([]byte, 0, 2+2*len(d))
	b = append(b, '[')
	for i, v := range d {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, uint64(v), 10)
	}
	return append(b, ']'), nil
}

// UnmarshalJSON reads a JSON array of numbers.
func (d *DigitList) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	if s == "null" {
		*d = nil
		return nil
	}
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return fmt.Errorf("engine: digit list %q is not an array", s)
	}
	out := DigitList{}
	for _, f := range strings.Split(s[1:len(s)-1], ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		v, err := strconv.ParseUint(f, 10, 8)
		if err != nil {
			return fmt.Errorf("engine: digit list: %w", err)
		}
		out = append(out, uint8(v))
	}
	*d = out
	return nil
}

// Step is one deduction of the logical solver: what it places or
// eliminates, and what it rests on. Explanation turns it into a sentence; it
// is built only on request, because the generator runs the solver thousands
// of times a second and never reads it.
//
// What Cells, Digits, Units, Chain and Opposite hold for each technique:
//
//	full-house, naked-single,    Cells: the cell; Digits: its digit; Units: the
//	hidden-single                unit it is the last cell / only place in
//	pointing, claiming           Cells: the digit's cells in the unit; Digits: the
//	                             digit; Units: [box, line] or [line, box]
//	naked/hidden subsets         Cells: the subset's cells; Digits: its digits;
//	                             Units: the unit
//	x-wing/swordfish/jellyfish   Cells: the digit's cells in the base lines;
//	                             Digits: the digit; Units: base lines, then
//	                             cover lines
//	skyscraper, 2-string-kite    Cells: end, link, link, end; Digits: the digit;
//	                             Units: the units of the two strong links (and
//	                             the kite's box)
//	xy-wing, xyz-wing            Cells: pivot, pincer, pincer; Digits: the two or
//	                             three pivot digits then the eliminated one
//	w-wing                       Cells: the two bivalue cells, then the strong
//	                             link's two cells; Digits: link digit,
//	                             eliminated digit; Units: the link's unit
//	unique rectangles            Cells: the four corners; Digits: the pair (and
//	                             for type 2 the extra digit); Units: type 4's
//	                             unit
//	bug-plus-1                   Cells: the cell with three candidates
//	colour-trap, colour-wrap     Cells: one colour; Opposite: the other; for a
//	                             wrap Cells is the colour that is false
//	x-chain, xy-chain            Chain: the chain's nodes; Cells: its two ends
//	trial                        Cells: the cell; Digits: its other candidates
type Step struct {
	Technique Technique   `json:"technique"`
	Place     []Candidate `json:"place,omitempty"`
	Eliminate []Candidate `json:"eliminate,omitempty"`
	Cells     []int       `json:"cells,omitempty"`
	Digits    DigitList   `json:"digits,omitempty"`
	Units     []int       `json:"units,omitempty"`
	// Chain is the alternating inference chain of an X-chain or XY-chain:
	// the link from node i to node i+1 is strong (if one is false the other
	// is true) when i is even and weak (they cannot both be true) when i
	// is odd. It starts and ends with a strong link, so its first or last
	// node is true.
	Chain []Candidate `json:"chain,omitempty"`
	// Opposite is, for simple colouring, the cells of the other colour.
	Opposite []int `json:"opposite,omitempty"`
}

// clone copies the step with slices of their own, so that a finder's scratch
// step can be reused.
func (s *Step) clone() Step {
	out := Step{Technique: s.Technique}
	if len(s.Place) > 0 {
		out.Place = append([]Candidate(nil), s.Place...)
	}
	if len(s.Eliminate) > 0 {
		out.Eliminate = append([]Candidate(nil), s.Eliminate...)
	}
	if len(s.Cells) > 0 {
		out.Cells = append([]int(nil), s.Cells...)
	}
	if len(s.Digits) > 0 {
		out.Digits = append(DigitList(nil), s.Digits...)
	}
	if len(s.Units) > 0 {
		out.Units = append([]int(nil), s.Units...)
	}
	if len(s.Chain) > 0 {
		out.Chain = append([]Candidate(nil), s.Chain...)
	}
	if len(s.Opposite) > 0 {
		out.Opposite = append([]int(nil), s.Opposite...)
	}
	return out
}

// reset empties the step, keeping its slices' backing arrays.
func (s *Step) reset(t Technique) {
	s.Technique = t
	s.Place = s.Place[:0]
	s.Eliminate = s.Eliminate[:0]
	s.Cells = s.Cells[:0]
	s.Digits = s.Digits[:0]
	s.Units = s.Units[:0]
	s.Chain = s.Chain[:0]
	s.Opposite = s.Opposite[:0]
}

// allDigits is the candidate mask with every digit: bit d for digit d.
const allDigits uint16 = 0x3FE

// Candidates is a board in play as a solver sees it: the digit of every
// filled cell, and for every empty cell its pencil-mark candidates as a
// bitmask (bit d set when d is still possible). It also keeps, per digit,
// the set of cells where that digit is a candidate, which the fish, wing and
// chain techniques work on. It is a plain value (about 400 bytes): copy it
// to branch.
//
// Candidates never holds a digit as a candidate in a cell that sees the same
// digit placed: NewCandidates, Place and ParseCandidates all remove it.
type Candidates struct {
	value    [NumCells]uint8
	mask     [NumCells]uint16
	pos      [9]CellSet // pos[d-1]: the cells where d is a candidate
	unsolved CellSet
}

// NewCandidates returns the candidate grid of g: its digits placed, and
// every empty cell's candidates those digits its row, column and box do not
// already hold.
func NewCandidates(g Grid) Candidates {
	c, _ := newCandidates(&g)
	return c
}

// newCandidates is NewCandidates that also reports whether g is free of
// conflicts (two peers with the same digit) and of values above 9, in the
// same pass.
func newCandidates(g *Grid) (Candidates, bool) {
	var c Candidates
	var used [27]uint16
	ok := true
	for i := 0; i < NumCells; i++ {
		d := g[i]
		if d == 0 {
			c.unsolved.Add(i)
			continue
		}
		if d > 9 {
			ok = false
			c.unsolved.Add(i)
			continue
		}
		c.value[i] = d
		bit := uint16(1) << d
		for _, u := range CellUnits[i] {
			if used[u]&bit != 0 {
				ok = false
			}
			used[u] |= bit
		}
	}
	for d := 0; d < 9; d++ {
		c.pos[d] = c.unsolved
	}
	for i := 0; i < NumCells; i++ {
		if d := c.value[i]; d != 0 {
			c.pos[d-1] = c.pos[d-1].Minus(PeerSet[i])
			continue
		}
		u := CellUnits[i]
		m := allDigits &^ (used[u[0]] | used[u[1]] | used[u[2]])
		c.mask[i] = m
	}
	// pos must agree with mask: a cell's mask misses exactly the digits its
	// units hold, and those are the digits whose cells it sees.
	return c, ok
}

// clearPeers removes d as a candidate from every peer of cell.
func (c *Candidates) clearPeers(cell int, d uint8) {
	bit := uint16(1) << d
	ps := &c.pos[d-1]
	hit := ps.Intersect(PeerSet[cell])
	for w := 0; w < 2; w++ {
		for b := hit[w]; b != 0; b &= b - 1 {
			c.mask[w<<6|bits.TrailingZeros64(b)] &^= bit
		}
	}
	*ps = ps.Minus(PeerSet[cell])
}

// Value is the digit in cell, 0 when it is empty.
func (c *Candidates) Value(cell int) uint8 { return c.value[cell] }

// Mask is cell's candidates, bit d set for digit d; 0 for a filled cell.
func (c *Candidates) Mask(cell int) uint16 { return c.mask[cell] }

// Has reports whether d is a candidate of cell.
func (c *Candidates) Has(cell int, d uint8) bool { return c.mask[cell]&(1<<d) != 0 }

// Count is the number of candidates of cell.
func (c *Candidates) Count(cell int) int { return bits.OnesCount16(c.mask[cell]) }

// DigitCells is the set of cells where d is a candidate.
func (c *Candidates) DigitCells(d uint8) CellSet { return c.pos[d-1] }

// Unsolved is the set of empty cells.
func (c *Candidates) Unsolved() CellSet { return c.unsolved }

// Solved reports whether every cell holds a digit.
func (c *Candidates) Solved() bool { return c.unsolved.Empty() }

// Grid is the board's digits.
func (c *Candidates) Grid() Grid { return Grid(c.value) }

// Place puts d in cell and removes d from the candidates of its peers.
// Placing into a filled cell does nothing.
func (c *Candidates) Place(cell int, d uint8) {
	if c.value[cell] != 0 || d < 1 || d > 9 {
		return
	}
	c.value[cell] = d
	for m := c.mask[cell]; m != 0; m &= m - 1 {
		c.pos[bits.TrailingZeros16(m)-1].Remove(cell)
	}
	c.mask[cell] = 0
	c.unsolved.Remove(cell)
	c.clearPeers(cell, d)
}

// Eliminate removes d from cell's candidates and reports whether it was one.
func (c *Candidates) Eliminate(cell int, d uint8) bool {
	bit := uint16(1) << d
	if c.mask[cell]&bit == 0 {
		return false
	}
	c.mask[cell] &^= bit
	c.pos[d-1].Remove(cell)
	return true
}

// Apply makes the step's placements and eliminations and reports whether the
// board changed.
func (c *Candidates) Apply(s *Step) bool {
	changed := false
	for _, p := range s.Place {
		if c.value[p.Cell] == 0 {
			c.Place(p.Cell, p.Digit)
			changed = true
		}
	}
	for _, e := range s.Eliminate {
		if c.Eliminate(e.Cell, e.Digit) {
			changed = true
		}
	}
	return changed
}

// String writes the board as a pencil-mark grid that ParseCandidates reads:
// nine lines of nine space-separated fields, a filled cell as its digit and
// an empty one as its candidates (an empty cell with a single candidate is
// written in brackets, "[5]", so it does not read back as placed). Columns
// are padded to line up.
func (c *Candidates) String() string {
	var fields [NumCells]string
	width := [9]int{}
	for i := 0; i < NumCells; i++ {
		switch {
		case c.value[i] != 0:
			fields[i] = strconv.Itoa(int(c.value[i]))
		case c.mask[i] == 0:
			fields[i] = "[]"
		case bits.OnesCount16(c.mask[i]) == 1:
			fields[i] = "[" + maskString(c.mask[i]) + "]"
		default:
			fields[i] = maskString(c.mask[i])
		}
		width[i%9] = max(width[i%9], len(fields[i]))
	}
	var sb strings.Builder
	for r := 0; r < 9; r++ {
		for col := 0; col < 9; col++ {
			f := fields[r*9+col]
			sb.WriteString(f)
			if col < 8 {
				sb.WriteString(strings.Repeat(" ", width[col]-len(f)+1))
			}
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// maskString is the digits of a candidate mask in ascending order: "137".
func maskString(m uint16) string {
	var b [9]byte
	n := 0
	for d := 1; d <= 9; d++ {
		if m&(1<<d) != 0 {
			b[n] = byte('0' + d)
			n++
		}
	}
	return string(b[:n])
}

// ParseCandidates reads a pencil-mark grid: 81 fields separated by white
// space, row by row. A field of one digit is a filled cell; a field of two or
// more digits is an empty cell with those candidates; "[5]" is an empty cell
// whose only candidate is 5. The box-drawing characters '|', '+', '-', '.',
// ':', '*', '=' and '\” that pencil-mark layouts (HoDoKu's among them) draw
// between boxes are ignored. Candidates that a peer's digit rules out are
// removed, so the grid is always consistent with its filled cells.
func ParseCandidates(s string) (Candidates, error) {
	var c Candidates
	fields := strings.Fields(strings.Map(func(r rune) rune {
		switch r {
		case '|', '+', '-', '.', ':', '*', '=', '\'':
			return ' '
		}
		return r
	}, s))
	if len(fields) != NumCells {
		return Candidates{}, fmt.Errorf("engine: pencil-mark grid has %d fields, want 81", len(fields))
	}
	var placed [NumCells]uint8
	for i, f := range fields {
		bracket := strings.HasPrefix(f, "[") && strings.HasSuffix(f, "]")
		if bracket {
			f = f[1 : len(f)-1]
		}
		var m uint16
		for _, r := range f {
			if r < '1' || r > '9' {
				return Candidates{}, fmt.Errorf("engine: pencil-mark field %d (%s) %q: want digits 1-9", i+1, CellName(i), fields[i])
			}
			m |= 1 << (r - '0')
		}
		if len(f) == 1 && !bracket {
			placed[i] = f[0] - '0'
			continue
		}
		c.mask[i] = m
		c.unsolved.Add(i)
		for d := 1; d <= 9; d++ {
			if m&(1<<d) != 0 {
				c.pos[d-1].Add(i)
			}
		}
	}
	for i, d := range placed {
		if d != 0 {
			c.value[i] = d
		}
	}
	for i, d := range placed {
		if d != 0 {
			c.clearPeers(i, d)
		}
	}
	return c, nil
}

// MustParseCandidates is ParseCandidates for grids written into code and
// tests; it panics on malformed input.
func MustParseCandidates(s string) Candidates {
	c, err := ParseCandidates(s)
	if err != nil {
		panic(err)
	}
	return c
}
