// Package pgtest starts a throwaway PostgreSQL server for tests: initdb into
// a temporary directory, a free loopback port, stopped and removed at the
// end. The server (postgres) is a child of the test binary, in a process
// group of its own, and on Linux the kernel kills it when the test binary
// dies, even by a panic or a timeout that runs no cleanup. With
// TEST_DATABASE_URL set it uses that server instead. Each test gets a
// database of its own, so tests run in parallel and leave nothing behind.
//
// It never skips: when no PostgreSQL server binaries can be found it returns
// an error that says what to install.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sudoku-arena/arena/internal/proctest"
)

// EnvURL names the variable that points the tests at an existing server; its
// role must be allowed to create databases.
const EnvURL = "TEST_DATABASE_URL"

// Server is a running PostgreSQL server the tests may create databases in.
type Server struct {
	// URL reaches the server's "postgres" database as a superuser (or, with
	// TEST_DATABASE_URL, as the role given there).
	URL string

	dir    string // temporary directory; empty for an external server
	binDir string
	// settings are the server's options (its port among them), for
	// Resume to start it again as it was.
	settings []string
	cred     *syscall.Credential // who runs the server when we are root

	mu     sync.Mutex
	proc   *exec.Cmd     // the running postmaster; nil when halted or stopped
	exited chan struct{} // closed when proc has exited
}

// Options tune a throwaway server.
type Options struct {
	// Durable keeps fsync and synchronous commit on, as in production. Tests
	// leave it off for speed; benchmarks of write throughput turn it on.
	Durable bool
	// Own starts a throwaway server even when TEST_DATABASE_URL is set,
	// for tests that stop and start it (Halt, Resume).
	Own bool
}

// Start starts a throwaway server, or connects to TEST_DATABASE_URL, or,
// after Share, answers the shared server.
func Start(ctx context.Context, opts Options) (*Server, error) {
	if u := os.Getenv(EnvURL); u != "" && !opts.Own {
		if _, err := url.Parse(u); err != nil {
			return nil, fmt.Errorf("pgtest: %s: %w", EnvURL, err)
		}
		return &Server{URL: u}, nil
	}
	if !opts.Own && !opts.Durable {
		shared.mu.Lock()
		defer shared.mu.Unlock()
		if shared.on {
			if shared.srv == nil {
				srv, err := startThrowaway(ctx, opts)
				if err != nil {
					return nil, err
				}
				shared.srv = srv
			}
			return shared.srv, nil
		}
	}
	return startThrowaway(ctx, opts)
}

// shared is the server that Start answers, once Share was called, to
// every call that asks for neither Own nor Durable.
var shared struct {
	mu  sync.Mutex
	on  bool
	srv *Server
}

// Share makes every later Start in the test binary that asks for neither
// Own nor Durable answer one throwaway server, started by the first of
// them and stopped by the function Share returns, so that a package whose
// tests each start a server runs initdb and PostgreSQL once, not once a
// test. Each test still gets databases of its own (NewDatabase); the
// shared server's Stop does nothing. Call it from TestMain before the
// tests run, and what it returns after them.
func Share() (stop func()) {
	shared.mu.Lock()
	shared.on = true
	shared.mu.Unlock()
	return func() {
		shared.mu.Lock()
		srv := shared.srv
		shared.on, shared.srv = false, nil
		shared.mu.Unlock()
		if srv != nil {
			srv.remove()
		}
	}
}

// startThrowaway starts a server of the caller's own.
func startThrowaway(ctx context.Context, opts Options) (*Server, error) {
	bin, err := findBinDir()
	if err != nil {
		return nil, err
	}
	dir, err := proctest.MkdirTemp(dirPattern)
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	s := &Server{dir: dir, binDir: bin}
	if err := s.start(ctx, opts); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// dirPattern names a throwaway server's temporary directory; a test
// binary gone without its cleanup leaves it, and proctest.MkdirTemp
// sweeps it at the next start.
const dirPattern = "arena-pg-"

// findBinDir finds initdb and postgres: on PATH, or in Debian's
// /usr/lib/postgresql/VERSION/bin (the newest version).
func findBinDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if _, err := os.Stat(filepath.Join(filepath.Dir(p), "postgres")); err == nil {
			return filepath.Dir(p), nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return pgVersion(dirs[i]) > pgVersion(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", errors.New("pgtest: PostgreSQL server binaries (initdb, postgres) not found on PATH or in /usr/lib/postgresql/*/bin: " +
		"install Debian's postgresql package (apt-get install postgresql), or set " + EnvURL + " to a server whose role may create databases")
}

func pgVersion(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

func (s *Server) start(ctx context.Context, opts Options) error {
	data := filepath.Join(s.dir, "data")
	if os.Geteuid() == 0 {
		// initdb and postgres refuse to run as root: run them as the
		// postgres user Debian's package creates, or as nobody.
		cred, err := unprivileged()
		if err != nil {
			return err
		}
		s.cred = cred
		if err := os.Chown(s.dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return fmt.Errorf("pgtest: chown %s: %w", s.dir, err)
		}
	}
	if out, err := s.run(ctx, "initdb", "-D", data, "-U", "arena", "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"); err != nil {
		return fmt.Errorf("pgtest: initdb: %w\n%s", err, out)
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		port, err := freePort()
		if err != nil {
			return err
		}
		s.settings = []string{
			"-p", strconv.Itoa(port),
			"-k", s.dir,
			"-c", "listen_addresses=127.0.0.1",
			"-c", "max_connections=200",
			"-c", "shared_buffers=128MB",
		}
		if !opts.Durable {
			s.settings = append(s.settings, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
		}
		s.URL = fmt.Sprintf("postgres://arena@127.0.0.1:%d/postgres?sslmode=disable", port)
		if err := s.pgStart(ctx); err != nil {
			s.URL = ""
			lastErr = err
			continue
		}
		return nil
	}
	return lastErr
}

// pgStart starts the initialised server with its settings, as a child of
// the test binary (pg_ctl would detach it, out of the reach of the
// process group and of the parent-death signal), and waits until it takes
// connections.
func (s *Server) pgStart(ctx context.Context) error {
	logPath := filepath.Join(s.dir, "server.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("pgtest: server log: %w", err)
	}
	defer logFile.Close() // the child has its own copy
	args := append([]string{"-D", filepath.Join(s.dir, "data")}, s.settings...)
	cmd := exec.Command(filepath.Join(s.binDir, "postgres"), args...)
	cmd.Dir = s.dir
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	proctest.Detach(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("pgtest: start postgres: %w", err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	s.mu.Lock()
	s.proc, s.exited = cmd, exited
	s.mu.Unlock()

	failed := func(why error) error {
		s.kill()
		log, _ := os.ReadFile(logPath)
		return fmt.Errorf("pgtest: postgres %s: %w\n%s", strings.Join(s.settings, " "), why, log)
	}
	// Asked through its Unix socket, in its own directory, the server
	// that answers is this one, not another that holds the port.
	socketURL := fmt.Sprintf("postgres://arena@/postgres?host=%s&port=%s&sslmode=disable", url.QueryEscape(s.dir), s.settings[1])
	deadline := time.Now().Add(60 * time.Second)
	for {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		conn, err := pgx.Connect(cctx, socketURL)
		cancel()
		if err == nil {
			conn.Close(ctx)
			return nil
		}
		select {
		case <-exited:
			return failed(fmt.Errorf("exited before it took connections (%v)", cmd.ProcessState))
		case <-ctx.Done():
			return failed(ctx.Err())
		default:
		}
		if time.Now().After(deadline) {
			return failed(fmt.Errorf("took no connections within 60s: %w", err))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// halt stops the running server at once (SIGQUIT: PostgreSQL's immediate
// shutdown), kills what is left of its process group after within, and
// waits for it to be gone. It returns false when no server was running.
func (s *Server) halt(within time.Duration) bool {
	s.mu.Lock()
	cmd, exited := s.proc, s.exited
	s.proc = nil
	s.mu.Unlock()
	if cmd == nil {
		return false
	}
	_ = cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-exited:
	case <-time.After(within):
	}
	proctest.KillGroup(cmd) // any backend the postmaster left
	<-exited
	return true
}

// kill kills the running server and its processes at once.
func (s *Server) kill() { s.halt(0) }

// Halt stops a throwaway server at once, as a crash or a lost database
// host would (an immediate shutdown): connections break and new ones
// are refused until Resume. Its data is kept; start the server Durable,
// since without synchronous commit the last moments' commits are lost. An external server
// (TEST_DATABASE_URL) cannot be halted; start one with Options.Own.
func (s *Server) Halt(ctx context.Context) error {
	if s.dir == "" {
		return errors.New("pgtest: cannot halt an external server: start one with Options.Own")
	}
	if !s.halt(30 * time.Second) {
		return errors.New("pgtest: halt: the server is not running")
	}
	return nil
}

// Resume starts a halted server again, on the same port, with its data
// (recovered from its write-ahead log, as after a crash).
func (s *Server) Resume(ctx context.Context) error {
	if s.dir == "" {
		return errors.New("pgtest: cannot resume an external server")
	}
	return s.pgStart(ctx)
}

func unprivileged() (*syscall.Credential, error) {
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
	}
	return nil, errors.New("pgtest: running as root and neither a postgres nor a nobody user exists to run PostgreSQL as")
}

func (s *Server) run(ctx context.Context, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(s.binDir, name), args...)
	cmd.Dir = s.dir
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	return cmd.CombinedOutput()
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgtest: find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Stop stops a throwaway server (an immediate shutdown, then SIGKILL to
// what is left after 10 s) and removes its directory, whatever state a
// failed test left it in; for an external server, or the shared one
// (Share), it does nothing.
func (s *Server) Stop() {
	if s == nil || s.dir == "" || s.isShared() {
		return
	}
	s.remove()
}

// isShared says whether s is the server Share's Starts answer, whose stop
// is left to the function Share returned.
func (s *Server) isShared() bool {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	return shared.srv == s
}

// remove stops a throwaway server and removes its directory.
func (s *Server) remove() {
	s.halt(10 * time.Second)
	os.RemoveAll(s.dir)
}

// databases numbers the databases this process creates: one count for
// every Server, as several Start calls with TEST_DATABASE_URL answer as
// many Servers on the one external server.
var databases atomic.Int64

// CreateDatabase creates an empty database with a unique name and returns
// its URL and a function that drops it.
func (s *Server) CreateDatabase(ctx context.Context) (string, func(), error) {
	name := fmt.Sprintf("arena_test_%d_%d", os.Getpid(), databases.Add(1))
	conn, err := pgx.Connect(ctx, s.URL)
	if err != nil {
		return "", nil, fmt.Errorf("pgtest: connect %s: %w", s.URL, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", nil, fmt.Errorf("pgtest: create database %s: %w", name, err)
	}
	u, err := url.Parse(s.URL)
	if err != nil {
		return "", nil, fmt.Errorf("pgtest: server URL: %w", err)
	}
	u.Path = "/" + name
	drop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if c, err := pgx.Connect(ctx, s.URL); err == nil {
			c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			c.Close(ctx)
		}
	}
	return u.String(), drop, nil
}

// NewDatabase is CreateDatabase for a test: it fails the test on error and
// drops the database when the test ends.
func (s *Server) NewDatabase(tb testing.TB) string {
	tb.Helper()
	u, drop, err := s.CreateDatabase(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(drop)
	return u
}

// CPU is the processor time, user and system, that the throwaway server
// has used so far: its postmaster's and its live processes' (backends,
// WAL writer, checkpointer), and what the processes that have exited
// used. Benchmarks take it before and after, to weigh the server's work
// beside their own. It reads /proc, so it is Linux's alone, and it is
// an error for an external server or one not running.
func (s *Server) CPU() (time.Duration, error) {
	s.mu.Lock()
	cmd := s.proc
	s.mu.Unlock()
	if cmd == nil {
		return 0, errors.New("pgtest: CPU: no throwaway server is running")
	}
	root := cmd.Process.Pid
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, fmt.Errorf("pgtest: CPU: %w", err)
	}
	var ticks int64
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		// The fields after the command's name, which is in parentheses
		// and may hold spaces: state, ppid, ... utime (14th field of the
		// line), stime, cutime, cstime.
		i := strings.LastIndexByte(string(stat), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 15 {
			continue
		}
		if ppid, _ := strconv.Atoi(f[1]); pid != root && ppid != root {
			continue
		}
		for _, v := range f[11:15] { // utime, stime, cutime, cstime
			n, _ := strconv.ParseInt(v, 10, 64)
			ticks += n
		}
	}
	// Linux counts in clock ticks of USER_HZ, 100 a second on every
	// architecture Go runs on.
	return time.Duration(ticks) * 10 * time.Millisecond, nil
}
