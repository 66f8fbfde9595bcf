package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/server"
)

// get is a GET of the path: its status and body.
func (e *env) get(path string) (int, string) {
	e.tb.Helper()
	resp, err := arenatest.Get(e.http.URL + path)
	require.NoError(e.tb, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(e.tb, err)
	return resp.StatusCode, string(body)
}

// A queue cmd adds (the event log) is reported in /readyz and /metrics.
func TestReadinessReportsEveryQueue(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	oldest := time.Now().Add(-90 * time.Second)
	full := false
	e.srv.AddQueue("events", func() server.QueueStats {
		return server.QueueStats{Depth: 7, Bytes: 700, OldestAt: oldest, Full: full, Dropped: 3}
	})
	status, body := e.get("/readyz")
	assert.Equal(t, http.StatusOK, status)
	var checks map[string]string
	require.NoError(t, json.Unmarshal([]byte(body), &checks))
	assert.Equal(t, "ok", checks["events"])
	metrics := e.metrics()
	assert.Contains(t, metrics, `arena_queue_depth{queue="events"} 7`+"\n")
	assert.Contains(t, metrics, `arena_queue_bytes{queue="events"} 700`+"\n")
	assert.Contains(t, metrics, `arena_queue_dropped_total{queue="events"} 3`+"\n")
	assert.Regexp(t, `arena_queue_oldest_seconds\{queue="events"\} 9\d\.\d+\n`, metrics)

	full = true
	status, body = e.get("/healthz")
	assert.Equal(t, http.StatusServiceUnavailable, status, "/healthz is readiness")
	assert.JSONEq(t, `{"status":"unavailable","database":"ok","results":"ok","events":"full"}`, body)
	status, _ = e.get("/livez")
	assert.Equal(t, http.StatusOK, status)
}
