package engine

// maxPairSets bounds how many sets unavoidablePairs finds: each of the 36
// pairs of digits covers 18 cells, in components of at least 4.
const maxPairSets = 36 * 4

// unavoidablePairs appends to dst the unavoidable sets of the full grid
// sol that hold two digits: for every pair of digits a and b, the smallest
// sets of their cells in which swapping a and b leaves a valid grid. In
// each row, column and box the a and the b swap together or not at all, so
// these sets are the components of the graph that links, in every unit,
// the cell of a to the cell of b. Every puzzle with sol as its only
// solution has a clue in each of them: without one, the swapped grid would
// solve it too.
func unavoidablePairs(dst []CellSet, sol *Grid) []CellSet {
	// at[d][u] is the cell of unit u that holds digit d+1.
	var at [9][27]uint8
	var pos [9]CellSet
	for c, v := range sol {
		d := v - 1
		pos[d].Add(c)
		for _, u := range CellUnits[c] {
			at[d][u] = uint8(c)
		}
	}
	var stack [18]uint8
	for a := 0; a < 9; a++ {
		for b := a + 1; b < 9; b++ {
			left := pos[a].Union(pos[b])
			for !left.Empty() {
				start := left.First()
				var set CellSet
				set.Add(start)
				stack[0] = uint8(start)
				for n := 1; n > 0; {
					n--
					x := stack[n]
					other := a
					if int(sol[x]-1) == a {
						other = b
					}
					for _, u := range CellUnits[x] {
						if y := int(at[other][u]); !set.Has(y) {
							set.Add(y)
							stack[n] = uint8(y)
							n++
						}
					}
				}
				left = left.Minus(set)
				dst = append(dst, set)
			}
		}
	}
	return dst
}
