package server_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/room"
)

// In co-op every member gets a move with its mover's id. An id that is not
// valid UTF-8 is refused to its sender alone and reaches nobody; a valid one
// reaches the others as the same value in bytes the server wrote (each
// client's reads check that every frame is valid UTF-8 JSON).
func TestCoopMovesCarryOnlyIDsTheServerBuilt(t *testing.T) {
	e := newEnv(t)
	id := e.createRoom("coop", "easy")
	a := e.dial("Ann")
	a.join(id)
	b := e.dial("Bob")
	b.join(id)
	a.send(map[string]any{"type": "start"})
	givens := awaitRunning(a)
	awaitRunning(b)
	cell := firstEmpty(givens, nil)
	sol := e.solution(id, 1)

	before := b.ping()
	seen := len(b.seen)
	bad := "{\"type\":\"move\",\"id\":\"xA\xff\",\"cell\":" + itoa(cell) + ",\"digit\":" + itoa(int(sol[cell])) + "}"
	a.sendRaw([]byte(bad))
	err := a.awaitError(room.CodeBadJSON)
	assert.Empty(t, err.ID, "an id that is not valid UTF-8 is not echoed")
	assert.Equal(t, before, b.ping(), "the refused move changed the room")
	assert.Len(t, b.seen, seen+1, "Bob got nothing but his pong")

	a.sendRaw([]byte(`{"type":"move","id":"\u003c\u00e9\u003e\u2028","cell":` + itoa(cell) + `,"digit":` + itoa(int(sol[cell])) + `}`))
	for _, c := range []*client{a, b} {
		mv := await(c, room.TypeMove, func(m *room.MoveEvent) bool { return m.Cell == cell })
		var got string
		require.NoError(t, json.Unmarshal(mv.ID, &got), "%s: id %s", c.name, mv.ID)
		assert.Equal(t, "<é>\u2028", got, "%s", c.name)
	}
}
