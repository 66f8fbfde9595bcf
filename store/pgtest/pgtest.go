// Package pgtest starts a throwaway PostgreSQL server for tests: initdb into
// a temporary directory, a free loopback port, stopped and removed at the
// end. With TEST_DATABASE_URL set it uses that server instead. Each test gets
// a database of its own, so tests run in parallel and leave nothing behind.
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
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
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
	settings string
	cred     *syscall.Credential // who runs the server when we are root
	counter  atomic.Int64
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

// Start starts a throwaway server, or connects to TEST_DATABASE_URL.
func Start(ctx context.Context, opts Options) (*Server, error) {
	if u := os.Getenv(EnvURL); u != "" && !opts.Own {
		if _, err := url.Parse(u); err != nil {
			return nil, fmt.Errorf("pgtest: %s: %w", EnvURL, err)
		}
		return &Server{URL: u}, nil
	}
	bin, err := findBinDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "arena-pg-")
	if err != nil {
		return nil, fmt.Errorf("pgtest: temporary directory: %w", err)
	}
	s := &Server{dir: dir, binDir: bin}
	if err := s.start(ctx, opts); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// findBinDir finds initdb and pg_ctl: on PATH, or in Debian's
// /usr/lib/postgresql/VERSION/bin (the newest version).
func findBinDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if _, err := exec.LookPath("pg_ctl"); err == nil {
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
	return "", errors.New("pgtest: PostgreSQL server binaries (initdb, pg_ctl) not found on PATH or in /usr/lib/postgresql/*/bin: " +
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
		settings := []string{
			"-p " + strconv.Itoa(port),
			"-k " + s.dir,
			"-c listen_addresses=127.0.0.1",
			"-c max_connections=200",
			"-c shared_buffers=128MB",
		}
		if !opts.Durable {
			settings = append(settings, "-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off")
		}
		s.settings = strings.Join(settings, " ")
		if err := s.pgStart(ctx); err != nil {
			lastErr = err
			continue
		}
		s.URL = fmt.Sprintf("postgres://arena@127.0.0.1:%d/postgres?sslmode=disable", port)
		return nil
	}
	return lastErr
}

// pgStart starts the initialised server with its settings and waits until
// it takes connections.
func (s *Server) pgStart(ctx context.Context) error {
	out, err := s.run(ctx, "pg_ctl", "-D", filepath.Join(s.dir, "data"), "-l", filepath.Join(s.dir, "server.log"), "-w", "-t", "60",
		"-o", s.settings, "start")
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(s.dir, "server.log"))
		return fmt.Errorf("pgtest: pg_ctl start (%s): %w\n%s\n%s", s.settings, err, out, log)
	}
	return nil
}

// Halt stops a throwaway server at once, as a crash or a lost database
// host would (pg_ctl stop -m immediate): connections break and new ones
// are refused until Resume. Its data is kept; start the server Durable,
// since without synchronous commit the last moments' commits are lost. An external server
// (TEST_DATABASE_URL) cannot be halted; start one with Options.Own.
func (s *Server) Halt(ctx context.Context) error {
	if s.dir == "" {
		return errors.New("pgtest: cannot halt an external server: start one with Options.Own")
	}
	if out, err := s.run(ctx, "pg_ctl", "-D", filepath.Join(s.dir, "data"), "-m", "immediate", "-w", "stop"); err != nil {
		return fmt.Errorf("pgtest: pg_ctl stop: %w\n%s", err, out)
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

// Stop stops a throwaway server and removes its directory; for an external
// server it does nothing.
func (s *Server) Stop() {
	if s == nil || s.dir == "" {
		return
	}
	if s.URL != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s.run(ctx, "pg_ctl", "-D", filepath.Join(s.dir, "data"), "-m", "immediate", "-w", "stop")
	}
	os.RemoveAll(s.dir)
}

// CreateDatabase creates an empty database with a unique name and returns
// its URL and a function that drops it.
func (s *Server) CreateDatabase(ctx context.Context) (string, func(), error) {
	name := fmt.Sprintf("arena_test_%d_%d", os.Getpid(), s.counter.Add(1))
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
