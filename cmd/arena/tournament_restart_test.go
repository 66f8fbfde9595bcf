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
)

// standingsUntil is the tournament's standings over HTTP once ok holds
// (it fails the test after 20 s).
func standingsUntil(t *testing.T, a *arenatest.Arena, tid, what string, ok func(server.TournamentResponse) bool) server.TournamentResponse {
	t.Helper()
	var tr server.TournamentResponse
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var code int
		if tr, code = tournamentCall(t, a, http.MethodGet, "/api/tournaments/"+tid, ""); code == http.StatusOK && ok(tr) {
			return tr
		}
	}
	t.Fatalf("%s: not within 20 s: %+v", what, tr.Standings)
	return tr
}

// notRacing are the standings without the races being played: those
// are not kept by a restart.
func notRacing(tr server.TournamentResponse) []server.TournamentStanding {
	out := append([]server.TournamentStanding(nil), tr.Standings...)
	for i := range out {
		out[i].Playing = ""
	}
	return out
}

// TestTournamentRestart: a real server on SQLite runs the scheduled
// tournament; Ann and Bob play a race over the WebSocket (Ann 4, Bob 3);
// the server is stopped (SIGTERM) and started again on the same
// database: the same tournament runs with the same standings, and pairs
// the two again. Ann wins that race (8, on a streak) while Bob is still
// in it, and the server is killed (SIGKILL) as soon as the standings show
// her points: started again, it has her points and her streak, Bob's
// unfinished race counts for nothing, and both are paired anew.
func TestTournamentRestart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	a := arenatest.Start(t, arenatest.Options{Env: []string{"COUNTDOWN=1s", "POOL_STOCK=4", "TOURNAMENTS=" + arenatest.Tournaments()}})
	list := runningTournaments(t, a)
	require.Len(t, list.Running, 1)
	tid := list.Running[0].ID
	players := newPlayers(ctx, t, a, "Ann", "Bob")
	ann, bob := players[0], players[1]
	for _, p := range players {
		_, code := tournamentCall(t, a, http.MethodPost, "/api/tournaments/"+tid+"/join", p.token)
		require.Equal(t, http.StatusOK, code)
	}
	paired := func(what string) string {
		t.Helper()
		tr := standingsUntil(t, a, tid, what, func(tr server.TournamentResponse) bool {
			r := standingOf(tr, ann.id).Playing
			return r != "" && standingOf(tr, bob.id).Playing == r
		})
		return standingOf(tr, ann.id).Playing
	}
	// race seats both in the race room; those of solvers solve it.
	race := func(id string, solvers ...*wsPlayer) {
		t.Helper()
		rps := map[string]*wsPlayer{}
		for _, p := range players {
			rp, err := dialPlayer(ctx, a, id, p.name, p.token, 0)
			require.NoError(t, err)
			t.Cleanup(rp.close)
			rps[p.id] = rp
		}
		for _, p := range solvers {
			givens, err := rps[p.id].running(ctx)
			require.NoError(t, err)
			solveAll(ctx, t, rps[p.id], givens)
		}
	}

	first := paired("paired once both joined")
	race(first, ann, bob)
	before := standingsUntil(t, a, tid, "both finished", func(tr server.TournamentResponse) bool {
		return standingOf(tr, bob.id).Score == 3
	})
	assert.Equal(t, 4, standingOf(before, ann.id).Score)

	require.Equal(t, 0, a.Stop(), "an orderly stop")
	a.Restart()
	list = runningTournaments(t, a)
	require.Len(t, list.Running, 1)
	assert.Equal(t, tid, list.Running[0].ID, "the same tournament runs on")
	after, code := tournamentCall(t, a, http.MethodGet, "/api/tournaments/"+tid, "")
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, notRacing(before), notRacing(after), "the standings a stop leaves")

	second := paired("paired again after the restart")
	assert.NotEqual(t, first, second)
	race(second, ann)
	shown := standingsUntil(t, a, tid, "Ann's second win shown", func(tr server.TournamentResponse) bool {
		return standingOf(tr, ann.id).Score == 8
	})
	a.Kill()
	a.Restart()
	require.Len(t, runningTournaments(t, a).Running, 1)
	after, code = tournamentCall(t, a, http.MethodGet, "/api/tournaments/"+tid, "")
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, notRacing(shown), notRacing(after), "the standings a crash leaves: every point shown")
	annLine := standingOf(after, ann.id)
	assert.Equal(t, []server.TournamentGame{{Race: first, Place: 1, Points: 4}, {Race: second, Place: 1, Points: 4}}, annLine.Games)
	assert.True(t, annLine.Fire, "her streak is kept: her next win counts double")
	assert.Equal(t, []server.TournamentGame{{Race: first, Place: 2, Points: 3}}, standingOf(after, bob.id).Games,
		"the race Bob was in at the crash counts for nothing")
	third := paired("paired anew after the crash")
	assert.NotEqual(t, second, third)
}
