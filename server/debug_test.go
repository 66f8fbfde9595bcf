package server_test

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/server"
)

// TestDebugServer: the debug listener serves pprof's index on loopback,
// and stops.
func TestDebugServer(t *testing.T) {
	addr, stop, err := server.DebugServer("127.0.0.1:0", slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	resp, err := arenatest.Get("http://" + addr + "/debug/pprof/")
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(body), "goroutine")
	stop()
	_, err = arenatest.Get("http://" + addr + "/debug/pprof/")
	assert.Error(t, err, "stopped")

	_, _, err = server.DebugServer("0.0.0.0:0", slog.New(slog.DiscardHandler))
	assert.ErrorContains(t, err, "DEBUG_ADDR")
}

// The metrics are off the public listener: GET /metrics there is 404,
// and the metrics listener (METRICS_ADDR) serves them, alone, until it
// stops.
func TestMetricsServer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	resp, body := e.do(http.MethodGet, "/metrics", "", "")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.NotContains(t, body, "arena_")

	addr, stop, err := e.srv.MetricsServer("127.0.0.1:0")
	require.NoError(t, err)
	read := func(path string) (int, string) {
		resp, err := arenatest.Get("http://" + addr + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(body)
	}
	status, metrics := read("/metrics")
	assert.Equal(t, http.StatusOK, status)
	for _, want := range []string{"arena_rooms 0\n", "arena_websockets_open 0\n", "process_resident_memory_bytes ", "go_goroutines "} {
		assert.Contains(t, metrics, want)
	}
	for _, path := range []string{"/", "/api/rooms/k3m9x2pq", "/livez", "/debug/pprof/"} {
		status, _ := read(path)
		assert.Equal(t, http.StatusNotFound, status, "the metrics listener serves the metrics only: %s", path)
	}
	stop()
	_, err = arenatest.Get("http://" + addr + "/metrics")
	assert.Error(t, err, "stopped")

	// Taken addresses are refused under the setting's name.
	_, _, err = e.srv.MetricsServer(strings.TrimPrefix(e.http.URL, "http://"))
	assert.ErrorContains(t, err, "METRICS_ADDR")
}

// ServeApart starts the listeners the configuration names, and stops
// them.
func TestServeApart(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	e := newEnv(t, func(c *server.Config) { c.MetricsAddr = addr })
	stop, err := e.srv.ServeApart()
	require.NoError(t, err)
	resp, err := arenatest.Get("http://" + addr + "/metrics")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	stop()

	none := newEnv(t)
	stop, err = none.srv.ServeApart()
	require.NoError(t, err, "nothing asked, nothing started")
	stop()
}
