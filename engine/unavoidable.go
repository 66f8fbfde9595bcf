package engine

import "math/bits"

// maxPairSets bounds how many sets unavoidablePairs finds: each of the 36
// pairs of digits covers nine rows, in components of at least two.
const maxPairSets = 36 * 4

// unavoidablePairs appends to dst the unavoidable sets of the full grid
// sol that hold two digits: for every pair of digits a and b, the smallest
// sets of their cells in which swapping a and b leaves a valid grid. Every
// puzzle with sol as its only solution has a clue in each of them: without
// one, the swapped grid would solve it too.
//
// In each row, column and box the a and the b swap together or not at
// all. A row's a and b always go together, so a set is a set of rows: the
// components of the graph on the rows that links, in every column and
// every box, the row of its a to the row of its b.
func unavoidablePairs(dst []CellSet, sol *Grid) []CellSet {
	// For digit d (0..8): the row of d in each column and in each box, and
	// the cell of d in each row.
	var colRow, boxRow, rowCell [9][9]uint8
	for c, v := range sol {
		d, r := v-1, uint8(c/9)
		colRow[d][c%9] = r
		boxRow[d][Box(c)] = r
		rowCell[d][r] = uint8(c)
	}
	for a := 0; a < 9; a++ {
		for b := a + 1; b < 9; b++ {
			var adj [9]uint16
			for i := 0; i < 9; i++ {
				ra, rb := colRow[a][i], colRow[b][i]
				adj[ra] |= 1 << rb
				adj[rb] |= 1 << ra
				ra, rb = boxRow[a][i], boxRow[b][i]
				adj[ra] |= 1 << rb
				adj[rb] |= 1 << ra
			}
			for left := uint16(1<<9 - 1); left != 0; {
				rows := left & -left
				for {
					grown := rows
					for m := rows; m != 0; m &= m - 1 {
						grown |= adj[bits.TrailingZeros16(m)]
					}
					if grown == rows {
						break
					}
					rows = grown
				}
				left &^= rows
				var set CellSet
				for m := rows; m != 0; m &= m - 1 {
					r := bits.TrailingZeros16(m)
					set.Add(int(rowCell[a][r]))
					set.Add(int(rowCell[b][r]))
				}
				dst = append(dst, set)
			}
		}
	}
	return dst
}
