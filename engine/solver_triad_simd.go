//go:build goexperiment.simd && amd64

package engine

import (
	"math/bits"
	"simd/archsimd"
	"sync"
	"unsafe"
)

// The triad solver: a Go port of the design of tdoku (github.com/t-dillon/tdoku,
// solver_dpll_triad_simd), built only with GOEXPERIMENT=simd on amd64 and used
// only where the processor has AVX2. Everywhere else the band solver of
// solver_bits.go counts solutions; the tests hold both to the same answers.
//
// Each box is a vector of sixteen 9-bit candidate sets, a 4x4 matrix: the 3x3
// top left are the box's cells, the right column its three horizontal
// negative triads (minirows), the bottom row its three vertical ones
// (minicolumns). Each row and column of the matrix holds every digit exactly
// once (a digit is in a minirow or its negative triad), and each cell holds at
// least one digit. Each band (three boxes in a row, or in a column) keeps, per
// digit, which of the six ways of placing the digit in the band's three
// minirow positions remain ("configurations"). A box sends its band the
// triads it rules out; a band sends its boxes the triads its configurations
// allow, until nothing changes. The search branches on a digit's
// configurations in the band with the fewest left.
//
// The propagation (boxRestrictMore and bandEliminateMore below, which call
// each other) is also written in assembly, solver_triad_amd64.s, where the
// compiler's code fell short: it reloads each constant in every loop
// iteration, has fifteen vector registers, leaves a NOP for each inlined
// call and cannot fuse logic into VPTERNLOG. There, a band's function
// restricts its boxes in line, so that only bands call (themselves). The
// assembly comes in an AVX2 variant and an AVX-512 one (VPOPCNTW for the
// counts, VPTERNLOGD for the and/or chains), chosen at init by the
// processor's features (triadImpl, solver_triad_asm.go). The Go functions
// here stay as the reference: the tests run both on the same puzzles and
// require the same counts and the same guesses. chooseBranch has an
// assembly twin too (the same for both variants); the rest of the search
// (visit, the copies of states) is Go.

type tvec = archsimd.Int16x16

const tAll = 0x1ff

// triadState is one node of the search.
type triadState struct {
	boxes [9]tvec
	// Per band (0-2 horizontal, 3-5 vertical), lanes 0-5: the
	// configurations each digit can still take, and those to rule out at
	// the band's next update. Both halves of each vector hold the same,
	// so that the band's work needs no 128-bit vectors.
	conf [6]tvec
	elim [6]tvec
}

// Constant vectors, built once from the lane tables below.
var (
	tvAll, tvBoxMin, tvThree, tvCell3x3, tvMask4 tvec
	tvPopLUT                                     archsimd.Int8x32
	tcRotRows, tcRowRot1, tcRowRot2              archsimd.Int8x32
	tcHTriads                                    archsimd.Uint32x8
	tcShift16                                    [9][3]archsimd.Int8x32 // [box][shift]
	tcBandElim                                   [4]archsimd.Int8x32
	tcCfgToTriads                                [2]archsimd.Int8x32
	tcPosToCand                                  [2][2]archsimd.Int8x32 // [vertical][part]
	tcRotCols1, tcRotCols2                       archsimd.Uint32x8
	tvAllBox3, tvAll6, tvZero                    tvec // a loaded zero, where a literal would be a legacy SSE move
	tvDigit                                      [9]tvec
	tvLane                                       [8]tvec // all ones in one lane of each half
	tvPeerElem                                   [3][4]tvec
	tvAssign                                     [9][16]tvec // [digit][box lane]
	div3                                         = [9]uint8{0, 0, 0, 1, 1, 1, 2, 2, 2}
	mod3                                         = [9]uint8{0, 1, 2, 0, 1, 2, 0, 1, 2}
	triadOrder                                   [6][3][3]struct{ box, peer uint8 } // [band][from]: the boxes to restrict, the inbound one last
	triadReady, triadBitalg                      bool
)

const zz = 0xff // a lane index that zeroes the lane

// laneCtrl turns 16-bit lane indices (0-7, within each 128-bit half) into a
// byte shuffle control.
func laneCtrl(lanes []uint8) [32]int8 {
	var b [32]int8
	for i, l := range lanes {
		if l == zz {
			b[2*i], b[2*i+1] = -1, -1
		} else {
			b[2*i], b[2*i+1] = int8(2*l), int8(2*l+1)
		}
	}
	return b
}

func ctrl16(lo, hi [8]uint8) archsimd.Int8x32 {
	b := laneCtrl(append(lo[:], hi[:]...))
	return archsimd.LoadInt8x32(&b)
}

// hLanes moves the lanes 4, 5, 6 a shift table reads to 3, 7, 5, where
// triadsOf leaves a box's horizontal triads.
func hLanes(l [8]uint8) [8]uint8 {
	for i, x := range l {
		switch x {
		case 4:
			l[i] = 3
		case 5:
			l[i] = 7
		case 6:
			l[i] = 5
		}
	}
	return l
}

func vec16(l [16]uint16) tvec     { return archsimd.LoadUint16x16(&l).AsInt16x16() }
func lanes16(v *tvec) *[16]uint16 { return (*[16]uint16)(unsafe.Pointer(v)) }

// dup8 is the vector with l in both halves.
func dup8(l [8]uint16) tvec { return vec16([16]uint16(append(l[:], l[:]...))) }

func dupLo(v tvec) tvec { return v.Select128FromPair(0, 0, v) }
func dupHi(v tvec) tvec { return v.Select128FromPair(1, 1, v) }

// swap64 swaps the 64-bit halves of each 128-bit half.
func swap64(v tvec) tvec { return v.AsInt32x8().PermuteScalarsGrouped(2, 3, 0, 1).AsInt16x16() }

func init() {
	if !archsimd.X86.AVX2() {
		return
	}
	triadReady = true
	for i := range 6 {
		for from := range 3 {
			for k := range 3 {
				o := &triadOrder[i][from][k]
				o.box, o.peer = triadOrderOf(i, from, k)
			}
		}
	}
	triadBitalg = archsimd.X86.AVX512BITALG()
	var all [16]uint16
	for i := range all {
		all[i] = tAll
	}
	tvAll = vec16(all)
	tvBoxMin = vec16([16]uint16{1, 1, 1, 6, 1, 1, 1, 6, 1, 1, 1, 6, 6, 6, 6, 0})
	tvThree = archsimd.BroadcastInt16x16(3)
	tvMask4 = archsimd.BroadcastInt16x16(0x0f)
	tvCell3x3 = vec16([16]uint16{tAll, tAll, tAll, 0, tAll, tAll, tAll, 0, tAll, tAll, tAll, 0, 0, 0, 0, 0})
	lut := [32]uint8{0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4}
	tvPopLUT = archsimd.LoadUint8x32(&lut).AsInt8x32()
	tcRotRows = ctrl16([8]uint8{1, 2, 3, 0, 5, 6, 7, 4}, [8]uint8{1, 2, 3, 0, 5, 6, 7, 4})
	tcRowRot1 = ctrl16([8]uint8{1, 2, 0, 3, 5, 6, 4, 7}, [8]uint8{1, 2, 0, 3, 4, 5, 6, 7})
	tcRowRot2 = ctrl16([8]uint8{2, 0, 1, 3, 6, 4, 5, 7}, [8]uint8{2, 0, 1, 3, 4, 5, 6, 7})
	ht := [8]uint32{0, 1, 5, 3, 4, 5, 6, 7}
	tcHTriads = archsimd.LoadUint32x8(&ht)
	shifts := [3][3][8]uint8{
		{{4, 5, 6, 6, 4, 5, zz, zz}, {5, 6, 4, 5, 6, 4, zz, zz}, {6, 4, 5, 4, 5, 6, zz, zz}},
		{{5, 6, 4, 4, 5, 6, zz, zz}, {6, 4, 5, 6, 4, 5, zz, zz}, {4, 5, 6, 5, 6, 4, zz, zz}},
		{{6, 4, 5, 5, 6, 4, zz, zz}, {4, 5, 6, 4, 5, 6, zz, zz}, {5, 6, 4, 6, 4, 5, zz, zz}},
	}
	none := [8]uint8{zz, zz, zz, zz, zz, zz, zz, zz}
	tcBandElim = [4]archsimd.Int8x32{
		ctrl16(shifts[1][0], shifts[1][2]), ctrl16(shifts[2][0], shifts[2][2]),
		ctrl16(shifts[1][1], none), ctrl16(shifts[2][1], none),
	}
	for s := range 3 {
		for i := range 3 {
			for j := range 3 {
				tcShift16[j*3+i][s] = ctrl16(hLanes(shifts[s][i]), shifts[s][j])
			}
		}
	}
	tcCfgToTriads[0] = ctrl16([8]uint8{0, 1, 2, zz, 2, 0, 1, zz}, [8]uint8{1, 2, 0, zz, zz, zz, zz, zz})
	tcCfgToTriads[1] = ctrl16([8]uint8{4, 5, 3, zz, 5, 3, 4, zz}, [8]uint8{3, 4, 5, zz, zz, zz, zz, zz})
	tcPosToCand[0][0] = ctrl16([8]uint8{0, 0, 0, 1, 1, 1, 1, 2}, [8]uint8{2, 2, 2, 0, 3, 3, 3, 3})
	tcPosToCand[0][1] = ctrl16([8]uint8{0, 0, 0, 2, 1, 1, 1, 0}, [8]uint8{2, 2, 2, 1, 3, 3, 3, 3})
	tcPosToCand[1][0] = ctrl16([8]uint8{0, 1, 2, 3, 0, 1, 2, 3}, [8]uint8{0, 1, 2, 3, 1, 2, 0, 3})
	tcPosToCand[1][1] = ctrl16([8]uint8{0, 1, 2, 3, 0, 1, 2, 3}, [8]uint8{0, 1, 2, 3, 2, 0, 1, 3})
	r1 := [8]uint32{2, 3, 4, 5, 6, 7, 0, 1}
	r2 := [8]uint32{4, 5, 6, 7, 0, 1, 2, 3}
	tcRotCols1 = archsimd.LoadUint32x8(&r1)
	tcRotCols2 = archsimd.LoadUint32x8(&r2)
	tvAllBox3 = dup8([8]uint16{0, 0, 0, tAll, 0, 0, 0, 0})
	tvAll6 = dup8([8]uint16{tAll, tAll, tAll, tAll, tAll, tAll, 0, 0})
	for d := range 9 {
		tvDigit[d] = archsimd.BroadcastInt16x16(1 << d)
	}
	for j := range 8 {
		var l [8]uint16
		l[j] = 0xffff
		tvLane[j] = dup8(l)
	}
	const A = tAll
	peerElem := [3][4][8]uint16{
		{{0, A, A, A, 0, A, 0, 0}, {A, 0, A, A, A, 0, 0, 0}, {A, A, 0, 0, A, A, 0, 0}, {}},
		{{A, A, 0, A, A, 0, 0, 0}, {0, A, A, 0, A, A, 0, 0}, {A, 0, A, A, 0, A, 0, 0}, {}},
		{{A, 0, A, 0, A, A, 0, 0}, {A, A, 0, A, 0, A, 0, 0}, {0, A, A, A, A, 0, 0, 0}, {}},
	}
	for i := range 3 {
		for j := range 4 {
			tvPeerElem[i][j] = dup8(peerElem[i][j])
		}
	}
	for _, i := range []int{0, 1, 2, 4, 5, 6, 8, 9, 10} {
		for d := range 9 {
			var m [16]uint16
			for j := range 15 {
				switch {
				case j == i:
					m[j] = tAll ^ (1 << d)
				case j/4 < 3 && j%4 < 3:
					m[j] = 1 << d
				case j/4 == i/4 || j%4 == i%4:
					m[j] = 1 << d
				}
			}
			tvAssign[d][i] = vec16(m)
		}
	}
	archsimd.ClearAVXUpperBits()
}

// triadOrderOf is the k-th box band i restricts after hearing from the
// band's box from (0-2), and that box's place in the band: the other two
// in turn, the inbound one last.
func triadOrderOf(i, from, k int) (box, peer uint8) {
	p := [3]int{(from + 1) % 3, (from + 2) % 3, from}[k]
	if i < 3 {
		return uint8(i*3 + p), uint8(p)
	}
	return uint8(p*3 + i - 3), uint8(p)
}

func shuf(v tvec, c archsimd.Int8x32) tvec {
	return v.AsInt8x32().PermuteOrZeroGrouped(c).AsInt16x16()
}

// popcounts9 counts the bits of each lane (9-bit values).
func popcounts9(v tvec) tvec {
	if triadBitalg {
		return v.OnesCount()
	}
	lo := tvPopLUT.PermuteOrZeroGrouped(v.And(tvMask4).AsInt8x32()).AsInt16x16()
	// The arithmetic shifts (the lanes are below 2^9) take an immediate
	// count; the logical ones would load it into a register first.
	mid := tvPopLUT.PermuteOrZeroGrouped(v.ShiftAllRight(4).AsInt8x32()).AsInt16x16()
	return lo.Add(mid).Add(v.ShiftAllRight(8))
}

func whichEqual(a, b tvec) tvec {
	return a.Equal(b).ToInt16x16()
}

func rotRows2(v tvec) tvec { return v.AsInt32x8().PermuteScalarsGrouped(1, 0, 3, 2).AsInt16x16() }

// boxRestrict restricts box bx to cand and propagates. The test for
// nothing to do, the common case, is inlined into the caller.
func boxRestrict(st *triadState, bx int, cand tvec, fromVertical bool) bool {
	elim := st.boxes[bx].AndNot(cand)
	if elim.IsZero() {
		return true
	}
	return boxRestrictMore(st, bx, elim, fromVertical)
}

// boxRestrictMore rules elim out of box bx and propagates.
func boxRestrictMore(st *triadState, bx int, elim tvec, fromVertical bool) bool {
	cells := st.boxes[bx]
	bi, bj := int(div3[bx]), int(mod3[bx])
	// The eliminations for the horizontal band (low half) and the vertical
	// one (high half), kept in one 256-bit vector: the compiler spills a
	// 128-bit one with a legacy SSE move, which stalls on the AVX state.
	var hv tvec
	for {
		// Written out, not through small helpers: each call inlined
		// leaves a NOP behind in the loop.
		cells = cells.AndNot(elim)
		counts := popcounts9(cells)
		if !tvBoxMin.Greater(counts).ToInt16x16().IsZero() {
			return false
		}
		as := cells.And(counts.Equal(tvBoxMin).ToInt16x16())
		// Add the candidates that occur once in their matrix row (the
		// rows rotated), then in their column (the columns rotated).
		r := cells.AsInt8x32().PermuteOrZeroGrouped(tcRotRows).AsInt16x16()
		two, one := cells.And(r), cells.Or(r)
		r = r.AsInt8x32().PermuteOrZeroGrouped(tcRotRows).AsInt16x16()
		two, one = one.And(r).Or(two), one.Or(r)
		r = r.AsInt8x32().PermuteOrZeroGrouped(tcRotRows).AsInt16x16()
		as = cells.AndNot(one.And(r).Or(two)).Or(as)
		r = cells.AsInt32x8().Permute(tcRotCols1).AsInt16x16()
		two, one = cells.And(r), cells.Or(r)
		r = r.AsInt32x8().Permute(tcRotCols1).AsInt16x16()
		two, one = one.And(r).Or(two), one.Or(r)
		r = r.AsInt32x8().Permute(tcRotCols1).AsInt16x16()
		as = cells.AndNot(one.And(r).Or(two)).Or(as)

		cellAs := as.And(tvCell3x3)
		rows := cellAs.Or(cellAs.AsInt8x32().PermuteOrZeroGrouped(tcRotRows).AsInt16x16())
		rows = rows.Or(rotRows2(rows))
		cols := cellAs.Or(cellAs.AsInt32x8().Permute(tcRotCols1).AsInt16x16())
		cols = cols.Or(cols.AsInt32x8().Permute(tcRotCols2).AsInt16x16())
		nbe := cols.Or(cols.AsInt8x32().PermuteOrZeroGrouped(tcRowRot1).AsInt16x16()).
			Or(cols.AsInt8x32().PermuteOrZeroGrouped(tcRowRot2).AsInt16x16())
		nonzero := cellAs.Greater(archsimd.Int16x16{}).ToInt16x16()
		nbe = nbe.Or(rows).Or(nonzero)
		elim = nbe.Xor(cellAs).Or(elim)

		// The box's horizontal triads (lanes 3, 7, 11) gathered into
		// the low half, in lanes 3, 7 and 5, beside its vertical ones in
		// the high half (lanes 4-6 of it), for the shift tables.
		neg := as.AsInt32x8().Permute(tcHTriads).AsInt8x32()
		pos := nbe.AsInt32x8().Permute(tcHTriads).AsInt8x32()
		sh := &tcShift16[bx]
		hv = hv.Or(neg.PermuteOrZeroGrouped(sh[0]).Or(pos.PermuteOrZeroGrouped(sh[1])).Or(pos.PermuteOrZeroGrouped(sh[2])).AsInt16x16())
		if elim.And(cells).IsZero() {
			break
		}
	}
	st.boxes[bx] = cells
	st.elim[bi] = st.elim[bi].Or(dupLo(hv))
	st.elim[3+bj] = st.elim[3+bj].Or(dupHi(hv))
	if fromVertical {
		return bandEliminateGo(st, bi, bj) && bandEliminateGo(st, 3+bj, bi)
	}
	return bandEliminateGo(st, 3+bj, bi) && bandEliminateGo(st, bi, bj)
}

func configsToTriads(c tvec) tvec {
	return shuf(c, tcCfgToTriads[0]).Or(shuf(c, tcCfgToTriads[1]))
}

// triadsToCandidates turns the positive triads of a box (lanes 0-2 of both
// halves of t) into the candidates its band allows it.
func triadsToCandidates(t tvec, vertical int) tvec {
	t = t.Or(tvAllBox3)
	return shuf(t, tcPosToCand[vertical][0]).Or(shuf(t, tcPosToCand[vertical][1]))
}

// bandEliminateGo applies the band's pending eliminations and sends the
// triads it still allows to its boxes, the one it heard from (from) last.
// Band i is horizontal band i (0-2) or vertical band i-3 (3-5).
func bandEliminateGo(st *triadState, i, from int) bool {
	if st.conf[i].And(st.elim[i]).IsZero() {
		return true
	}
	return bandEliminateMore(st, i, from)
}

func bandEliminateMore(st *triadState, i, from int) bool {
	vertical := int(div3[i])
	conf := st.conf[i].AndNot(st.elim[i])
	triads := configsToTriads(conf)
	as := triads.And(whichEqual(popcounts9(triads), tvThree))
	sw := swap64(as)
	e := shuf(sw, tcBandElim[0]).Or(shuf(sw, tcBandElim[1])).Or(shuf(as, tcBandElim[2])).Or(shuf(as, tcBandElim[3]))
	conf = conf.AndNot(e.Or(e.Select128FromPair(1, 0, e)))
	st.conf[i] = conf
	// The positive triads of each of the band's boxes (the rows of the
	// 3x3 matrix configsToTriads makes), in lanes 0-2 of both halves.
	triads = configsToTriads(conf)
	cands := [3]tvec{
		triadsToCandidates(dupLo(triads), vertical),
		triadsToCandidates(dupLo(swap64(triads)), vertical),
		triadsToCandidates(dupHi(triads), vertical),
	}
	o := &triadOrder[i][from]
	fv := vertical == 1
	return boxRestrict(st, int(o[0].box), cands[o[0].peer&3], fv) &&
		boxRestrict(st, int(o[1].box), cands[o[1].peer&3], fv) &&
		boxRestrict(st, int(o[2].box), cands[o[2].peer&3], fv)
}

// triadSearch holds one search's limit, findings and stack of states.
type triadSearch struct {
	limit, count, guesses int
	wantFirst             bool // keep the first solution in first
	first                 Grid
	stack                 []triadState
}

var triadPool = sync.Pool{New: func() any { return &triadSearch{stack: make([]triadState, 64)} }}

// chooseBranchGo returns the band with the fewest configurations left,
// among those not fixed (each digit one configuration: 9 in all), and the
// digit in it with the fewest configurations (two if any), or band -1.
func chooseBranchGo(st *triadState) (int, uint16) {
	best, bestN := -1, 1<<30
	for i := range 6 {
		u := (*[2]uint64)(unsafe.Pointer(&st.conf[i]))
		n := bits.OnesCount64(u[0]) + bits.OnesCount64(u[1])
		if n >= 10 && n < bestN {
			best, bestN = i, n
		}
	}
	if best < 0 {
		return -1, 0
	}
	l := lanes16(&st.conf[best])
	var one, two, three, four uint16
	for _, x := range l[:6] {
		four |= three & x
		three |= two & x
		two |= one & x
		one |= x
	}
	if m := two &^ three; m != 0 {
		return best, m & -m
	}
	if m := three &^ four; m != 0 {
		return best, m & -m
	}
	return best, four & -four
}

// copyTo copies st to nx a vector at a time, written out: a loop spills its
// index at each turn, and a struct copy moves 16 bytes at a time.
func (st *triadState) copyTo(nx *triadState) {
	nx.boxes[0] = st.boxes[0]
	nx.boxes[1] = st.boxes[1]
	nx.boxes[2] = st.boxes[2]
	nx.boxes[3] = st.boxes[3]
	nx.boxes[4] = st.boxes[4]
	nx.boxes[5] = st.boxes[5]
	nx.boxes[6] = st.boxes[6]
	nx.boxes[7] = st.boxes[7]
	nx.boxes[8] = st.boxes[8]
	nx.conf[0] = st.conf[0]
	nx.conf[1] = st.conf[1]
	nx.conf[2] = st.conf[2]
	nx.conf[3] = st.conf[3]
	nx.conf[4] = st.conf[4]
	nx.conf[5] = st.conf[5]
	nx.elim[0] = st.elim[0]
	nx.elim[1] = st.elim[1]
	nx.elim[2] = st.elim[2]
	nx.elim[3] = st.elim[3]
	nx.elim[4] = st.elim[4]
	nx.elim[5] = st.elim[5]
}

// visit counts the solutions below s.stack[d], branching on the first of
// a digit's configurations in a band (in the state above) and then on the
// rest of them (here).
func (s *triadSearch) visit(d int) {
	for {
		st := &s.stack[d]
		band, bit := chooseBranch(st)
		if band < 0 {
			s.count++
			if s.count == 1 && s.wantFirst {
				archsimd.ClearAVXUpperBits() // before grid's legacy SSE moves
				s.first = st.grid()
			}
			return
		}
		c := lanes16(&st.conf[band])
		j := 0
		for c[j]&bit == 0 {
			j++
		}
		// No 128-bit vector stays live across the calls below: the
		// compiler spills those with legacy SSE moves, which stall on the
		// AVX state. The digit's configurations are taken again after.
		digit := bits.TrailingZeros16(bit)
		s.guesses++
		if d+1 == len(s.stack) {
			s.stack = append(s.stack, triadState{})
			st = &s.stack[d]
		}
		nx := &s.stack[d+1]
		st.copyTo(nx)
		nx.elim[band] = nx.elim[band].Or(nx.conf[band].And(tvDigit[digit]).AndNot(tvLane[j]))
		if bandEliminate(nx, band, 0) {
			s.visit(d + 1)
			if s.count >= s.limit {
				return
			}
		}
		st = &s.stack[d]
		st.elim[band] = st.elim[band].Or(st.conf[band].And(tvDigit[digit]).And(tvLane[j]))
		if !bandEliminate(st, band, 0) {
			return
		}
	}
}

// triadCells tells load where each cell sits in the triad solver's state,
// a byte each: its box, its lane there, its horizontal and vertical bands,
// and the masks of its place in them (indices into tvPeerElem, as a
// [12]tvec). One word each, so that it is read in one load.
var triadCells = func() (t [81]uint64) {
	for cell := range t {
		r, c := cell/9, cell%9
		bi, bj, ei, ej := r/3, c/3, r%3, c%3
		for k, f := range []int{bi*3 + bj, ei*4 + ej, bi, 3 + bj, bj*4 + ei, bi*4 + ej} {
			t[cell] |= uint64(f) << (8 * k)
		}
	}
	return t
}()

// load sets up st for the givens of g, without propagating beyond the
// clues' own boxes, as tdoku does; it reports false for a value out of
// range. It visits the givens only, found with a vector compare: a branch
// on each cell would be mispredicted at every turn from a given to an
// empty cell. Givens that repeat a digit in a unit need no check here: the
// first propagation fails on them. In a box, each given takes the digit
// out of the other's cell; in a row or column across boxes, the band is
// left no configuration for the digit, so the triads it allows the
// givens' boxes lack the digit, and the givens' cells are left empty.
func (st *triadState) load(g *Grid) bool {
	for i := range st.boxes {
		st.boxes[i] = tvAll
	}
	for i := range st.conf {
		st.conf[i] = tvAll6
		st.elim[i] = tvZero
	}
	var zero archsimd.Uint8x32
	given := [2]uint64{
		uint64(^archsimd.LoadUint8x32((*[32]uint8)(g[0:32])).Equal(zero).ToBits()) |
			uint64(^archsimd.LoadUint8x32((*[32]uint8)(g[32:64])).Equal(zero).ToBits())<<32,
		uint64(^archsimd.LoadUint8x32((*[32]uint8)(g[49:81])).Equal(zero).ToBits() >> 15),
	}
	for w, m := range given {
		for ; m != 0; m &= m - 1 {
			cell := w*64 + bits.TrailingZeros64(m)
			d := uint(g[cell]) - 1
			if d >= 9 {
				return false
			}
			// The offsets come from the table, so that st's arrays
			// need no bounds checks.
			t := triadCells[cell%81]
			at := func(base unsafe.Pointer, field uint) *tvec {
				return (*tvec)(unsafe.Add(base, uintptr(t>>(8*field)&0xff)<<5))
			}
			digit := tvDigit[d]
			bp, hp, vp := at(unsafe.Pointer(&st.boxes), 0), at(unsafe.Pointer(&st.elim), 2), at(unsafe.Pointer(&st.elim), 3)
			*bp = bp.AndNot(*at(unsafe.Pointer(&tvAssign[d]), 1))
			*hp = at(unsafe.Pointer(&tvPeerElem), 4).And(digit).Or(*hp)
			*vp = at(unsafe.Pointer(&tvPeerElem), 5).And(digit).Or(*vp)
		}
	}
	return true
}

func (st *triadState) grid() Grid {
	var g Grid
	for bx := range 9 {
		l := lanes16(&st.boxes[bx])
		base := bx/3*27 + bx%3*3
		for i := range 3 {
			for j := range 3 {
				g[base+i*9+j] = uint8(bits.TrailingZeros16(l[i*4+j]) + 1)
			}
		}
	}
	return g
}

// triadName names the triad solver and the instructions it uses here, or
// is empty where the processor lacks them.
func triadName() string {
	switch {
	case !triadReady:
		return ""
	case triadImpl == triadAVX512:
		return "the triad solver (assembly, AVX-512)"
	case triadImpl == triadAVX2:
		return "the triad solver (assembly, AVX2)"
	case triadBitalg:
		return "the triad solver (Go, AVX2, VPOPCNTW)"
	}
	return "the triad solver (Go, AVX2)"
}

// triadSolve counts g's solutions up to limit with the triad solver, and
// returns the first one found when wantFirst is set; ok is false where the
// processor lacks what it needs.
func triadSolve(g *Grid, limit int, wantFirst bool) (count int, first Grid, guesses int, ok bool) {
	if !triadReady {
		return 0, Grid{}, 0, false
	}
	if limit < 1 {
		limit = 1
	}
	s := triadPool.Get().(*triadSearch)
	s.limit, s.count, s.guesses, s.wantFirst = limit, 0, 0, wantFirst
	st := &s.stack[0]
	if st.load(g) && bandEliminate(st, 0, 1) && bandEliminate(st, 3, 1) &&
		bandEliminate(st, 1, 2) && bandEliminate(st, 4, 2) &&
		bandEliminate(st, 2, 0) && bandEliminate(st, 5, 0) {
		s.visit(0)
	}
	// Leave no AVX upper state behind: the rest of the program uses legacy
	// SSE instructions, and each would stall on it.
	archsimd.ClearAVXUpperBits()
	count, guesses = s.count, s.guesses
	if count > 0 && wantFirst {
		first = s.first
	}
	triadPool.Put(s)
	return count, first, guesses, true
}
