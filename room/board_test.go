package room

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUndoHistoryKeepsTheLastMoves: past maxUndo moves the oldest fall
// off, one a move, and the history is the last maxUndo in order.
func TestUndoHistoryKeepsTheLastMoves(t *testing.T) {
	var m member
	m.redo = []change{{cell: 1}}
	const moves = 3*maxUndo + 17
	for i := range moves {
		m.moved(change{cell: i})
		require.Len(t, m.undo, min(i+1, maxUndo))
		assert.Empty(t, m.redo, "a move forgets what could be redone")
	}
	for i, c := range m.undo {
		assert.Equal(t, moves-maxUndo+i, c.cell)
	}
}
