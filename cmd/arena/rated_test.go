package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/internal/loadtest"
	"github.com/sudoku-arena/arena/lobby"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/pgtest"
)

// ratedBot is an account of the rated queue test: its client (a cookie
// jar of its own, from its source address) and its player.
type ratedBot struct {
	http   *http.Client
	id     string
	handle string
}

// TestRatedQueueProcess: twelve accounts, made with passkeys in a real
// `arena serve` over SQLite and over PostgreSQL, wait in the rated Play
// now queue, half at easy and half at medium, in two rounds. Every one
// is matched within the window, into races of 2 to 4 of their level whose
// ratings are within the wider of their windows, never with themselves
// nor with another account of their address (the first round comes from
// two addresses a level, so it pairs them across). They play their races:
// all but the last of each room solve the board in turn (finishes a
// machine makes, so held for review, and confirmed with `arena review
// confirm`), the last leaves; the race is rated and every account's
// rating, its history and the room's changes are stored, the winner's up
// and the leaver's down, all provisional, so the all-time board lists
// nobody yet. The second round meets by the first's ratings: winners
// with winners, the others with the others.
func TestRatedQueueProcess(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pg, err := pgtest.Start(ctx, pgtest.Options{})
	require.NoError(t, err)
	t.Cleanup(pg.Stop)
	for _, db := range []string{"sqlite", "postgres"} {
		t.Run(db, func(t *testing.T) {
			addr := arenatest.FreeAddr(t)
			_, port, err := net.SplitHostPort(addr)
			require.NoError(t, err)
			base := "http://localhost:" + port
			opts := arenatest.Options{Listen: addr, URL: base,
				Env: []string{"PUBLIC_URL=" + base, "SOCKETS_PER_ADDR=64", "POOL_STOCK=4", "COUNTDOWN=10ms"}}
			if db == "postgres" {
				opts.DatabaseURL = pg.NewDatabase(t)
			}
			a := arenatest.Start(t, opts)
			bots := make([]*ratedBot, 12)
			// The first round meets at 1500 each; the second by the
			// ratings the first made, which the windows must bridge.
			for round := 1; round <= 2 && !t.Failed(); round++ {
				ratedRound(ctx, t, a, bots, round)
			}
		})
	}
}

// ratedWindow is the window of ratings a ticket accepts after waiting
// so long, as docs/protocol.md states it: ±100, widening evenly to ±400
// over 30 s.
func ratedWindow(waited time.Duration) float64 {
	return 100 + 300*min(waited.Seconds()/30, 1)
}

// ratedRound is a round of the rated queue: the bots queue (made
// accounts in the first round, signed in with their session cookie
// after), are matched, play their races, and the ratings are checked.
func ratedRound(ctx context.Context, t *testing.T, a *arenatest.Arena, bots []*ratedBot, round int) {
	t.Helper()
	baseURL, err := url.Parse(a.URL())
	require.NoError(t, err)
	// The first round comes from four addresses, three accounts of a
	// level on each of two: every group must be a pair across the two,
	// however the joins fall between the queue's ticks. The second comes
	// from an address each, so that only ratings decide who meets.
	sources := make([]string, len(bots))
	for i := range sources {
		if round == 1 {
			sources[i] = fmt.Sprintf("127.0.0.%d", 2+i%2*2+i/6)
		} else {
			sources[i] = fmt.Sprintf("127.0.1.%d", 2+i)
		}
	}
	levels := []string{"easy", "medium"}
	before := map[string]float64{}
	signIn := func(ctx context.Context, i int, c *http.Client) error {
		if b := bots[i]; b != nil {
			c.Jar.SetCookies(baseURL, b.http.Jar.Cookies(baseURL))
			b.http = c
			return nil
		}
		b := &ratedBot{http: c, handle: fmt.Sprintf("Rater%d", i)}
		id, err := signUp(ctx, a.URL(), c, b.handle)
		if err != nil {
			return err
		}
		b.id, bots[i] = id, b
		return nil
	}
	res, err := loadtest.RunQueue(ctx, loadtest.QueueOptions{Base: baseURL, Players: len(bots), Levels: levels,
		Sources: sources, Rated: true, SignIn: signIn, Poll: 200 * time.Millisecond, Within: time.Minute})
	require.NoError(t, err)
	require.Empty(t, res.Errors)
	require.Equal(t, len(bots), res.Matched, "everyone matched")
	t.Logf("round %d: joins took up to %v", round, res.Join.Quantile(1))
	for _, b := range bots {
		before[b.id] = 1500
		if round > 1 {
			var pr lobby.PlayerRatingJSON
			getJSON(t, a, "/api/players/"+b.id+"/rating", &pr)
			require.NotNil(t, pr.Rating)
			before[b.id] = pr.Rating.Rating
		}
	}

	groups := map[string][]int{}
	for i, m := range res.Matches {
		groups[m.Room] = append(groups[m.Room], i)
	}
	for room, group := range groups {
		assert.GreaterOrEqual(t, len(group), 2, "room %s", room)
		assert.LessOrEqual(t, len(group), 4, "room %s", room)
		var ids []string
		addrs := map[string]bool{}
		lo, hi, window := res.Matches[group[0]].Rating, res.Matches[group[0]].Rating, 0.0
		for _, i := range group {
			m := res.Matches[i]
			assert.Equal(t, levels[group[0]%2], levels[i%2], "room %s: one level", room)
			src := sources[i%len(sources)]
			assert.False(t, addrs[src], "room %s: two accounts from %s", room, src)
			addrs[src] = true
			ids = append(ids, bots[i].id)
			assert.InDelta(t, before[bots[i].id], m.Rating, 0.01, "%s: matched by their rating", bots[i].handle)
			assert.ElementsMatch(t, res.Matches[group[0]].Players, m.Players, "room %s: one roster", room)
			lo, hi, window = min(lo, m.Rating), max(hi, m.Rating), max(window, ratedWindow(m.Waited))
		}
		assert.ElementsMatch(t, ids, res.Matches[group[0]].Players, "room %s: its roster is its accounts, each once", room)
		assert.LessOrEqual(t, hi-lo, window, "room %s: ratings within the wider window", room)
		if round == 1 {
			assert.Len(t, group, 2, "room %s: a pair, one of each address", room)
		}
		t.Logf("round %d: room %s: %d accounts, ratings %.0f to %.0f, window ±%.0f", round, room, len(group), lo, hi, window)
	}

	st := openStore(ctx, t, a)
	var wg sync.WaitGroup
	for room, group := range groups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ratedRace(ctx, t, a, st, room, group, bots)
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}

	for room, group := range groups {
		var rr server.RoomRatingsResponse
		getJSON(t, a, "/api/rooms/"+room+"/ratings", &rr)
		assert.Len(t, rr.Changes, len(group), "room %s: a change for each account", room)
		for k, i := range group {
			var pr lobby.PlayerRatingJSON
			getJSON(t, a, "/api/players/"+bots[i].id+"/rating", &pr)
			require.NotNil(t, pr.Rating, "%s is rated", bots[i].handle)
			assert.Equal(t, round, pr.Rating.Races)
			assert.Less(t, pr.Rating.RD, 350.0, "a race narrows the deviation")
			assert.True(t, pr.Rating.Provisional, "%d races leave it provisional", round)
			require.Len(t, pr.History, round, "a change for each race, oldest first")
			h := pr.History[round-1]
			assert.Equal(t, room, h.Room)
			assert.InDelta(t, before[bots[i].id], h.Before, 0.01)
			assert.Equal(t, pr.Rating.Rating, h.After)
			switch k {
			case 0:
				assert.Positive(t, h.Delta, "room %s: the winner goes up", room)
			case len(group) - 1:
				assert.Negative(t, h.Delta, "room %s: who left goes down", room)
			}
		}
	}
	var board server.RatingBoardResponse
	getJSON(t, a, "/api/ratings", &board)
	assert.Empty(t, board.Rows, "every rating is provisional: nobody on the all-time board")
}

// ratedRace plays a matched race: the group's accounts join in turn
// (the room is theirs: it refuses the first one's start, and starts by
// itself once the last is in), all but the last solve the
// board in turn, their held finishes are confirmed as an operator
// would, and the last leaves, which ends the race; it waits until the
// race is rated.
func ratedRace(ctx context.Context, t *testing.T, a *arenatest.Arena, st store.Store, room string, group []int, bots []*ratedBot) {
	u, err := url.Parse(a.URL())
	if !assert.NoError(t, err) {
		return
	}
	var players []*wsPlayer
	var roster []string
	for _, i := range group {
		roster = append(roster, bots[i].id)
	}
	for k, i := range group {
		b := bots[i]
		p, err := dialWith(ctx, a, room, b.handle, "", 0, b.http.Jar.Cookies(u))
		if !assert.NoError(t, err) {
			return
		}
		defer p.close()
		assert.Equal(t, b.id, p.id, "the session's account plays")
		players = append(players, p)
		if k > 0 {
			continue
		}
		assert.ElementsMatch(t, roster, p.welcome.Room.Roster, "room %s is the group's", room)
		if !assert.NoError(t, p.send(ctx, map[string]any{"type": "start"})) {
			return
		}
		f, err := p.until(ctx, func(f frame) bool { return f.Type == protocol.TypeError })
		if !assert.NoError(t, err) {
			return
		}
		assert.Contains(t, string(f.data), `"code":"`+protocol.CodeStartsItself+`"`, "a group's race starts by itself")
	}
	var givens engine.Grid
	for _, p := range players {
		if givens, err = p.running(ctx); !assert.NoError(t, err) {
			return
		}
	}
	sol := engine.Solve(givens, 2)
	if !assert.Equal(t, 1, sol.Count) {
		return
	}
	for _, p := range players[:len(players)-1] {
		for cell, v := range givens {
			if v == 0 && !assert.NoError(t, p.move(ctx, cell, int(sol.Solution[cell]))) {
				return
			}
		}
		if !assert.NoError(t, p.awaitFinish(ctx)) {
			return
		}
	}
	results, err := st.RoomResults(ctx, room)
	if !assert.NoError(t, err) {
		return
	}
	assert.Len(t, results, len(players)-1, "room %s: a result for each finish", room)
	for _, r := range results {
		assert.Equal(t, store.ReviewHeld, r.Review, "room %s: a machine's finish is held", room)
		review := arenatest.Command(t, time.Minute, arenatest.Binary(t), "review", "confirm", strconv.FormatInt(r.ID, 10))
		review.Env = append(review.Environ(), "DATABASE_URL="+a.DatabaseURL())
		out, err := review.CombinedOutput()
		assert.NoError(t, err, "arena review confirm: %s", out)
	}
	last := players[len(players)-1]
	if !assert.NoError(t, last.send(ctx, map[string]any{"type": "leave"})) {
		return
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		var rr server.RoomRatingsResponse
		if !fetchJSON(t, a.URL()+"/api/rooms/"+room+"/ratings", &rr) {
			return
		}
		if len(rr.Changes) > 0 || time.Now().After(deadline) {
			assert.NotEmpty(t, rr.Changes, "room %s is rated once its race is over", room)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// signUp makes the client a guest of the handle's name and then an
// account with the handle and a new passkey, as the web client does,
// and returns its player's id.
func signUp(ctx context.Context, base string, c *http.Client, handle string) (string, error) {
	var me server.MeResponse
	if err := callJSON(ctx, c, base, "/api/session", map[string]string{"name": handle}, &me); err != nil {
		return "", err
	}
	var cer server.Ceremony
	if err := callJSON(ctx, c, base, "/api/account/signup/begin", map[string]string{"handle": handle}, &cer); err != nil {
		return "", err
	}
	cred, err := arenatest.NewPasskey(base).Create(cer.Options)
	if err != nil {
		return "", err
	}
	var out json.RawMessage
	if err := callJSON(ctx, c, base, "/api/account/signup/finish", server.FinishRequest{Ceremony: cer.ID, Credential: cred}, &out); err != nil {
		return "", err
	}
	if err := callJSON(ctx, c, base, "/api/session", map[string]string{"name": handle}, &me); err != nil {
		return "", err
	}
	if me.Player == nil || me.Player.Guest {
		return "", fmt.Errorf("%s: not an account after sign-up: %+v", handle, me.Player)
	}
	return me.Player.ID, nil
}

// callJSON POSTs body as a browser of the site would and reads the
// JSON answer into out; an answer other than 2xx is an error.
func callJSON(ctx context.Context, c *http.Client, base, path string, body, out any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+path, bytes.NewReader(data))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", base)
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("POST %s: %d %s", path, resp.StatusCode, buf.Bytes())
	}
	return json.Unmarshal(buf.Bytes(), out)
}

// fetchJSON is getJSON for a goroutine of its own: false, with the test
// failed, where getJSON would stop it.
func fetchJSON(t *testing.T, u string, out any) bool {
	t.Helper()
	resp, err := arenatest.Get(u)
	if !assert.NoError(t, err) {
		return false
	}
	defer resp.Body.Close()
	return assert.Equal(t, http.StatusOK, resp.StatusCode, "GET %s", u) && assert.NoError(t, json.NewDecoder(resp.Body).Decode(out))
}
