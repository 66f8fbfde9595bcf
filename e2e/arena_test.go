package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/arenatest"
)

// arena is one `arena serve` process of a browser test, over an SQLite file
// of the test's, run by arenatest: it can be stopped and started again on
// the same address and database, as a restart in production.
type arena struct {
	*arenatest.Arena
	t *testing.T
}

// arenaEnv is the settings of the browser tests' servers, after
// arenatest.Defaults: a short countdown and hint freeze so that games go
// fast, floors a ranked finish passes in seconds (floorPercent), a message
// rate that a test typing at machine speed stays under (and one test may
// lower), and no public address, so that share links name the address
// the page was loaded from.
var arenaEnv = []string{
	"COUNTDOWN=1s",
	"HINT_PENALTY=2s",
	"FLOOR_PERCENT=" + strconv.Itoa(floorPercent),
	"RATE_LIMIT=100",
	"RATE_BURST=200",
	"PUBLIC_URL=",
}

// floorPercent is the browser tests' FLOOR_PERCENT: the floors under
// which a ranked finish is held for review are a tenth of the defaults
// (easy's 6 s), so that a test plays past them in seconds rather than
// minutes. A finish under them is held all the same
// (TestDailyHeldForReview).
const floorPercent = 10

// easyFloor bounds the default floors of an easy puzzle, for
// waitPastFloor: the level's (60 s), and the puzzle's own from its steps,
// which may pass it. A ranked finish whose cells go in by moves
// (fillByProtocol) comes at once after the wait: nothing else keeps it
// past a floor.
const easyFloor = 90 * time.Second

// clockSeconds is a page expression: the seconds the room's clock shows.
const clockSeconds = `(([m, s]) => +m * 60 + +s)(document.querySelector('#timer').textContent.split(':'))`

// waitPastFloor waits, before a ranked finish's last digit, until the
// room's clock is past floor (a default floor: the level's, or a
// puzzle's own) as floorPercent scales it, and at least 2 s on from now:
// a person's last look, which also keeps the gaps between digits uneven
// however evenly the keys before went (a finish at a machine's even pace
// is held for review).
func waitPastFloor(p *page, floor time.Duration) {
	p.t.Helper()
	at := max(int(floor*floorPercent/100/time.Second)+1, eval[int](p, clockSeconds)+2)
	p.waitFor("the clock past the floor", fmt.Sprintf("%s >= %d", clockSeconds, at), time.Duration(at)*time.Second+waitTimeout)
}

// startArena starts a server on a free loopback port, with arenaEnv and
// then env (NAME=value) set; it is killed when the test ends, and its log
// is shown when the test failed. Like every browser test, it needs
// Chromium: without it the test skips (or fails) before the binary is
// built.
func startArena(t *testing.T, env ...string) *arena {
	t.Helper()
	requireChromium(t)
	opts := arenatest.Options{Env: append(slices.Clone(arenaEnv), env...)}
	return &arena{Arena: arenatest.Start(t, opts), t: t}
}

// roomPlayer is a player as GET /api/rooms/{id} shows them.
type roomPlayer struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Connected bool   `json:"connected"`
	Filled    int    `json:"filled"`
	Hints     int    `json:"hints"`
	Rank      int    `json:"rank"`
}

// roomView is GET /api/rooms/{id}: what the server holds, to check what the
// pages show against.
type roomView struct {
	ID      string       `json:"id"`
	Mode    string       `json:"mode"`
	Level   string       `json:"level"`
	SE      float64      `json:"se"`
	Phase   string       `json:"phase"`
	Players []roomPlayer `json:"players"`
	Board   string       `json:"board"`
}

// room reads the room from the API.
func (a *arena) room(id string) roomView {
	a.t.Helper()
	resp, err := arenatest.Get(a.URL() + "/api/rooms/" + id)
	require.NoError(a.t, err)
	defer resp.Body.Close()
	require.Equal(a.t, http.StatusOK, resp.StatusCode, "GET /api/rooms/%s", id)
	var v roomView
	require.NoError(a.t, json.NewDecoder(resp.Body).Decode(&v))
	return v
}

// proxy is a loopback TCP proxy between the browser and the server, so a
// test can cut the network under a page as a flaky connection would: the
// server sees its sockets drop without a close frame.
type proxy struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	muted  map[net.Conn]*atomic.Bool // by client connection: drop what the server sends
	closed bool
	wg     sync.WaitGroup
}

// startProxy listens on a free loopback port and forwards to target.
func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}, muted: map[net.Conn]*atomic.Bool{}}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(func() {
		_ = ln.Close()
		p.mu.Lock()
		p.closed = true
		p.mu.Unlock()
		p.cut()
		p.wg.Wait()
	})
	return p
}

// URL is the base URL to give the browser.
func (p *proxy) URL() string { return "http://" + p.ln.Addr().String() }

func (p *proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go p.forward(c)
	}
}

func (p *proxy) forward(client net.Conn) {
	defer p.wg.Done()
	server, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		_ = client.Close()
		return
	}
	if !p.track(client, server) {
		return
	}
	muted := new(atomic.Bool)
	p.mu.Lock()
	p.muted[client] = muted
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	go func() {
		_, _ = io.Copy(server, client)
		done <- struct{}{}
	}()
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := server.Read(buf)
			if n > 0 && !muted.Load() {
				if _, werr := client.Write(buf[:n]); werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		done <- struct{}{}
	}()
	<-done
	_ = client.Close()
	_ = server.Close()
	<-done
	p.mu.Lock()
	delete(p.conns, client)
	delete(p.conns, server)
	delete(p.muted, client)
	p.mu.Unlock()
}

// mute drops, from now on, all the server sends on every connection open
// through the proxy, and says how many there are: to the browser the link
// goes silent, with no close and no error, as over a network that died,
// while what it sends still reaches the server. New connections are not
// muted.
func (p *proxy) mute() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range p.muted {
		m.Store(true)
	}
	return len(p.muted)
}

// track records the connections, for cut; once the proxy is closed it
// closes them instead and says so.
func (p *proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		if p.closed {
			_ = c.Close()
		} else {
			p.conns[c] = struct{}{}
		}
	}
	return !p.closed
}

// cut closes every connection through the proxy, both ends, and says how
// many pairs there were. New connections are still accepted.
func (p *proxy) cut() int {
	p.mu.Lock()
	conns := make([]net.Conn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	for _, c := range conns {
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // a reset, as a dropped network looks
		}
		_ = c.Close()
	}
	return len(conns) / 2
}
