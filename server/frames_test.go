package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/protocol"
)

// In co-op every member gets a move with its mover's id. An id that is not
// valid UTF-8 closes its sender's connection (1007) and reaches nobody; a
// valid one reaches the others as the same value in bytes the server wrote
// (each client's reads check that every frame is valid UTF-8 JSON).
func TestCoopMovesCarryOnlyIDsTheServerBuilt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b, c := e.dial("Ann"), e.dial("Bob"), e.dial("Cy")
	_, givens, sol := e.startGame("coop", a, b, c)
	cell := firstEmpty(givens, nil)

	before := b.ping()
	seen := len(b.seen)
	bad := "{\"type\":\"move\",\"id\":\"xA\xff\",\"cell\":" + itoa(cell) + ",\"digit\":" + itoa(int(sol[cell])) + "}"
	c.sendRaw([]byte(bad))
	code, _ := c.closeStatus()
	assert.Equal(t, protocol.CloseInvalidData, code)
	await(b, protocol.TypePresence, func(p *protocol.PresenceEvent) bool {
		return p.Player == c.id && p.Status == protocol.PresenceAway
	})
	for _, f := range b.seen[seen:] {
		assert.NotEqual(t, protocol.TypeMove, f.Type, "the refused move reached Bob: %s", f.raw)
	}
	assert.Less(t, before, b.ping(), "the presence, and nothing else, is logged")

	a.sendRaw([]byte(`{"type":"move","id":"\u003c\u00e9\u003e\u2028","cell":` + itoa(cell) + `,"digit":` + itoa(int(sol[cell])) + `}`))
	for _, c := range []*client{a, b} {
		mv := await(c, protocol.TypeMove, func(m *protocol.MoveEvent) bool { return m.Cell == cell })
		var got string
		require.NoError(t, json.Unmarshal(mv.ID, &got), "%s: id %s", c.name, mv.ID)
		assert.Equal(t, "<é>\u2028", got, "%s", c.name)
	}
}

// POST /api/rooms takes one JSON object in valid UTF-8 and nothing else;
// every refusal is a 400 with a JSON error, and makes no room.
func TestCreateRoomRefusesAnythingButOneObject(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tc := range []struct{ name, body, code string }{
		{"two objects", `{"mode":"race"}{"mode":"coop"}`, protocol.CodeBadJSON},
		{"two objects, spaced", "{\"mode\":\"race\"}\n{\"mode\":\"race\"}", protocol.CodeBadJSON},
		{"trailing bytes", `{"mode":"race"} x`, protocol.CodeBadJSON},
		{"trailing bracket", `{"mode":"race"}]`, protocol.CodeBadJSON},
		{"a no-break space after", "{\"mode\":\"race\"}\u00a0", protocol.CodeBadJSON},
		{"a form feed before", "\f{\"mode\":\"race\"}", protocol.CodeBadJSON},
		{"not valid UTF-8", "{\"mode\":\"race\",\"level\":\"easy\xff\"}", protocol.CodeBadJSON},
		{"an array", `[{"mode":"race"}]`, protocol.CodeBadJSON},
		{"empty", ``, protocol.CodeBadJSON},
		{"truncated", `{"mode":"race"`, protocol.CodeBadJSON},
		{"over 1,024 bytes", `{"mode":"race"}` + strings.Repeat(" ", 1024), protocol.CodeBadJSON},
		{"unknown field", `{"mode":"race","extra":1}`, protocol.CodeBadJSON},
		{"mode a number", `{"mode":1}`, protocol.CodeBadField},
		{"level an array", `{"mode":"race","level":["easy"]}`, protocol.CodeBadField},
		{"unknown mode", `{"mode":"duel"}`, protocol.CodeBadField},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := arenatest.Post(e.http.URL+"/api/rooms", "application/json", strings.NewReader(tc.body))
			require.NoError(t, err)
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "%s", body)
			assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			var apiErr struct {
				Error struct{ Code, Message string }
			}
			require.NoError(t, json.Unmarshal(body, &apiErr), "%s", body)
			assert.Equal(t, tc.code, apiErr.Error.Code, apiErr.Error.Message)
			assert.NotEmpty(t, apiErr.Error.Message)
			assert.Zero(t, e.rooms.Stats().Rooms, "a refused body made a room")
		})
	}
	// JSON's white space around the object is not "other bytes".
	resp, err := arenatest.Post(e.http.URL+"/api/rooms", "application/json", strings.NewReader(" \t{\"mode\":\"race\"}\r\n"))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusCreated, resp.StatusCode)
}
