package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/daily"
	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/room/roomtest"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/backend/backendtest"
)

// dailyDay is the test's today: its clock starts at 10:00 UTC on it.
const dailyDay = "2026-11-22"

// node is one arena server in-process over a shared store: its own
// storage, registry and HTTP server, on a clock the test moves.
type node struct {
	srv   *httptest.Server
	data  *daily.Rooms
	rooms *room.Registry
	clock *roomtest.Clock
}

func (n *node) URL() string { return n.srv.URL }
func (n *node) WS() string  { return "ws" + strings.TrimPrefix(n.srv.URL, "http") + "/ws" }

// newNode starts a node over st whose clock reads at, which ranks
// guests' finishes.
func newNode(t *testing.T, st store.Store, at time.Time) *node {
	t.Helper()
	return newNodeRanking(t, st, at, true)
}

// newNodeRanking is newNode, ranking guests or not.
func newNodeRanking(t *testing.T, st store.Store, at time.Time, rankGuests bool) *node {
	t.Helper()
	data := newRooms(t, st)
	data.RankGuests = rankGuests
	clock := roomtest.NewClock(at)
	rooms := room.NewRegistry(room.RegistryConfig{Clock: clock}, data)
	// Test players move as fast as they can.
	srv := server.New(server.Config{RateLimit: 10000, RateBurst: 10000}, rooms, data, nil, nil)
	srv.SetDailies(&daily.Service{Store: st, Puzzles: data.Puzzles, RankGuests: data.RankGuests})
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		hs.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = rooms.Shutdown(ctx)
	})
	return &node{srv: hs, data: data, rooms: rooms, clock: clock}
}

// morning is 10:00 UTC on dailyDay.
var morning = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// get is a GET of the path with the bearer token (none when empty): its
// status and body.
func (n *node) get(t *testing.T, path, token string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, n.srv.URL+path, nil)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := arenatest.Client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, body
}

// getJSON is get, requiring 200, decoded into v.
func (n *node) getJSON(t *testing.T, path, token string, v any) {
	t.Helper()
	code, body := n.get(t, path, token)
	require.Equal(t, http.StatusOK, code, "GET %s: %s", path, body)
	require.NoError(t, json.Unmarshal(body, v), "GET %s", path)
}

// create is POST /api/rooms with the body: status and answer.
func (n *node) create(t *testing.T, body string) (int, server.CreateRoomResponse, string) {
	t.Helper()
	resp, err := arenatest.Post(n.srv.URL+"/api/rooms", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var cr server.CreateRoomResponse
	_ = json.Unmarshal(data, &cr)
	return resp.StatusCode, cr, string(data)
}

// playDaily opens a daily room on the node, joins it as the player (new
// when token is empty) and solves the puzzle over took on the node's
// clock, as a person would (paced fill). It returns the player's welcome
// and the player (with their token).
func (n *node) playDaily(t *testing.T, body, name, token string, took time.Duration) (*protocol.Welcome, *wsPlayer) {
	t.Helper()
	ctx := context.Background()
	code, cr, raw := n.create(t, body)
	require.Equal(t, http.StatusCreated, code, raw)
	p, err := dialPlayer(ctx, n, cr.ID, name, token, 0)
	require.NoError(t, err)
	t.Cleanup(p.close)
	require.NotNil(t, p.welcome.Room)
	givens, err := engine.Parse(p.welcome.Room.Givens)
	require.NoError(t, err)
	pacedFill(ctx, t, p, givens, took, n.clock.Advance)
	require.NoError(t, p.awaitFinish(ctx))
	return p.welcome, p
}

// pacedFill solves the givens over took as a person would, so that the
// finish passes the checks of a ranked one (room's holdReason): the cells
// in no reading order, the gaps between them uneven (weights 1 to 5 in
// turn, summing to took), the clock moved on by advance before each.
func pacedFill(ctx context.Context, t *testing.T, p *wsPlayer, givens engine.Grid, took time.Duration, advance func(time.Duration)) {
	t.Helper()
	sol := engine.Solve(givens, 2)
	require.Equal(t, 1, sol.Count)
	var cells []int
	for i := range engine.NumCells {
		if cell := i * 29 % engine.NumCells; givens[cell] == 0 {
			cells = append(cells, cell)
		}
	}
	weights := 0
	for i := range cells {
		weights += 1 + i%5
	}
	spent := time.Duration(0)
	for i, cell := range cells {
		step := took * time.Duration(1+i%5) / time.Duration(weights)
		if i == len(cells)-1 {
			step = took - spent
		}
		spent += step
		advance(step)
		require.NoError(t, p.move(ctx, cell, int(sol.Solution[cell])))
	}
}

// The daily of a date is the same puzzle on two nodes sharing a database,
// after a restart (a fresh node on the same database), and on another
// database altogether: it is made from the date and level alone.
func TestDailyIsTheSameOnEveryNodeAndAfterARestart(t *testing.T) {
	givens := map[string]string{}
	for name, st := range backendtest.Stores(t) {
		t.Run(name, func(t *testing.T) {
			a, b := newNode(t, st, morning), newNode(t, st, morning)
			var da, db server.DailyResponse
			a.getJSON(t, "/api/daily", "", &da)
			b.getJSON(t, "/api/daily", "", &db)
			assert.Equal(t, dailyDay, da.Date)
			require.Len(t, da.Levels, len(room.Levels))
			assert.Equal(t, da, db, "two nodes on one database agree")
			for i, l := range da.Levels {
				assert.Equal(t, room.Levels[i], l.Level)
				assert.Positive(t, l.PuzzleID)
				d, _, err := engine.ParseDifficulty(l.Level)
				require.NoError(t, err)
				se := engine.SERating(l.SE*10 + 0.5)
				assert.True(t, d.Holds(se, se != 0), "%s daily rated %v, outside %s", l.Level, l.SE, d.Range())
				assert.Zero(t, l.Finished)
				assert.Nil(t, l.You, "no token, no status")
			}
			restarted := newNode(t, st, morning.Add(time.Hour))
			var dr server.DailyResponse
			restarted.getJSON(t, "/api/daily", "", &dr)
			assert.Equal(t, da, dr, "a restart finds the same dailies")

			pz, err := st.Puzzle(context.Background(), da.Levels[2].PuzzleID)
			require.NoError(t, err)
			assert.Equal(t, "hard", pz.Level)
			givens[name] = pz.Givens
		})
	}
	assert.Equal(t, givens["sqlite"], givens["postgres"], "another database makes the same puzzle")
}

// A daily played to the end over the API and the WebSocket lands on the
// day's leaderboard and in the player's record; a second attempt is
// unranked and changes no rank, and so is an archive day's.
func TestDailyPlayedRankedOnceOnEveryStore(t *testing.T) {
	for name, st := range backendtest.Stores(t) {
		t.Run(name, func(t *testing.T) {
			n := newNode(t, st, morning)
			w, ann := n.playDaily(t, `{"mode":"daily","level":"easy"}`, "Ann", "", 4*time.Minute)
			assert.Equal(t, dailyDay, w.Room.Date)
			assert.Equal(t, room.ModeDaily, w.Room.Mode)
			require.NotNil(t, w.Room.Players[0].Ranked)
			assert.True(t, *w.Room.Players[0].Ranked)
			assert.Equal(t, protocol.PhaseRunning, w.Room.Phase, "a daily runs from the join")
			assert.Empty(t, w.Room.Solution)
			assert.Equal(t, int64(240000), ann.finish.ElapsedMS)
			_, bob := n.playDaily(t, `{"mode":"daily","level":"easy","date":"`+dailyDay+`"}`, "Bob", "", 3*time.Minute)

			var lb server.LeaderboardResponse
			n.getJSON(t, "/api/daily/"+dailyDay+"/easy/leaderboard?around=me", ann.token, &lb)
			assert.Equal(t, 2, lb.Total)
			require.Len(t, lb.Top, 2)
			assert.Equal(t, []string{bob.id, ann.id}, []string{lb.Top[0].Player.ID, lb.Top[1].Player.ID})
			assert.Equal(t, "Ann", lb.Top[1].Player.Name)
			assert.Equal(t, int64(180000), lb.Top[0].TimeMS)
			assert.Equal(t, int64(180000), lb.Top[0].ElapsedMS)
			assert.Equal(t, []int{1, 2}, []int{lb.Top[0].Rank, lb.Top[1].Rank})
			require.Len(t, lb.Around, 2)
			assert.Equal(t, ann.id, lb.Around[1].Player.ID)

			var daily server.DailyResponse
			n.getJSON(t, "/api/daily", ann.token, &daily)
			assert.Equal(t, 2, daily.Levels[0].Finished)
			require.NotNil(t, daily.Levels[0].You)
			assert.Equal(t, server.DailyYou{Status: server.DailySolved, TimeMS: 240000, Rank: 2, Ranked: true}, *daily.Levels[0].You)
			assert.Equal(t, server.DailyNotStarted, daily.Levels[1].You.Status)

			// A second attempt: unranked from the welcome, and no rank moves.
			w2, _ := n.playDaily(t, `{"mode":"daily","level":"easy"}`, "Ann", ann.token, time.Minute+time.Second)
			assert.False(t, *w2.Room.Players[0].Ranked)
			var lb2 server.LeaderboardResponse
			n.getJSON(t, "/api/daily/"+dailyDay+"/easy/leaderboard", "", &lb2)
			assert.Equal(t, lb.Top, lb2.Top, "a second attempt does not change rank")
			assert.Equal(t, 2, lb2.Total)
			assert.Nil(t, lb2.Around, "around only when asked")

			// An archive day: unranked too.
			yesterday := morning.AddDate(0, 0, -1).Format(room.DayLayout)
			w3, _ := n.playDaily(t, `{"mode":"daily","level":"easy","date":"`+yesterday+`"}`, "Ann", ann.token, 2*time.Minute)
			assert.Equal(t, yesterday, w3.Room.Date)
			assert.False(t, *w3.Room.Players[0].Ranked)
			var old server.LeaderboardResponse
			n.getJSON(t, "/api/daily/"+yesterday+"/easy/leaderboard", "", &old)
			assert.Zero(t, old.Total)
			assert.Empty(t, old.Top)

			var rec server.PlayerResponse
			n.getJSON(t, "/api/players/"+ann.id, "", &rec)
			assert.Equal(t, "Ann", rec.Name)
			require.Len(t, rec.Results, 3)
			ranked := 0
			for _, r := range rec.Results {
				assert.Equal(t, room.ModeDaily, r.Mode)
				if r.Ranked {
					ranked++
					assert.Equal(t, dailyDay, r.Date)
					assert.Equal(t, 2, r.Rank)
					assert.Equal(t, int64(240000), r.TimeMS)
				}
			}
			assert.Equal(t, 1, ranked)
			assert.Equal(t, server.StreakJSON{Current: 1, Longest: 1}, rec.Streak)
			assert.Equal(t, int64(240000), rec.Best["easy"].ElapsedMS, "the best time counts the ranked finish, not the later attempts on a puzzle seen")
			// The record's stats count every finish: three dailies, whose
			// times are 4:00, 1:01 and 2:00.
			zero := 0
			assert.Equal(t, server.PlayerStats{
				Modes: map[string]server.ModeStats{
					room.ModeRace: {Won: &zero, Contested: &zero}, room.ModeCoop: {}, room.ModeDaily: {Finished: 3},
				},
				Levels: map[string]server.LevelStats{"easy": {Finished: 3, BestMS: 61000, AverageMS: (240000 + 61000 + 120000) / 3}},
			}, rec.Stats)
			// The month's dailies solved: yesterday's from the archive, and
			// today's on its day at its fastest.
			var days server.PlayerDaysResponse
			n.getJSON(t, "/api/players/"+ann.id+"/days?month=2026-11", "", &days)
			assert.Equal(t, server.PlayerDaysResponse{ID: ann.id, Month: "2026-11", Days: []server.SolvedDaily{
				{Date: yesterday, Level: "easy", TimeMS: 120000},
				{Date: dailyDay, Level: "easy", TimeMS: 61000, OnDay: true},
			}}, days)
			var none server.PlayerDaysResponse
			n.getJSON(t, "/api/players/"+ann.id+"/days", "", &none)
			assert.Equal(t, "2026-11", none.Month, "this month when none is asked")
			assert.Equal(t, days.Days, none.Days)
			n.getJSON(t, "/api/players/"+ann.id+"/days?month=2026-10", "", &none)
			assert.Equal(t, []server.SolvedDaily{}, none.Days)

			var best server.BestTimesResponse
			n.getJSON(t, "/api/leaderboards/easy?limit=10", "", &best)
			require.Len(t, best.Rows, 2)
			assert.Equal(t, []string{bob.id, ann.id}, []string{best.Rows[0].Player.ID, best.Rows[1].Player.ID})
			assert.Equal(t, int64(240000), best.Rows[1].ElapsedMS)
		})
	}
}

// seedDaily stores ranked daily results straight through the storage, as
// rooms do: player pNNN took times[i] with mistakes[i] and finished at
// fin[i] after morning.
func seedDaily(t *testing.T, n *node, day string, times []time.Duration, mistakes, hints []int, fin []time.Duration) []string {
	t.Helper()
	ctx := context.Background()
	pz, err := n.data.Puzzles.Puzzle(ctx, day, "medium")
	require.NoError(t, err)
	var ids []string
	for i := range times {
		id := fmt.Sprintf("p%03d", i)
		if _, err := n.data.Store.Player(ctx, id); err != nil {
			require.NoError(t, n.data.CreatePlayer(ctx, id, "Player "+id, server.HashToken("tok-"+id)))
		}
		gameID := fmt.Sprintf("%s-%s", day, id)
		require.NoError(t, n.data.Store.CreateRoom(ctx, store.Room{ID: gameID, Mode: room.ModeDaily, PuzzleID: pz.ID, State: store.StateFinished, CreatedAt: morning}))
		require.NoError(t, n.data.SaveResults(ctx, []room.Result{{
			GameID: gameID, PlayerID: id, PuzzleID: pz.ID, Mode: room.ModeDaily, Level: "medium", Rank: 1,
			Elapsed: times[i], Mistakes: mistakes[i], Hints: hints[i], FinishedAt: morning.Add(fin[i]),
			Day: day, Ranked: true,
		}}))
		ids = append(ids, id)
	}
	return ids
}

// The daily board goes by time with penalties, then the earlier finish,
// then the player id; "around me" is the caller's row with up to five
// either side, at the top, in the middle and at the bottom.
func TestDailyRankingPenaltiesTiesAndAround(t *testing.T) {
	for name, st := range backendtest.Stores(t) {
		t.Run(name, func(t *testing.T) {
			n := newNode(t, st, morning)
			s := time.Second
			// p000 200 s + 1 mistake = 230 s; p001 170 s + 1 hint = 230 s,
			// finished earlier; p002 and p003 230 s clean, finished with
			// p001: the player id decides; p004 100 s fastest.
			times := []time.Duration{200 * s, 170 * s, 230 * s, 230 * s, 100 * s}
			mistakes := []int{1, 0, 0, 0, 0}
			hints := []int{0, 1, 0, 0, 0}
			fin := []time.Duration{9 * s, 5 * s, 5 * s, 5 * s, 0}
			for i := 5; i < 20; i++ { // fifteen more, slower each
				times = append(times, time.Duration(300+i)*s)
				mistakes, hints, fin = append(mistakes, 0), append(hints, 0), append(fin, 0)
			}
			seedDaily(t, n, dailyDay, times, mistakes, hints, fin)

			var lb server.LeaderboardResponse
			n.getJSON(t, "/api/daily/"+dailyDay+"/medium/leaderboard?limit=5", "", &lb)
			assert.Equal(t, 20, lb.Total)
			var got []string
			for _, r := range lb.Top {
				got = append(got, r.Player.ID)
			}
			assert.Equal(t, []string{"p004", "p001", "p002", "p003", "p000"}, got)
			assert.Equal(t, int64(230000), lb.Top[1].TimeMS)
			assert.Equal(t, int64(170000), lb.Top[1].ElapsedMS)
			assert.Equal(t, 1, lb.Top[1].Hints)
			assert.Equal(t, int64(230000), lb.Top[4].TimeMS)
			assert.Equal(t, 1, lb.Top[4].Mistakes)

			around := func(player string) []int {
				var a server.LeaderboardResponse
				n.getJSON(t, "/api/daily/"+dailyDay+"/medium/leaderboard?limit=1&around=me", "tok-"+player, &a)
				var ranks []int
				for _, r := range a.Around {
					ranks = append(ranks, r.Rank)
				}
				return ranks
			}
			assert.Equal(t, []int{1, 2, 3, 4, 5, 6}, around("p004"), "the top")
			assert.Equal(t, []int{6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, around("p010"), "the middle")
			assert.Equal(t, []int{15, 16, 17, 18, 19, 20}, around("p019"), "the bottom")

			// An unknown token, or none, gets no "around".
			var a server.LeaderboardResponse
			n.getJSON(t, "/api/daily/"+dailyDay+"/medium/leaderboard?around=me", "nobody", &a)
			assert.Nil(t, a.Around)
			assert.Len(t, a.Top, 20)
		})
	}
}

// A streak counts consecutive days with a ranked daily: a missed day
// breaks it, and today unplayed does not, until its midnight UTC passes.
func TestDailyStreaksAcrossAMissedDayAndMidnight(t *testing.T) {
	for name, st := range backendtest.Stores(t) {
		t.Run(name, func(t *testing.T) {
			n := newNode(t, st, morning)
			one := []time.Duration{5 * time.Minute}
			zero := []int{0}
			// Played 11-17, 11-18, (missed 11-19), 11-20, 11-21, 11-22.
			for _, day := range []string{"2026-11-17", "2026-11-18", "2026-11-20", "2026-11-21", "2026-11-22"} {
				seedDaily(t, n, day, one, zero, zero, []time.Duration{0})
			}
			streak := func() server.StreakJSON {
				var rec server.PlayerResponse
				n.getJSON(t, "/api/players/p000", "", &rec)
				return rec.Streak
			}
			assert.Equal(t, server.StreakJSON{Current: 3, Longest: 3}, streak())
			n.clock.Advance(14*time.Hour - time.Minute) // 23:59
			assert.Equal(t, 3, streak().Current)
			n.clock.Advance(2 * time.Minute) // 00:01 on 11-23, unplayed yet
			assert.Equal(t, "2026-11-23", n.rooms.Today())
			assert.Equal(t, 3, streak().Current, "today unplayed keeps yesterday's streak")
			n.clock.Advance(24 * time.Hour) // 11-24: 11-23 was missed
			assert.Equal(t, server.StreakJSON{Current: 0, Longest: 3}, streak())
		})
	}
}

// Bad dates, future dates, unknown levels and limits out of range are
// refused with 400 bad_field and a message; an unknown player is 404.
func TestDailyRoutesRefuseBadInput(t *testing.T) {
	st := backendtest.Stores(t)["sqlite"]
	n := newNode(t, st, morning)
	bad := []string{
		"/api/daily/2026-11-23/easy/leaderboard",
		"/api/daily/2026-13-01/easy/leaderboard",
		"/api/daily/22-11-2026/easy/leaderboard",
		"/api/daily/2026-02-30/easy/leaderboard",
		"/api/daily/" + dailyDay + "/beyond/leaderboard",
		"/api/daily/" + dailyDay + "/easy/leaderboard?limit=0",
		"/api/daily/" + dailyDay + "/easy/leaderboard?limit=101",
		"/api/daily/" + dailyDay + "/easy/leaderboard?limit=ten",
		"/api/daily/" + dailyDay + "/easy/leaderboard?around=you",
		"/api/leaderboards/nightmare",
		"/api/leaderboards/easy?limit=-1",
		"/api/players/p_nobody/days?month=2026-12",
		"/api/players/p_nobody/days?month=2026-1",
		"/api/players/p_nobody/days?month=november",
		"/api/players/p_nobody/days?month=2026-11-01",
	}
	for _, path := range bad {
		code, body := n.get(t, path, "")
		assert.Equal(t, http.StatusBadRequest, code, path)
		var e struct {
			Error struct{ Code, Message string }
		}
		require.NoError(t, json.Unmarshal(body, &e), path)
		assert.Equal(t, protocol.CodeBadField, e.Error.Code, path)
		assert.NotEmpty(t, e.Error.Message, path)
	}
	for _, path := range []string{"/api/players/p_nobody", "/api/players/p_nobody/days?month=2026-11"} {
		code, body := n.get(t, path, "")
		assert.Equal(t, http.StatusNotFound, code, path)
		assert.Contains(t, string(body), protocol.CodePlayerNotFound, path)
	}
	// A bad level's message lists every level, master included; master's
	// boards are there like the others'.
	for _, path := range []string{"/api/leaderboards/nightmare", "/api/daily/" + dailyDay + "/beyond/leaderboard"} {
		_, body := n.get(t, path, "")
		assert.Contains(t, string(body), `level must be \"easy\", \"medium\", \"hard\", \"expert\" or \"master\"`, path)
	}
	for _, path := range []string{"/api/leaderboards/master", "/api/daily/" + dailyDay + "/master/leaderboard"} {
		code, body := n.get(t, path, "")
		assert.Equal(t, http.StatusOK, code, "%s: %s", path, body)
	}

	for _, req := range []string{
		`{"mode":"daily","level":"easy","date":"2026-11-23"}`,
		`{"mode":"daily","level":"easy","date":"yesterday"}`,
		`{"mode":"race","level":"easy","date":"2026-11-23"}`,
		`{"mode":"coop","level":"easy","date":"` + dailyDay + `"}`,
		`{"mode":"daily","level":"beyond"}`,
	} {
		code, _, raw := n.create(t, req)
		assert.Equal(t, http.StatusBadRequest, code, req)
		assert.Contains(t, raw, protocol.CodeBadField, req)
	}
	code, cr, raw := n.create(t, `{"mode":"race","level":"hard","date":"`+dailyDay+`"}`)
	require.Equal(t, http.StatusCreated, code, raw)
	var snap protocol.Snapshot
	n.getJSON(t, "/api/rooms/"+cr.ID, "", &snap)
	assert.Equal(t, dailyDay, snap.Date)
	assert.Equal(t, room.ModeRace, snap.Mode)
	assert.Equal(t, "hard", snap.Level)
}

// A finish that is not on the day's board is still a finish: GET
// /api/daily says "solved", with its time, "ranked": false and, for one
// held for review, "review": "held"; the day's board does not count it.
func TestDailySolvedOffTheBoard(t *testing.T) {
	for name, st := range backendtest.Stores(t) {
		t.Run(name, func(t *testing.T) {
			// A guest on a server that ranks accounts only: unranked.
			n := newNodeRanking(t, st, morning, false)
			_, gus := n.playDaily(t, `{"mode":"daily","level":"easy"}`, "Gus", "", 4*time.Minute)
			var d server.DailyResponse
			n.getJSON(t, "/api/daily", gus.token, &d)
			require.NotNil(t, d.Levels[0].You)
			assert.Equal(t, server.DailyYou{Status: server.DailySolved, TimeMS: 240000}, *d.Levels[0].You)
			assert.Zero(t, d.Levels[0].Finished)
			assert.Equal(t, server.DailyYou{Status: server.DailyNotStarted}, *d.Levels[1].You)

			// A ranked attempt faster than the level's floor: held for
			// review, off the board; a second attempt after it is
			// unranked, and the held one is what "you" tells.
			r := newNode(t, st, morning)
			_, hal := r.playDaily(t, `{"mode":"daily","level":"medium"}`, "Hal", "", 30*time.Second)
			r.playDaily(t, `{"mode":"daily","level":"medium"}`, "Hal", hal.token, 5*time.Minute)
			var rd server.DailyResponse
			r.getJSON(t, "/api/daily", hal.token, &rd)
			assert.Equal(t, server.DailyYou{Status: server.DailySolved, TimeMS: 30000, Review: store.ReviewHeld}, *rd.Levels[1].You)
			assert.Zero(t, rd.Levels[1].Finished, "held: not on the board")
			assert.Equal(t, server.DailyYou{Status: server.DailyNotStarted, Ranked: true}, *rd.Levels[0].You)

			// A ranked finish: its rank, as before.
			_, ivy := r.playDaily(t, `{"mode":"daily","level":"medium"}`, "Ivy", "", 3*time.Minute)
			var id server.DailyResponse
			r.getJSON(t, "/api/daily", ivy.token, &id)
			assert.Equal(t, server.DailyYou{Status: server.DailySolved, TimeMS: 180000, Rank: 1, Ranked: true}, *id.Levels[1].You)
		})
	}
}

// A player's record gives each race result its place in the room: the
// winner's rank 1, the runner-up's 2; a ranked daily's is its place on
// the day's board.
func TestPlayerRecordRanksRacesByTheRoom(t *testing.T) {
	for name, st := range backendtest.Stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			n := newNode(t, st, morning)
			code, cr, raw := n.create(t, `{"mode":"race","level":"easy"}`)
			require.Equal(t, http.StatusCreated, code, raw)
			bob, err := dialPlayer(ctx, n, cr.ID, "Bob", "", 0)
			require.NoError(t, err)
			t.Cleanup(bob.close)
			ann, err := dialPlayer(ctx, n, cr.ID, "Ann", "", 0)
			require.NoError(t, err)
			t.Cleanup(ann.close)
			require.NoError(t, bob.send(ctx, map[string]any{"type": "start"}))
			_, err = bob.until(ctx, func(f frame) bool { return f.Type == protocol.TypeCountdown })
			require.NoError(t, err)
			n.clock.Advance(5 * time.Second) // the countdown
			givens, err := bob.running(ctx)
			require.NoError(t, err)
			_, err = ann.running(ctx)
			require.NoError(t, err)
			pacedFill(ctx, t, bob, givens, 4*time.Minute, n.clock.Advance)
			require.NoError(t, bob.awaitFinish(ctx))
			pacedFill(ctx, t, ann, givens, time.Minute, n.clock.Advance)
			require.NoError(t, ann.awaitFinish(ctx))
			_, _ = n.playDaily(t, `{"mode":"daily","level":"easy"}`, "Ann", ann.token, 3*time.Minute)

			for who, want := range map[string]int{bob.id: 1, ann.id: 2} {
				var rec server.PlayerResponse
				n.getJSON(t, "/api/players/"+who, "", &rec)
				var race *server.PlayerResultJSON
				for i, r := range rec.Results {
					if r.Mode == room.ModeRace {
						race = &rec.Results[i]
					}
				}
				require.NotNil(t, race, "%s's race", who)
				assert.Equal(t, cr.ID, race.Room)
				assert.Equal(t, want, race.Rank, "%s's place in the race", who)
				assert.False(t, race.Ranked, "a race is on no daily board")
				// The race counts in the record's stats: the winner's a win,
				// and for both a race against someone (the win rate's whole).
				require.NotNil(t, rec.Stats.Modes[room.ModeRace].Won)
				require.NotNil(t, rec.Stats.Modes[room.ModeRace].Contested)
				assert.Equal(t, 1, rec.Stats.Modes[room.ModeRace].Finished, who)
				assert.Equal(t, 2-want, *rec.Stats.Modes[room.ModeRace].Won, "%s's wins", who)
				assert.Equal(t, 1, *rec.Stats.Modes[room.ModeRace].Contested, "%s's races against someone", who)
			}
			var rec server.PlayerResponse
			n.getJSON(t, "/api/players/"+ann.id, "", &rec)
			require.Len(t, rec.Results, 2)
			assert.Equal(t, room.ModeDaily, rec.Results[0].Mode)
			assert.Equal(t, 1, rec.Results[0].Rank, "the daily's place on the day's board")
			assert.True(t, rec.Results[0].Ranked)
		})
	}
}
