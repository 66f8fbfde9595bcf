package server_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/server"
)

// While the database is away the server stays live but not ready, the room
// plays on, a player who drops comes back with their token, a newcomer is
// told to try again, and a finish waits, unannounced, until the database
// is back; then it is stored once and announced.
func TestDatabaseOutageMidGame(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *server.Config) { c.Rooms.MaxResultsWaiting = 2 })
	a, b := e.dial("Ann"), e.dial("Bob")
	id, givens, sol := e.startGame("coop", a, b)

	e.kept.players.goDown()
	e.kept.rooms.Fail(errors.New("database closed"))
	status, body := e.get("/livez")
	assert.Equal(t, http.StatusOK, status, "live: an outage must not get the node restarted")
	assert.JSONEq(t, `{"status":"ok"}`, body)
	status, body = e.get("/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, status)
	assert.JSONEq(t, `{"status":"unavailable","database":"unreachable","results":"ok"}`, body)

	// Bob drops and comes back with his token: no database read needed.
	require.NoError(t, b.ws.CloseNow())
	await(a, protocol.TypePresence, func(p *protocol.PresenceEvent) bool { return p.Player == b.id && p.Status == protocol.PresenceAway })
	b2 := e.dial("Bob")
	b2.send(map[string]any{"type": "join", "room": id, "token": b.token})
	w := await[protocol.Welcome](b2, protocol.TypeWelcome, nil)
	assert.Equal(t, b.id, w.You.ID)
	assert.Equal(t, "Bob", w.You.Name)
	// A newcomer must be stored first: refused, clearly.
	c := e.dial("Cat")
	c.send(map[string]any{"type": "join", "room": id, "name": "Cat"})
	c.awaitError(protocol.CodeUnavailable)

	// The team solves the board: the finish waits for the database.
	solve(a, givens, sol)
	require.Eventually(t, func() bool { return e.rooms.Stats().ResultsWaiting == 2 }, 5*time.Second, time.Millisecond)
	status, body = e.get("/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, status)
	assert.JSONEq(t, `{"status":"unavailable","database":"unreachable","results":"full"}`, body)
	metrics := e.metrics()
	assert.Contains(t, metrics, `arena_queue_depth{queue="results"} 2`+"\n")
	assert.Contains(t, metrics, `arena_queue_full{queue="results"} 1`+"\n")
	assert.Regexp(t, `arena_queue_oldest_seconds\{queue="results"\} [0-9.e-]+\n`, metrics)
	time.Sleep(600 * time.Millisecond) // a retry or two, failing
	for _, f := range append(a.seen, b2.seen...) {
		assert.NotEqual(t, protocol.TypeFinish, f.Type, "no finish is told before it is stored")
	}
	assert.Empty(t, e.kept.rooms.Results())

	e.kept.players.goUp()
	e.kept.rooms.Fail(nil)
	fin := await[protocol.FinishEvent](b2, protocol.TypeFinish, nil)
	assert.GreaterOrEqual(t, fin.ElapsedMS, int64(0), "0 ms when the moves come in quickly")
	await[protocol.FinishEvent](a, protocol.TypeFinish, nil)
	assert.Len(t, e.results(a.id), 1, "stored once")
	assert.Len(t, e.results(b.id), 1, "stored once")
	require.Eventually(t, func() bool { return e.rooms.Stats().ResultsWaiting == 0 }, 5*time.Second, time.Millisecond)
	status, body = e.get("/readyz")
	assert.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `{"status":"ok","database":"ok","results":"ok"}`, body)
}
