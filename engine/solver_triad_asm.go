//go:build goexperiment.simd && amd64

package engine

import "simd/archsimd"

// The propagation core of the triad solver (boxRestrictMore and
// bandEliminateMore, with the checks they inline) is also written in
// assembly, solver_triad_amd64.s, in an AVX2 and an AVX-512 variant. The Go
// versions stay as the reference the tests hold the assembly to.

// Which propagation the triad solver runs.
const (
	triadGo = iota
	triadAVX2
	triadAVX512
)

var triadImpl = triadBestImpl()

// tcRotRows3 rotates each row of a box's matrix by three lanes, as
// tcRotRows does by one (the assembly's own table).
//
//lint:ignore U1000 read by the assembly
var tcRotRows3 archsimd.Int8x32

// triadOrderOff is triadOrder for the assembly, [band][from][k]: the
// box's offset in triadState.boxes and its candidates' in the frame.
//
//lint:ignore U1000 read by the assembly
var triadOrderOff [6][3][3][2]uint16

// triadBoxBands lists, for the assembly, the bands box restrictions
// update, [box][fromVertical]: the first band and the box it hears from
// (its place in the band), then the second band and its box.
//
//lint:ignore U1000 read by the assembly
var triadBoxBands [9][2][4]uint8

func init() {
	for bx := range 9 {
		bi, bj := div3[bx], mod3[bx]
		triadBoxBands[bx] = [2][4]uint8{{3 + bj, bi, bi, bj}, {bi, bj, 3 + bj, bi}}
	}
	for i := range 6 {
		for from := range 3 {
			for k := range 3 {
				box, peer := triadOrderOf(i, from, k)
				triadOrderOff[i][from][k] = [2]uint16{uint16(box) * 32, uint16(peer) * 32}
			}
		}
	}
	if archsimd.X86.AVX2() {
		tcRotRows3 = ctrl16([8]uint8{3, 0, 1, 2, 7, 4, 5, 6}, [8]uint8{3, 0, 1, 2, 7, 4, 5, 6})
		archsimd.ClearAVXUpperBits()
	}
}

// triadBestImpl is the fastest propagation the processor runs.
func triadBestImpl() int {
	switch {
	case !archsimd.X86.AVX2():
		return triadGo
	case archsimd.X86.AVX512() && archsimd.X86.AVX512BITALG():
		return triadAVX512
	}
	return triadAVX2
}

// bandEliminateAVX2 is bandEliminateMore in AVX2 assembly, with a
// VZEROUPPER before it returns.
//
//go:noescape
func bandEliminateAVX2(st *triadState, i, from int) bool

// bandEliminateAVX512 is bandEliminateMore in AVX-512 assembly, with a
// VZEROUPPER before it returns.
//
//go:noescape
func bandEliminateAVX512(st *triadState, i, from int) bool

// chooseBranchAsm is chooseBranchGo in assembly, with a VZEROUPPER before
// it returns.
//
//go:noescape
func chooseBranchAsm(st *triadState) (band int, bit uint16)

// chooseBranch is chooseBranchGo, in assembly where the propagation is.
func chooseBranch(st *triadState) (int, uint16) {
	if triadImpl == triadGo {
		return chooseBranchGo(st)
	}
	return chooseBranchAsm(st)
}

// The function the assembly calls: bandEliminateMore, with the box
// restrictions it leads to (boxRestrictMore) in line, without the
// VZEROUPPER.

//lint:ignore U1000 called from the assembly
//go:noescape
func bandAVX2(st *triadState, i, from int) bool

//lint:ignore U1000 called from the assembly
//go:noescape
func bandAVX512(st *triadState, i, from int) bool

// bandEliminate applies the band's pending eliminations and propagates,
// with the propagation triadImpl names.
func bandEliminate(st *triadState, i, from int) bool {
	if st.conf[i].And(st.elim[i]).IsZero() {
		return true
	}
	switch triadImpl {
	case triadAVX512:
		return bandEliminateAVX512(st, i, from)
	case triadAVX2:
		return bandEliminateAVX2(st, i, from)
	}
	return bandEliminateMore(st, i, from)
}
