package engine

import "math/bits"

// deepAfter is the number of guesses after which a solve starts checking,
// at every stuck point, that each row, column and box can still give its
// nine digits nine different cells (Hall's condition; see hallViolated).
//
// The propagation rules miss contradictions such as a row that must hold
// three digits in two cells lying in different boxes. Nearly empty grids
// built around one took the search millions of guesses (seconds) to
// refute; with the check, a few thousand (milliseconds). It costs a few
// thousand instructions a stuck point, too much to pay on every puzzle, so
// it waits until a solve has guessed this much. From 256 guesses it took
// 30% of the time on the forum's hardest puzzles, which often guess that
// much and which it hardly ever refutes; from 4096, 20% less time there.
const deepAfter = 4096

// hallViolated reports whether some unit has digits that cannot all be
// given different cells: its candidates admit no perfect matching between
// digits and cells. A placed digit counts, with its cell as its only
// candidate, so the check covers the whole unit.
func (b *bitBoard) hallViolated() bool {
	var pos [9]uint16 // per digit, its candidate cells in the unit
	for band := 0; band < 3; band++ {
		c := (*[9]uint32)(b.cand[band*9 : band*9+9])
		// Rows: nine bits of the band word each.
		for r := 0; r < 27; r += 9 {
			for d, w := range c {
				pos[d] = uint16(w >> r & 511)
			}
			if !matchable(&pos) {
				return true
			}
		}
		// Boxes: three bits from each row, gathered as in the stack rule.
		for k := 0; k < 9; k += 3 {
			for d, w := range c {
				x := w >> k & 0x1C0E07
				pos[d] = uint16((x | x>>6 | x>>12) & 511)
			}
			if !matchable(&pos) {
				return true
			}
		}
	}
	// Columns: one bit from each row of each band (bits col, col+9 and
	// col+18 of a band word gather into three bits).
	for col := 0; col < 9; col++ {
		for d := 0; d < 9; d++ {
			var p uint32
			for band := 0; band < 3; band++ {
				x := b.cand[band*9+d] >> col & 0x40201
				p |= (x | x>>8 | x>>16) & 7 << (3 * band)
			}
			pos[d] = uint16(p)
		}
		if !matchable(&pos) {
			return true
		}
	}
	return false
}

// matchable reports whether the nine digits can each take a different cell,
// pos[d] being the cells (nine bits) digit d may take: a bipartite matching
// grown one digit at a time along augmenting paths, found breadth first.
func matchable(pos *[9]uint16) bool {
	var owner [9]int8 // per cell, the digit matched to it, or -1
	var cellOf [9]int8
	for i := range owner {
		owner[i] = -1
	}
	for d := int8(0); d < 9; d++ {
		var from [9]int8 // per cell reached, the digit it was reached from
		var queue [9]int8
		queue[0] = d
		head, tail := 0, 1
		var seen uint16
		found := false
		for head < tail && !found {
			x := queue[head]
			head++
			for m := pos[x] &^ seen & 511; m != 0; m &= m - 1 {
				cell := int8(bits.TrailingZeros16(m))
				seen |= 1 << cell
				from[cell] = x
				if owner[cell] < 0 {
					// Free cell: shift every digit on the path back to d
					// one cell along.
					for {
						y := from[cell]
						prev := cellOf[y]
						owner[cell], cellOf[y] = y, cell
						if y == d {
							break
						}
						cell = prev
					}
					found = true
					break
				}
				queue[tail] = owner[cell]
				tail++
			}
		}
		if !found {
			return false
		}
	}
	return true
}
