package engine

import (
	"errors"
	"fmt"
	"math/bits"
)

// Isomorph is a symmetry of the Sudoku grid: digits relabelled; rows
// permuted within bands, bands permuted; columns within stacks, stacks
// permuted; optionally transposed. A puzzle and its image under an
// isomorph have the same number of solutions and the same grade, so each
// player can be shown their own copy of one puzzle.
//
// The map first moves the rows and the columns, then transposes the grid
// if it does so; cell i goes to Cell(i) and its digit d becomes Digit(d).
//
// The zero value is not valid; use NewIsomorph, IdentityIsomorph or
// UnmarshalText.
type Isomorph struct {
	digit     [10]uint8 // digit[d]: what digit d becomes; digit[0] == 0
	row, col  [9]uint8  // row[r]: where row r goes before the transpose; col likewise
	transpose bool
}

// IdentityIsomorph returns the isomorph that changes nothing.
func IdentityIsomorph() Isomorph {
	var m Isomorph
	for d := range m.digit {
		m.digit[d] = uint8(d)
	}
	for i := range m.row {
		m.row[i], m.col[i] = uint8(i), uint8(i)
	}
	return m
}

// NewIsomorph returns the isomorph derived from seed alone: the same seed
// gives the same isomorph on every machine and in every release, since a
// player's copy of a puzzle is derived from their stored seed
// (TestNewIsomorphIsStable pins a few). Every isomorph is equally likely
// but for a bias below 2⁻⁶⁰.
func NewIsomorph(seed uint64) Isomorph {
	s := splitmix64(seed)
	m := IdentityIsomorph()
	shuffle(&s, m.digit[1:])
	m.row, m.col = lineShuffle(&s), lineShuffle(&s)
	m.transpose = s.next()&1 == 1
	return m
}

// splitmix64 is Steele, Lea and Flood's SplitMix64 generator: small, fast
// and fixed here, so that NewIsomorph does not depend on how the standard
// library turns random numbers into permutations.
type splitmix64 uint64

func (s *splitmix64) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// intN returns a number in [0, n): the high word of a 64×64-bit product.
func (s *splitmix64) intN(n int) int {
	hi, _ := bits.Mul64(s.next(), uint64(n))
	return int(hi)
}

// shuffle permutes p in place (Fisher–Yates).
func shuffle(s *splitmix64, p []uint8) {
	for i := len(p) - 1; i > 0; i-- {
		j := s.intN(i + 1)
		p[i], p[j] = p[j], p[i]
	}
}

// lineShuffle returns a random map of rows (or columns) that keeps the
// lines of a band (stack) together: the bands are permuted, and the lines
// within each band.
func lineShuffle(s *splitmix64) [9]uint8 {
	bands := [3]uint8{0, 1, 2}
	shuffle(s, bands[:])
	var out [9]uint8
	for b := range 3 {
		within := [3]uint8{0, 1, 2}
		shuffle(s, within[:])
		for i := range 3 {
			out[b*3+i] = bands[b]*3 + within[i]
		}
	}
	return out
}

// Cell returns where cell i (0..80) goes.
func (m Isomorph) Cell(i int) int {
	r, c := int(m.row[i/9]), int(m.col[i%9])
	if m.transpose {
		r, c = c, r
	}
	return r*9 + c
}

// Digit returns what digit d becomes: 0 stays 0, and a value above 9 (not
// a digit) is returned unchanged.
func (m Isomorph) Digit(d uint8) uint8 {
	if d > 9 {
		return d
	}
	return m.digit[d]
}

// Grid returns g under the map: cell Cell(i) of the result holds
// Digit(g[i]). Empty cells stay empty.
func (m Isomorph) Grid(g Grid) Grid {
	var out Grid
	// stride[r], step[c]: where row r and column c put a cell, so that
	// Cell(r*9+c) == stride[r]+step[c] whether or not m transposes.
	var stride, step [9]int
	for k := range 9 {
		stride[k], step[k] = int(m.row[k])*9, int(m.col[k])
		if m.transpose {
			stride[k], step[k] = int(m.row[k]), int(m.col[k])*9
		}
	}
	for r := range 9 {
		base := stride[r]
		for c, v := range g[r*9 : r*9+9] {
			out[base+step[c]] = m.Digit(v)
		}
	}
	return out
}

// Inverse returns the isomorph that undoes m: m.Inverse().Grid(m.Grid(g))
// == g for every grid g.
func (m Isomorph) Inverse() Isomorph {
	var inv Isomorph
	for d := range m.digit {
		inv.digit[m.digit[d]] = uint8(d)
	}
	var rowFrom, colFrom [9]uint8
	for k := range 9 {
		rowFrom[m.row[k]] = uint8(k)
		colFrom[m.col[k]] = uint8(k)
	}
	inv.transpose = m.transpose
	if m.transpose {
		// m sends (r, c) to (col[c], row[r]); the inverse sends (R, C) to
		// (rowFrom[C], colFrom[R]): rows go by colFrom, columns by rowFrom,
		// then transpose.
		inv.row, inv.col = colFrom, rowFrom
	} else {
		inv.row, inv.col = rowFrom, colFrom
	}
	return inv
}

// IsIdentity reports whether m changes nothing.
func (m Isomorph) IsIdentity() bool { return m == IdentityIsomorph() }

// textBase is the character that stands for 0 in each group of the text:
// digits are written as they are, rows and columns (0-based here) 1-based.
var textBase = [3]uint8{'0', '1', '1'}

// isomorphTextLen is the length of an isomorph's text: three permutations
// of "123456789" and the transpose flag, separated by '-'.
const isomorphTextLen = 3*10 + 1

// String returns the text form of MarshalText, or "invalid isomorph" for a
// value that is not one (such as the zero value).
func (m Isomorph) String() string {
	b, err := m.MarshalText()
	if err != nil {
		return "invalid isomorph"
	}
	return string(b)
}

// MarshalText returns a compact, stable text form of m, 31 bytes:
//
//	DDDDDDDDD-RRRRRRRRR-CCCCCCCCC-T
//
// where the k-th character of each group of nine is, for k = 1..9, what
// digit k becomes, where row k goes, and where column k goes (all
// 1-based), and T is 1 when the grid is transposed, 0 when not. The
// identity is "123456789-123456789-123456789-0". It fails for a value that
// is not an isomorph, such as the zero value.
func (m Isomorph) MarshalText() ([]byte, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	b := make([]byte, 0, isomorphTextLen)
	// Digits are stored as they are (1..9), rows and columns 0-based.
	for g, group := range [3][]uint8{m.digit[1:], m.row[:], m.col[:]} {
		for _, v := range group {
			b = append(b, textBase[g]+v)
		}
		b = append(b, '-')
	}
	if m.transpose {
		b = append(b, '1')
	} else {
		b = append(b, '0')
	}
	return b, nil
}

// ErrIsomorphText is what UnmarshalText returns, wrapped with the reason,
// for text that is not an isomorph's.
var ErrIsomorphText = errors.New("engine: not an isomorph")

// UnmarshalText reads the form MarshalText writes. It refuses, with an
// error that wraps ErrIsomorphText and says why, any other length or
// layout, a group that is not a permutation of 1..9, rows (columns) of one
// band (stack) that do not go to one band (stack), and a transpose flag
// other than 0 or 1. On error m is left unchanged.
func (m *Isomorph) UnmarshalText(text []byte) error {
	if len(text) != isomorphTextLen {
		return fmt.Errorf("%w: %d bytes, want %d (DDDDDDDDD-RRRRRRRRR-CCCCCCCCC-T)", ErrIsomorphText, len(text), isomorphTextLen)
	}
	var out Isomorph
	names := [3]string{"digits", "rows", "columns"}
	groups := [3][]uint8{out.digit[1:], out.row[:], out.col[:]}
	for g, group := range groups {
		part := text[g*10 : g*10+9]
		if at := g*10 + 9; text[at] != '-' {
			return fmt.Errorf("%w: byte %d is %q, want \"-\"", ErrIsomorphText, at+1, text[at:at+1])
		}
		var seen [10]bool
		for k, ch := range part {
			if ch < '1' || ch > '9' {
				at := g*10 + k
				return fmt.Errorf("%w: %s: byte %d is %q, want 1..9", ErrIsomorphText, names[g], at+1, text[at:at+1])
			}
			if seen[ch-'0'] {
				return fmt.Errorf("%w: %s: %c appears twice", ErrIsomorphText, names[g], ch)
			}
			seen[ch-'0'] = true
			group[k] = ch - textBase[g]
		}
	}
	switch flag := text[isomorphTextLen-1:]; string(flag) {
	case "0":
	case "1":
		out.transpose = true
	default:
		return fmt.Errorf("%w: transpose flag %q, want \"0\" or \"1\"", ErrIsomorphText, flag)
	}
	if err := out.check(); err != nil {
		return err
	}
	*m = out
	return nil
}

// check returns an error wrapping ErrIsomorphText unless m is an
// isomorph: 0 fixed and the digits permuted, and the rows and columns
// permutations that keep bands and stacks together.
func (m Isomorph) check() error {
	if m.digit[0] != 0 {
		return fmt.Errorf("%w: digit 0 is not fixed", ErrIsomorphText)
	}
	if !isPerm(m.digit[1:], 1) {
		return fmt.Errorf("%w: digits are not a permutation of 1..9", ErrIsomorphText)
	}
	for k, lines := range [2]*[9]uint8{&m.row, &m.col} {
		name, unit := "rows", "band"
		if k == 1 {
			name, unit = "columns", "stack"
		}
		if !isPerm(lines[:], 0) {
			return fmt.Errorf("%w: %s are not a permutation of 1..9", ErrIsomorphText, name)
		}
		for b := range 3 {
			to := lines[b*3] / 3
			for i := 1; i < 3; i++ {
				if lines[b*3+i]/3 != to {
					return fmt.Errorf("%w: %s %d-%d of %s %d do not go to one %s", ErrIsomorphText, name, b*3+1, b*3+3, unit, b+1, unit)
				}
			}
		}
	}
	return nil
}

// isPerm reports whether p holds each of base..base+len(p)-1 once.
func isPerm(p []uint8, base uint8) bool {
	var seen [16]bool
	for _, v := range p {
		if v < base || int(v-base) >= len(p) || seen[v-base] {
			return false
		}
		seen[v-base] = true
	}
	return true
}
