package room

import (
	"fmt"
	"math"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUndoHistoryKeepsTheLastMoves: past maxUndo moves the oldest fall
// off, one a move, and the history is the last maxUndo in order.
func TestUndoHistoryKeepsTheLastMoves(t *testing.T) {
	var m member
	m.redo = []change{{cell: 1}}
	const moves = 3*maxUndo + 17
	// The i-th move, told apart from every other by its cell and digits.
	nth := func(i int) change {
		return change{cell: uint8(i % 81), from: uint8(i / 81 % 256), to: uint8(i / 81 / 256)}
	}
	for i := range moves {
		m.moved(nth(i))
		require.Len(t, m.undo, min(i+1, maxUndo))
		assert.Empty(t, m.redo, "a move forgets what could be redone")
	}
	for i, c := range m.undo {
		assert.Equal(t, nth(moves-maxUndo+i), c)
	}
}

// A change is 3 bytes: a history holds up to maxUndo of them, and the
// array it slides along twice that, for each player in each room.
func TestAChangeIsThreeBytes(t *testing.T) {
	assert.Equal(t, uintptr(3), unsafe.Sizeof(change{}))
}

// TestPlacersOutnumberingAByteKeepTheirDigits: a board numbers its
// placers in a byte; when hundreds of players have come and gone, the
// ones with no digit left are dropped from the numbering and everyone's
// digits stay theirs.
func TestPlacersOutnumberingAByteKeepTheirDigits(t *testing.T) {
	var b board
	want := map[int]string{}
	for i := range 1000 {
		id := fmt.Sprintf("p_%04d", i)
		cell := i % 40 // the later players overwrite the earlier ones' cells
		b.set(id, cell, uint8(1+i%9))
		want[cell] = id
		if i%7 == 0 { // and some cleared again
			owner := b.set("", cell, 0)
			assert.Equal(t, id, owner)
			delete(want, cell)
		}
	}
	assert.LessOrEqual(t, len(b.placers), math.MaxUint8)
	for cell := range 81 {
		assert.Equal(t, want[cell], b.placer(cell), "cell %d", cell)
	}
	got := b.placedBy()
	n := 0
	for id, cells := range got {
		for _, c := range cells {
			assert.Equal(t, want[c], id)
			n++
		}
	}
	assert.Equal(t, len(want), n)
	assert.Equal(t, 1, b.placedCount(want[39]))
	assert.Zero(t, b.placedCount(""))
}
