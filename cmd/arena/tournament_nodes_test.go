package main

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store/pgtest"
)

// TestTournamentAcrossNodes: of two nodes, n1 runs the tournaments
// (TOURNAMENTS); everything a player asks of them through n2 (the list,
// the standings, join, the live socket) is relayed to n1, as a balancer
// that spreads requests would send them. Once n1 is gone, n2 answers the
// list from the store and refuses a join with unavailable.
func TestTournamentAcrossNodes(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	pg, err := pgtest.Start(ctx, pgtest.Options{})
	require.NoError(t, err)
	t.Cleanup(pg.Stop)
	nodes := arenatest.StartNodes(t, arenatest.NodeOptions{
		DatabaseURL: pg.NewDatabase(t), N: 2, Heartbeat: testHeartbeat, Timeout: testTimeout,
		Env:     []string{"COUNTDOWN=10ms", "PING_INTERVAL=1h"},
		NodeEnv: [][]string{{"TOURNAMENTS=" + arenatest.Tournaments()}},
	})
	n1, n2 := nodes[0], nodes[1]

	list := runningTournaments(t, n2)
	require.Len(t, list.Running, 1, "n2 shows n1's running tournament")
	tid := list.Running[0].ID

	players := newPlayers(ctx, t, n2, "Ann", "Bob")
	ann, bob := players[0], players[1]
	watch := watchTournament(ctx, t, n2, tid, ann.token) // through n2
	defer watch.CloseNow()
	next := func(ok func(server.TournamentEvent) bool) server.TournamentEvent {
		t.Helper()
		return nextEvent(ctx, t, watch, ok)
	}
	next(func(ev server.TournamentEvent) bool { return ev.ID == tid })

	_, code := tournamentCall(t, n2, http.MethodPost, "/api/tournaments/"+tid+"/join", ann.token)
	require.Equal(t, http.StatusOK, code)
	tr, code := tournamentCall(t, n2, http.MethodPost, "/api/tournaments/"+tid+"/join", bob.token)
	require.Equal(t, http.StatusOK, code)
	race := standingOf(tr, ann.id).Playing
	require.NotEmpty(t, race, "paired on n1: %+v", tr.Standings)
	ev := next(func(ev server.TournamentEvent) bool { return ev.You != nil && ev.You.Playing != "" })
	assert.Equal(t, race, ev.You.Playing, "Ann's own line, live through n2")
	got, code := tournamentCall(t, n2, http.MethodGet, "/api/tournaments/"+tid, "")
	require.Equal(t, http.StatusOK, code)
	assert.Len(t, got.Standings, 2)
	assert.GreaterOrEqual(t, metric(t, n2, "arena_relays_total"), 4.0, "the list, the socket, two joins and the standings went to n1")

	// n1 goes; once it is dead n2 answers what the store has.
	n1.Kill()
	_, code = tournamentCall(t, n2, http.MethodPost, "/api/tournaments/"+tid+"/withdraw", ann.token)
	assert.Equal(t, http.StatusServiceUnavailable, code, "nobody runs it just now")
	time.Sleep(testTimeout + time.Second)
	res, err := arenatest.Get(n2.URL() + "/api/tournaments")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode, "the list, from the store")
	_, code = tournamentCall(t, n2, http.MethodPost, "/api/tournaments/"+tid+"/join", ann.token)
	assert.Equal(t, http.StatusServiceUnavailable, code)
}
