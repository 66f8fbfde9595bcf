package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/internal/loadtest"
	"github.com/sudoku-arena/arena/server"
)

// tournamentCall is a tournament route of the server, as the player of
// token when it is set.
func tournamentCall(t *testing.T, a *arenatest.Arena, method, path, token string) (server.TournamentResponse, int) {
	t.Helper()
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader("{}")
	}
	req, err := http.NewRequest(method, a.URL()+path, body)
	require.NoError(t, err)
	req.Header.Set("Origin", a.URL())
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := arenatest.Client.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var tr server.TournamentResponse
	if res.StatusCode == http.StatusOK {
		require.NoError(t, json.NewDecoder(res.Body).Decode(&tr))
	}
	return tr, res.StatusCode
}

// runningTournaments is the list of a's tournaments once one runs (its
// schedule starts one just after the server's start), or after 10 s.
func runningTournaments(t *testing.T, a endpoint) server.TournamentsResponse {
	t.Helper()
	var list server.TournamentsResponse
	for deadline := time.Now().Add(10 * time.Second); len(list.Running) == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		res, err := arenatest.Get(a.URL() + "/api/tournaments")
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, res.StatusCode)
		require.NoError(t, json.NewDecoder(res.Body).Decode(&list))
		res.Body.Close()
	}
	return list
}

// newPlayers are players of those names, made by joining a room of
// their own (whose sockets are closed): each has its id and token.
func newPlayers(ctx context.Context, t *testing.T, a endpoint, names ...string) []*wsPlayer {
	t.Helper()
	scratch, err := createRoom(a, "race")
	require.NoError(t, err)
	var players []*wsPlayer
	for _, name := range names {
		p, err := dialPlayer(ctx, a, scratch, name, "", 0)
		require.NoError(t, err)
		p.close()
		players = append(players, p)
	}
	return players
}

// watchTournament opens the tournament's live socket on a, as the player
// of token ("" for a spectator).
func watchTournament(ctx context.Context, t *testing.T, a endpoint, tid, token string) *websocket.Conn {
	t.Helper()
	h := http.Header{"Origin": {a.URL()}}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	c, _, err := websocket.Dial(ctx, "ws"+a.URL()[len("http"):]+"/ws/tournaments/"+tid, &websocket.DialOptions{HTTPHeader: h})
	require.NoError(t, err)
	return c
}

// nextEvent reads c's tournament events until one satisfies ok.
func nextEvent(ctx context.Context, t *testing.T, c *websocket.Conn, ok func(server.TournamentEvent) bool) server.TournamentEvent {
	t.Helper()
	for {
		_, data, err := c.Read(ctx)
		require.NoError(t, err)
		var ev server.TournamentEvent
		require.NoError(t, json.Unmarshal(data, &ev))
		require.Equal(t, "tournament", ev.Type)
		if ok(ev) {
			return ev
		}
	}
}

func standingOf(tr server.TournamentResponse, player string) server.TournamentStanding {
	for _, s := range tr.Standings {
		if s.Player == player {
			return s
		}
	}
	return server.TournamentStanding{}
}

// TestTournamentProcess: a real server runs the scheduled tournament;
// two players join it over HTTP and are paired into one race room; the
// first to solve it scores 4 for the win, which the tournament's
// WebSocket sends at once, and the second 3, after which both are paired
// into a new race.
func TestTournamentProcess(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	a := arenatest.Start(t, arenatest.Options{Env: []string{"COUNTDOWN=1s", "POOL_STOCK=4", "TOURNAMENTS=" + arenatest.Tournaments()}})

	list := runningTournaments(t, a)
	require.Len(t, list.Running, 1, "the schedule's tournament runs from the server's start: %+v", list)
	tid := list.Running[0].ID
	assert.Equal(t, "easy", list.Running[0].Level)

	_, code := tournamentCall(t, a, http.MethodPost, "/api/tournaments/"+tid+"/join", "")
	assert.Equal(t, http.StatusUnauthorized, code, "no player: not_signed_in")
	_, code = tournamentCall(t, a, http.MethodGet, "/api/tournaments/nope", "")
	assert.Equal(t, http.StatusNotFound, code)

	players := newPlayers(ctx, t, a, "Ann", "Bob")
	ann, bob := players[0], players[1]
	_, code = tournamentCall(t, a, http.MethodPost, "/api/tournaments/"+tid+"/withdraw", ann.token)
	assert.Equal(t, http.StatusConflict, code, "not_in_tournament")

	// Ann's socket (her bearer token) and a spectator's.
	watch := watchTournament(ctx, t, a, tid, ann.token)
	defer watch.CloseNow()
	spectator := watchTournament(ctx, t, a, tid, "")
	defer spectator.CloseNow()
	nextOf := func(c *websocket.Conn, ok func(server.TournamentEvent) bool) server.TournamentEvent {
		t.Helper()
		return nextEvent(ctx, t, c, ok)
	}
	next := func(ok func(server.TournamentEvent) bool) server.TournamentEvent {
		t.Helper()
		return nextEvent(ctx, t, watch, ok)
	}
	ev := next(func(ev server.TournamentEvent) bool { return ev.ID == tid })
	assert.Nil(t, ev.You, "Ann has not joined yet")
	assert.Empty(t, ev.Top)

	_, code = tournamentCall(t, a, http.MethodPost, "/api/tournaments/"+tid+"/join", ann.token)
	require.Equal(t, http.StatusOK, code)
	tr, code := tournamentCall(t, a, http.MethodPost, "/api/tournaments/"+tid+"/join", bob.token)
	require.Equal(t, http.StatusOK, code)
	race := standingOf(tr, ann.id).Playing
	require.NotEmpty(t, race, "paired once two are free: %+v", tr.Standings)
	assert.Equal(t, race, standingOf(tr, bob.id).Playing, "into the same race")
	assert.Equal(t, "Ann", standingOf(tr, ann.id).Name)

	racers := map[string]*wsPlayer{}
	for _, p := range players {
		rp, err := dialPlayer(ctx, a, race, p.name, p.token, 0)
		require.NoError(t, err)
		defer rp.close()
		racers[p.name] = rp
	}
	// The race is the pair's: it started by itself once both were in.
	assert.ElementsMatch(t, []string{ann.id, bob.id}, racers["Ann"].welcome.Room.Roster)
	solveAll := func(p *wsPlayer) {
		t.Helper()
		givens, err := p.running(ctx)
		require.NoError(t, err)
		solution := solve(t, givens)
		for cell := range givens {
			if givens[cell] == 0 {
				require.NoError(t, p.move(ctx, cell, int(solution[cell])))
			}
		}
		require.NoError(t, p.awaitFinish(ctx))
	}
	_, err := racers["Bob"].running(ctx)
	require.NoError(t, err)
	solveAll(racers["Ann"])
	ev = next(func(ev server.TournamentEvent) bool { return ev.You != nil && ev.You.Score > 0 })
	assert.Equal(t, ann.id, ev.You.Player, "her own line")
	assert.Equal(t, 1, ev.You.Rank)
	assert.Equal(t, []server.TournamentGame{{Race: race, Place: 1, Points: 4}}, ev.You.Games)
	assert.Empty(t, ev.You.Playing, "Ann waits for a second free player")
	assert.Equal(t, 2, ev.Players)
	require.Len(t, ev.Top, 2)
	assert.Equal(t, server.TournamentLine{Rank: 1, Player: ann.id, Name: "Ann", Score: 4, Wins: 1}, ev.Top[0])
	assert.Equal(t, bob.id, ev.Top[1].Player)
	assert.Equal(t, race, ev.Top[1].Playing, "Bob still races")

	solveAll(racers["Bob"])
	ev = next(func(ev server.TournamentEvent) bool { return len(ev.Top) == 2 && ev.Top[1].Score > 0 })
	again := ev.You.Playing
	assert.NotEmpty(t, again, "both free again: paired again at once")
	assert.NotEqual(t, race, again)
	assert.Equal(t, []server.TournamentGame{{Race: race, Place: 1, Points: 4}}, ev.You.Games)
	assert.Equal(t, server.TournamentLine{Rank: 2, Player: bob.id, Name: "Bob", Score: 3, Wins: 0, Playing: again}, ev.Top[1])

	// The spectator sees the same top, and no line of their own.
	sev := nextOf(spectator, func(ev server.TournamentEvent) bool { return len(ev.Top) == 2 && ev.Top[1].Score > 0 })
	assert.Nil(t, sev.You)
	assert.Equal(t, ev.Top, sev.Top)
	assert.Equal(t, 2, sev.Players)
	// The full standings, with every player's games, are the HTTP API's.
	tr, code = tournamentCall(t, a, http.MethodGet, "/api/tournaments/"+tid, "")
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, []server.TournamentGame{{Race: race, Place: 2, Points: 3}}, standingOf(tr, bob.id).Games)
	assert.True(t, slices.IsSortedFunc(tr.Standings, func(x, y server.TournamentStanding) int { return y.Score - x.Score }))
}

// TestLoadtestArena runs -mode arena with 12 guests against a real
// server's running tournament: every guest joins, races are paired,
// solved and timed; then every player's score is the sum of their races'
// points, each the place's (doubled on a streak).
func TestLoadtestArena(t *testing.T) {
	a := arenatest.Start(t, arenatest.Options{Env: []string{"COUNTDOWN=1s", "POOL_STOCK=4", "TOURNAMENTS=" + arenatest.Tournaments(), "PLAYER_RATE=0"}})
	var out, errb bytes.Buffer
	code := run([]string{"loadtest", "-url", a.URL(), "-mode", "arena", "-rooms", "3", "-players", "4",
		"-rate", "10", "-ramp", "2s", "-duration", "10s"}, nil, &out, &errb)
	require.Equal(t, exitOK, code, "stderr: %s\nstdout: %s", errb.String(), out.String())
	var res loadtest.ArenaResult
	require.NoError(t, json.Unmarshal(out.Bytes(), &res), out.String())
	assert.Equal(t, 12, res.Joined)
	assert.Equal(t, 12, res.Paired, "every player is paired, told by its socket's own line")
	assert.Positive(t, res.Races)
	assert.Positive(t, res.Finishes, "races are solved")
	assert.Greater(t, res.Moves, 40)
	assert.Positive(t, res.Events)
	assert.Positive(t, res.MoveP50MS)
	assert.LessOrEqual(t, res.MoveP50MS, res.MoveP99MS)
	assert.Empty(t, res.Errors)

	tr, code := tournamentCall(t, a, http.MethodGet, "/api/tournaments/"+res.Tournament, "")
	require.Equal(t, http.StatusOK, code)
	require.Len(t, tr.Standings, 12)
	places := [...]int{0, 4, 3, 2, 1}
	won := 0
	for i, s := range tr.Standings {
		sum := 0
		for _, g := range s.Games {
			want := places[g.Place]
			if g.Fire {
				want *= 2
			}
			assert.Equal(t, want, g.Points, "%s's race %s, place %d", s.Name, g.Race, g.Place)
			sum += g.Points
			if g.Place == 1 {
				won++
			}
		}
		assert.Equal(t, sum, s.Score, "%s's score is their races' points", s.Name)
		if i > 0 {
			assert.LessOrEqual(t, s.Score, tr.Standings[i-1].Score, "by score")
		}
	}
	assert.Positive(t, won, "someone won a race")
}

// TestTournamentCommand: arena tournament create stores a one-off
// tournament, list shows it, and a bad one is refused with nothing stored.
func TestTournamentCommand(t *testing.T) {
	t.Setenv("DATABASE_URL", "sqlite:"+filepath.Join(t.TempDir(), "t.db"))
	start := time.Now().Add(time.Hour).UTC().Truncate(time.Second).Format(time.RFC3339)
	code, out, errOut := arena(t, "", "tournament", "create", "-level", "hard", "-start", start, "-duration", "30m", "-name", "Friday hard arena")
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `^tournament [a-z0-9]+: Friday hard arena, hard from `+regexp.QuoteMeta(start)+` for 30m\n$`, out)
	for _, bad := range [][]string{
		{"-level", "impossible", "-start", start, "-duration", "30m"},
		{"-level", "hard", "-start", "tomorrow", "-duration", "30m"},
		{"-level", "hard", "-start", "2020-01-01T00:00:00Z", "-duration", "30m"},
		{"-level", "hard", "-start", start, "-duration", "25h"},
	} {
		code, _, errOut = arena(t, "", append([]string{"tournament", "create"}, bad...)...)
		assert.Equal(t, exitUsage, code, "%v: %s", bad, errOut)
	}
	code, out, errOut = arena(t, "", "tournament", "list")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, 1, strings.Count(out, "\n"), "the one made, nothing of the refused ones: %s", out)
	assert.Contains(t, out, "\tupcoming\thard\t"+start+"\t30m\t0 players")
}

// TestTournamentSocketsCount: the tournament's sockets count against
// SOCKETS_PER_ADDR; one over it is refused, and a closed one frees its
// place.
func TestTournamentSocketsCount(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a := arenatest.Start(t, arenatest.Options{Env: []string{"TOURNAMENTS=" + arenatest.Tournaments(), "SOCKETS_PER_ADDR=1"}})
	var list server.TournamentsResponse
	res, err := arenatest.Get(a.URL() + "/api/tournaments")
	require.NoError(t, err)
	require.NoError(t, json.NewDecoder(res.Body).Decode(&list))
	res.Body.Close()
	require.Len(t, list.Running, 1)
	u := "ws" + a.URL()[len("http"):] + "/ws/tournaments/" + list.Running[0].ID
	opts := &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {a.URL()}}}
	first, _, err := websocket.Dial(ctx, u, opts)
	require.NoError(t, err)
	_, data, err := first.Read(ctx)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"type":"tournament"`)
	_, resp, err := websocket.Dial(ctx, u, opts)
	require.Error(t, err, "a second socket from the address")
	require.NotNil(t, resp)
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	require.NoError(t, first.Close(websocket.StatusNormalClosure, ""))
	require.Eventually(t, func() bool {
		c, _, err := websocket.Dial(ctx, u, opts)
		if err == nil {
			c.CloseNow()
		}
		return err == nil
	}, 5*time.Second, 50*time.Millisecond, "the place is free again")
}
