package server

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
)

// A daily round's state records name the copy of the puzzle it played,
// the server's own: a replay sends them without it, the rest as stored.
func TestReplayLeavesOutTheCopy(t *testing.T) {
	at := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	state := `{"type":"state","seq":2,"room":{"id":"r00m","phase":"running","givens":"1.","copy":"123456789-123456789-123456789-0"}}`
	move := `{"type":"move","seq":3,"player":"p_a","cell":1,"digit":2,"copy":"kept: not a state"}`
	out, err := replayEvents([]room.Record{
		{Seq: 2, Type: protocol.TypeState, Data: json.RawMessage(state), At: at},
		{Seq: 3, Type: protocol.TypeMove, Data: json.RawMessage(move), At: at},
	})
	require.NoError(t, err)
	var evs []struct {
		Event json.RawMessage `json:"event"`
	}
	require.NoError(t, json.Unmarshal(out, &evs))
	require.Len(t, evs, 2)
	var st protocol.State
	require.NoError(t, json.Unmarshal(evs[0].Event, &st))
	assert.Empty(t, st.Room.Copy, "no copy")
	assert.NotContains(t, string(evs[0].Event), "copy")
	assert.Equal(t, "1.", st.Room.Givens, "the rest as stored")
	assert.Equal(t, int64(2), st.Seq)
	assert.JSONEq(t, move, string(evs[1].Event), "other events byte for byte")
}
