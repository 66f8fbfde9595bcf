package engine

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Puzzles with known grades, used across the logic tests.
const (
	// easyPuzzle is the Wikipedia example puzzle: naked singles and full
	// houses only.
	easyPuzzle   = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
	easySolution = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
	// easterMonster needs far more than the techniques here.
	easterMonster = "1.......2.9.4...5...6...7...5.9.3.......7.......85..4.7.....6...3...9.8...2.....1"
)

// uniqueSolution solves g and requires exactly one solution.
func uniqueSolution(tb testing.TB, g Grid) Grid {
	tb.Helper()
	res := Solve(g, 2)
	require.Equal(tb, 1, res.Count, "puzzle %s must have exactly one solution", g)
	return res.Solution
}

// checkStep fails unless every placement of the step is the solution's digit
// and no elimination removes the solution's digit.
func checkStep(tb testing.TB, sol Grid, st Step, ctx string) {
	tb.Helper()
	for _, p := range st.Place {
		if sol[p.Cell] != p.Digit {
			tb.Fatalf("%s: %s places %s but the solution has %d there: %s", ctx, st.Technique, p, sol[p.Cell], st.Explanation())
		}
	}
	for _, e := range st.Eliminate {
		if sol[e.Cell] == e.Digit {
			tb.Fatalf("%s: %s eliminates the solution digit %s: %s", ctx, st.Technique, e, st.Explanation())
		}
	}
	if len(st.Place) == 0 && len(st.Eliminate) == 0 {
		tb.Fatalf("%s: %s step does nothing", ctx, st.Technique)
	}
}

// drc parses HoDoKu's compact candidate lists: "537 124" is 5 in r3c7 and
// 1 in r2c4 (digit, row, column).
func drc(tb testing.TB, s string) []Candidate {
	tb.Helper()
	var out []Candidate
	for _, f := range strings.Fields(s) {
		require.Len(tb, f, 3, "candidate %q", f)
		d, r, c := f[0]-'0', int(f[1]-'1'), int(f[2]-'1')
		out = append(out, Candidate{Cell: r*9 + c, Digit: d})
	}
	return out
}

// cellOf parses "r3c7".
func cellOf(tb testing.TB, s string) int {
	tb.Helper()
	require.True(tb, len(s) == 4 && s[0] == 'r' && s[2] == 'c', "cell %q", s)
	r, c := int(s[1]-'1'), int(s[3]-'1')
	require.True(tb, r >= 0 && r < 9 && c >= 0 && c < 9, "cell %q", s)
	return r*9 + c
}

// edit changes a candidate grid: "r2c1=57" sets r2c1's candidates to 5 and
// 7, "r2c1+5" adds 5, "r2c1-5" removes 5; fields are separated by spaces.
// Removing a solution digit is refused, so that the board stays one that
// the true solution fits.
func edit(tb testing.TB, c *Candidates, sol Grid, s string) {
	tb.Helper()
	for _, f := range strings.Fields(s) {
		cell := cellOf(tb, f[:4])
		require.Zero(tb, c.Value(cell), "edit %q: cell is filled", f)
		var m uint16
		for _, r := range f[5:] {
			m |= 1 << (r - '0')
		}
		old := c.Mask(cell)
		switch f[4] {
		case '=':
			require.NotZero(tb, m&(1<<sol[cell]), "edit %q drops the solution digit %d", f, sol[cell])
			for d := uint8(1); d <= 9; d++ {
				if old&(1<<d) != 0 && m&(1<<d) == 0 {
					c.Eliminate(cell, d)
				}
			}
			c.addCandidates(cell, m&^old)
		case '+':
			c.addCandidates(cell, m)
		case '-':
			require.Zero(tb, m&(1<<sol[cell]), "edit %q drops the solution digit %d", f, sol[cell])
			for d := uint8(1); d <= 9; d++ {
				if m&(1<<d) != 0 {
					c.Eliminate(cell, d)
				}
			}
		default:
			tb.Fatalf("edit %q: want =, + or -", f)
		}
	}
}

// addCandidates puts digits back as candidates of an empty cell (tests
// only: the solver never adds candidates).
func (c *Candidates) addCandidates(cell int, m uint16) {
	c.mask[cell] |= m
	for d := uint8(1); d <= 9; d++ {
		if m&(1<<d) != 0 {
			c.pos[d-1].Add(cell)
		}
	}
}

// stepsOf applies technique t's steps one after another until it finds no
// more (at most 50) and returns them.
func stepsOf(c Candidates, t Technique) []Step {
	var out []Step
	var buf stepBuf
	st := buf.init()
	for i := 0; i < 50 && findStep(t, &c, st); i++ {
		out = append(out, st.clone())
		if !c.Apply(st) {
			break
		}
	}
	return out
}

func TestLevelStringsAndParse(t *testing.T) {
	tests := []struct {
		level Level
		id    string
	}{
		{LevelEasy, "easy"}, {LevelMedium, "medium"}, {LevelHard, "hard"},
		{LevelExpert, "expert"}, {LevelBeyond, "beyond"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			assert.Equal(t, tt.id, tt.level.String())
			got, err := ParseLevel(" " + strings.ToUpper(tt.id) + " ")
			require.NoError(t, err)
			assert.Equal(t, tt.level, got)
			b, err := json.Marshal(tt.level)
			require.NoError(t, err)
			assert.Equal(t, strconv.Quote(tt.id), string(b))
			var back Level
			require.NoError(t, json.Unmarshal(b, &back))
			assert.Equal(t, tt.level, back)
		})
	}
	_, err := ParseLevel("fiendish")
	assert.ErrorIs(t, err, ErrUnknownLevel)
	assert.Equal(t, "Level(9)", Level(9).String())
}

func TestTechniqueTable(t *testing.T) {
	seen := map[string]bool{}
	prev := TechniqueNone
	for _, tech := range Techniques() {
		id := tech.String()
		assert.False(t, seen[id], "duplicate id %s", id)
		seen[id] = true
		assert.Regexp(t, `^[a-z0-9]+(-[a-z0-9]+)*$`, id, "kebab-case id")
		assert.NotEmpty(t, tech.Name())
		assert.Positive(t, tech.Score(), id)
		back, err := ParseTechnique(id)
		require.NoError(t, err)
		assert.Equal(t, tech, back)
		// The search order is the difficulty order: levels and scores
		// never go down, so the easiest step is always found first.
		assert.GreaterOrEqual(t, tech.Level(), prev.Level(), "%s after %s", tech, prev)
		assert.GreaterOrEqual(t, tech.Score(), prev.Score(), "%s after %s", tech, prev)
		assert.Less(t, tech.Level(), LevelBeyond, id)
		prev = tech
	}
	assert.Equal(t, "hidden-single", TechniqueHiddenSingle.String())
	assert.Equal(t, "X-Wing", TechniqueXWing.Name())
	assert.Equal(t, LevelMedium, TechniqueNakedPair.Level())
	assert.Equal(t, LevelHard, TechniqueNakedTriple.Level())
	assert.Equal(t, LevelExpert, TechniqueXChain.Level())
	assert.Equal(t, LevelBeyond, TechniqueTrial.Level())
	_, err := ParseTechnique("guess")
	assert.ErrorIs(t, err, ErrUnknownTechnique)

	counts := map[Technique]int{TechniqueXWing: 2, TechniqueHiddenSingle: 7}
	b, err := json.Marshal(counts)
	require.NoError(t, err)
	assert.JSONEq(t, `{"x-wing":2,"hidden-single":7}`, string(b))
}

func TestStepJSON(t *testing.T) {
	st := Step{
		Technique: TechniqueNakedPair,
		Eliminate: []Candidate{{Cell: 3, Digit: 3}},
		Cells:     []int{0, 4},
		Digits:    DigitList{3, 7},
		Units:     []int{0},
	}
	b, err := json.Marshal(st)
	require.NoError(t, err)
	assert.JSONEq(t, `{"technique":"naked-pair","eliminate":[{"cell":3,"digit":3}],"cells":[0,4],"digits":[3,7],"units":[0]}`, string(b))
	var back Step
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, st, back)
}

func TestNewCandidates(t *testing.T) {
	g := MustParse(easyPuzzle)
	c := NewCandidates(g)
	for cell := 0; cell < NumCells; cell++ {
		if g[cell] != 0 {
			assert.Equal(t, g[cell], c.Value(cell))
			assert.Zero(t, c.Mask(cell))
			continue
		}
		for d := uint8(1); d <= 9; d++ {
			seen := g.Conflicts(cell, d).Len() > 0
			assert.Equal(t, !seen, c.Has(cell, d), "%s digit %d", CellName(cell), d)
			assert.Equal(t, !seen, c.DigitCells(d).Has(cell))
		}
	}
	assert.Equal(t, NumCells-g.Filled(), c.Unsolved().Len())
	assert.Equal(t, g, c.Grid())
	// r5c5 sees every digit but 5.
	assert.Equal(t, uint16(1<<5), c.Mask(40))
	assert.Equal(t, 1, c.Count(40))

	c.Place(40, 5)
	assert.Equal(t, uint8(5), c.Value(40))
	for _, p := range Peers[40] {
		assert.False(t, c.Has(int(p), 5), "peer %s keeps 5", CellName(int(p)))
	}
	assert.False(t, c.DigitCells(5).Has(40))
	assert.True(t, c.Eliminate(2, 1), "r1c3 had 1")
	assert.False(t, c.Eliminate(2, 1), "already gone")
	assert.False(t, c.DigitCells(1).Has(2))
}

func TestCandidatesStringRoundTrip(t *testing.T) {
	c := NewCandidates(MustParse(easyPuzzle))
	c.Eliminate(2, 1)
	c.Eliminate(2, 2) // r1c3 is left with one candidate: written "[4]"
	s := c.String()
	assert.Contains(t, s, "[4]")
	back, err := ParseCandidates(s)
	require.NoError(t, err)
	assert.Equal(t, c, back)

	// HoDoKu's pencil-mark layout parses too.
	h, err := ParseCandidates(hodokuLC101)
	require.NoError(t, err)
	assert.Equal(t, uint8(9), h.Value(0))
	assert.Equal(t, uint16(1<<1|1<<2), h.Mask(3))
	assert.Equal(t, 32, h.Unsolved().Len())
}

func TestParseCandidatesErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"too few", "1 2 3", "has 3 fields"},
		{"letter", strings.Repeat("12 ", 80) + "1x", "field 81 (r9c9)"},
		{"zero", "0" + strings.Repeat(" 12", 80), "field 1 (r1c1)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseCandidates(tt.in)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestParseCandidatesClearsPeers(t *testing.T) {
	// A placed digit's peers lose it even when the grid lists it.
	in := "5" + strings.Repeat(" 12345", 80)
	c, err := ParseCandidates(in)
	require.NoError(t, err)
	assert.False(t, c.Has(1, 5), "r1c2 sees r1c1")
	assert.True(t, c.Has(80, 5), "r9c9 does not")
	assert.Equal(t, 80, c.Unsolved().Len())
}

func TestApply(t *testing.T) {
	c := NewCandidates(MustParse(easyPuzzle))
	st := Step{Place: []Candidate{{40, 5}}, Eliminate: []Candidate{{2, 1}}}
	assert.True(t, c.Apply(&st))
	assert.Equal(t, uint8(5), c.Value(40))
	assert.False(t, c.Has(2, 1))
	assert.False(t, c.Apply(&st), "applying twice changes nothing")
}

func ExampleStep_Explanation() {
	g, err := GradePuzzle(MustParse(easyPuzzle))
	if err != nil {
		panic(err)
	}
	fmt.Println(g.Level, g.Steps[0].Explanation())
	// Output: easy r5c5 must be 5: it is the only digit r5c5 can still hold.
}

func TestNextCellMatchesAll(t *testing.T) {
	sets := []CellSet{{}, CellSetOf(0), CellSetOf(63), CellSetOf(64), CellSetOf(80), CellSetOf(0, 62, 63, 64, 65, 79, 80), UnitSet[7], UnitSet[17], PeerSet[40]}
	for i, s := range sets {
		var got []int
		for c := s.First(); c >= 0; c = nextCell(s, c) {
			got = append(got, c)
		}
		assert.Equal(t, s.Cells(nil), got, "set %d", i)
	}
}

func TestUnitMasks(t *testing.T) {
	c := MustParseCandidates(hodokuH202)
	var um unitMasks
	c.unitMasks(&um)
	for d := uint8(1); d <= 9; d++ {
		for u := 0; u < 27; u++ {
			var want uint16
			for j, cell := range Units[u] {
				if c.Has(int(cell), d) {
					want |= 1 << j
				}
			}
			require.Equal(t, want, um[d-1][u], "digit %d %s", d, UnitName(u))
		}
	}
}

func TestFastOrderHasEveryTechnique(t *testing.T) {
	seen := map[Technique]bool{}
	prev := LevelMedium
	for _, tech := range fastOrder {
		assert.False(t, seen[tech], "%s twice", tech)
		seen[tech] = true
		assert.GreaterOrEqual(t, tech.Level(), prev, "%s: fastOrder goes by tier", tech)
		prev = tech.Level()
	}
	for _, tech := range Techniques() {
		if tech.Level() > LevelEasy {
			assert.True(t, seen[tech], "%s missing from fastOrder", tech)
		}
	}
}
