package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store"
)

// The attacks an independent client ran against a fresh server, run again
// against the real process: what they got then, ranks, they get no more.

// makeAccount makes a player through a join (their token) and turns them into
// an account through the server's own store, as a sign-up does.
func makeAccount(ctx context.Context, t *testing.T, a *arenatest.Arena, st store.Store, name string) (id, token string) {
	t.Helper()
	rid, err := createRoom(a, room.ModeRace)
	require.NoError(t, err)
	p, err := dialPlayer(ctx, a, rid, name, "", 0)
	require.NoError(t, err)
	p.close()
	require.NoError(t, st.CreateAccount(ctx, p.id, name, strings.ToLower(name), time.Now(), nil))
	return p.id, p.token
}

// solveAll fills every empty cell of the givens with its digit of the
// solution, as fast as the server acknowledges, and waits for the finish.
func solveAll(ctx context.Context, t *testing.T, p *wsPlayer, givens engine.Grid) {
	t.Helper()
	res := engine.Solve(givens, 2)
	require.Equal(t, 1, res.Count)
	for cell, v := range givens {
		if v == 0 {
			require.NoError(t, p.move(ctx, cell, int(res.Solution[cell])))
		}
	}
	require.NoError(t, p.awaitFinish(ctx))
}

func getJSON(t *testing.T, a *arenatest.Arena, path string, v any) {
	t.Helper()
	resp, err := arenatest.Get(a.URL() + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "GET %s", path)
	require.NoError(t, json.NewDecoder(resp.Body).Decode(v))
}

// A free look at the daily: Ann joins today's easy daily, reads the
// givens, leaves, solves them elsewhere and comes back to fill the board.
// The first view's clock counts: the second room says since when, the
// finish is timed from the first look, and it is on no leaderboard (held:
// faster than the level's floor). A private window (a fresh guest) sees
// another copy of the puzzle, which Ann's solution does not fit.
func TestAttackFreeLookAtTheDaily(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a := arenatest.Start(t, arenatest.Options{})
	st := openStore(ctx, t, a)
	annID, token := makeAccount(ctx, t, a, st, "Ann")

	look, err := createRoom(a, room.ModeDaily)
	require.NoError(t, err)
	first, err := dialPlayer(ctx, a, look, "Ann", token, 0)
	require.NoError(t, err)
	givens, err := engine.Parse(first.givens)
	require.NoError(t, err)
	require.NotNil(t, first.welcome.Room.StartedAt)
	firstView := *first.welcome.Room.StartedAt
	first.close()
	time.Sleep(1500 * time.Millisecond)

	again, err := createRoom(a, room.ModeDaily)
	require.NoError(t, err)
	p, err := dialPlayer(ctx, a, again, "Ann", token, 0)
	require.NoError(t, err)
	assert.Equal(t, first.givens, p.givens, "Ann's own copy, again")
	you := p.welcome.Room.Players[0]
	require.NotNil(t, you.Since, "the second room says the clock runs from the first view")
	assert.WithinDuration(t, firstView, *you.Since, time.Millisecond, "since: the first view (kept to the microsecond)")
	solveAll(ctx, t, p, givens)
	assert.GreaterOrEqual(t, p.finish.ElapsedMS, int64(1500), "timed from the first look, not from this room's start")

	today := time.Now().UTC().Format(room.DayLayout)
	var board struct {
		Total int `json:"total"`
	}
	getJSON(t, a, "/api/daily/"+today+"/easy/leaderboard", &board)
	assert.Zero(t, board.Total, "no ranked result")
	var rec server.PlayerResponse
	getJSON(t, a, "/api/players/"+annID, &rec)
	require.Len(t, rec.Results, 1)
	assert.Equal(t, store.ReviewHeld, rec.Results[0].Review, "held: faster than the level's floor")
	assert.False(t, rec.Results[0].Ranked)

	// A private window: a guest's copy is another board.
	guestRoom, err := createRoom(a, room.ModeDaily)
	require.NoError(t, err)
	g, err := dialPlayer(ctx, a, guestRoom, "Eve", "", 0)
	require.NoError(t, err)
	defer g.close()
	require.NotEmpty(t, g.givens)
	assert.NotEqual(t, first.givens, g.givens, "another player's copy")
	eve, err := engine.Parse(g.givens)
	require.NoError(t, err)
	sol := engine.Solve(givens, 1).Solution
	fits := true
	for cell, v := range eve {
		fits = fits && (v == 0 || v == sol[cell])
	}
	assert.False(t, fits, "Ann's solution does not fit Eve's board")
	assert.False(t, *g.welcome.Room.Players[0].Ranked, "a guest is not ranked")
}

// A bot on the all-time board: a solo race, its givens solved by the lab,
// scripted moves. A race of one is on no board. A race of two that a bot
// wins at machine pace is held for review, listed by arena review, and on
// the board only once an operator confirms it.
func TestAttackBotOnTheAllTimeBoard(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a := arenatest.Start(t, arenatest.Options{})
	st := openStore(ctx, t, a)
	bobID, bobToken := makeAccount(ctx, t, a, st, "Bob")
	_, calToken := makeAccount(ctx, t, a, st, "Cal")

	solo, err := createRoom(a, room.ModeRace)
	require.NoError(t, err)
	bob, err := dialPlayer(ctx, a, solo, "Bob", bobToken, 0)
	require.NoError(t, err)
	require.NoError(t, bob.send(ctx, map[string]any{"type": "start"}))
	givens, err := bob.running(ctx)
	require.NoError(t, err)
	solveAll(ctx, t, bob, givens)
	bob.close()
	var best struct {
		Rows []server.LeaderRow `json:"rows"`
	}
	getJSON(t, a, "/api/leaderboards/easy", &best)
	assert.Empty(t, best.Rows, "a race of one is on no board")

	duel, err := createRoom(a, room.ModeRace)
	require.NoError(t, err)
	bob, err = dialPlayer(ctx, a, duel, "Bob", bobToken, 0)
	require.NoError(t, err)
	defer bob.close()
	cal, err := dialPlayer(ctx, a, duel, "Cal", calToken, 0)
	require.NoError(t, err)
	defer cal.close()
	require.NoError(t, bob.send(ctx, map[string]any{"type": "start"}))
	givens, err = bob.running(ctx)
	require.NoError(t, err)
	solveAll(ctx, t, bob, givens)
	getJSON(t, a, "/api/leaderboards/easy", &best)
	assert.Empty(t, best.Rows, "the bot's win is held, off the board")
	var rec server.PlayerResponse
	getJSON(t, a, "/api/players/"+bobID, &rec)
	require.Len(t, rec.Results, 2)
	assert.Equal(t, store.ReviewHeld, rec.Results[0].Review)

	list := arenatest.Command(t, 30*time.Second, arenatest.Binary(t), "review")
	list.Env = append(list.Environ(), "DATABASE_URL="+a.DatabaseURL())
	out, err := list.CombinedOutput()
	require.NoError(t, err, "%s", out)
	held, err := st.HeldResults(ctx, 0)
	require.NoError(t, err)
	require.Len(t, held, 1)
	assert.Contains(t, string(out), "Bob ("+bobID+")")
	assert.Contains(t, string(out), room.HoldLevelFloor, "the reason")
	assert.Contains(t, string(out), "1 held")

	confirm := arenatest.Command(t, 30*time.Second, arenatest.Binary(t), "review", "confirm", strconv.FormatInt(held[0].ID, 10))
	confirm.Env = append(confirm.Environ(), "DATABASE_URL="+a.DatabaseURL())
	out, err = confirm.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "confirmed")
	getJSON(t, a, "/api/leaderboards/easy", &best)
	require.Len(t, best.Rows, 1, "confirmed: on the board")
	assert.Equal(t, bobID, best.Rows[0].Player.ID)
}

// FLOOR_PERCENT moves the floors in a real server: at 10 % (easy's floor
// 6 s), Ann's daily, played as a person would over 10 s, ranks at once,
// which the default floors hold (TestAttackBotOnTheAllTimeBoard); Bob's,
// typed as fast as the server takes it, is still held under the lowered
// floor.
func TestFloorPercentMovesTheFloors(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a := arenatest.Start(t, arenatest.Options{Env: []string{"FLOOR_PERCENT=10"}})
	st := openStore(ctx, t, a)
	annID, annToken := makeAccount(ctx, t, a, st, "Ann")
	bobID, bobToken := makeAccount(ctx, t, a, st, "Bob")
	play := func(name, token string) *wsPlayer {
		id, err := createRoom(a, room.ModeDaily)
		require.NoError(t, err)
		p, err := dialPlayer(ctx, a, id, name, token, 0)
		require.NoError(t, err)
		t.Cleanup(p.close)
		return p
	}

	ann := play("Ann", annToken)
	givens, err := engine.Parse(ann.givens)
	require.NoError(t, err)
	pacedFill(ctx, t, ann, givens, 10*time.Second, time.Sleep)
	require.NoError(t, ann.awaitFinish(ctx))
	bob := play("Bob", bobToken)
	givens, err = engine.Parse(bob.givens)
	require.NoError(t, err)
	solveAll(ctx, t, bob, givens)
	require.Less(t, bob.finish.ElapsedMS, int64(6000), "Bob's finish is under the lowered floor")

	var rec server.PlayerResponse
	getJSON(t, a, "/api/players/"+annID, &rec)
	require.Len(t, rec.Results, 1)
	assert.True(t, rec.Results[0].Ranked)
	assert.Equal(t, store.ReviewNone, rec.Results[0].Review, "Ann's 10 s finish is past the lowered floors")
	today := time.Now().UTC().Format(room.DayLayout)
	var board server.LeaderboardResponse
	getJSON(t, a, "/api/daily/"+today+"/easy/leaderboard", &board)
	assert.Equal(t, 1, board.Total, "Ann's alone")
	held, err := st.HeldResults(ctx, 0)
	require.NoError(t, err)
	require.Len(t, held, 1)
	assert.Equal(t, bobID, held[0].PlayerID)
	assert.Equal(t, room.HoldLevelFloor, held[0].Reason)
}
