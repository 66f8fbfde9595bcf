package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/sqlite"
)

// bot is a player of a real server over its WebSocket: it joins a room,
// starts it and solves it, as a third-party client would.
type bot struct {
	t         *testing.T
	conn      *websocket.Conn
	id, token string
	phase     string
	givens    string
	finished  bool
}

// joinBot joins the room as the player of token (a new one named name
// when it is empty).
func joinBot(ctx context.Context, t *testing.T, a *arena, roomID, name, token string) *bot {
	t.Helper()
	conn, _, err := websocket.Dial(ctx, a.WS()+"?room="+roomID, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {a.URL()}}})
	require.NoError(t, err)
	conn.SetReadLimit(1 << 20)
	b := &bot{t: t, conn: conn, token: token}
	join := map[string]any{"type": "join", "room": roomID, "name": name}
	if token != "" {
		join["token"] = token
	}
	b.send(ctx, join)
	for b.id == "" {
		b.read(ctx)
	}
	return b
}

func (b *bot) send(ctx context.Context, v any) {
	b.t.Helper()
	data, err := json.Marshal(v)
	require.NoError(b.t, err)
	require.NoError(b.t, b.conn.Write(ctx, websocket.MessageText, data))
}

// read reads one event and notes what it says of the bot's game.
func (b *bot) read(ctx context.Context) string {
	b.t.Helper()
	_, data, err := b.conn.Read(ctx)
	require.NoError(b.t, err)
	var head struct{ Type string }
	require.NoError(b.t, json.Unmarshal(data, &head))
	switch head.Type {
	case protocol.TypeWelcome:
		var w protocol.Welcome
		require.NoError(b.t, json.Unmarshal(data, &w))
		b.id = w.You.ID
		if w.You.Token != "" {
			b.token = w.You.Token
		}
		if w.Room != nil {
			b.phase, b.givens = w.Room.Phase, w.Room.Givens
		}
	case protocol.TypeState:
		var st protocol.State
		require.NoError(b.t, json.Unmarshal(data, &st))
		b.phase, b.givens = st.Room.Phase, st.Room.Givens
	case protocol.TypeFinish:
		var fin protocol.FinishEvent
		require.NoError(b.t, json.Unmarshal(data, &fin))
		b.finished = b.finished || fin.Player == b.id
	case protocol.TypeError:
		b.t.Logf("bot: %s", data)
	}
	return head.Type
}

// solve waits for the race (a tournament's starts by itself) and fills
// every empty cell with its solution.
func (b *bot) solve(ctx context.Context) {
	b.t.Helper()
	for b.phase != protocol.PhaseRunning {
		b.read(ctx)
	}
	givens, err := engine.Parse(b.givens)
	require.NoError(b.t, err)
	res := engine.Solve(givens, 2)
	require.Equal(b.t, 1, res.Count)
	for cell, d := range givens {
		if d == 0 {
			b.send(ctx, map[string]any{"type": "move", "id": fmt.Sprint("m", cell), "cell": cell, "digit": int(res.Solution[cell])})
		}
	}
	for !b.finished {
		b.read(ctx)
	}
}

// tournamentLooks are the tournament page's screenshots: a phone and a
// desktop, light and dark.
var tournamentLooks = []look{
	{"", 1280, 800, false, "light"},
	{"-dark", 1280, 800, false, "dark"},
	{"-phone", 390, 844, true, "light"},
	{"-phone-dark", 390, 844, true, "dark"},
}

// runningTournament is the id of the one tournament srv runs, once its
// schedule has started it.
func runningTournament(t *testing.T, srv *arena) string {
	t.Helper()
	var list server.TournamentsResponse
	for deadline := time.Now().Add(10 * time.Second); len(list.Running) == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		res, err := arenatest.Get(srv.URL() + "/api/tournaments")
		require.NoError(t, err)
		require.NoError(t, json.NewDecoder(res.Body).Decode(&list))
		res.Body.Close()
	}
	require.Len(t, list.Running, 1)
	return list.Running[0].ID
}

// tournamentBot makes a bot player (by joining a room of its own, whose
// socket it closes) and joins it to the tournament over HTTP with its
// token; it returns the bot, to join its race with the token, and the
// tournament as the join answered.
func tournamentBot(ctx context.Context, t *testing.T, srv *arena, tid string) (*bot, server.TournamentResponse) {
	t.Helper()
	res, err := arenatest.Post(srv.URL()+"/api/rooms", "application/json", strings.NewReader(`{"mode":"race","level":"easy"}`))
	require.NoError(t, err)
	var created struct{ ID string }
	require.NoError(t, json.NewDecoder(res.Body).Decode(&created))
	res.Body.Close()
	scratch := joinBot(ctx, t, srv, created.ID, "Bot", "")
	scratch.conn.CloseNow()
	return scratch, tournamentAs(t, srv, tid, "join", scratch.token)
}

// tournamentGuest makes a guest player named name and joins them to the
// tournament over HTTP, with the session cookie.
func tournamentGuest(t *testing.T, srv *arena, tid, name string) {
	t.Helper()
	post := func(path, body, cookie string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, srv.URL()+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", srv.URL())
		if cookie != "" {
			req.Header.Set("Cookie", cookie)
		}
		res, err := arenatest.Client.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, http.StatusOK, res.StatusCode, path)
		return res
	}
	res := post("/api/session", fmt.Sprintf(`{"name":%q}`, name), "")
	require.NotEmpty(t, res.Cookies())
	ck := res.Cookies()[0]
	post("/api/tournaments/"+tid+"/join", "{}", ck.Name+"="+ck.Value)
}

// TestTournament: ten guests join the running tournament, then a player
// on its page, then a bot; the player and the bot are paired into a race,
// which the page offers. The page shows the live top ten and, below it,
// the player's own line; the bot wins, and the top shows its 4 points at
// once; all the players, each race linked to its replay, are a click away.
func TestTournament(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Ann is paired with a bot but stays on the tournament's page: the
	// race starts without her after GROUP_WAIT.
	srv := startArena(t, "TOURNAMENTS="+arenatest.Tournaments(), "PLAYER_RATE=0", "GROUP_WAIT=1s")
	tid := runningTournament(t, srv)
	for i := range 10 {
		tournamentGuest(t, srv, tid, fmt.Sprintf("Guest %d", i+1)) // paired two by two among themselves
	}

	b := newBrowser(t)
	p := b.newPage("Ann")
	p.viewport(1280, 800, false)
	p.navigate(srv.URL() + "/")
	p.run("Ann's name", evalVoid(`localStorage.setItem('arena.name', 'Ann')`))
	p.navigate(srv.URL() + "/t")
	p.wait("the list", `document.querySelector('.t-list[data-status="running"] a') !== null`)
	p.shotsIn(tournamentLooks, "tournaments", "")
	p.click(`.t-list[data-status="running"] a`)
	p.wait("the tournament", `document.querySelector('#t-join') !== null && !document.querySelector('#t-join').hidden`)
	assert.Equal(t, 10, eval[int](p, `document.querySelectorAll('#t-standings tbody tr').length`), "the ten guests")
	p.click("#t-join")
	p.wait("Ann's line below the top ten", `document.querySelectorAll('#t-standings tbody tr').length === 12 && document.querySelector('#t-join').textContent === 'Withdraw'`)
	assert.True(t, eval[bool](p, `document.querySelector('#t-standings tbody tr:nth-child(11)').classList.contains('t-gap')`), "a gap before her line")
	assert.True(t, eval[bool](p, `document.querySelector('#t-standings tbody tr:last-child').classList.contains('me')`))
	assert.Equal(t, "All 11 players", text(p, "#t-more"))

	scratch, tr := tournamentBot(ctx, t, srv, tid)
	require.Len(t, tr.Standings, 12)
	race := tr.Standings[11].Playing
	require.NotEmpty(t, race, "the bot is paired, with Ann")

	// The way to the race comes from Ann's own line (the socket's "you"):
	// she is not in the top ten.
	p.wait("the way to the race", fmt.Sprintf(`(() => { const a = document.querySelector('.t-go'); return a && !a.hidden && a.getAttribute('href') === '/r/%s?t=%s'; })()`, race, tid))
	assert.Contains(t, text(p, "#t-standings tbody tr.me"), "racing")
	assert.Contains(t, text(p, "#t-sub"), "12 players")

	racer := joinBot(ctx, t, srv, race, "Bot", scratch.token)
	defer racer.conn.CloseNow()
	racer.solve(ctx)

	row := fmt.Sprintf(`#t-standings tr[data-player=%q]`, racer.id)
	p.wait("the bot's win, live", fmt.Sprintf(`document.querySelector('%s .t-score')?.textContent === '4'`, row))
	assert.Equal(t, "1", text(p, `#t-standings tbody tr:first-child td.num`), "the bot leads")
	assert.Equal(t, racer.id, eval[string](p, `document.querySelector('#t-standings tbody tr:first-child').dataset.player`))
	assert.Equal(t, "1 win", text(p, row+" .t-games"), "the top's lines carry no races")
	assert.Equal(t, 12, eval[int](p, `document.querySelectorAll('#t-standings tbody tr').length`), "the top ten, a gap, Ann")
	assert.Equal(t, "2", text(p, `#t-standings tbody tr.me td.num`), "Ann shares second place")
	p.shotsIn(tournamentLooks, "tournament", "")

	p.click("#t-more")
	p.wait("all the players", `document.querySelectorAll('#t-standings tbody tr').length === 12 && !document.querySelector('#t-standings .t-gap')`)
	assert.Equal(t, "Top 10 only", text(p, "#t-more"))
	assert.Equal(t, "/r/"+race+"/replay", eval[string](p, fmt.Sprintf(`document.querySelector('%s .t-game').getAttribute('href')`, row)))
	assert.Equal(t, "1", text(p, row+" .t-game"), "first place")
	assert.Equal(t, 1, eval[int](p, `document.querySelectorAll('#t-standings tbody tr.me').length`))
	p.shotsIn(tournamentLooks[:1], "tournament-all", "")
}

// TestTournamentFinished: a finished tournament's page shows its podium,
// its standings with each race linked to its replay and the streaks'
// doubled points; its players' pages list their places.
func TestTournamentFinished(t *testing.T) {
	t.Parallel()
	requireChromium(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "arena.db")
	st, err := sqlite.Open(ctx, path)
	require.NoError(t, err)
	start := time.Now().UTC().Add(-2 * time.Hour).Truncate(time.Hour)
	names := []string{"Ann", "Bob", "Cy", "Dee", "Eve"}
	var standings []store.Standing
	for i, name := range names {
		id := fmt.Sprintf("p_tour%d", i)
		require.NoError(t, st.CreatePlayer(ctx, store.Player{ID: id, Name: name, TokenHash: []byte(id), CreatedAt: start, LastSeen: start}))
		games := `[{"race":"aaaa1111","place":1,"points":4},{"race":"bbbb2222","place":1,"points":4},{"race":"cccc3333","place":1,"points":8,"fire":true}]`
		if i > 0 {
			games = fmt.Sprintf(`[{"race":"aaaa1111","place":%d,"points":%d}]`, min(i+1, 4), 4-min(i, 3))
		}
		standings = append(standings, store.Standing{PlayerID: id, Name: name, Rank: i + 1, Score: []int{16, 3, 2, 1, 1}[i], Wins: []int{3, 0, 0, 0, 0}[i], Games: []byte(games)})
	}
	standings[4].Rank = 4
	require.NoError(t, st.SaveTournament(ctx, store.Tournament{ID: "hard-30m-x", Name: "Friday hard arena", Level: "hard",
		StartsAt: start, Duration: 30 * time.Minute, Status: store.TournamentFinished, Standings: standings}))
	require.NoError(t, st.Close())
	srv := &arena{Arena: arenatest.Start(t, arenatest.Options{DatabaseURL: "sqlite:" + path, Env: arenaEnv}), t: t}

	b := newBrowser(t)
	p := b.newPage("Visitor")
	p.viewport(1280, 800, false)
	p.navigate(srv.URL() + "/t")
	p.wait("the finished one", `document.querySelector('.t-list[data-status="finished"] a')?.textContent === 'Friday hard arena'`)
	p.click(`.t-list[data-status="finished"] a`)
	p.wait("its podium", `document.querySelectorAll('.t-podium li').length === 3`)
	assert.Equal(t, "Finished.", text(p, ".t-state"))
	assert.True(t, eval[bool](p, `document.querySelector('#t-join').hidden`), "no joining a finished tournament")
	assert.Equal(t, []string{"Ann", "Bob", "Cy"}, eval[[]string](p, `[...document.querySelectorAll('.t-podium .t-name')].map((e) => e.textContent)`))
	assert.Equal(t, "16 pts", text(p, ".t-podium .p1 .t-points"))
	assert.Equal(t, 5, eval[int](p, `document.querySelectorAll('#t-standings tbody tr').length`), "all the players, once finished")
	assert.Contains(t, text(p, "#t-sub"), "5 players")
	assert.True(t, eval[bool](p, `document.querySelector('#t-more').hidden`), "nothing more to show")
	assert.Equal(t, []string{"1", "2", "3", "4", "4"}, eval[[]string](p, `[...document.querySelectorAll('#t-standings tbody tr td:first-child')].map((e) => e.textContent)`), "equals share a rank")
	assert.Equal(t, []string{"/r/aaaa1111/replay", "/r/bbbb2222/replay", "/r/cccc3333/replay"},
		eval[[]string](p, `[...document.querySelectorAll('#t-standings tbody tr:first-child .t-game')].map((e) => e.getAttribute('href'))`))
	assert.True(t, eval[bool](p, `document.querySelector('#t-standings tbody tr:first-child .t-game:last-child').classList.contains('fire')`), "a streak's race is marked")
	p.shotsIn(tournamentLooks, "tournament-finished", "")

	p.navigate(srv.URL() + "/p/p_tour1")
	p.wait("Bob's places", `document.querySelector('#player-tournaments li')?.textContent.startsWith('2nd of 5')`)
	assert.Equal(t, "/t/hard-30m-x", eval[string](p, `document.querySelector('#player-tournaments a').getAttribute('href')`))
	p.shotsIn(tournamentLooks[:1], "player-tournaments", "#player-tournaments")
}
