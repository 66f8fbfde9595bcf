package server_test

import (
	"io"
	"log/slog"
	"net/http"
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
