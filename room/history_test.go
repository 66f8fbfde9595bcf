package room_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
)

// typesOf is the type of each encoded event.
func typesOf(t *testing.T, evs []json.RawMessage) []string {
	t.Helper()
	var out []string
	for _, raw := range evs {
		var h protocol.Header
		require.NoError(t, json.Unmarshal(raw, &h))
		out = append(out, h.Type)
	}
	return out
}

// History keeps what happened (joins, the start, hints, finishes) past
// the replay log's bound, which a race's moves and progress fill within
// seconds: each member gets their own view, and no move, note, progress
// or state.
func TestHistoryOutlastsTheReplayLog(t *testing.T) {
	g := running(t, room.ModeRace, room.Config{ReplayEvents: 16}, "a", "b")
	g.ok("a", msg(protocol.TypeHint))
	g.saved(results(t, g.fill("b"))) // many more moves than the replay log keeps
	told := []string{protocol.TypePresence, protocol.TypeCountdown, protocol.TypeHint, protocol.TypeFinish}
	assert.Equal(t, told, typesOf(t, g.History("b")), "b: a joined, the start, a's hint, b's finish")
	assert.Equal(t, told, typesOf(t, g.History("a")), "a: b joined (not she), the start, her hint, b's finish")

	var mine, theirs protocol.HintEvent
	require.NoError(t, json.Unmarshal(g.History("a")[2], &mine))
	require.NoError(t, json.Unmarshal(g.History("b")[2], &theirs))
	assert.NotEmpty(t, mine.Technique, "the asker's hint in full")
	assert.Empty(t, theirs.Technique, "the others' redacted")
	assert.Empty(t, theirs.Cells)

	// A spectator who comes later gets what everyone got: both joins.
	g.watch("s")
	assert.Equal(t, []string{protocol.TypePresence, protocol.TypePresence, protocol.TypeCountdown, protocol.TypeHint, protocol.TypeFinish}, typesOf(t, g.History("s")))
}
