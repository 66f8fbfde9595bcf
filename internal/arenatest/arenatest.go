// Package arenatest runs the real `arena serve` binary for tests: built once
// per test binary, started over an SQLite file or a PostgreSQL database with
// the environment a test gives, and stopped as an operator would (SIGTERM),
// killed as a crash would (SIGKILL), or restarted on the same address and
// database. Its log (LOG_FORMAT=json) tells the harness where it listens,
// and is shown when the test fails.
//
// A failing test leaves nothing behind and hangs nothing after it: every
// process the harness starts is in a process group of its own that dies
// with the test binary (proctest.Detach), a paused server is resumed when the test
// that paused it ends, and tests make their HTTP requests through Client,
// which has a timeout.
//
// It is for tests that must see what only a process shows: signals,
// restarts, a database that goes away under it (cmd/arena), and the
// browser tests (e2e), which load the pages the binary serves. Tests of the
// game or of the protocol run in-process (room/roomtest, server's harness),
// faster.
package arenatest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sudoku-arena/arena/internal/proctest"
)

// Package is the import path of the binary the harness builds.
const Package = "github.com/sudoku-arena/arena/cmd/arena"

var build struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// Binary builds the arena binary, once per test binary, and returns its
// path. Cleanup removes it; call it from TestMain after m.Run (see Main).
func Binary(tb testing.TB) string {
	tb.Helper()
	build.once.Do(func() {
		build.dir, build.err = proctest.MkdirTemp(buildPattern)
		if build.err != nil {
			return
		}
		build.bin = filepath.Join(build.dir, "arena")
		cmd := exec.Command("go", "build", "-o", build.bin, Package)
		out, err := cmd.CombinedOutput()
		if err != nil {
			build.err = fmt.Errorf("arenatest: go build %s: %w\n%s", Package, err, out)
		}
	})
	if build.err != nil {
		tb.Fatal(build.err)
	}
	return build.bin
}

// buildPattern names the temporary directory of the binary, which
// proctest.MkdirTemp sweeps once its test binary is gone.
const buildPattern = "arenatest-build-"

// Cleanup removes the binary Binary built, if any.
func Cleanup() {
	if build.dir != "" {
		os.RemoveAll(build.dir)
	}
}

// Main runs the tests and removes the built binary after: a TestMain of
// its own for a package whose tests use the harness.
func Main(m *testing.M) int {
	defer Cleanup()
	return m.Run()
}

// Parallel makes up to n parallel tests run at once, unless -parallel
// was given; call it from TestMain before Main. Go's default, one per
// CPU, leaves a 2-core machine idle while tests wait on their processes
// and on the clock (a fault that lasts 20 s, a daily's floor, a player's
// pace), which is most of such a test's time.
func Parallel(n int) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if given {
		return
	}
	if err := flag.Set("test.parallel", strconv.Itoa(n)); err != nil {
		panic(fmt.Sprintf("arenatest: %v", err))
	}
}

// Defaults are the settings every server the harness starts has, before the
// test's own: JSON logs (the harness reads them) and no per-address limit,
// since every test client comes from one loopback address; a pool of one
// puzzle a level, so that a start does not generate for long; and the
// metrics on a loopback port of their own (Metric reads them there).
var Defaults = []string{
	"LOG_FORMAT=json",
	"METRICS_ADDR=127.0.0.1:0",
	"CREATE_RATE=0",
	"ROOMS_PER_ADDR=0",
	"PLAYER_RATE=0",
	"SOCKETS_PER_ADDR=0",
	"RATE_LIMIT=1000",
	"RATE_BURST=2000",
	"POOL_STOCK=1",
}

// Options say how to start a server.
type Options struct {
	// DatabaseURL is the store: postgres://… or sqlite:PATH. Empty: an
	// SQLite file in the test's temporary directory.
	DatabaseURL string
	// Env are NAME=value settings after Defaults (a later one wins).
	Env []string
	// Listen is LISTEN_ADDR; empty: a free loopback port.
	Listen string
	// URL is the base URL the tests reach the server at, when that is
	// not http://ADDR: the PUBLIC_URL it is given, when that names it
	// (http://localhost:PORT), since with PUBLIC_URL set the server
	// answers for that host only.
	URL string
	// Rebind, when set, is asked to give the options another Listen (and
	// the URL and settings that name it) when the one given was taken
	// between its choice and the server's bind, as a FreeAddr can be by a
	// test running beside; Start then tries again, up to three times.
	Rebind func(o *Options)
	// NotReady, when set, does not wait for /readyz (a start while the
	// database is away); the server is waited for until it listens.
	NotReady bool
}

// Arena is one server process, started again by Restart on the same
// address and database.
type Arena struct {
	tb   testing.TB
	bin  string
	opts Options
	addr string

	// metricsAddr is where the running server serves its metrics
	// (METRICS_ADDR), read from its log; "" when it serves none.
	metricsAddr string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
	state  *os.ProcessState
	logs   []string
	starts int
	paused bool
}

// Start starts a server and waits until it listens and, unless NotReady,
// answers /readyz. It is killed when the test ends, and its log is shown
// when the test failed. It runs in a process group of its own and dies
// with the test binary (see proctest.Detach), so that a test that panics or times
// out leaves no server behind.
func Start(tb testing.TB, opts Options) *Arena {
	tb.Helper()
	if opts.DatabaseURL == "" {
		opts.DatabaseURL = "sqlite:" + filepath.Join(tb.TempDir(), "arena.db")
	}
	if opts.Listen == "" {
		opts.Listen = "127.0.0.1:0"
	}
	a := &Arena{tb: tb, bin: Binary(tb), opts: opts}
	tb.Cleanup(func() {
		a.Kill()
		if tb.Failed() {
			lines := a.Logs()
			if len(lines) > 80 {
				lines = lines[len(lines)-80:]
			}
			tb.Logf("arena log (last %d lines):\n%s", len(lines), strings.Join(lines, "\n"))
		}
	})
	for try := 1; ; try++ {
		err := a.start(a.opts.Listen)
		if err == nil {
			return a
		}
		if opts.Rebind == nil || try == 3 || !a.boundElsewhere() {
			tb.Fatal(err)
		}
		opts.Rebind(&a.opts)
	}
}

// boundElsewhere reports whether the last run ended because its address
// was taken.
func (a *Arena) boundElsewhere() bool {
	logs := a.Logs()
	return len(logs) > 0 && strings.Contains(logs[len(logs)-1], "address already in use")
}

// URL is the server's base URL (Options.URL, or http://ADDR); WS is its
// WebSocket endpoint.
func (a *Arena) URL() string {
	if a.opts.URL != "" {
		return a.opts.URL
	}
	return "http://" + a.addr
}
func (a *Arena) WS() string { return "ws" + strings.TrimPrefix(a.URL(), "http") + "/ws" }

// Addr is the address the server listens on.
func (a *Arena) Addr() string { return a.addr }

// MetricsURL is the address of the running server's metrics (its
// METRICS_ADDR listener's /metrics), or "" when it serves none.
func (a *Arena) MetricsURL() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.metricsAddr == "" {
		return ""
	}
	return "http://" + a.metricsAddr + "/metrics"
}

// PID is the running server's process id (for its RSS and CPU time).
func (a *Arena) PID() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cmd.Process.Pid
}

// DatabaseURL is the store the server runs over.
func (a *Arena) DatabaseURL() string { return a.opts.DatabaseURL }

// Logs are the log lines of every run so far.
func (a *Arena) Logs() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.logs...)
}

// Logged counts the log lines of every run so far whose message is msg
// and, when attrs (key, value, key, value, …) are given, whose attributes
// have those values (as text).
func (a *Arena) Logged(msg string, attrs ...string) int {
	n := 0
	for _, line := range a.Logs() {
		_, record, _ := strings.Cut(line, "] ") // after the "[run N]" Logs puts first
		var rec map[string]any
		if json.Unmarshal([]byte(record), &rec) != nil || rec["msg"] != msg {
			continue
		}
		match := true
		for i := 0; i+1 < len(attrs); i += 2 {
			if fmt.Sprint(rec[attrs[i]]) != attrs[i+1] {
				match = false
			}
		}
		if match {
			n++
		}
	}
	return n
}

// start runs the server on listen and waits until it listens (and is
// ready); an error when it exited before listening.
func (a *Arena) start(listen string) error {
	tb := a.tb
	tb.Helper()
	cmd := exec.Command(a.bin, "serve")
	cmd.Env = append(os.Environ(), Defaults...)
	cmd.Env = append(cmd.Env, a.opts.Env...)
	cmd.Env = append(cmd.Env, "LISTEN_ADDR="+listen, "DATABASE_URL="+a.opts.DatabaseURL)
	proctest.Detach(cmd)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		tb.Fatalf("arenatest: %v", err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("arenatest: start arena serve: %v", err)
	}
	listening := make(chan string, 1)
	exited := make(chan struct{})
	a.mu.Lock()
	a.starts++
	run := a.starts
	a.cmd, a.exited, a.state, a.paused, a.metricsAddr = cmd, exited, nil, false, ""
	a.mu.Unlock()
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			line := sc.Text()
			a.mu.Lock()
			a.logs = append(a.logs, fmt.Sprintf("[run %d] %s", run, line))
			a.mu.Unlock()
			var rec struct{ Msg, Addr string }
			if json.Unmarshal([]byte(line), &rec) != nil {
				continue
			}
			switch rec.Msg {
			case "metrics served": // before "listening"
				a.mu.Lock()
				a.metricsAddr = rec.Addr
				a.mu.Unlock()
			case "listening":
				select {
				case listening <- rec.Addr:
				default:
				}
			}
		}
		_ = cmd.Wait()
		a.mu.Lock()
		a.state = cmd.ProcessState
		a.mu.Unlock()
		close(exited)
	}()

	select {
	case addr := <-listening:
		a.addr = addr
	case <-exited:
		return fmt.Errorf("arenatest: arena serve exited before listening: %v", cmd.ProcessState)
	case <-time.After(60 * time.Second):
		tb.Fatal("arenatest: arena serve did not listen within 60s")
	}
	if a.opts.NotReady {
		return nil
	}
	if err := a.WaitReady(60 * time.Second); err != nil {
		tb.Fatal(err)
	}
	return nil
}

// Status is the HTTP status of GET path, or 0 when the request failed.
func (a *Arena) Status(path string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.URL()+path, nil)
	if err != nil {
		return 0
	}
	resp, err := Client.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// WaitReady waits until /readyz answers 200.
func (a *Arena) WaitReady(within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		code := a.Status("/readyz")
		if code == http.StatusOK {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("arenatest: /readyz did not answer 200 within %s (last %d)", within, code)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop sends SIGTERM, as an operator or an orchestrator would, and waits
// for the orderly shutdown (30 s at most, then it kills the process and
// fails the test). It returns the exit code; stopping a stopped server
// returns -1.
func (a *Arena) Stop() int {
	a.tb.Helper()
	return a.signal(syscall.SIGTERM, 30*time.Second)
}

// Kill sends SIGKILL, as a crash or an out-of-memory kill would, to the
// server's process group, and waits for the process to be gone. Killing a
// stopped server does nothing; a paused one is killed like any other.
func (a *Arena) Kill() {
	a.signal(syscall.SIGKILL, 30*time.Second)
}

func (a *Arena) signal(sig syscall.Signal, within time.Duration) int {
	a.mu.Lock()
	cmd, exited := a.cmd, a.exited
	a.cmd, a.paused = nil, false
	a.mu.Unlock()
	if cmd == nil {
		return -1
	}
	if sig == syscall.SIGKILL {
		proctest.KillGroup(cmd)
	} else if err := cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		a.tb.Errorf("arenatest: signal %v: %v", sig, err)
	}
	select {
	case <-exited:
	case <-time.After(within):
		a.tb.Errorf("arenatest: arena serve did not exit within %s of %v; killing it", within, sig)
		proctest.KillGroup(cmd)
		<-exited
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.state.ExitCode()
}

// Restart starts the server again on the same address and database, after
// Stop or Kill.
func (a *Arena) Restart() {
	a.tb.Helper()
	a.mu.Lock()
	running := a.cmd != nil
	a.mu.Unlock()
	if running {
		a.tb.Fatal("arenatest: Restart of a running server: Stop or Kill it first")
	}
	if err := a.start(a.addr); err != nil {
		a.tb.Fatal(err)
	}
}

// Pause sends SIGSTOP: the process stops, sockets open and all, as a node
// stalled by its machine or cut off by its network would; Resume (SIGCONT)
// lets it go on from where it was. tb is the test that pauses (a subtest,
// often): when it ends with the server still paused, as when it fails
// before its Resume, the server is resumed, so that the tests after it do
// not meet a server that never answers. A paused server is killed at the
// end of the test that started it like any other.
func (a *Arena) Pause(tb testing.TB) {
	tb.Helper()
	a.raw(tb, syscall.SIGSTOP)
	tb.Cleanup(func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		if a.paused && a.cmd != nil {
			_ = a.cmd.Process.Signal(syscall.SIGCONT)
			a.paused = false
		}
	})
}

// Resume sends SIGCONT to a paused server.
func (a *Arena) Resume() { a.raw(a.tb, syscall.SIGCONT) }

func (a *Arena) raw(tb testing.TB, sig syscall.Signal) {
	tb.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cmd == nil {
		tb.Fatalf("arenatest: %v to a server that is not running", sig)
	}
	if err := a.cmd.Process.Signal(sig); err != nil {
		tb.Fatalf("arenatest: signal %v: %v", sig, err)
	}
	a.paused = sig == syscall.SIGSTOP
}
