package room

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/protocol"
)

// TestReplayLogKeepsTheNewest: the log holds the last bound outputs, oldest
// first, across many turns of its ring, and says which one each push
// dropped.
func TestReplayLogKeepsTheNewest(t *testing.T) {
	const bound = 5
	var l replayLog
	out := func(seq int64) Output { return Output{Event: &protocol.Header{Type: protocol.TypeMove, Seq: seq}} }
	for seq := int64(1); seq <= 23; seq++ {
		dropped, full := l.push(out(seq), bound)
		if seq <= bound {
			assert.False(t, full, "seq %d", seq)
		} else {
			require.True(t, full, "seq %d", seq)
			assert.Equal(t, seq-bound, dropped.Event.Head().Seq)
		}
		want := min(seq, bound)
		require.Equal(t, int(want), l.len())
		for i := range l.len() {
			assert.Equal(t, seq-want+1+int64(i), l.at(i).Event.Head().Seq, "after seq %d, at %d", seq, i)
		}
	}
}
