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
	// technique is applied, until it removes a candidate the near miss
	// added (which undoes the near miss); a placement changes the board the
	// near miss was made on, so for the placing techniques only the first
	// step is checked.
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
			added := map[Candidate]bool{}
			for cell := 0; cell < NumCells; cell++ {
				before, _ := tc.board(t)
				for d := uint8(1); d <= 9; d++ {
					if near.Has(cell, d) && !before.Has(cell, d) {
						added[Candidate{cell, d}] = true
					}
				}
			}
			nearSteps := stepsOf(near, tc.tech)
			if len(nearSteps) > 0 && len(nearSteps[0].Place) > 0 {
				nearSteps = nearSteps[:1]
			}
			for i, s := range nearSteps {
				undone := false
				for _, e := range s.Eliminate {
					undone = undone || added[e]
				}
				if undone {
					// The technique removed a candidate the near miss added:
					// the boards after this are not near misses any more.
					nearSteps = nearSteps[:i+1]
					break
				}
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

// More of HoDoKu's published examples (hodoku.sourceforge.net, "Solving
// Technique Index"): the original puzzle and the pencil marks the example
// starts from.
const (
	hodokuBF202Puzzle = "9...627....5..3...........67...3.........9...8.2.45..9..35.1.28.4......5.1......."
	hodokuBF202       = `
| 9   8  14  | 14     6   2  | 7      5       3   |
| 14  6  5   | 14789  17  3  | 1289   1489    124 |
| 3   2  7   | 1489   5   48 | 189    1489    6   |
| 7   9  146 | 1268   3   68 | 5      1468    124 |
| 14  5  146 | 12678  17  9  | 12368  134678  124 |
| 8   3  2   | 167    4   5  | 16     167     9   |
| 6   7  3   | 5      9   1  | 4      2       8   |
| 2   4  9   | 36     8   7  | 136    136     5   |
| 5   1  8   | 346    2   46 | 369    369     7   |`

	hodokuBF301Puzzle = "16.54..7...8..1.3..3.8.....7...5..696..9.2.57.............3..4........16...1645.."
	hodokuBF301       = `
| 1     6    29  | 5   4   3  | 289   7    28 |
| 29    7    8   | 6   29  1  | 4     3    5  |
| 4     3    5   | 8   29  7  | 6     29   1  |
| 7     2    13  | 4   5   8  | 13    6    9  |
| 6     48   34  | 9   1   2  | 38    5    7  |
| 589   589  19  | 3   7   6  | 128   28   4  |
| 2589  1    6   | 27  3   59 | 2789  4    28 |
| 3     459  249 | 27  8   59 | 279   1    6  |
| 289   89   7   | 1   6   4  | 5     289  3  |`

	hodokuSK01Puzzle = "...........19.2.6......679.9.2...6..37....95...5.....414...3..57.9.24......8....."
	hodokuSK01       = `
| 6    9    7 | 1345  13458  158 | 1458  148  2  |
| 45   58   1 | 9     7      2   | 458   6    3  |
| 245  258  3 | 145   1458   6   | 7     9    18 |
| 9    1    2 | 345   3458   58  | 6     38   7  |
| 3    7    4 | 2     6      18  | 9     5    18 |
| 8    6    5 | 7     13     9   | 13    2    4  |
| 1    4    8 | 6     9      3   | 2     7    5  |
| 7    35   9 | 15    2      4   | 138   138  6  |
| 25   235  6 | 8     15     7   | 134   134  9  |`

	hodokuD2SK01Puzzle = "32..479.6..6........5.9..3.....7.......9.1..5..28..7.........7.6.3..4....5..26143"
	hodokuD2SK01       = `
| 3    2     18  | 5  4   7 | 9    18   6   |
| 789  89    6   | 2  1   3 | 48   5    47  |
| 17   4     5   | 6  9   8 | 2    3    17  |
| 5    3689  189 | 4  7   2 | 38   168  19  |
| 48   368   7   | 9  36  1 | 348  2    5   |
| 149  369   2   | 8  36  5 | 7    16   149 |
| 2    1     4   | 3  5   9 | 6    7    8   |
| 6    7     3   | 1  8   4 | 5    9    2   |
| 89   5     89  | 7  2   6 | 1    4    3   |`

	hodokuXY01Puzzle = "....6........1.863..3..9...9.4......3.....7.457.82.........658.69...7.......4..3."
	hodokuXY01       = `
| 8   145 57 | 3 6 25 | 9  147 12 |
| 27  45  9  | 47 1 25 | 8 6   3  |
| 127 6   3  | 47 8 9  | 24 147 5 |
| 9   2   4  | 6 7 3  | 1  5   8  |
| 3   8   6  | 9 5 1  | 7  2   4  |
| 5   7   1  | 8 2 4  | 3  9   6  |
| 4   3   2  | 1 9 6  | 5  8   7  |
| 6   9   8  | 5 3 7  | 24 14  12 |
| 17  15  57 | 2 4 8  | 6  3   9  |`

	hodokuXY02Puzzle = ".1....5.8...4.3....567.........2..8.4.....3.22..376..19.8...254.....7...........3"
	hodokuXY02       = `
| 7    1    4    | 29    6    29  | 5    3    8 |
| 8    29   29   | 4     5    3   | 16   16   7 |
| 3    5    6    | 7     1    8   | 4    2    9 |
| 16   369  1379 | 19    2    4   | 67   8    5 |
| 4    69   179  | 1589  89   59  | 3    67   2 |
| 2    8    5    | 3     7    6   | 9    4    1 |
| 9    7    8    | 6     3    1   | 2    5    4 |
| 15   234  123  | 2589  489  7   | 18   19   6 |
| 156  246  12   | 2589  489  259 | 178  179  3 |`

	hodokuW02Puzzle = "6......7.....2.....58..1.....4.....2...1..9.6597.4...892.4..6.....5.......68.3..."
	hodokuW02       = `
| 6     134    123 | 9   5  48 | 12348  7    14   |
| 347   1347   9   | 67  2  48 | 13458  136  145  |
| 247   5      8   | 67  3  1  | 24     269  49   |
| 1     6      4   | 3   8  9  | 7      5    2    |
| 238   38     23  | 1   7  5  | 9      4    6    |
| 5     9      7   | 2   4  6  | 13     13   8    |
| 9     2      5   | 4   1  7  | 6      8    3    |
| 3478  13478  13  | 5   6  2  | 14     19   1479 |
| 47    147    6   | 8   9  3  | 1245   12   1457 |`
)

func TestHardSubsets(t *testing.T) {
	runTechniqueCases(t, []techniqueCase{
		{
			// lc101 row 2: r2c1 {3,7}, r2c2 {6,7}, r2c6 {3,6}.
			name: "naked triple lc101", tech: TechniqueNakedTriple, puzzle: hodokuLC101Puzzle, grid: hodokuLC101,
			elim: "327 725 729", cells: "r2c1 r2c2 r2c6", digits: []uint8{3, 6, 7}, units: []int{1},
			explain:  "Naked Triple {3,6,7} in r2c1, r2c2 and r2c6: no other cell of row 2 can be 3, 6 or 7, so 3 is removed from r2c7; 7 from r2c5 and r2c9.",
			nearMiss: "r2c6+1",
		},
		{
			// The same row seen the other way: 1, 8 and 9 only in r2c5,
			// r2c7 and r2c9.
			name: "hidden triple lc101", tech: TechniqueHiddenTriple, puzzle: hodokuLC101Puzzle, grid: hodokuLC101,
			elim: "725 327 729", cells: "r2c5 r2c7 r2c9", digits: []uint8{1, 8, 9}, units: []int{1},
			nearMiss: "r2c1+1",
		},
		{
			// h202 row 1: r1c4, r1c6, r1c7 and r1c8 hold only 1, 5, 8, 9.
			name: "naked quad h202", tech: TechniqueNakedQuad, puzzle: hodokuH202Puzzle, grid: hodokuH202,
			elim:  "112 113 511 512 811 812 813 911 913 919",
			cells: "r1c4 r1c6 r1c7 r1c8", digits: []uint8{1, 5, 8, 9}, units: []int{0},
			nearMiss: "r1c4+2",
		},
		{
			// ...so 2, 3, 4 and 7 only go in r1c1, r1c2, r1c3 and r1c9.
			name: "hidden quad h202", tech: TechniqueHiddenQuad, puzzle: hodokuH202Puzzle, grid: hodokuH202,
			elim:  "511 811 911 112 512 812 113 813 913 919",
			cells: "r1c1 r1c2 r1c3 r1c9", digits: []uint8{2, 3, 4, 7}, units: []int{0},
			nearMiss: "r1c4+2",
		},
	})
}

func TestFish(t *testing.T) {
	runTechniqueCases(t, []techniqueCase{
		{
			// HoDoKu bf202: 1 in columns 1 and 5 only in rows 2 and 5.
			name: "x-wing bf202", tech: TechniqueXWing, puzzle: hodokuBF202Puzzle, grid: hodokuBF202,
			elim:  "124 127 128 129 153 154 157 158 159",
			cells: "r2c1 r2c5 r5c1 r5c5", digits: []uint8{1}, units: []int{9, 13, 1, 4},
			explain:  "X-Wing on 1: in columns 1 and 5, 1 can only go in rows 2 and 5, so 1 is removed from the rest of those rows: r2c4, r2c7, r2c8, r2c9, r5c3, r5c4, r5c7, r5c8 and r5c9.",
			nearMiss: "r2c1-1",
		},
		{
			// HoDoKu bf301: 2 in rows 2, 3 and 9 only in columns 1, 5, 8.
			name: "swordfish bf301", tech: TechniqueSwordfish, puzzle: hodokuBF301Puzzle, grid: hodokuBF301,
			elim:  "268 271",
			cells: "r2c1 r2c5 r3c5 r3c8 r9c1 r9c8", digits: []uint8{2}, units: []int{1, 2, 8, 9, 13, 16},
			explain: "Swordfish on 2: in rows 2, 3 and 9, 2 can only go in columns 1, 5 and 8, so 2 is removed from the rest of those columns: r6c8 and r7c1.",
			// A second swordfish (columns 3, 4, 9 in rows 1, 7, 8) also
			// removes 2 from r7c1; the near miss breaks both.
			nearMiss: "r9c2+2 r5c3+2",
		},
		{
			// bf301 again: with row 6 (2 in r6c7, r6c8) the fish grows to
			// four rows and columns 1, 5, 7, 8.
			name: "jellyfish bf301", tech: TechniqueJellyfish, puzzle: hodokuBF301Puzzle, grid: hodokuBF301,
			elim:   "217 271 277 287",
			digits: []uint8{2}, units: []int{1, 2, 5, 8, 9, 13, 15, 16},
			// Columns 3, 4, 7, 9 in rows 1, 6, 7, 8 make a second
			// jellyfish; the near miss breaks both.
			nearMiss: "r9c2+2 r5c3+2",
		},
	})
}

func TestSingleDigitPatterns(t *testing.T) {
	runTechniqueCases(t, []techniqueCase{
		{
			// HoDoKu sk01: 1 in columns 6 and 9 twice each, linked in row 5.
			name: "skyscraper sk01", tech: TechniqueSkyscraper, puzzle: hodokuSK01Puzzle, grid: hodokuSK01,
			elim: "117 118 134 135", cells: "r1c6 r5c6 r5c9 r3c9", digits: []uint8{1}, units: []int{14, 17},
			explain:  "Skyscraper on 1: in columns 6 and 9, 1 can only go in two cells each; r5c6 and r5c9 share row 5, so at least one of r1c6 and r3c9 is 1, and 1 is removed from r1c7, r1c8, r3c4 and r3c5, which see both.",
			nearMiss: "r4c6+1",
		},
		{
			// HoDoKu d2sk01 (a dual kite; this is its first half): 1 in
			// row 1 only in r1c3, r1c8 and in column 1 only in r3c1,
			// r6c1; r1c3 and r3c1 share box 1.
			name: "2-string kite d2sk01", tech: TechniqueTwoStringKite, puzzle: hodokuD2SK01Puzzle, grid: hodokuD2SK01,
			elim: "168", cells: "r1c8 r1c3 r3c1 r6c1", digits: []uint8{1}, units: []int{0, 9, 18},
			explain:  "2-String Kite on 1: in row 1, 1 can only go in r1c8 and r1c3, and in column 1 only in r3c1 and r6c1; r1c3 and r3c1 share box 1, so at least one of r1c8 and r6c1 is 1, and 1 is removed from r6c8, which sees both.",
			nearMiss: "r5c1+1",
		},
	})
}

func TestWings(t *testing.T) {
	runTechniqueCases(t, []techniqueCase{
		{
			// HoDoKu xy01: pivot r1c3 {5,7}, pincers r1c6 {2,5}, r2c1 {2,7}.
			name: "xy-wing xy01", tech: TechniqueXYWing, puzzle: hodokuXY01Puzzle, grid: hodokuXY01,
			elim: "226", cells: "r1c3 r1c6 r2c1", digits: []uint8{5, 7, 2},
			explain:  "XY-Wing with pivot r1c3 {5,7} and pincers r1c6 {2,5} and r2c1 {2,7}: whether the pivot is 5 or 7, one of the pincers is 2, so 2 is removed from r2c6, which sees both pincers.",
			nearMiss: "r2c1+4",
		},
		{
			// HoDoKu xy02: pivot r4c1 {1,6}, pincers r4c4 {1,9}, r5c2 {6,9}.
			name: "xy-wing xy02", tech: TechniqueXYWing, puzzle: hodokuXY02Puzzle, grid: hodokuXY02,
			elim: "942 943 954 955 956", cells: "r4c1 r4c4 r5c2", digits: []uint8{1, 6, 9},
			nearMiss: "r5c2+1",
		},
		{
			// bf301: pivot r9c1 {2,8,9}, pincers r2c1 {2,9} and r9c2 {8,9};
			// r7c1 sees all three.
			name: "xyz-wing bf301", tech: TechniqueXYZWing, puzzle: hodokuBF301Puzzle, grid: hodokuBF301,
			elim: "971", cells: "r9c1 r2c1 r9c2", digits: []uint8{2, 8, 9},
			explain:  "XYZ-Wing with pivot r9c1 {2,8,9} and pincers r2c1 {2,9} and r9c2 {8,9}: one of the three cells is 9, so 9 is removed from r7c1, which sees all three.",
			nearMiss: "r2c1+5",
		},
		{
			// HoDoKu w02: r1c9 and r8c7 are {1,4}; 1 in column 3 only in
			// r1c3 (sees r1c9) and r8c3 (sees r8c7).
			name: "w-wing w02", tech: TechniqueWWing, puzzle: hodokuW02Puzzle, grid: hodokuW02,
			elim: "417 427 437 489 499", cells: "r1c9 r8c7 r1c3 r8c3", digits: []uint8{1, 4}, units: []int{11},
			explain:  "W-Wing: r1c9 and r8c7 can both only be 1 or 4, and in column 3, 1 can only go in r1c3 (which sees r1c9) and r8c3 (which sees r8c7); so one of r1c9 and r8c7 is 4, and 4 is removed from r1c7, r2c7, r3c7, r8c9 and r9c9, which see both.",
			nearMiss: "r5c3+1",
		},
	})
}

// Boards from the top1465 collection (and one 17-clue puzzle) as the
// logical solver reaches them, at the first use of each expert technique.
// Each deduction below was checked by hand.
const (
	top1465No1 = "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........"
	ur1Board   = `
4     569  1268 5789  3   15789 259   2567  25679
1237  359  12   6     127 14579 8     2357  234579
23678 3569 268  45789 278 45789 23459 23567 1
1236  346  1246 378   5   13678 23    9     2378
123   8    59   3479  17  13479 6     12357 2357
136   7    59   2     168 13689 345   1358  3458
68    46   468  1     9   2     7     35    35
5     12   3    78    678 678   129   4     29
9     12   7    35    4   35    12    68    68`

	top1465No12 = "8.9...3.....7.1...5.........7.....263...9.......1...4..6.2....4....8.5..........."
	ur4Board    = `
8     1      9      46    26  246    3   57     57
246   234    2346   7     5   1      24  89     89
5     24     7      89    3   89     246 16     12
19    7      18     35    4   35     189 2      6
3     248    12468  68    9   2678   178 1578   1578
269   2589   2568   1     267 2678   789 4      3
179   6      1358   2     17  3579   178 13789  4
12479 2349   1234   3469  8   34679  5   13679  1279
12479 234589 123458 34569 167 345679 26  136789 12789`

	top1465No347 = ".2.....74.....6.8...6.4.9..3..........98.....5...19....1.5...32.4.2........4....1"
	ur2Board     = `
18   2   135   9   358   358  6     7      4
47   9   3457  137 2357  6    12    8      35
78   35  6     17  4     278  9     12     35
3    678 124   67  257   2457 12578 124569 6789
124  67  9     8   235   2345 1235  1245   67
5    678 24    367 1     9    2378  246    678
69   1   78    5   69    78   4     3      2
679  4   3578  2   36789 1    578   569    6789
2679 35  23578 4   36789 378  578   569    1`

	top1465No305 = "1.......3.6.3..7...7...5..121.7...9...7........8.1..2....8.64....9.2..6....4....."
	bugBoard     = `
1   59 24 26 7  8  69 45 3
58  6  24 3  49 1  7  58 29
89  7  3  29 46 5  26 48 1
2   1  5  7  36 34 8  9  46
469 49 7  5  8  2  1  3  46
46  3  8  69 1  49 5  2  7
3   2  1  8  59 6  4  7  59
45  45 9  1  2  7  3  6  8
7   8  6  4  35 39 29 1  25`

	top1465No409 = "2.5..6....9..7.8....6.5.2....2......98....57....1....4.2.6.8...5...4.7........13."
	trapBoard    = `
2   47   5   8   19 6    3 14 79
134 9    134 234 7  1234 8 5  6
8   1347 6   34  5  1349 2 14 79
147 145  2   57  39 349  6 8  13
9   8    14  234 6  234  5 7  13
367 356  37  1   8  57   9 2  4
137 2    137 6   13 8    4 9  5
5   13   8   9   4  13   7 6  2
46  46   9   57  2  57   1 3  8`

	clue17No185 = ".................1..2..3..4.......5......4.....3..678.....9.2...1.5.....64.1....."
	wrapBoard   = `
5  789 4  89 2  1  6  3  78
3  789 6  79 4  5  89 2  1
1  789 2  6  78 3  5  79 4
78 6   1  3  78 9  4  5  2
9  2   78 78 5  4  1  6  3
4  5   3  2  1  6  7  8  9
78 3   5  4  9  78 2  1  6
2  1   9  5  6  78 3  4  78
6  4   78 1  3  2  89 79 5`

	top1465No41 = "4.35...2.....16...7............895.....3..8..2...........4...7..9....6...1......."
	xChainBoard = `
4    68    3    5   9    78     17   2     1678
589  258   2589 278 1    6      347  3458  34578
7    2568  1    28  34   34     9    568   568
13   347   6    17  8    9      5    134   2
159  457   59   3   2457 12457  8    1469  1467
2    34578 589  6   457  1457   1347 1349  1347
3568 2358  258  4   356  1358   13   7     9
358  9     47   178 2357 123578 6    13458 13458
3568 1     47   9   3567 3578   2    3458  3458`

	top1465No45  = "7.....48....6.1..........2....3..6.52...8..............53.....1.6.1.........4.7.."
	xyChainBoard = `
7   12   12  9  35 35 4   8     6
3   48   48  6  2  1  59  579   79
56  9    56  8  7  4  1   2     3
89  478  489 3  1  2  6   47    5
2   1347 56  47 8  56 39  13479 479
56  1347 14  47 56 9  28  1347  28
489 5    3   2  69 7  89  46    1
49  6    7   1  39 8  235 345   24
1   28   289 5  4  36 7   36    89`
)

func TestUniqueness(t *testing.T) {
	runTechniqueCases(t, []techniqueCase{
		{
			// r8c2, r9c2, r9c7 are {1,2}; r8c7 is {1,2,9}.
			name: "unique rectangle type 1", tech: TechniqueUniqueRectangle1, puzzle: top1465No1, grid: ur1Board,
			elim: "187 287", cells: "r8c2 r9c2 r9c7 r8c7", digits: []uint8{1, 2},
			explain:  "Unique rectangle {1,2} in r8c2, r9c2, r9c7 and r8c7: if r8c7 were 1 or 2, these four cells could swap 1 and 2 and the puzzle would have two solutions, so 1 and 2 are removed from r8c7.",
			nearMiss: "r9c2+5",
		},
		{
			// r5c2, r5c9 are {6,7}; r6c2, r6c9 are {6,7,8}: one of the
			// latter is 8, so r6c7 is not.
			name: "unique rectangle type 2", tech: TechniqueUniqueRectangle2, puzzle: top1465No347, grid: ur2Board,
			elim: "867", cells: "r5c2 r5c9 r6c2 r6c9", digits: []uint8{6, 7, 8},
			explain:  "Unique rectangle {6,7} in r5c2, r5c9, r6c2 and r6c9: unless r6c2 or r6c9 is 8, these four cells could swap 6 and 7 and the puzzle would have two solutions; so one of them is 8, and 8 is removed from r6c7, which sees both.",
			nearMiss: "r6c9+2",
		},
		{
			// r1c8, r1c9 are {5,7}; in row 5, 5 is only in r5c8 and r5c9.
			name: "unique rectangle type 4", tech: TechniqueUniqueRectangle4, puzzle: top1465No12, grid: ur4Board,
			elim: "758 759", cells: "r1c8 r1c9 r5c8 r5c9", digits: []uint8{5, 7}, units: []int{4},
			explain: "Unique rectangle {5,7} in r1c8, r1c9, r5c8 and r5c9: in row 5, 5 can only go in r5c8 and r5c9, so one of them is 5; if the other were 7 the puzzle would have two solutions, so 7 is removed from both.",
			// Box 6 also holds 5 only in r5c8 and r5c9: break both.
			nearMiss: "r5c4+5 r5c7+5",
		},
		{
			// Every empty cell is bivalue but r5c1 {4,6,9}; 4 is three
			// times in row 5, column 1 and box 4.
			name: "bug+1", tech: TechniqueBUG, puzzle: top1465No305, grid: bugBoard,
			place: "451", cells: "r5c1", digits: []uint8{4},
			nearMiss: "r1c2+4",
		},
	})
}

func TestColouringAndChains(t *testing.T) {
	runTechniqueCases(t, []techniqueCase{
		{
			// 1: r1c5=r1c8 (row 1), r1c8=r3c8 (column 8), r1c5=r7c5
			// (column 5), r7c5=r8c6 (box 8), r8c6=r8c2 (row 8). r3c2 sees
			// r3c8 and r8c2, which have different colours.
			name: "colour trap", tech: TechniqueColourTrap, puzzle: top1465No409, grid: trapBoard,
			elim: "132", cells: "r1c5 r3c8 r8c6", digits: []uint8{1},
			explain:  "Simple colouring on 1: chaining the units where 1 has only two places gives two colours, {r1c5, r3c8, r8c6} and {r1c8, r7c5, r8c2}, one of which holds every 1; so 1 is removed from r3c2, which sees both colours.",
			nearMiss: "r1c2+1",
		},
		{
			// 7: r1c2=r1c9=r3c8 (box 3)=r9c8=r9c3=r5c3=r5c4=r2c4=r2c2,
			// so r1c2 and r2c2 have the same colour, and see each other.
			name: "colour wrap", tech: TechniqueColourWrap, puzzle: clue17No185, grid: wrapBoard,
			elim:     "712 722 735 738 741 754 776 789 793",
			digits:   []uint8{7},
			nearMiss: "r1c4+7 r2c7+7 r9c7+7",
		},
		{
			// 1: r1c9=r1c7-r7c7=r7c6-r8c4=r4c4-r4c1=r5c1; r5c9 sees both
			// ends.
			name: "x-chain", tech: TechniqueXChain, puzzle: top1465No41, grid: xChainBoard,
			elim: "159", cells: "r1c9 r5c1", digits: []uint8{1},
			explain: "X-chain on 1: r1c9 = r1c7 - r7c7 = r7c6 - r8c4 = r4c4 - r4c1 = r5c1 (= joins the only two places for 1 in a unit, - two cells that see each other), so one of its ends, r1c9 or r5c1, is 1, and 1 is removed from r5c9, which sees both.",
			// r1c9=r1c7 is a strong link in row 1 and in box 3: break both.
			nearMiss: "r1c2+1 r2c9+1",
		},
		{
			// r8c1 {4,9} - r8c9 {2,4} - r6c9 {2,8} - r9c9 {8,9}; r9c3 sees
			// r8c1 (box 7) and r9c9 (row 9).
			name: "xy-chain", tech: TechniqueXYChain, puzzle: top1465No45, grid: xyChainBoard,
			elim: "993", cells: "r8c1 r9c9", digits: []uint8{9},
			explain:  "XY-chain r8c1 {9,4} - r8c9 {4,2} - r6c9 {2,8} - r9c9 {8,9}: if r8c1 is not 9 it is 4, so r8c9 is 2, so r6c9 is 8, so r9c9 is 9; so one of r8c1 and r9c9 is 9, and 9 is removed from r9c3, which sees both.",
			nearMiss: "r8c9+5",
		},
	})
}
