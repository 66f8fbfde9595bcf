package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/lobby"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store/sqlite"
)

// playNow turns the queue on for the env, over a lobby whose ratings are
// in an SQLite store of their own (the env's players are guests).
func playNow(t *testing.T, e *env) *lobby.Lobby {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "a.db"))
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	l := lobby.New(lobby.Config{}, room.Levels, e.srv, st, time.Now, nil)
	e.srv.SetPlayNow(l)
	return l
}

func (e *env) guest(id, token string) string {
	require.NoError(e.tb, e.kept.players.CreatePlayer(context.Background(), id, id, server.HashToken(token)))
	return "Bearer " + token
}

func decodeStatus(t *testing.T, body string) lobby.Status {
	t.Helper()
	var st lobby.Status
	require.NoError(t, json.Unmarshal([]byte(body), &st), body)
	return st
}

func TestPlayNowQueue(t *testing.T) {
	e := newEnv(t, func(c *server.Config) { c.SocketsPerAddr = 64 })
	const ct = "application/json"
	resp, body := e.do("POST", "/api/queue", ct, `{"level":"easy"}`)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, body)
	l := playNow(t, e)
	a := e.guest("pa", "token-a")
	b := e.guest("pb", "token-b")

	for _, tt := range []struct {
		body, auth, code string
		status           int
	}{
		{`{"level":"easy"}`, "", "not_signed_in", 401},
		{`{"level":"easy","rated":true}`, a, "not_signed_in", 401},
		{`{"level":"impossible"}`, a, "bad_field", 400},
		{`{"level":"easy","extra":1}`, a, "bad_json", 400},
	} {
		resp, body := e.do("POST", "/api/queue", ct, tt.body, "Authorization", tt.auth)
		assert.Equal(t, tt.status, resp.StatusCode, body)
		assert.Contains(t, body, `"code":"`+tt.code+`"`, tt.body)
	}
	assert.Zero(t, l.Len(), "a refused join changes nothing")

	resp, body = e.do("POST", "/api/queue", ct, `{"level":"easy"}`, "Authorization", a)
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	sa := decodeStatus(t, body)
	assert.Equal(t, lobby.StateWaiting, sa.State)
	assert.Equal(t, 1, sa.Waiting["easy"])
	resp, body = e.do("POST", "/api/queue", ct, `{"level":"hard"}`, "Authorization", a)
	assert.Equal(t, http.StatusConflict, resp.StatusCode)
	assert.Contains(t, body, `"already_queued"`)

	// b comes from a's address (every test client is on loopback): they
	// are never matched.
	resp, body = e.do("POST", "/api/queue", ct, `{"level":"easy"}`, "Authorization", b)
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	sb := decodeStatus(t, body)
	assert.Equal(t, 2, sb.Waiting["easy"])
	l.Tick(context.Background())
	resp, body = e.do("GET", "/api/queue/"+sa.Ticket, "", "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, lobby.StateWaiting, decodeStatus(t, body).State, "one address")

	resp, _ = e.do("DELETE", "/api/queue/"+sa.Ticket, ct, "")
	assert.Equal(t, http.StatusNoContent, resp.StatusCode)
	resp, body = e.do("DELETE", "/api/queue/"+sa.Ticket, ct, "")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Contains(t, body, `"ticket_not_found"`)
	resp, _ = e.do("GET", "/api/queue/"+sa.Ticket, "", "")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Equal(t, 1, l.Len())
}

// TestPlayNowMatch: behind a proxy (no per-address limits) two players
// are matched into a live race room.
func TestPlayNowMatch(t *testing.T) {
	e := newEnv(t, func(c *server.Config) { c.SocketsPerAddr = 0 })
	l := playNow(t, e)
	var tickets []string
	for _, p := range []string{"pa", "pb"} {
		resp, body := e.do("POST", "/api/queue", "application/json", `{"level":"medium"}`, "Authorization", e.guest(p, "token-"+p))
		require.Equal(t, http.StatusOK, resp.StatusCode, body)
		tickets = append(tickets, decodeStatus(t, body).Ticket)
	}
	l.Tick(context.Background())
	var rooms []string
	for _, tk := range tickets {
		resp, body := e.do("GET", "/api/queue/"+tk, "", "")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		st := decodeStatus(t, body)
		assert.Equal(t, lobby.StateMatched, st.State)
		assert.ElementsMatch(t, []string{"pa", "pb"}, st.Players)
		rooms = append(rooms, st.Room)
	}
	require.NotEmpty(t, rooms[0])
	assert.Equal(t, rooms[0], rooms[1])
	resp, body := e.do("GET", "/api/rooms/"+rooms[0], "", "")
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Contains(t, body, `"mode":"race"`)
	assert.Contains(t, body, `"level":"medium"`)

	resp, body = e.do("GET", "/api/rooms/"+rooms[0]+"/ratings", "", "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.JSONEq(t, `{"room":"`+rooms[0]+`","changes":[]}`, body, "a casual race is not rated")
	resp, body = e.do("GET", "/api/players/pa/rating", "", "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.JSONEq(t, `{"rating":null,"history":[]}`, body)
	resp, body = e.do("GET", "/api/ratings?limit=5", "", "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.JSONEq(t, `{"rows":[]}`, body)
	resp, _ = e.do("GET", "/api/ratings?limit=500", "", "")
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
}
