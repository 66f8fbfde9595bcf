package engine

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// techniqueCase is a board where one technique must fire with exactly the
// expected placements and eliminations, and a near-miss edit of it where
// that deduction must not be made.
type techniqueCase struct {
	name string
	tech Technique
	// puzzle is the original puzzle: its unique solution checks every
	// elimination, and without a grid it is also the board (candidates
	// from its givens).
	puzzle string
	// grid, when set, is the pencil-mark board (ParseCandidates format).
	grid string
	// edits adjust the board before the search (see edit).
	edits string
	// place and elim are the expected step, in HoDoKu's "digit row column"
	// notation ("537" is 5 in r3c7), in any order.
	place, elim string
	// cells, digits and units, when set, are the step's pattern.
	cells  string // "r1c1 r1c2"
	digits []uint8
	units  []int
	// explain, when set, must be the step's explanation.
	explain string
	// nearMiss edits the board so that the pattern is broken: then no step
	// of the technique may make any of the expected placements or
	// eliminations. For eliminations that holds however often the
	// technique is applied; a placement changes the board the near miss
	// was made on, so for the placing techniques only the first step is
	// checked.
	nearMiss string
}

func (tc techniqueCase) board(t *testing.T) (Candidates, Grid) {
	t.Helper()
	sol := uniqueSolution(t, MustParse(tc.puzzle))
	var c Candidates
	if tc.grid != "" {
		c = MustParseCandidates(tc.grid)
		for cell := 0; cell < NumCells; cell++ {
			if v := c.Value(cell); v != 0 {
				require.Equal(t, sol[cell], v, "grid digit at %s differs from the solution", CellName(cell))
			} else {
				require.True(t, c.Has(cell, sol[cell]), "grid lacks the solution digit at %s", CellName(cell))
			}
		}
	} else {
		c = NewCandidates(MustParse(tc.puzzle))
	}
	edit(t, &c, sol, tc.edits)
	return c, sol
}

func runTechniqueCases(t *testing.T, tests []techniqueCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, sol := tc.board(t)
			var buf stepBuf
			st := buf.init()
			require.True(t, findStep(tc.tech, &c, st), "%s must fire", tc.tech)
			got := st.clone()
			checkStep(t, sol, got, tc.name)
			assert.Equal(t, tc.tech, got.Technique)
			assert.ElementsMatch(t, drc(t, tc.place), got.Place, "placements: %s", got.Explanation())
			assert.ElementsMatch(t, drc(t, tc.elim), got.Eliminate, "eliminations: %s", got.Explanation())
			if tc.cells != "" {
				var want []int
				for _, f := range strings.Fields(tc.cells) {
					want = append(want, cellOf(t, f))
				}
				assert.Equal(t, want, got.Cells, "pattern cells")
			}
			if tc.digits != nil {
				assert.Equal(t, DigitList(tc.digits), got.Digits, "pattern digits")
			}
			if tc.units != nil {
				assert.Equal(t, tc.units, got.Units, "pattern units")
			}
			if tc.explain != "" {
				assert.Equal(t, tc.explain, got.Explanation())
			}
			assert.NotEmpty(t, got.Explanation())

			// Near miss: the same board with the pattern broken.
			require.NotEmpty(t, tc.nearMiss, "every case needs a near miss")
			near, _ := tc.board(t)
			edit(t, &near, sol, tc.nearMiss)
			forbidden := map[Candidate]bool{}
			for _, x := range append(drc(t, tc.place), drc(t, tc.elim)...) {
				forbidden[x] = true
			}
			nearSteps := stepsOf(near, tc.tech)
			if len(nearSteps) > 0 && len(nearSteps[0].Place) > 0 {
				nearSteps = nearSteps[:1]
			}
			for _, s := range nearSteps {
				checkStep(t, sol, s, tc.name+" near miss")
				for _, x := range append(append([]Candidate(nil), s.Place...), s.Eliminate...) {
					assert.False(t, forbidden[x], "near miss still deduces %s: %s", x, s.Explanation())
				}
			}
		})
	}
}

// hodokuLC101 is HoDoKu's example lc101 (Locked Candidates Type 1).
const hodokuLC101Puzzle = "984.........5...4.........2..6.972....3..2..........1...5.6...34.7.5189..3...97.."
const hodokuLC101 = `
.--------------.--------------.-----------------.
| 9    8     4 | 12   127  36 | 135  67   57    |
| 37   67    2 | 5    178  36 | 139  4    789   |
| 357  567   1 | 9    78   4  | 35   678  2     |
:--------------+--------------+-----------------:
| 58   145   6 | 148  9    7  | 2    3    458   |
| 578  1457  3 | 6    148  2  | 59   78   45789 |
| 2    47    9 | 48   3    5  | 6    1    478   |
:--------------+--------------+-----------------:
| 1    9     5 | 7    6    8  | 4    2    3     |
| 4    2     7 | 3    5    1  | 8    9    6     |
| 6    3     8 | 24   24   9  | 7    5    1     |
'--------------'--------------'-----------------'`

// hodokuH202 is HoDoKu's example h202 (Hidden Pair).
const hodokuH202Puzzle = ".............4273...67...4..94..........96.....7....231......85.6..8.27...5.1...."
const hodokuH202 = `
.-------------------------.-----------------.-------------.
| 2345789  1234578  12389 | 1589   6   1589 | 158  15  29 |
| 589      158      189   | 1589   4   2    | 7    3   6  |
| 2589     1258     6     | 7      3   1589 | 158  4   29 |
:-------------------------+-----------------+-------------:
| 235      9        4     | 123    27  137  | 15   6   8  |
| 2358     12358    1238  | 1238   9   6    | 4    15  7  |
| 6        18       7     | 148    5   148  | 9    2   3  |
:-------------------------+-----------------+-------------:
| 1        2347     239   | 23469  27  3479 | 36   8   5  |
| 349      6        39    | 3459   8   3459 | 2    7   1  |
| 2378     2378     5     | 236    1   37   | 36   9   4  |
'-------------------------'-----------------'-------------'`

// easyNearlyDone is the easy puzzle's solution with box 1's top-left cell
// and r5c5 cleared: every unit of r1c1 has one empty cell left.
var easyNearlyDone = "." + easySolution[1:40] + "." + easySolution[41:]

// easyFourGone clears a 2x2 square in box 1: no unit has one empty cell.
var easyFourGone = ".." + easySolution[2:9] + ".." + easySolution[11:]

func TestSingles(t *testing.T) {
	runTechniqueCases(t, []techniqueCase{
		{
			// r1c1 is the last empty cell of its box, row and column; the
			// box is looked at first. An extra candidate hides it.
			name: "full house in box 1", tech: TechniqueFullHouse, puzzle: easyNearlyDone,
			place: "511", cells: "r1c1", digits: []uint8{5}, units: []int{18},
			explain:  "r1c1 must be 5: it is the last empty cell in box 1.",
			nearMiss: "r1c1+1",
		},
		{
			name: "naked single r5c5", tech: TechniqueNakedSingle, puzzle: easyPuzzle,
			place: "555", cells: "r5c5", digits: []uint8{5},
			explain:  "r5c5 must be 5: it is the only digit r5c5 can still hold.",
			nearMiss: "r5c5+1",
		},
		{
			// Box 1 has no hidden single; in box 2, 8 fits only r1c6.
			name: "hidden single 8 in box 2", tech: TechniqueHiddenSingle, puzzle: easyPuzzle,
			place: "816", cells: "r1c6", digits: []uint8{8}, units: []int{19},
			explain:  "r1c6 must be 8: it is the only place for 8 in box 2.",
			nearMiss: "r1c4+8",
		},
	})
}

func TestFullHouseNeedsOneEmptyCell(t *testing.T) {
	c := NewCandidates(MustParse(easyFourGone))
	var buf stepBuf
	assert.False(t, findStep(TechniqueFullHouse, &c, buf.init()), "four empty cells in box 1, two in each line")
	// Clearing r1c1 only: it is a full house in its box, row and column;
	// the box comes first.
	c = NewCandidates(MustParse("." + easySolution[1:]))
	st := buf.init()
	require.True(t, findStep(TechniqueFullHouse, &c, st))
	assert.Equal(t, []int{18}, st.Units)
}

func TestIntersections(t *testing.T) {
	runTechniqueCases(t, []techniqueCase{
		{
			// HoDoKu lc101: in box 1, 5 is only in row 3.
			name: "pointing lc101", tech: TechniquePointing, puzzle: hodokuLC101Puzzle, grid: hodokuLC101,
			elim: "537", cells: "r3c1 r3c2", digits: []uint8{5}, units: []int{18, 2},
			explain:  "In box 1, 5 can only go in row 3 (r3c1 and r3c2), so 5 is removed from the rest of row 3: r3c7.",
			nearMiss: "r2c1+5",
		},
		{
			// lc101 seen from row 1: 5 is only in r1c7 and r1c9, both in
			// box 3, so it goes from the rest of box 3: r3c7 again.
			name: "claiming lc101", tech: TechniqueClaiming, puzzle: hodokuLC101Puzzle, grid: hodokuLC101,
			elim: "537", cells: "r1c7 r1c9", digits: []uint8{5}, units: []int{0, 20},
			explain:  "In row 1, 5 can only go in box 3 (r1c7 and r1c9), so 5 is removed from the rest of box 3: r3c7.",
			nearMiss: "r1c5+5",
		},
	})
}

func TestSubsets(t *testing.T) {
	runTechniqueCases(t, []techniqueCase{
		{
			// HoDoKu h202: 4 and 7 are only in r1c1 and r1c2 of row 1.
			name: "hidden pair h202", tech: TechniqueHiddenPair, puzzle: hodokuH202Puzzle, grid: hodokuH202,
			elim:   "112 211 212 311 312 511 512 811 812 911",
			cells:  "r1c1 r1c2",
			digits: []uint8{4, 7}, units: []int{0},
			explain:  "Hidden Pair {4,7} in r1c1 and r1c2: in row 1, 4 and 7 can only go in these two cells, so their other candidates are removed: 2, 3, 5, 8 and 9 from r1c1; 1, 2, 3, 5 and 8 from r1c2.",
			nearMiss: "r1c3+4",
		},
		{
			// h202 with r5c2 and r5c3 (solution 3 and 8) cut down to
			// {3,8}: a naked pair in row 5 (and box 4; rows come first).
			name: "naked pair", tech: TechniqueNakedPair, puzzle: hodokuH202Puzzle, grid: hodokuH202,
			edits: "r5c2=38 r5c3=38",
			elim:  "351 851 354 854", cells: "r5c2 r5c3", digits: []uint8{3, 8}, units: []int{4},
			explain:  "Naked Pair {3,8} in r5c2 and r5c3: no other cell of row 5 can be 3 or 8, so 3 is removed from r5c1 and r5c4; 8 from r5c1 and r5c4.",
			nearMiss: "r5c3+1",
		},
	})
}
