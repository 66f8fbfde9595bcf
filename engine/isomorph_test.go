package engine

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIsomorphicPuzzlesSolveAlike(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	puzzles := append(loadPuzzles(t, "magictour-top1465.txt", 40), loadPuzzles(t, "serg-benchmark.txt", 40)...)
	puzzles = append(puzzles, loadPuzzles(t, "17-clue.txt", 40)...)
	for _, p := range puzzles {
		want := Solve(p, 2)
		for k := 0; k < 5; k++ {
			m := NewIsomorph(rng.Uint64())
			q := m.Grid(p)
			got := Solve(q, 2)
			require.Equal(t, want.Count, got.Count, "puzzle %s as %s", p, q)
			if want.Count == 1 {
				assert.Equal(t, m.Grid(want.Solution), got.Solution, "puzzle %s", p)
			}
		}
	}
}

func TestIsomorphKeepsValidity(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sol := Solve(MustParse(inkala), 2)
	require.Equal(t, 1, sol.Count)
	for k := 0; k < 100; k++ {
		q := NewIsomorph(rng.Uint64()).Grid(sol.Solution)
		require.True(t, q.Complete(), "isomorph of a solution is a solution: %s", q)
	}
}

// TestIsomorphicPuzzlesGradeAlike: a puzzle and its isomorphs get the same
// level and hardest technique, always. The score is the same too but for
// rare puzzles where two equal patterns lead to different rounds of harder
// techniques; the test allows 1% of those and says how many it saw.
func TestIsomorphicPuzzlesGradeAlike(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	puzzles := loadPuzzles(t, "magictour-top1465.txt", 500)
	puzzles = append(puzzles, loadPuzzles(t, "17-clue.txt", 300)...)
	for _, level := range []Level{LevelEasy, LevelMedium, LevelHard, LevelExpert} {
		for seed := uint64(1); seed <= 10; seed++ {
			g, err := Generate(GenerateOptions{Level: level, Seed: seed})
			require.NoError(t, err)
			puzzles = append(puzzles, g.Givens)
		}
	}
	compared, scoreDiffers := 0, 0
	for _, p := range puzzles {
		want, err := GradePuzzle(p)
		require.NoError(t, err)
		for k := 0; k < 2; k++ {
			q := NewIsomorph(rng.Uint64()).Grid(p)
			got, err := GradePuzzle(q)
			require.NoError(t, err)
			require.Equal(t, want.Level, got.Level, "level of %s and its isomorph %s", p, q)
			require.Equal(t, want.Solved, got.Solved, "%s", p)
			require.Equal(t, want.Hardest, got.Hardest, "hardest technique of %s and its isomorph %s", p, q)
			compared++
			if want.Score != got.Score {
				scoreDiffers++
				t.Logf("score %d vs %d: %s (%v) and its isomorph %s", want.Score, got.Score, p, want.Level, q)
			}
		}
	}
	t.Logf("%d isomorph pairs: level and hardest technique always equal, score differed in %d", compared, scoreDiffers)
	assert.LessOrEqual(t, scoreDiffers*100, compared, "score differs in more than 1%% of isomorph pairs")
}

// randomGrid returns a grid of random values 0..9, most cells empty, as a
// puzzle is: no Sudoku rule holds, which is what a test of the map's
// arithmetic wants.
func randomGrid(rng *rand.Rand) Grid {
	var g Grid
	for i := range g {
		if rng.IntN(3) == 0 {
			g[i] = uint8(rng.IntN(10))
		}
	}
	return g
}

func TestIdentityIsomorph(t *testing.T) {
	id := IdentityIsomorph()
	assert.True(t, id.IsIdentity())
	assert.Equal(t, "123456789-123456789-123456789-0", id.String())
	assert.Equal(t, id, id.Inverse())
	for i := range NumCells {
		assert.Equal(t, i, id.Cell(i))
	}
	for d := range uint8(10) {
		assert.Equal(t, d, id.Digit(d))
	}
	g := MustParse(inkala)
	assert.Equal(t, g, id.Grid(g))

	assert.False(t, Isomorph{}.IsIdentity(), "the zero value is not the identity")
	assert.False(t, NewIsomorph(1).IsIdentity())
}

// TestNewIsomorphIsStable pins the isomorphs of a few seeds: players' copies
// of a daily puzzle are derived from their stored seeds, so a change here
// would show a player a different copy of a puzzle they have started.
func TestNewIsomorphIsStable(t *testing.T) {
	for seed, want := range map[uint64]string{
		0:          "395276148-798465123-321789546-1",
		1:          "125483796-798465312-123897645-1",
		42:         "695413827-231798645-654879132-0",
		1<<64 - 1:  "716543289-654321987-897132645-0",
		0x5eed5eed: "951273486-978132654-321564879-1",
	} {
		assert.Equal(t, want, NewIsomorph(seed).String(), "seed %#x", seed)
		assert.Equal(t, NewIsomorph(seed), NewIsomorph(seed), "seed %#x", seed)
	}
}

// TestSplitmix64 checks the generator against the published SplitMix64
// (the reference outputs for seed 0 and seed 1234567).
func TestSplitmix64(t *testing.T) {
	s := splitmix64(0)
	assert.Equal(t, uint64(0xe220a8397b1dcdaf), s.next())
	assert.Equal(t, uint64(0x6e789e6aa1b965f4), s.next())
	s = splitmix64(1234567)
	assert.Equal(t, uint64(6457827717110365317), s.next())
	assert.Equal(t, uint64(3203168211198807973), s.next())
}

func TestIsomorphInverse(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 9))
	for range 300 {
		m := NewIsomorph(rng.Uint64())
		inv := m.Inverse()
		require.Equal(t, m, inv.Inverse(), "%v", m)
		g := randomGrid(rng)
		require.Equal(t, g, inv.Grid(m.Grid(g)), "%v then its inverse %v", m, inv)
		require.Equal(t, g, m.Grid(inv.Grid(g)), "%v after its inverse %v", m, inv)
		for i := range NumCells {
			require.Equal(t, i, inv.Cell(m.Cell(i)), "%v: cell %d", m, i)
		}
		for d := range uint8(10) {
			require.Equal(t, d, inv.Digit(m.Digit(d)), "%v: digit %d", m, d)
		}
	}
}

// TestIsomorphGridAgreesWithCellAndDigit: Grid moves each cell where Cell
// says and relabels it as Digit says; Cell is a permutation of the cells
// that keeps peers peers, and Digit one of the digits that keeps 0.
func TestIsomorphGridAgreesWithCellAndDigit(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	transposed := 0
	for range 300 {
		m := NewIsomorph(rng.Uint64())
		if m.transpose {
			transposed++
		}
		g := randomGrid(rng)
		out := m.Grid(g)
		var cells CellSet
		for i := range NumCells {
			require.Equal(t, m.Digit(g[i]), out[m.Cell(i)], "%v: cell %d", m, i)
			cells.Add(m.Cell(i))
			for _, p := range Peers[i] {
				require.True(t, PeerSet[m.Cell(i)].Has(m.Cell(int(p))), "%v: cells %d and %d are peers, their images are not", m, i, p)
			}
		}
		require.Equal(t, NumCells, cells.Len(), "%v: Cell is a permutation", m)
		require.Zero(t, m.Digit(0))
		var digits [10]bool
		for d := uint8(1); d <= 9; d++ {
			require.NotZero(t, m.Digit(d))
			digits[m.Digit(d)] = true
		}
		require.Equal(t, [10]bool{false, true, true, true, true, true, true, true, true, true}, digits, "%v: Digit is a permutation", m)
		assert.Equal(t, uint8(12), m.Digit(12), "a value that is not a digit is left alone")
	}
	assert.InDelta(t, 150, transposed, 40, "about half the isomorphs transpose")
}

// TestIsomorphOfPuzzle: a puzzle's copy has one solution, which is the copy
// of the puzzle's, and the same grade.
func TestIsomorphOfPuzzle(t *testing.T) {
	puzzles := append(loadPuzzles(t, "magictour-top1465.txt", 4), loadPuzzles(t, "17-clue.txt", 4)...)
	puzzles = append(puzzles, MustParse(inkala))
	for _, p := range puzzles {
		want, err := GradePuzzle(p)
		require.NoError(t, err)
		sol := Solve(p, 2)
		require.Equal(t, 1, sol.Count)
		for seed := uint64(1); seed <= 3; seed++ {
			m := NewIsomorph(seed)
			q := m.Grid(p)
			require.Equal(t, p.Filled(), q.Filled())
			got := Solve(q, 2)
			require.Equal(t, 1, got.Count, "copy %s of %s", q, p)
			assert.Equal(t, m.Grid(sol.Solution), got.Solution, "copy %s of %s", q, p)
			assert.True(t, got.Solution.Complete())
			g, err := GradePuzzle(q)
			require.NoError(t, err)
			assert.Equal(t, want.Level, g.Level, "copy %s of %s", q, p)
			assert.Equal(t, want.Hardest, g.Hardest, "copy %s of %s", q, p)
			assert.Equal(t, want.Score, g.Score, "copy %s of %s", q, p)
			assert.Equal(t, want.Solved, g.Solved, "copy %s of %s", q, p)
			if want.Solved {
				assert.Equal(t, m.Grid(want.Board), g.Board, "copy %s of %s", q, p)
			}
		}
	}
}

// TestIsomorphSeedsGiveDifferentCopies: players with different seeds see
// different copies of a puzzle.
func TestIsomorphSeedsGiveDifferentCopies(t *testing.T) {
	p := MustParse(inkala)
	seen := map[Grid]bool{}
	for seed := uint64(0); seed < 100; seed++ {
		seen[NewIsomorph(seed).Grid(p)] = true
	}
	assert.GreaterOrEqual(t, len(seen), 99, "distinct copies among 100 seeds")
}

func TestIsomorphTextRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	ms := []Isomorph{IdentityIsomorph()}
	for range 500 {
		ms = append(ms, NewIsomorph(rng.Uint64()))
	}
	for _, m := range ms {
		text, err := m.MarshalText()
		require.NoError(t, err)
		require.Len(t, text, 31)
		assert.Equal(t, string(text), m.String())
		var back Isomorph
		require.NoError(t, back.UnmarshalText(text), "%s", text)
		require.Equal(t, m, back, "%s", text)
		inv, err := m.Inverse().MarshalText()
		require.NoError(t, err)
		require.NoError(t, back.UnmarshalText(inv))
		require.Equal(t, m.Inverse(), back, "%s", inv)
	}

	// Text written by hand means what MarshalText says: digit 1 becomes 2,
	// row 1 goes to row 3, column 9 to column 7.
	var m Isomorph
	require.NoError(t, m.UnmarshalText([]byte("213456789-321456789-123456987-0")))
	assert.Equal(t, uint8(2), m.Digit(1))
	assert.Equal(t, uint8(1), m.Digit(2))
	assert.Equal(t, 2*9+0, m.Cell(0), "r1c1 goes to r3c1")
	assert.Equal(t, 2*9+6, m.Cell(8), "r1c9 goes to r3c7")
	require.NoError(t, m.UnmarshalText([]byte("123456789-123456789-123456789-1")))
	assert.Equal(t, 1*9+0, m.Cell(1), "transposed: r1c2 goes to r2c1")

	_, err := Isomorph{}.MarshalText()
	assert.ErrorIs(t, err, ErrIsomorphText, "the zero value is not an isomorph")
	assert.Equal(t, "invalid isomorph", Isomorph{}.String())
}

func TestIsomorphUnmarshalTextRefuses(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"", "0 bytes, want 31"},
		{"123456789-123456789-123456789", "29 bytes, want 31"},
		{"123456789-123456789-123456789-00", "32 bytes, want 31"},
		{"123456789+123456789-123456789-0", `byte 10 is "+", want "-"`},
		{"123456789-123456789-1234567890-", `byte 30 is "0", want "-"`},
		{"113456789-123456789-123456789-0", "digits: 1 appears twice"},
		{"023456789-123456789-123456789-0", `digits: byte 1 is "0", want 1..9`},
		{"12345678a-123456789-123456789-0", `digits: byte 9 is "a", want 1..9`},
		{"123456789-123456788-123456789-0", "rows: 8 appears twice"},
		{"123456789-124356789-123456789-0", "rows 1-3 of band 1 do not go to one band"},
		{"123456789-123456798-123456789-0", ""},
		{"123456789-123456789-123457689-0", "columns 4-6 of stack 2 do not go to one stack"},
		{"123456789-123456789-123456789-2", `transpose flag "2", want "0" or "1"`},
		{"123456789-123456789-123456789-t", `transpose flag "t", want "0" or "1"`},
		{"１234567-123456789-123456789-0", `digits: byte 1 is "\xef", want 1..9`},
	} {
		m := NewIsomorph(3)
		err := m.UnmarshalText([]byte(tc.text))
		if tc.want == "" {
			// Rows 8 and 9 swapped stay within band 3: that is allowed.
			assert.NoError(t, err, "%q", tc.text)
			continue
		}
		require.Error(t, err, "%q", tc.text)
		assert.ErrorIs(t, err, ErrIsomorphText, "%q", tc.text)
		assert.Contains(t, err.Error(), tc.want, "%q", tc.text)
		assert.Equal(t, NewIsomorph(3), m, "%q: a refused text leaves the value alone", tc.text)
	}
}

func FuzzIsomorphUnmarshalText(f *testing.F) {
	f.Add("123456789-123456789-123456789-0")
	f.Add("123456789-124356789-123456789-0")
	f.Add("")
	for seed := range uint64(8) {
		f.Add(NewIsomorph(seed).String())
	}
	p := MustParse(inkala)
	f.Fuzz(func(t *testing.T, text string) {
		var m Isomorph
		if err := m.UnmarshalText([]byte(text)); err != nil {
			if !errors.Is(err, ErrIsomorphText) {
				t.Fatalf("%q: error %v does not wrap ErrIsomorphText", text, err)
			}
			return
		}
		if m.String() != text {
			t.Fatalf("%q read back as %q", text, m.String())
		}
		if got := m.Inverse().Grid(m.Grid(p)); got != p {
			t.Fatalf("%q: the inverse does not undo it", text)
		}
		if s := Solve(m.Grid(p), 2); s.Count != 1 {
			t.Fatalf("%q: the copy has %d solutions", text, s.Count)
		}
	})
}

func BenchmarkIsomorphGrid(b *testing.B) {
	p := MustParse(inkala)
	ms := make([]Isomorph, 64)
	for i := range ms {
		ms[i] = NewIsomorph(uint64(i))
	}
	b.ReportAllocs()
	var sink Grid
	for i := 0; b.Loop(); i++ {
		sink = ms[i%len(ms)].Grid(p)
	}
	_ = sink
}
