package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"sync"
	"time"
)

// The queue mode: many players wait in the Play now queue at once (see
// "Play now" in docs/protocol.md). Each player is a guest of its own (POST
// /api/session, a cookie jar each), joins the casual queue of a level (the
// levels in turn), and asks about its ticket once a second, as the web
// client does, until it is matched. Every player comes from this
// machine's address: the server must not tell addresses apart
// (SOCKETS_PER_ADDR=0, as behind a proxy) and must let this many guests be
// made at once (PLAYER_RATE=0).

// QueueOptions are the queue mode's.
type QueueOptions struct {
	Base    *url.URL
	Players int
	Levels  []string
	// Parallel bounds the requests in flight while the players are made
	// and join (64).
	Parallel int
	// Poll is how often a waiting player asks about its ticket (1 s).
	Poll time.Duration
	// Within bounds the run (2 min).
	Within time.Duration
	// Sources, when set, are the local addresses the players connect
	// from, player i from Sources[i % len]: a server that tells
	// addresses apart keeps the players of one source out of one race.
	Sources []string
	// Rated joins the rated queue: every player must be an account, which
	// SignIn makes of them.
	Rated bool
	// SignIn, when set, makes player i's session in place of a new guest:
	// c is the player's client, with a cookie jar of its own for the
	// session cookie, coming from the player's source address.
	SignIn func(ctx context.Context, i int, c *http.Client) error
}

// QueueMatch is what a matched player's ticket said of the match.
type QueueMatch struct {
	Room    string   `json:"room"`
	Players []string `json:"players"`
	// Rating is the rating the queue matched the player by (rated only).
	Rating float64 `json:"rating,omitempty"`
	// Waited is from the player's join to the poll that saw the match.
	Waited time.Duration `json:"waited"`
}

// QueueResult is what the queue mode measured.
type QueueResult struct {
	Players int `json:"players"`
	Joined  int `json:"joined"`
	Matched int `json:"matched"`
	Rooms   int `json:"rooms"`
	// PeakWaiting is the most the server said were waiting at once, over
	// all levels.
	PeakWaiting int `json:"peak_waiting"`
	// Join is POST /api/queue's latency, Status GET /api/queue/{ticket}'s,
	// and Wait from a player's join to the poll that saw its match.
	Join   Histogram        `json:"join_latency"`
	Status Histogram        `json:"status_latency"`
	Wait   Histogram        `json:"match_wait"`
	Errors map[string]int64 `json:"errors"`
	// Groups is each room's players, by their index.
	Groups map[string][]int `json:"groups,omitempty"`
	// Matches is each player's match, by index (nil: not matched).
	Matches []*QueueMatch `json:"-"`
}

type queueStatus struct {
	Ticket  string         `json:"ticket"`
	State   string         `json:"state"`
	Room    string         `json:"room"`
	Players []string       `json:"players"`
	Rating  float64        `json:"rating"`
	Waiting map[string]int `json:"waiting"`
	Error   *struct {
		Code string `json:"code"`
	} `json:"error"`
}

type queuePlayer struct {
	http   *http.Client
	ticket string
	joined time.Time
}

// RunQueue runs the queue mode.
func RunQueue(ctx context.Context, o QueueOptions) (QueueResult, error) {
	if o.Players < 2 || len(o.Levels) == 0 {
		return QueueResult{}, errors.New("loadtest: the queue mode needs 2 players or more and a level")
	}
	if o.Parallel <= 0 {
		o.Parallel = 64
	}
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	if o.Within <= 0 {
		o.Within = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, o.Within)
	defer cancel()
	res := QueueResult{Players: o.Players, Errors: map[string]int64{}, Groups: map[string][]int{}, Matches: make([]*QueueMatch, o.Players)}
	var mu sync.Mutex
	fail := func(what string) { mu.Lock(); res.Errors[what]++; mu.Unlock() }
	transports := []*http.Transport{{MaxIdleConnsPerHost: o.Parallel}}
	if len(o.Sources) > 0 {
		transports = transports[:0]
		for _, src := range o.Sources {
			d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
			transports = append(transports, &http.Transport{MaxIdleConnsPerHost: o.Parallel, DialContext: d.DialContext})
		}
	}
	defer func() {
		for _, t := range transports {
			t.CloseIdleConnections()
		}
	}()
	// Every player is made first, then all join at once, so that a
	// level's players wait together rather than as their sign-ins end.
	players := make([]*queuePlayer, o.Players)
	sem := make(chan struct{}, o.Parallel)
	var wg sync.WaitGroup
	for i := range players {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			jar, _ := cookiejar.New(nil)
			p := &queuePlayer{http: &http.Client{Transport: transports[i%len(transports)], Jar: jar, Timeout: 10 * time.Second}}
			var st queueStatus
			if o.SignIn != nil {
				if err := o.SignIn(ctx, i, p.http); err != nil {
					fail("sign in: " + err.Error())
					return
				}
			} else if err := p.do(ctx, "POST", o.Base.JoinPath("/api/session"), map[string]string{"name": fmt.Sprintf("Q%d", i)}, &st); err != nil {
				fail("session")
				return
			}
			players[i] = p
		}()
	}
	wg.Wait()
	for i, p := range players {
		if p == nil {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			var st queueStatus
			start := time.Now()
			err := p.do(ctx, "POST", o.Base.JoinPath("/api/queue"), map[string]any{"level": o.Levels[i%len(o.Levels)], "rated": o.Rated}, &st)
			if err != nil || st.Ticket == "" {
				fail("join")
				players[i] = nil
				return
			}
			mu.Lock()
			res.Join.Add(time.Since(start))
			res.Joined++
			mu.Unlock()
			p.ticket, p.joined = st.Ticket, start
		}()
	}
	wg.Wait()
	rooms := map[string]bool{}
	for i, p := range players {
		if p == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Spread the polls over the interval, as players who joined
			// at different times would.
			t := time.NewTimer(o.Poll * time.Duration(i%100) / 100)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					fail("not matched")
					return
				case <-t.C:
				}
				var st queueStatus
				start := time.Now()
				err := p.do(ctx, "GET", o.Base.JoinPath("/api/queue", p.ticket), nil, &st)
				mu.Lock()
				if err == nil {
					res.Status.Add(time.Since(start))
				}
				waiting := 0
				for _, n := range st.Waiting {
					waiting += n
				}
				res.PeakWaiting = max(res.PeakWaiting, waiting)
				if err == nil && st.State == "matched" {
					res.Matched++
					res.Wait.Add(time.Since(p.joined))
					res.Matches[i] = &QueueMatch{Room: st.Room, Players: st.Players, Rating: st.Rating, Waited: time.Since(p.joined)}
					rooms[st.Room] = true
					res.Groups[st.Room] = append(res.Groups[st.Room], i)
					mu.Unlock()
					return
				}
				mu.Unlock()
				if err != nil && ctx.Err() == nil {
					fail("status")
				}
				t.Reset(o.Poll)
			}
		}()
	}
	wg.Wait()
	res.Rooms = len(rooms)
	return res, nil
}

// do sends a JSON request (body nil: none) and reads the JSON answer into
// out; an answer other than 2xx is an error.
func (p *queuePlayer) do(ctx context.Context, method string, u *url.URL, body any, out any) error {
	var r io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), r)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", u.Scheme+"://"+u.Host)
	}
	resp, err := p.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("%s %s: %d: %w", method, u.Path, resp.StatusCode, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %d", method, u.Path, resp.StatusCode)
	}
	return nil
}

// Print writes the queue mode's result for a person.
func (r QueueResult) Print(w io.Writer) {
	fmt.Fprintf(w, "queue: %d players, %d joined, %d matched into %d rooms; at most %d waiting at once\n",
		r.Players, r.Joined, r.Matched, r.Rooms, r.PeakWaiting)
	q := func(h Histogram) string {
		return fmt.Sprintf("p50 %v  p99 %v  max %v", h.Quantile(0.5).Round(time.Microsecond), h.Quantile(0.99).Round(time.Microsecond), h.Quantile(1).Round(time.Microsecond))
	}
	fmt.Fprintf(w, "  join   %s\n  status %s\n  wait   %s\n", q(r.Join), q(r.Status), q(r.Wait))
	for k, n := range r.Errors {
		fmt.Fprintf(w, "  errors %s: %d\n", k, n)
	}
}

// QueueCommand is `arena loadtest -queue N`: it runs the queue mode on
// base and prints the result (as JSON with asJSON); it answers the exit
// status: 1 when a player failed or was not matched.
func QueueCommand(ctx context.Context, base *url.URL, players int, asJSON bool, stdout, stderr io.Writer) int {
	res, err := RunQueue(ctx, QueueOptions{Base: base, Players: players, Levels: []string{"easy", "medium", "hard", "expert"}})
	if err != nil {
		fmt.Fprintf(stderr, "arena loadtest: %v\n", err)
		return 1
	}
	if asJSON {
		_ = json.NewEncoder(stdout).Encode(res)
	} else {
		res.Print(stdout)
	}
	// Only a level's last player, with nobody left to meet, may wait on.
	if res.Joined < res.Players || res.Matched < res.Joined-4 {
		return 1
	}
	return 0
}
