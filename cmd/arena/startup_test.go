package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/internal/config"
	"github.com/sudoku-arena/arena/store/backend"
	"github.com/sudoku-arena/arena/store/pgtest"
)

// TestServeBadAddressOpensNothing: a listen address with a port out of
// range is a bad setting like any other: exit 2, named, and no store is
// made.
func TestServeBadAddressOpensNothing(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("LISTEN_ADDR", ":99999")
	code, _, errOut := arena(t, "", "serve")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, `LISTEN_ADDR=":99999": want a port from 0 to 65535`)
	_, err := os.Stat("data")
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing is created")
}

// TestServePortInUseOpensNothing: a LISTEN_ADDR whose port another
// process holds stops the start (exit 1, named) before the store is
// opened and migrated.
func TestServePortInUseOpensNothing(t *testing.T) {
	t.Chdir(t.TempDir())
	held, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer held.Close()
	t.Setenv("LISTEN_ADDR", held.Addr().String())
	code, _, errOut := arena(t, "", "serve")
	assert.Equal(t, exitFail, code)
	assert.Contains(t, errOut, "LISTEN_ADDR")
	assert.Contains(t, errOut, "address already in use")
	_, err = os.Stat("data")
	assert.ErrorIs(t, err, os.ErrNotExist, "no store is made")
}

// Two listeners on one port are refused as settings: exit 2, named.
func TestServeListenersOnOnePort(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("LISTEN_ADDR", "127.0.0.1:18099")
	t.Setenv("METRICS_ADDR", "127.0.0.1:18099")
	code, _, errOut := arena(t, "", "serve")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, `METRICS_ADDR="127.0.0.1:18099": the port of LISTEN_ADDR`)
}

// TestServeWaitsForTheDatabaseThenStops: a PostgreSQL that is not there
// is tried again for DATABASE_WAIT, each try logged, and then the start
// stops with exit code 2 and an error naming DATABASE_URL and what failed.
// A mistyped setting is warned about on the way.
func TestServeWaitsForTheDatabaseThenStops(t *testing.T) {
	t.Setenv("LISTEN_ADDR", "127.0.0.1:0")
	t.Setenv(config.DatabaseURL, "postgres://arena@"+arenatest.FreeAddr(t)+"/arena?sslmode=disable")
	t.Setenv("DATABASE_WAIT", "1500ms")
	t.Setenv("LISTN_ADDR", ":1")
	start := time.Now()
	code, _, errOut := arena(t, "", "serve")
	took := time.Since(start)
	assert.Equal(t, exitUsage, code, errOut)
	assert.Contains(t, errOut, "LISTN_ADDR is not a setting; did you mean LISTEN_ADDR?")
	assert.Contains(t, errOut, "DATABASE_URL: not reached in 1.5s (")
	assert.Contains(t, errOut, "connection refused")
	assert.Contains(t, errOut, `msg="database not reachable yet; trying again" try=1 `)
	assert.Contains(t, errOut, `msg="database not reachable yet; trying again" try=2 `)
	assert.GreaterOrEqual(t, took, 1500*time.Millisecond)
	assert.Less(t, took, 15*time.Second)
}

// TestServeDatabaseWaitZero: DATABASE_WAIT=0 tries once.
func TestServeDatabaseWaitZero(t *testing.T) {
	t.Setenv("LISTEN_ADDR", "127.0.0.1:0")
	t.Setenv(config.DatabaseURL, "postgres://arena@"+arenatest.FreeAddr(t)+"/arena?sslmode=disable")
	t.Setenv("DATABASE_WAIT", "0")
	code, _, errOut := arena(t, "", "serve")
	assert.Equal(t, exitUsage, code, errOut)
	assert.Contains(t, errOut, "DATABASE_URL: open store: postgres: connect for migrations: failed to connect to ")
	assert.Contains(t, errOut, "connection refused")
	assert.NotContains(t, errOut, "trying again")
}

// TestServeMalformedDatabaseURL: a URL the driver cannot read is a bad
// setting, before anything is tried.
func TestServeMalformedDatabaseURL(t *testing.T) {
	t.Setenv("LISTEN_ADDR", "127.0.0.1:0")
	t.Setenv(config.DatabaseURL, "postgres://arena:secret@db:port/arena")
	code, _, errOut := arena(t, "", "serve")
	assert.Equal(t, exitUsage, code, errOut)
	assert.Contains(t, errOut, "arena serve: configuration: DATABASE_URL=")
	assert.NotContains(t, errOut, "trying again")
}

// TestServeWaitsForADatabaseThatComesUp: the database's port opens
// during the wait (a proxy to a throwaway PostgreSQL, listening late), and
// the server starts.
func TestServeWaitsForADatabaseThatComesUp(t *testing.T) {
	ctx := context.Background()
	pg, err := pgtest.Start(ctx, pgtest.Options{})
	require.NoError(t, err)
	t.Cleanup(pg.Stop)
	u, err := url.Parse(pg.NewDatabase(t))
	require.NoError(t, err)
	upstream := u.Host
	late := arenatest.FreeAddr(t)
	u.Host = late

	go func() {
		time.Sleep(time.Second)
		ln, err := net.Listen("tcp", late)
		if err != nil {
			t.Errorf("listen late: %v", err)
			return
		}
		proxy(t, ln, upstream)
	}()

	cfg, err := config.Load(func(name string) string {
		switch name {
		case "LISTEN_ADDR":
			return "127.0.0.1:0"
		case "POOL_STOCK":
			return "1"
		case config.DatabaseURL:
			return u.String()
		case "DATABASE_WAIT":
			return "20s"
		}
		return ""
	})
	require.NoError(t, err)
	var logs syncBuffer
	serveCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	err = serve(serveCtx, cfg, slog.New(slog.NewTextHandler(&logs, nil)), backend.Open, func(string) { cancel() })
	require.NoError(t, err, logs.String())
	assert.GreaterOrEqual(t, time.Since(start), time.Second, "it waited")
	assert.Contains(t, logs.String(), "database not reachable yet; trying again")
	assert.Contains(t, logs.String(), `msg="database reached"`)
}

// proxy forwards each connection ln accepts to upstream until the test
// ends.
func proxy(t *testing.T, ln net.Listener, upstream string) {
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		up, err := net.DialTimeout("tcp", upstream, 5*time.Second)
		if err != nil {
			c.Close()
			continue
		}
		mu.Lock()
		conns = append(conns, c, up)
		mu.Unlock()
		go func() { _, _ = io.Copy(up, c); up.Close() }()
		go func() { _, _ = io.Copy(c, up); c.Close() }()
	}
}

// syncBuffer is a strings.Builder that the server's goroutines may log
// to while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
