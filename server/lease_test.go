package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
)

// leased is a node whose lease the test holds or lets go.
type leased struct {
	nodes
	held *atomic.Bool
}

func (l leased) Held() bool { return l.held.Load() }

// TestNoLeaseNoMove: while a node does not hold its lease, the messages
// that change a game, joins without last_seq and new rooms are refused
// with retry, before anything is applied; a resume is let in, and play
// goes on once the lease is held again.
func TestNoLeaseNoMove(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	held := &atomic.Bool{}
	held.Store(true)
	e.srv.SetNodes(leased{nodes: nodes{here: e.rooms}, held: held})
	ada, bo := e.dial("Ada"), e.dial("Bo")
	id, givens, sol := e.startGame(room.ModeCoop, ada, bo)
	var cells []int
	for c := range givens {
		if givens[c] == 0 {
			cells = append(cells, c)
		}
	}

	held.Store(false)
	ada.send(map[string]any{"type": "move", "id": "m1", "cell": cells[0], "digit": sol[cells[0]]})
	refused := ada.awaitError(protocol.CodeRetry)
	assert.Equal(t, `"m1"`, string(refused.ID))
	ada.send(map[string]any{"type": "note", "id": "n1", "cell": cells[1], "digit": 1, "kind": "corner"})
	ada.awaitError(protocol.CodeRetry)
	assert.Equal(t, byte('.'), boardOf(t, e, id)[cells[0]], "nothing applied")

	resp, err := arenatest.Post(e.http.URL+"/api/rooms", "application/json", strings.NewReader(`{"mode":"race","level":"easy"}`))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))

	cy := e.dial("Cy")
	cy.send(map[string]any{"type": "join", "room": id, "name": "Cy"})
	cy.awaitError(protocol.CodeRetry)
	back := e.dial("Bo")
	back.send(map[string]any{"type": "join", "room": id, "name": "Bo", "token": bo.token, "last_seq": 1})
	await[protocol.Welcome](back, protocol.TypeWelcome, nil)

	held.Store(true)
	ada.send(map[string]any{"type": "move", "id": "m2", "cell": cells[0], "digit": sol[cells[0]]})
	await(ada, protocol.TypeMove, func(m *protocol.MoveEvent) bool { return m.Cell == cells[0] && m.Player == ada.id })
	assert.Equal(t, '0'+sol[cells[0]], boardOf(t, e, id)[cells[0]])
}

// boardOf is the room's board as GET /api/rooms/{id} shows it.
func boardOf(t *testing.T, e *env, id string) string {
	t.Helper()
	resp, err := arenatest.Get(e.http.URL + "/api/rooms/" + id)
	require.NoError(t, err)
	defer resp.Body.Close()
	var snap protocol.Snapshot
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&snap))
	require.Len(t, snap.Board, 81)
	return snap.Board
}
