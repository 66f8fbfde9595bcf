package engine

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const inkala = "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4.."

func TestParseRoundTrip(t *testing.T) {
	g, err := Parse(inkala)
	require.NoError(t, err)
	assert.Equal(t, inkala, g.String())
	assert.Equal(t, uint8(8), g[0])
	assert.Equal(t, uint8(3), g[11])
	assert.Equal(t, 21, g.Filled())
	back, err := Parse(g.Pretty())
	require.NoError(t, err)
	assert.Equal(t, g, back)
}

func TestParseLayouts(t *testing.T) {
	zeros := strings.ReplaceAll(inkala, ".", "0")
	var spaced strings.Builder
	for r := 0; r < 9; r++ {
		spaced.WriteString("  " + strings.Join(strings.Split(inkala[r*9:r*9+9], ""), " ") + "\r\n")
	}
	tests := []struct {
		name, in string
	}{
		{"dots", inkala},
		{"zeros", zeros},
		{"9x9 with spaces and CRLF", spaced.String()},
		{"pretty with separators", MustParse(inkala).Pretty()},
		{"tabs", strings.Join(strings.Split(inkala, ""), "\t")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := Parse(tt.in)
			require.NoError(t, err)
			assert.Equal(t, inkala, g.String())
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		line, col int
		char      rune
		msg       string
	}{
		{"letter", "8..x" + inkala[4:], 1, 4, 'x', `line 1, column 4: unexpected character 'x'`},
		{"letter on line 3", "8........\n.36......\n.7..9.2.Z\n", 3, 9, 'Z', `line 3, column 9: unexpected character 'Z'`},
		{"too short", inkala[:80], 1, 80, 0, "too few cells: got 80, want 81"},
		{"empty", "", 1, 0, 0, "too few cells: got 0, want 81"},
		{"too long", inkala + "5", 1, 82, '5', `line 1, column 82: more than 81 cells: extra cell '5'`},
		{"unicode", "８" + inkala[1:], 1, 1, '８', `line 1, column 1: unexpected character '８'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := Parse(tt.in)
			require.Error(t, err)
			var pe *ParseError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tt.line, pe.Line, "line")
			assert.Equal(t, tt.col, pe.Col, "column")
			assert.Equal(t, tt.char, pe.Char, "char")
			assert.Equal(t, tt.msg, err.Error())
			assert.Equal(t, Grid{}, g, "a failed parse returns the zero grid")
		})
	}
}

func TestUnitsAndPeers(t *testing.T) {
	for c := 0; c < NumCells; c++ {
		assert.Equal(t, 20, PeerSet[c].Len(), "cell %d", c)
		assert.False(t, PeerSet[c].Has(c))
		for _, p := range Peers[c] {
			shares := Row(int(p)) == Row(c) || Col(int(p)) == Col(c) || Box(int(p)) == Box(c)
			assert.True(t, shares, "cell %d peer %d", c, p)
		}
	}
	assert.Equal(t, "r4c7", CellName(3*9+6))
	assert.Equal(t, 5, Box(3*9+6), "r4c7 is in box 6 (index 5)")
	assert.Equal(t, "box 6", UnitName(int(CellUnits[3*9+6][2])))
	assert.Equal(t, "column 7", UnitName(int(CellUnits[3*9+6][1])))
	assert.Equal(t, [9]uint8{30, 31, 32, 39, 40, 41, 48, 49, 50}, Units[18+4])
}

func TestConflicts(t *testing.T) {
	g := MustParse(inkala)
	tests := []struct {
		name  string
		cell  int
		digit uint8
		want  []int
	}{
		{"no conflict", 1, 1, nil},
		{"same row", 1, 8, []int{0}},
		{"same box and column", 9, 8, []int{0}},
		{"same column and box", 72, 8, []int{0, 65}},
		{"row and box", 10, 3, []int{11}},
		{"two units two cells", 2, 7, []int{19}},
		{"out of range digit", 1, 10, nil},
		{"out of range cell", 81, 8, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := g.Conflicts(tt.cell, tt.digit).Cells(nil)
			assert.Equal(t, tt.want, got)
		})
	}
	// Every conflict reported is real, and every peer holding the digit is reported.
	for c := 0; c < NumCells; c++ {
		for d := uint8(1); d <= 9; d++ {
			s := g.Conflicts(c, d)
			for _, p := range Peers[c] {
				assert.Equal(t, g[p] == d, s.Has(int(p)))
			}
			assert.Equal(t, 0, s.Minus(PeerSet[c]).Len())
		}
	}
}

func TestConflictsDoNotAllocate(t *testing.T) {
	g := MustParse(inkala)
	buf := make([]int, 0, 20)
	allocs := testing.AllocsPerRun(100, func() {
		buf = g.Conflicts(40, 5).Cells(buf[:0])
	})
	assert.Equal(t, 0.0, allocs)
}

func TestAllConflicts(t *testing.T) {
	g := MustParse(inkala)
	assert.Empty(t, g.AllConflicts())
	assert.False(t, g.HasConflict())
	g[1] = 8  // r1c2: row 1 and box 1 with r1c1
	g[80] = 3 // r9c9: nothing else holds 3 in row 9, column 9 or box 9
	g[79] = 1 // r9c8: column 8 holds 1 at r8c8
	want := []Conflict{{A: 0, B: 1, Digit: 8}, {A: 70, B: 79, Digit: 1}}
	assert.Equal(t, want, g.AllConflicts())
	assert.True(t, g.HasConflict())
	assert.False(t, g.Complete())
}

func BenchmarkConflicts(b *testing.B) {
	g := MustParse(inkala)
	b.ReportAllocs()
	n := 0
	for i := 0; b.Loop(); i++ {
		n += g.Conflicts(i%NumCells, uint8(i%9+1)).Len()
	}
	if n == 0 {
		b.Fatal("no conflicts found at all")
	}
}
