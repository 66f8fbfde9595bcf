package loadtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
)

// ArenaOptions is the tournament load (-mode arena): Players guests join
// the server's running tournament over HTTP, each watching its WebSocket
// of standings for their pairing, then join their race room (it starts by
// itself once its players are in) and solve it at Rate moves a second, again and again, until Duration has
// passed after the Ramp over which they join.
type ArenaOptions struct {
	URL        *url.URL
	Tournament string // "": the first running one
	Players    int
	Rate       float64
	Ramp       time.Duration
	Duration   time.Duration
}

// ArenaResult is what the tournament load measured.
type ArenaResult struct {
	Tournament string `json:"tournament"`
	Players    int    `json:"players"`
	Joined     int    `json:"joined"`
	// Paired is the players whose socket's own line (you.playing) paired
	// them into a race at least once.
	Paired   int `json:"paired"`
	Races    int `json:"races"`    // race rooms joined
	Finishes int `json:"finishes"` // races solved
	Moves    int `json:"moves"`
	// Events and EventBytes are the "tournament" events the players'
	// tournament sockets received.
	Events     int64 `json:"events"`
	EventBytes int64 `json:"event_bytes"`
	// MoveP50/P99 are a move's round trip; PairP50/P99 from a player's
	// finish to the standings event that pairs them again.
	MoveP50MS float64        `json:"move_p50_ms"`
	MoveP99MS float64        `json:"move_p99_ms"`
	PairP50MS float64        `json:"pair_p50_ms"`
	PairP99MS float64        `json:"pair_p99_ms"`
	Errors    map[string]int `json:"errors,omitempty"`
}

type arenaRun struct {
	o      ArenaOptions
	client *http.Client
	mu     sync.Mutex
	res    ArenaResult
	moves  []time.Duration
	pairs  []time.Duration
	events atomic.Int64
	bytes  atomic.Int64
	paired atomic.Int64
}

func (r *arenaRun) fail(what string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.res.Errors == nil {
		r.res.Errors = map[string]int{}
	}
	r.res.Errors[what]++
	_ = err
}

// RunArena runs the tournament load.
func RunArena(ctx context.Context, o ArenaOptions) (ArenaResult, error) {
	r := &arenaRun{o: o, client: &http.Client{Timeout: 20 * time.Second}}
	if o.Tournament == "" {
		var l struct {
			Running []struct{ ID string } `json:"running"`
		}
		if err := r.getJSON(ctx, "/api/tournaments", "", &l); err != nil {
			return ArenaResult{}, err
		}
		if len(l.Running) == 0 {
			return ArenaResult{}, errors.New("no tournament is running: start the server with TOURNAMENTS, or name one with -tournament")
		}
		r.o.Tournament = l.Running[0].ID
	}
	r.res.Tournament, r.res.Players = r.o.Tournament, o.Players
	ctx, cancel := context.WithTimeout(ctx, o.Ramp+o.Duration)
	defer cancel()
	var wg sync.WaitGroup
	for i := range o.Players {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !sleepUntil(ctx, time.Now().Add(time.Duration(i)*o.Ramp/time.Duration(max(o.Players, 1)))) {
				return
			}
			r.player(ctx, i)
		}()
	}
	wg.Wait()
	r.res.Events, r.res.EventBytes, r.res.Paired = r.events.Load(), r.bytes.Load(), int(r.paired.Load())
	r.res.MoveP50MS, r.res.MoveP99MS = quantileMS(r.moves, .5), quantileMS(r.moves, .99)
	r.res.PairP50MS, r.res.PairP99MS = quantileMS(r.pairs, .5), quantileMS(r.pairs, .99)
	return r.res, nil
}

func quantileMS(ds []time.Duration, q float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return float64(ds[min(len(ds)-1, int(q*float64(len(ds))))]) / float64(time.Millisecond)
}

func (r *arenaRun) getJSON(ctx context.Context, path, cookie string, v any) error {
	return r.do(ctx, http.MethodGet, path, cookie, "", v)
}

func (r *arenaRun) do(ctx context.Context, method, path, cookie, body string, v any) error {
	req, err := http.NewRequestWithContext(ctx, method, r.o.URL.JoinPath(path).String(), strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Origin", r.o.URL.Scheme+"://"+r.o.URL.Host)
	req.Header.Set("Content-Type", "application/json")
	if cookie != "" {
		req.Header.Set("Cookie", cookie)
	}
	res, err := r.client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %s", method, path, res.Status)
	}
	if v == nil {
		return nil
	}
	if c, ok := v.(*string); ok {
		for _, ck := range res.Cookies() {
			*c = ck.Name + "=" + ck.Value
		}
		return nil
	}
	return json.NewDecoder(res.Body).Decode(v)
}

// player is one guest: it joins, then races each time it is paired.
func (r *arenaRun) player(ctx context.Context, i int) {
	var cookie string
	if err := r.do(ctx, http.MethodPost, "/api/session", "", fmt.Sprintf(`{"name":"Load %d"}`, i), &cookie); err != nil || cookie == "" {
		r.fail("session", err)
		return
	}
	var me struct {
		Player struct{ ID string } `json:"player"`
	}
	if err := r.getJSON(ctx, "/api/me", cookie, &me); err != nil {
		r.fail("me", err)
		return
	}
	hdr := http.Header{"Origin": {r.o.URL.Scheme + "://" + r.o.URL.Host}, "Cookie": {cookie}}
	wsBase := "ws" + strings.TrimPrefix(r.o.URL.String(), "http")
	watch, _, err := websocket.Dial(ctx, wsBase+"/ws/tournaments/"+r.o.Tournament, &websocket.DialOptions{HTTPHeader: hdr})
	if err != nil {
		r.fail("watch", err)
		return
	}
	defer watch.CloseNow()
	watch.SetReadLimit(1 << 20)
	if err := r.do(ctx, http.MethodPost, "/api/tournaments/"+r.o.Tournament+"/join", cookie, "{}", nil); err != nil {
		r.fail("join", err)
		return
	}
	r.mu.Lock()
	r.res.Joined++
	r.mu.Unlock()
	pairings := make(chan string, 1)
	go func() { // the player's own line: their latest pairing
		defer close(pairings)
		last := ""
		for {
			_, data, err := watch.Read(ctx)
			if err != nil {
				return
			}
			r.events.Add(1)
			r.bytes.Add(int64(len(data)))
			var ev struct {
				You *struct {
					Player  string `json:"player"`
					Playing string `json:"playing"`
				} `json:"you"`
			}
			if json.Unmarshal(data, &ev) != nil || ev.You == nil {
				continue
			}
			if ev.You.Player != me.Player.ID {
				r.fail("you", fmt.Errorf("the socket's player is %s, not %s", ev.You.Player, me.Player.ID))
				continue
			}
			if ev.You.Playing != "" && ev.You.Playing != last {
				if last == "" {
					r.paired.Add(1)
				}
				last = ev.You.Playing
				pairings <- last
			}
		}
	}()
	finished := time.Time{}
	for race := range pairings {
		if !finished.IsZero() {
			r.mu.Lock()
			r.pairs = append(r.pairs, time.Since(finished))
			r.mu.Unlock()
		}
		if err := r.race(ctx, wsBase, hdr, race); err != nil {
			if ctx.Err() == nil {
				r.fail("race", err)
			}
			return
		}
		finished = time.Now()
	}
}

// race joins the race room, which starts by itself once its players are
// in, and solves it at the rate.
func (r *arenaRun) race(ctx context.Context, wsBase string, hdr http.Header, roomID string) error {
	c, _, err := websocket.Dial(ctx, wsBase+"/ws?room="+roomID, &websocket.DialOptions{HTTPHeader: hdr})
	if err != nil {
		return err
	}
	defer c.CloseNow()
	c.SetReadLimit(1 << 20)
	send := func(v any) error {
		b, _ := json.Marshal(v)
		return c.Write(ctx, websocket.MessageText, b)
	}
	if err := send(map[string]any{"type": "join", "room": roomID}); err != nil {
		return err
	}
	r.mu.Lock()
	r.res.Races++
	r.mu.Unlock()
	var me, phase, givens string
	sent := map[string]time.Time{}
	var todo []int
	var solution engine.Grid
	tick := time.NewTicker(time.Duration(float64(time.Second) / r.o.Rate))
	defer tick.Stop()
	reads := make(chan []byte)
	go func() {
		defer close(reads)
		for {
			_, data, err := c.Read(ctx)
			if err != nil {
				return
			}
			reads <- data
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case data, ok := <-reads:
			if !ok {
				return errors.New("the race's socket closed")
			}
			var ev struct {
				Type   string               `json:"type"`
				ID     string               `json:"id"`
				Player string               `json:"player"`
				You    *struct{ ID string } `json:"you"`
				Room   *struct {
					Phase  string `json:"phase"`
					Givens string `json:"givens"`
				} `json:"room"`
			}
			if json.Unmarshal(data, &ev) != nil {
				continue
			}
			if ev.You != nil {
				me = ev.You.ID
			}
			if ev.Room != nil {
				phase, givens = ev.Room.Phase, ev.Room.Givens
			}
			if at, ok := sent[ev.ID]; ok && ev.Type == protocol.TypeMove {
				r.mu.Lock()
				r.moves = append(r.moves, time.Since(at))
				r.res.Moves++
				r.mu.Unlock()
				delete(sent, ev.ID)
			}
			if ev.Type == protocol.TypeFinish && ev.Player == me {
				r.mu.Lock()
				r.res.Finishes++
				r.mu.Unlock()
				return nil
			}
			if phase == protocol.PhaseRunning && todo == nil {
				g, err := engine.Parse(givens)
				if err != nil {
					return err
				}
				solution = engine.Solve(g, 1).Solution
				for cell, d := range g {
					if d == 0 {
						todo = append(todo, cell)
					}
				}
				rand.Shuffle(len(todo), func(i, j int) { todo[i], todo[j] = todo[j], todo[i] })
			}
		case <-tick.C:
			if len(todo) == 0 || phase != protocol.PhaseRunning {
				continue
			}
			cell := todo[0]
			todo = todo[1:]
			id := fmt.Sprint("m", cell)
			sent[id] = time.Now()
			if err := send(map[string]any{"type": "move", "id": id, "cell": cell, "digit": int(solution[cell])}); err != nil {
				return err
			}
		}
	}
}

// ModeArena is -mode arena: RunArena, through RunLocal.
const ModeArena = "arena"
