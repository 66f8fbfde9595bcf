package engine

import "strconv"

// Row, Col and Box give a cell's row, column and box, each 0..8; boxes are
// numbered row by row from the top-left.
func Row(cell int) int { return cell / 9 }

// Col is the cell's column, 0..8.
func Col(cell int) int { return cell % 9 }

// Box is the cell's box, 0..8.
func Box(cell int) int { return cell/27*3 + cell%9/3 }

// CellName is the name a player reads: "r4c7" for row 4, column 7 (1-based).
func CellName(cell int) string {
	return "r" + strconv.Itoa(Row(cell)+1) + "c" + strconv.Itoa(Col(cell)+1)
}

// Unit kinds and the 27 units. Units[0..8] are the rows, Units[9..17] the
// columns and Units[18..26] the boxes, each listing its nine cells in order.
const (
	UnitRow = iota
	UnitCol
	UnitBox
)

// Units lists the cells of the 27 units: rows, then columns, then boxes.
var Units [27][9]uint8

// CellUnits gives, for each cell, the indexes into Units of its row, column and box.
var CellUnits [NumCells][3]uint8

// Peers lists, for each cell, the 20 other cells that share its row, column or box.
var Peers [NumCells][20]uint8

// PeerSet is Peers as a CellSet.
var PeerSet [NumCells]CellSet

// UnitSet is Units as CellSets.
var UnitSet [27]CellSet

// UnitName is the name a player reads for a unit: "row 4", "column 7", "box 6".
func UnitName(u int) string {
	switch {
	case u < 9:
		return "row " + strconv.Itoa(u+1)
	case u < 18:
		return "column " + strconv.Itoa(u-9+1)
	default:
		return "box " + strconv.Itoa(u-18+1)
	}
}

// UnitKind is UnitRow, UnitCol or UnitBox.
func UnitKind(u int) int { return u / 9 }

func init() {
	for i := 0; i < 9; i++ {
		for j := 0; j < 9; j++ {
			Units[i][j] = uint8(i*9 + j)
			Units[9+i][j] = uint8(j*9 + i)
			Units[18+i][j] = uint8((i/3*3+j/3)*9 + i%3*3 + j%3)
		}
	}
	for c := 0; c < NumCells; c++ {
		CellUnits[c] = [3]uint8{uint8(Row(c)), uint8(9 + Col(c)), uint8(18 + Box(c))}
	}
	for u := range Units {
		for _, c := range Units[u] {
			UnitSet[u].Add(int(c))
		}
	}
	for c := 0; c < NumCells; c++ {
		var s CellSet
		for _, u := range CellUnits[c] {
			s = s.Union(UnitSet[u])
		}
		s.Remove(c)
		PeerSet[c] = s
		i := 0
		for p := range s.All() {
			Peers[c][i] = uint8(p)
			i++
		}
	}
}
