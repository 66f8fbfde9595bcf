package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// arena is one `arena serve` process over an SQLite file of the test's. It
// can be stopped and started again on the same address and database, as a
// restart in production.
type arena struct {
	t    *testing.T
	db   string
	env  []string // the test's own settings, after arenaEnv
	addr string   // host:port, known once it listens

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
	logs   []string // the process's log lines, for a failing test
}

// arenaEnv is the settings of the tests' servers: a short countdown and hint
// freeze so that games go fast, no limit on room creation, a pool of one
// puzzle a level so that the start does not generate for long, and a
// message rate that a test typing at machine speed stays under.
var arenaEnv = []string{
	"COUNTDOWN=1s",
	"HINT_PENALTY=2s",
	"POOL_STOCK=1",
	"CREATE_RATE=0",
	"RATE_LIMIT=100",
	"RATE_BURST=200",
	"LOG_FORMAT=json",
	"PUBLIC_URL=",
}

// startArena starts a server on a free loopback port, with arenaEnv and
// then env (NAME=value) set; it is stopped when the test ends, and its log
// is shown when the test failed. Like every browser test, it needs
// Chromium.
func startArena(t *testing.T, env ...string) *arena {
	t.Helper()
	requireChromium(t) // the binary is built only when there is a browser
	a := &arena{t: t, db: filepath.Join(t.TempDir(), "arena.db"), env: env}
	t.Cleanup(func() {
		a.stop()
		if t.Failed() {
			a.mu.Lock()
			defer a.mu.Unlock()
			lines := a.logs
			if len(lines) > 60 {
				lines = lines[len(lines)-60:]
			}
			t.Logf("arena log (last %d lines):\n%s", len(lines), strings.Join(lines, "\n"))
		}
	})
	a.start("127.0.0.1:0")
	return a
}

// URL is the server's base URL.
func (a *arena) URL() string { return "http://" + a.addr }

// start runs the process listening on listen and waits until it answers
// /healthz.
func (a *arena) start(listen string) {
	t := a.t
	t.Helper()
	cmd := exec.Command(arenaBin, "serve")
	cmd.Env = append(os.Environ(), arenaEnv...)
	cmd.Env = append(cmd.Env, a.env...)
	cmd.Env = append(cmd.Env, "LISTEN_ADDR="+listen, "DATABASE_URL=sqlite:"+a.db)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start(), "start arena serve")

	listening := make(chan string, 1)
	exited := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			line := sc.Text()
			a.mu.Lock()
			a.logs = append(a.logs, line)
			a.mu.Unlock()
			var rec struct{ Msg, Addr string }
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "listening" {
				listening <- rec.Addr
			}
		}
		_ = cmd.Wait()
		close(exited)
	}()
	a.mu.Lock()
	a.cmd, a.exited = cmd, exited
	a.mu.Unlock()

	select {
	case addr := <-listening:
		a.addr = addr
	case <-exited:
		t.Fatalf("arena serve exited before listening: %v", cmd.ProcessState)
	case <-time.After(30 * time.Second):
		t.Fatal("arena serve did not listen within 30s")
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(a.URL() + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("arena serve: /healthz did not answer 200 within 20s (last error %v)", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop ends the process with SIGTERM, as an operator would, and waits for
// its orderly shutdown (killing it after 15 seconds). Stopping a stopped
// server does nothing.
func (a *arena) stop() {
	a.mu.Lock()
	cmd, exited := a.cmd, a.exited
	a.cmd = nil
	a.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(15 * time.Second):
		a.t.Errorf("arena serve did not stop within 15s of SIGTERM; killing it")
		_ = cmd.Process.Kill()
		<-exited
	}
}

// restart stops the server and starts it again on the same address and
// database.
func (a *arena) restart() {
	a.t.Helper()
	a.stop()
	a.start(a.addr)
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
	Phase   string       `json:"phase"`
	Players []roomPlayer `json:"players"`
	Board   string       `json:"board"`
}

// room reads the room from the API.
func (a *arena) room(id string) roomView {
	a.t.Helper()
	resp, err := http.Get(a.URL() + "/api/rooms/" + id)
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
	closed bool
	wg     sync.WaitGroup
}

// startProxy listens on a free loopback port and forwards to target.
func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
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
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		done <- struct{}{}
	}
	go pipe(server, client)
	go pipe(client, server)
	<-done
	_ = client.Close()
	_ = server.Close()
	<-done
	p.mu.Lock()
	delete(p.conns, client)
	delete(p.conns, server)
	p.mu.Unlock()
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
