//go:build goexperiment.simd && amd64

#include "go_asm.h"
#include "textflag.h"
#include "funcdata.h"

// The triad solver's propagation (boxRestrictMore and bandEliminateMore of
// solver_triad_simd.go, with the inlined checks of the calls they make) in
// two variants: AVX2, and AVX-512 (VL, BW, BITALG). Both are written once,
// as the macro BAND_BODY, over a few operation macros that each variant
// defines: the AVX-512 one counts bits with VPOPCNTW and fuses the
// and/or/xor chains into VPTERNLOGD. At the end, chooseBranch, scalar and
// the same for both.
//
// One function per variant, the band's, is ABI0 (arguments on the stack)
// and calls itself: it restricts the band's three boxes in line (BAND_BOX),
// and each box restricted calls it for the box's two bands. Go calls
// bandEliminateAVX2 or bandEliminateAVX512, which call the band function
// and clear the upper halves of the vector registers after. What a band
// needs after a call is in *st or its own frame: the call clobbers Y0-Y11.
// Y12-Y15 hold constants, which every entry loads (so that a restart after
// the stack has grown, which clobbers every register, is safe) and nothing
// else writes, so they hold across calls.
//
// Registers in a box's restriction: Y0 the box's cells, Y1 the
// eliminations, Y10 the triads for the bands, Y11 scratch of the operation
// macros, Y12 the popcount table (AVX2), Y13 tcHTriads, Y14 tvBoxMin, Y15
// zero; AX the box's offset in triadState.boxes, R8 its shift tables.
//
// Operand order is Go's: sources first, destination last; VPANDN m, s, d
// is d = ^s & m.

// Frame of the band function ($160): 32 bytes of arguments for its calls,
// the address of the order of its boxes, the address of the current box's
// bands in triadBoxBands, 4 if the band is vertical (else 0), then the
// three boxes' candidates (96 bytes).
#define BAND_ORDER 32
#define BAND_BOXB 40
#define BAND_FV 48
#define BAND_CANDS 64

// Update band R11 (heard from box R12) when it has eliminations pending,
// and fail when that fails.
#define BOX_BAND(BAND, next) \
	MOVQ	R11, CX; \
	SHLQ	$5, CX; \
	VMOVDQU	triadState_conf(DI)(CX*1), Y2; \
	VPTEST	triadState_elim(DI)(CX*1), Y2; \
	JEQ	next; \
	MOVQ	DI, 0(SP); \
	MOVQ	R11, 8(SP); \
	MOVQ	R12, 16(SP); \
	CALL	BAND(SB); \
	CMPB	24(SP), $0; \
	JEQ	bandFail; \
	MOVQ	st+0(FP), DI; \
next:

// One of the band's three boxes, SI its triadOrderOff: restrict the box to
// the candidates of its place in the band, when that rules anything out,
// and propagate (boxRestrictMore).
#define BAND_BOX(k0, k1, BAND, loop, second, done, next) \
	MOVWQZX	k0(SI), AX; \
	MOVWQZX	k1(SI), DX; \
	VMOVDQU	triadState_boxes(DI)(AX*1), Y0; \
	VMOVDQU	BAND_CANDS(SP)(DX*1), Y1; \
	VPANDN	Y0, Y1, Y1; \
	VPTEST	Y1, Y1; \
	JEQ	next; \
	MOVQ	AX, BX; \
	SHRQ	$5, BX; \
	LEAQ	·tcShift16(SB), R8; \
	IMUL3Q	$96, BX, CX; \
	ADDQ	CX, R8; \
	VPXOR	Y10, Y10, Y10; \
loop: \
	VPANDN	Y0, Y1, Y0; \
	POPC9(Y0, Y2, Y3, Y4); \
	VPCMPGTW	Y2, Y14, Y3; \
	VPTEST	Y3, Y3; \
	JNE	bandFail; \
	VPCMPEQW	Y2, Y14, Y3; \
	VPAND	Y0, Y3, Y3; \
	/* Y3 as: the candidates to assign. Add those in no other lane of */ \
	/* their row (Y4 the other lanes of the row, rotated), or of their */ \
	/* column (Y5). */ \
	ROWS1(Y0, Y4); \
	ROWS2(Y0, Y5); \
	ROWS3(Y0, Y6); \
	OR3(Y4, Y5, Y6); \
	VPERMQ	$0x39, Y0, Y5; \
	VPERMQ	$0x4e, Y0, Y6; \
	VPERMQ	$0x93, Y0, Y7; \
	OR3(Y5, Y6, Y7); \
	VPAND	Y4, Y5, Y5; \
	ORANDN(Y3, Y0, Y5); \
	/* Y4 cellAs, Y5 rows, Y6 cols, Y7 nbe. */ \
	VPAND	·tvCell3x3(SB), Y3, Y4; \
	ROWS1(Y4, Y5); \
	VPOR	Y4, Y5, Y5; \
	ROWS2(Y5, Y6); \
	VPOR	Y6, Y5, Y5; \
	VPERMQ	$0x39, Y4, Y6; \
	VPOR	Y4, Y6, Y6; \
	VPERMQ	$0x4e, Y6, Y7; \
	VPOR	Y7, Y6, Y6; \
	VPSHUFB	·tcRowRot1(SB), Y6, Y7; \
	VPSHUFB	·tcRowRot2(SB), Y6, Y8; \
	OR3(Y7, Y6, Y8); \
	VPCMPGTW	Y15, Y4, Y8; \
	OR3(Y7, Y5, Y8); \
	ORXOR(Y1, Y7, Y4); \
	/* The triads for the bands. */ \
	VPERMD	Y3, Y13, Y3; \
	VPERMD	Y7, Y13, Y7; \
	VPSHUFB	(R8), Y3, Y3; \
	VPSHUFB	32(R8), Y7, Y8; \
	VPSHUFB	64(R8), Y7, Y7; \
	OR3(Y10, Y3, Y8); \
	VPOR	Y7, Y10, Y10; \
	VPTEST	Y0, Y1; \
	JNE	loop; \
	VMOVDQU	Y0, triadState_boxes(DI)(AX*1); \
	/* The box's bands (triadBoxBands): the horizontal one gets the */ \
	/* low half of Y10, the vertical one the high half. */ \
	LEAQ	·triadBoxBands(SB), SI; \
	LEAQ	(SI)(BX*8), SI; \
	MOVBQZX	4(SI), CX; \
	SHLQ	$5, CX; \
	VPERMQ	$0x44, Y10, Y2; \
	VPOR	triadState_elim(DI)(CX*1), Y2, Y2; \
	VMOVDQU	Y2, triadState_elim(DI)(CX*1); \
	MOVBQZX	6(SI), CX; \
	SHLQ	$5, CX; \
	VPERMQ	$0xee, Y10, Y2; \
	VPOR	triadState_elim(DI)(CX*1), Y2, Y2; \
	VMOVDQU	Y2, triadState_elim(DI)(CX*1); \
	/* Then updated, in the order for this band's direction. */ \
	ADDQ	BAND_FV(SP), SI; \
	MOVQ	SI, BAND_BOXB(SP); \
	MOVBQZX	(SI), R11; \
	MOVBQZX	1(SI), R12; \
	BOX_BAND(BAND, second); \
	MOVQ	BAND_BOXB(SP), SI; \
	MOVBQZX	2(SI), R11; \
	MOVBQZX	3(SI), R12; \
	BOX_BAND(BAND, done); \
	MOVQ	BAND_ORDER(SP), SI; \
next:

// triadsToCandidates of Y3 (the box's triads in lanes 0-2 of both halves),
// with DX the tcPosToCand pair for the band's direction, into the frame.
#define BAND_CAND(off) \
	VPOR	·tvAllBox3(SB), Y3, Y3; \
	VPSHUFB	(DX), Y3, Y4; \
	VPSHUFB	32(DX), Y3, Y3; \
	VPOR	Y4, Y3, Y3; \
	VMOVDQU	Y3, off(SP)

// bandEliminate(st *triadState, i, from int) bool
#define BAND_BODY(BAND) \
	MOVQ	st+0(FP), DI; \
	MOVQ	i+8(FP), BX; \
	MOVQ	BX, AX; \
	SHLQ	$5, AX; \
	POPC_SETUP; \
	VMOVDQU	·tcHTriads(SB), Y13; \
	VMOVDQU	·tvBoxMin(SB), Y14; \
	VPXOR	Y15, Y15, Y15; \
	VMOVDQU	triadState_conf(DI)(AX*1), Y0; \
	VMOVDQU	triadState_elim(DI)(AX*1), Y1; \
	VPANDN	Y0, Y1, Y0; \
	VPSHUFB	·tcCfgToTriads(SB), Y0, Y2; \
	VPSHUFB	·tcCfgToTriads+32(SB), Y0, Y3; \
	VPOR	Y3, Y2, Y2; \
	POPC9(Y2, Y3, Y4, Y5); \
	VPCMPEQW	·tvThree(SB), Y3, Y3; \
	VPAND	Y2, Y3, Y3; \
	VPSHUFD	$0x4e, Y3, Y4; \
	VPSHUFB	·tcBandElim(SB), Y4, Y5; \
	VPSHUFB	·tcBandElim+32(SB), Y4, Y4; \
	VPSHUFB	·tcBandElim+64(SB), Y3, Y6; \
	VPSHUFB	·tcBandElim+96(SB), Y3, Y3; \
	OR3(Y5, Y4, Y6); \
	VPOR	Y3, Y5, Y5; \
	VPERMQ	$0x4e, Y5, Y4; \
	ANDNOR(Y0, Y5, Y4); \
	VMOVDQU	Y0, triadState_conf(DI)(AX*1); \
	VPSHUFB	·tcCfgToTriads(SB), Y0, Y2; \
	VPSHUFB	·tcCfgToTriads+32(SB), Y0, Y3; \
	VPOR	Y3, Y2, Y2; \
	/* BAND_FV: 4 for bands 3-5, the vertical ones. */ \
	LEAQ	5(BX), CX; \
	SHRQ	$3, CX; \
	SHLQ	$2, CX; \
	MOVQ	CX, BAND_FV(SP); \
	LEAQ	·tcPosToCand(SB), DX; \
	SHLQ	$4, CX; \
	ADDQ	CX, DX; \
	VPERMQ	$0x44, Y2, Y3; \
	BAND_CAND(BAND_CANDS); \
	VPERMQ	$0x11, Y2, Y3; \
	BAND_CAND(BAND_CANDS+32); \
	VPERMQ	$0xee, Y2, Y3; \
	BAND_CAND(BAND_CANDS+64); \
	IMUL3Q	$36, BX, BX; \
	MOVQ	from+16(FP), CX; \
	IMUL3Q	$12, CX, CX; \
	ADDQ	CX, BX; \
	LEAQ	·triadOrderOff(SB), SI; \
	ADDQ	BX, SI; \
	MOVQ	SI, BAND_ORDER(SP); \
	BAND_BOX(0, 2, BAND, box1Loop, box1Second, box1Done, band1); \
	BAND_BOX(4, 6, BAND, box2Loop, box2Second, box2Done, band2); \
	BAND_BOX(8, 10, BAND, box3Loop, box3Second, box3Done, band3); \
	MOVB	$1, ret+24(FP); \
	RET; \
bandFail: \
	MOVB	$0, ret+24(FP); \
	RET

// bandEliminate(st *triadState, i, from int) bool, called from Go: the
// band's propagation, then VZEROUPPER, as Go code follows that may use
// legacy SSE instructions (the ABI wrapper's XORPS X15 first), which would
// stall on dirty upper halves.
#define BAND_ENTRY(BAND) \
	MOVQ	st+0(FP), AX; \
	MOVQ	AX, 0(SP); \
	MOVQ	i+8(FP), AX; \
	MOVQ	AX, 8(SP); \
	MOVQ	from+16(FP), AX; \
	MOVQ	AX, 16(SP); \
	CALL	BAND(SB); \
	VZEROUPPER; \
	MOVBLZX	24(SP), AX; \
	MOVB	AX, ret+24(FP); \
	RET

// AVX2.

// POPC9 counts the bits of each lane of src (9-bit values) into dst.
#define POPC_SETUP VMOVDQU ·tvPopLUT(SB), Y12
#define POPC9(src, dst, t1, t2) \
	VPAND	·tvMask4(SB), src, t1; \
	VPSHUFB	t1, Y12, t1; \
	VPSRAW	$4, src, t2; \
	VPSHUFB	t2, Y12, t2; \
	VPSRAW	$8, src, dst; \
	VPADDW	t1, dst, dst; \
	VPADDW	t2, dst, dst
// Each row of a box's matrix rotated by one, two or three lanes (lane i
// takes lane i+1, i+2, i+3 of its row).
#define ROWS1(src, dst) VPSHUFB ·tcRotRows(SB), src, dst
#define ROWS2(src, dst) VPSHUFD $0xb1, src, dst
#define ROWS3(src, dst) VPSHUFB ·tcRotRows3(SB), src, dst
// x |= a &^ b
#define ORANDN(x, a, b) VPANDN a, b, Y11; VPOR Y11, x, x
// x |= a | b
#define OR3(x, a, b) VPOR a, x, x; VPOR b, x, x
// x |= a ^ b
#define ORXOR(x, a, b) VPXOR a, b, Y11; VPOR Y11, x, x
// x &^= a | b
#define ANDNOR(x, a, b) VPOR a, b, Y11; VPANDN x, Y11, x

TEXT ·bandEliminateAVX2(SB), 0, $32-25
	NO_LOCAL_POINTERS
	BAND_ENTRY(·bandAVX2)

TEXT ·bandAVX2(SB), 0, $160-25
	NO_LOCAL_POINTERS
	BAND_BODY(·bandAVX2)

#undef POPC_SETUP
#undef POPC9
#undef ROWS1
#undef ROWS2
#undef ROWS3
#undef ORANDN
#undef OR3
#undef ORXOR
#undef ANDNOR

// AVX-512: VPTERNLOGD $f, c, b, a computes f of (a, b, c) into a, with
// a, b and c the truth tables 0xf0, 0xcc and 0xaa.

#define POPC_SETUP
#define POPC9(src, dst, t1, t2) VPOPCNTW src, dst
// A row is a quadword: its rotations are rotations of the quadword, which
// run beside the shuffles (on another port) where VPSHUFB would queue with
// them.
#define ROWS1(src, dst) VPRORQ $16, src, dst
#define ROWS2(src, dst) VPROLQ $32, src, dst
#define ROWS3(src, dst) VPROLQ $16, src, dst
#define ORANDN(x, a, b) VPTERNLOGD $0xf4, b, a, x
#define OR3(x, a, b) VPTERNLOGD $0xfe, b, a, x
#define ORXOR(x, a, b) VPTERNLOGD $0xf6, b, a, x
#define ANDNOR(x, a, b) VPTERNLOGD $0x10, b, a, x

TEXT ·bandEliminateAVX512(SB), 0, $32-25
	NO_LOCAL_POINTERS
	BAND_ENTRY(·bandAVX512)

TEXT ·bandAVX512(SB), 0, $160-25
	NO_LOCAL_POINTERS
	BAND_BODY(·bandAVX512)

// In chooseBranch: band i's configurations counted (the low half of its
// vector); CX the count, or R9 where below 10 (the band is fixed), taken as
// the best (AX, count BX) where fewer.
#define CHOOSE_BAND(i) \
	POPCNTQ	(triadState_conf+32*i)(DI), CX; \
	POPCNTQ	(triadState_conf+32*i+8)(DI), DX; \
	ADDQ	DX, CX; \
	CMPQ	CX, $10; \
	CMOVQLT	R9, CX; \
	MOVQ	$i, DX; \
	CMPQ	CX, BX; \
	CMOVQLT	DX, AX; \
	CMOVQLT	CX, BX

// In chooseBranch: lane k of the band's vector (at SI) added to the digits
// seen once (R8), twice (R9), three times (R10) and four times (R11).
#define CHOOSE_LANE(k) \
	MOVWLZX	(2*k)(SI), DX; \
	MOVL	R10, R12; \
	ANDL	DX, R12; \
	ORL	R12, R11; \
	MOVL	R9, R12; \
	ANDL	DX, R12; \
	ORL	R12, R10; \
	MOVL	R8, R12; \
	ANDL	DX, R12; \
	ORL	R12, R9; \
	ORL	DX, R8

// func chooseBranchAsm(st *triadState) (band int, bit uint16)
TEXT ·chooseBranchAsm(SB), NOSPLIT, $0-18
	MOVQ	st+0(FP), DI
	MOVQ	$-1, AX
	MOVQ	$0x40000000, BX
	MOVQ	BX, R9
	CHOOSE_BAND(0)
	CHOOSE_BAND(1)
	CHOOSE_BAND(2)
	CHOOSE_BAND(3)
	CHOOSE_BAND(4)
	CHOOSE_BAND(5)
	TESTQ	AX, AX
	JS	chooseNone
	MOVQ	AX, CX
	SHLQ	$5, CX
	LEAQ	triadState_conf(DI)(CX*1), SI
	XORL	R8, R8
	XORL	R9, R9
	XORL	R10, R10
	XORL	R11, R11
	CHOOSE_LANE(0)
	CHOOSE_LANE(1)
	CHOOSE_LANE(2)
	CHOOSE_LANE(3)
	CHOOSE_LANE(4)
	CHOOSE_LANE(5)
	// The lowest digit with two configurations, else three, else four.
	MOVL	R10, CX
	NOTL	CX
	ANDL	R9, CX
	JNZ	chooseBit
	MOVL	R11, CX
	NOTL	CX
	ANDL	R10, CX
	JNZ	chooseBit
	MOVL	R11, CX
chooseBit:
	MOVL	CX, DX
	NEGL	DX
	ANDL	DX, CX
	MOVQ	AX, band+8(FP)
	MOVW	CX, bit+16(FP)
	VZEROUPPER
	RET
chooseNone:
	MOVQ	AX, band+8(FP)
	MOVW	$0, bit+16(FP)
	VZEROUPPER
	RET
