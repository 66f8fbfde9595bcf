package engine

import "math/bits"

// Tables, filled by init.
var (
	// rowTable[r][x] describes x, the nine bits of row r of a band: the
	// high half has, at bits 3r..3r+2, which of the row's three minirows
	// hold a candidate; the low half is the whole row (511 << 9r) when x
	// has exactly one bit set, and zero otherwise. OR-ing the three rows'
	// entries gives the band's minirow occupancy and the cells of its
	// rows that are down to one candidate.
	rowTable [3][512]uint64
	// bandKeep maps a band's minirow occupancy (bit r*3+k for row r, box k)
	// to the minirows that belong to a complete pattern (one minirow per
	// row and per box, all occupied): as cells in the low 27 bits, and as
	// minirows (bit r*3+k again) from bit 32.
	bandKeep [512]uint64
	// colLock maps the columns a digit still uses in one band to the mask
	// that removes, from its other two bands, each column that is the only
	// one left in its box.
	colLock [512]uint32
	// bandPeers[p] is the cells of a band that share a row, a column or a
	// box with the cell at bit p.
	bandPeers [32]uint32
	// colPair[p] is the column of the cell at bit p in two bands, the
	// second shifted up by 27: the cell's column peers outside its band.
	colPair [32]uint64
	// stackKeep maps a 3x3 matrix of (band, column-in-stack) pairs, bit
	// band*3+column, to the 27-bit word (bit band*9+column) of the pairs
	// that belong to one of the six patterns with all three pairs present.
	stackKeep [512]uint32
	// spreadCols maps nine column bits to those columns' cells in a band.
	spreadCols [512]uint32
	// nthBit[m][k] is one more than the position of the k-th lowest set bit
	// of the nine-bit mask m: the digit, when bit d-1 of m stands for d.
	nthBit [512][9]uint8
	// For a digit-band's minirow occupancy o (after the band rule):
	// minirowSure[o] has the minirows it is sure to use (alone in their
	// row); minirowForce[o] keeps, for each minirow of o, only that minirow
	// within its row and its box; minirowCells[o] has the cells of the
	// minirows of o. minirowSure works on columns too: for nine column bits
	// it gives the columns alone in their box.
	minirowSure                [512]uint16
	minirowForce, minirowCells [512]uint32
	// colForce maps nine column bits to the columns to keep: in each box
	// with a column in the argument, only those columns.
	colForce [512]uint32
	// bandColBits[c] is column c in a band.
	bandColBits [9]uint32
	// patternCount[o] is the number of complete patterns (one minirow per
	// row and per box) among the minirows o, bit r*3+k, plus 16 when it is
	// two; patternPair[o] holds the first two of them as minirow masks.
	patternCount [512]uint8
	patternPair  [512][2]uint16
	// bandNext1 and bandNext2 give a band's two other bands.
	bandNext1 = [3]int{1, 2, 0}
	bandNext2 = [3]int{2, 0, 1}
	// For a cand index i = band*9 + digit, bandOthers[i] packs the
	// indexes of the same digit in the two other bands (bits 0..7 and
	// 8..15), the band (bits 16..17) and a bit for the digit (bit 20+d).
	// Sized 32 for indexes masked with 31.
	bandOthers [32]uint32
)

func init() {
	for x := 0; x < 512; x++ {
		var boxes uint64
		for k := 0; k < 3; k++ {
			if x>>(3*k)&7 != 0 {
				boxes |= 1 << k
			}
		}
		for r := 0; r < 3; r++ {
			rowTable[r][x] = boxes << (32 + 3*r)
			if bits.OnesCount(uint(x)) == 1 {
				rowTable[r][x] |= 511 << (9 * r)
			}
		}
	}
	for occ := 0; occ < 512; occ++ {
		var cells, minirows uint64
		for _, p := range perms3 {
			var mr uint64 // this pattern's minirows, bit r*3+k
			for r := 0; r < 3; r++ {
				mr |= 1 << (r*3 + int(p[r]))
			}
			if uint64(occ)&mr != mr {
				continue
			}
			minirows |= mr
			if n := patternCount[occ]; n < 2 {
				patternPair[occ][n] = uint16(mr)
			}
			patternCount[occ]++
			if patternCount[occ]&15 == 2 {
				patternCount[occ] |= 16
			} else {
				patternCount[occ] &= 15
			}
			for r := 0; r < 3; r++ {
				cells |= 7 << (r*9 + int(p[r])*3)
			}
		}
		bandKeep[occ] = cells | minirows<<32
	}
	for c := 0; c < 9; c++ {
		bandColBits[c] = 1<<c | 1<<(c+9) | 1<<(c+18)
	}
	for cols := 0; cols < 512; cols++ {
		var mask uint32 = bandAll
		for k := 0; k < 3; k++ {
			if in := cols >> (3 * k) & 7; bits.OnesCount(uint(in)) == 1 {
				mask &^= bandColBits[3*k+bits.TrailingZeros(uint(in))]
			}
		}
		colLock[cols] = mask
	}
	for m := 0; m < 512; m++ {
		spreadCols[m] = uint32(m) | uint32(m)<<9 | uint32(m)<<18
		var keep uint32
		for _, p := range perms3 {
			var used uint32
			all := true
			for r := 0; r < 3; r++ {
				if m>>(r*3+int(p[r]))&1 == 0 {
					all = false
					break
				}
				used |= 1 << (r*9 + int(p[r]))
			}
			if all {
				keep |= used
			}
		}
		stackKeep[m] = keep
	}
	for m := 0; m < 512; m++ {
		k := 0
		for b := 0; b < 9; b++ {
			if m>>b&1 != 0 {
				nthBit[m][k] = uint8(b + 1)
				k++
			}
		}
	}
	for o := 0; o < 512; o++ {
		force, cells := uint32(bandAll), uint32(0)
		for r := 0; r < 3; r++ {
			if row := o >> (3 * r) & 7; bits.OnesCount(uint(row)) == 1 {
				minirowSure[o] |= uint16(row) << (3 * r)
			}
			for k := 0; k < 3; k++ {
				if o>>(3*r+k)&1 == 0 {
					continue
				}
				mini := uint32(7) << (9*r + 3*k)
				cells |= mini
				// Drop the rest of row r and of box k.
				drop := uint32(511)<<(9*r) | uint32(7<<(3*k))*(1|1<<9|1<<18)
				force &^= drop &^ mini
			}
		}
		minirowForce[o], minirowCells[o] = force, cells
		keepCols := uint32(511)
		for k := 0; k < 9; k += 3 {
			if g := uint32(o) >> k & 7; g != 0 {
				keepCols &^= (7 &^ g) << k
			}
		}
		colForce[o] = keepCols
	}
	for i := 0; i < 27; i++ {
		band, d := i/9, i%9
		bandOthers[i] = uint32(bandNext1[band]*9+d) | uint32(bandNext2[band]*9+d)<<8 | uint32(band)<<16 | 1<<(20+d)
	}
	for p := 0; p < 27; p++ {
		r, c := p/9, p%9
		var m uint32
		for q := 0; q < 27; q++ {
			qr, qc := q/9, q%9
			if q != p && (qr == r || qc == c || qc/3 == c/3) {
				m |= 1 << q
			}
		}
		bandPeers[p] = m
		col := uint64(bandColBits[p%9])
		colPair[p] = col | col<<27
	}
}
