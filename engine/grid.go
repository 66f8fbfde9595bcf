package engine

import (
	"fmt"
	"strings"
)

// NumCells is the number of cells on a board.
const NumCells = 81

// Grid is a Sudoku board: 0 for an empty cell, 1..9 for a digit.
type Grid [NumCells]uint8

// ParseError says what is wrong with a puzzle's text and where: Line and
// Col are 1-based positions in the input, Char the offending character
// (0 when the input ended too early).
type ParseError struct {
	Line, Col int
	Char      rune
	Msg       string
}

func (e *ParseError) Error() string {
	if e.Char == 0 {
		return e.Msg
	}
	return fmt.Sprintf("line %d, column %d: %s %q", e.Line, e.Col, e.Msg, e.Char)
}

// Parse reads a puzzle: 81 cells row by row, '.' or '0' for an empty cell and
// '1'..'9' for a given. Spaces, tabs and line breaks are ignored so that a
// 9×9 layout parses too, as are the separators '|', '+' and '-' that such
// layouts draw between boxes. Anything else, and any count of cells but 81,
// is a *ParseError that names the line, column and character.
func Parse(s string) (Grid, error) {
	var g Grid
	n := 0
	line, col := 1, 0
	for _, r := range s {
		col++
		switch {
		case r == '\n':
			line, col = line+1, 0
			continue
		case r == ' ' || r == '\t' || r == '\r' || r == '|' || r == '+' || r == '-':
			continue
		case r == '.' || (r >= '0' && r <= '9'):
			if n == NumCells {
				return Grid{}, &ParseError{Line: line, Col: col, Char: r, Msg: "more than 81 cells: extra cell"}
			}
			if r != '.' {
				g[n] = uint8(r - '0')
			}
			n++
		default:
			return Grid{}, &ParseError{Line: line, Col: col, Char: r, Msg: "unexpected character"}
		}
	}
	if n != NumCells {
		return Grid{}, &ParseError{Line: line, Col: col, Msg: fmt.Sprintf("too few cells: got %d, want 81", n)}
	}
	return g, nil
}

// MustParse is Parse for puzzles written into code and tests; it panics on
// malformed input.
func MustParse(s string) Grid {
	g, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return g
}

// String formats the grid as 81 characters, '.' for an empty cell.
func (g Grid) String() string {
	var b [NumCells]byte
	for i, v := range g {
		if v == 0 {
			b[i] = '.'
		} else {
			b[i] = '0' + v
		}
	}
	return string(b[:])
}

// Pretty formats the grid as a 9×9 layout with box separators, which Parse
// reads back.
func (g Grid) Pretty() string {
	var sb strings.Builder
	for r := 0; r < 9; r++ {
		if r == 3 || r == 6 {
			sb.WriteString("------+-------+------\n")
		}
		for c := 0; c < 9; c++ {
			if c == 3 || c == 6 {
				sb.WriteString("| ")
			}
			v := g[r*9+c]
			if v == 0 {
				sb.WriteByte('.')
			} else {
				sb.WriteByte('0' + v)
			}
			if c < 8 {
				sb.WriteByte(' ')
			}
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// Filled reports how many cells hold a digit.
func (g *Grid) Filled() int {
	n := 0
	for _, v := range g {
		if v != 0 {
			n++
		}
	}
	return n
}

// Complete reports whether every cell holds a digit and no two peers share one.
func (g *Grid) Complete() bool {
	return g.Filled() == NumCells && !g.HasConflict()
}
