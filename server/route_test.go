package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/room"
)

// TestRoomHintIsOnlyAHint: /ws?room=ID names the room for a balancer
// (POST /api/rooms answers with it, which createRoom checks), but the join
// says which room is played: a socket opened with another room's hint, or
// a hint that is no room at all, plays the room its join names.
func TestRoomHintIsOnlyAHint(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, other := e.createRoom(room.ModeCoop, "easy"), e.createRoom(room.ModeCoop, "easy")
	for _, hint := range []string{other, "no-such-room", ""} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		ws, _, err := websocket.Dial(ctx, e.wsURL()+"?room="+hint, nil)
		cancel()
		require.NoError(t, err, "hint %q", hint)
		c := &client{tb: t, name: "Ada", ws: ws}
		t.Cleanup(func() { _ = ws.CloseNow() })
		w := c.join(id)
		assert.Equal(t, id, w.Room.ID, "hint %q", hint)
		require.NoError(t, ws.Close(websocket.StatusNormalClosure, ""))
	}
}
