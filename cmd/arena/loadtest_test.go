package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/internal/loadtest"
)

// TestLoadtest plays a short co-op load against a real server: every
// connection holds, moves are acknowledged and timed to the last member,
// clashing moves are refused as conflicts, and the server's RSS is read
// from its PID; with each client.
func TestLoadtest(t *testing.T) {
	for _, client := range []string{loadtest.ClientEpoll, loadtest.ClientLibrary} {
		t.Run(client, func(t *testing.T) { testLoadtest(t, client) })
	}
}

func testLoadtest(t *testing.T, client string) {
	a := arenatest.Start(t, arenatest.Options{Env: []string{"COUNTDOWN=1s", "POOL_STOCK=8"}})
	var out, errb bytes.Buffer
	code := run([]string{"loadtest", "-url", a.URL(), "-rooms", "8", "-players", "4", "-mode", "coop", "-client", client,
		"-rate", "4", "-ramp", "500ms", "-duration", "3s", "-clash", "5", "-pid", strconv.Itoa(a.PID()), "-json"},
		nil, &out, &errb)
	require.Equal(t, exitOK, code, "stderr: %s", errb.String())
	var res loadtest.Result
	require.NoError(t, json.Unmarshal(out.Bytes(), &res), out.String())

	assert.Equal(t, 8, res.Rooms)
	assert.Equal(t, 32, res.Connections)
	assert.Zero(t, res.UnexpectedCloses)
	assert.Greater(t, res.MovesAcked, int64(100), "32 players × 4 moves/s × 3 s, a fifth of them clashes")
	assert.Greater(t, res.Clashes, int64(10))
	assert.Zero(t, res.Errors["conflict"], "a clash is not an error")
	assert.GreaterOrEqual(t, res.Measured, res.MovesAcked*9/10, "nearly every acknowledged move is timed to the last member")
	assert.Greater(t, res.Events, 3*res.MovesAcked, "each move reaches four members")
	p50, p99 := res.Latency.Quantile(.5), res.Latency.Quantile(.99)
	assert.Positive(t, p50)
	assert.Less(t, p50, 500*time.Millisecond, "a sane median on an idle server")
	assert.LessOrEqual(t, p99, res.Latency.Max)
	assert.Positive(t, res.ServerRSS)
	assert.Positive(t, res.RSSPerConnection())
	assert.InDelta(t, 3, res.Window.Seconds(), 0.5)
	assert.Equal(t, int64(8), res.Create.Count, "every room's creation is timed")
	require.Len(t, res.Seconds, 3, "a second each of the 3 s window")
	var inSeconds int64
	for _, sec := range res.Seconds {
		assert.Positive(t, sec.Moves, "moves complete in every second")
		assert.LessOrEqual(t, sec.Slow, sec.Moves)
		assert.LessOrEqual(t, sec.Max, res.Latency.Max)
		inSeconds += sec.Moves
	}
	assert.LessOrEqual(t, inSeconds, res.Measured, "the window's seconds hold the moves timed in it")
	assert.Positive(t, res.Create.Quantile(.5))
	assert.LessOrEqual(t, res.Create.Quantile(.99), res.Create.Max)
}

// TestLoadtestWorkers runs a race load as two worker processes, each with
// its own source addresses, and merges their results.
func TestLoadtestWorkers(t *testing.T) {
	a := arenatest.Start(t, arenatest.Options{Env: []string{"COUNTDOWN=1s", "POOL_STOCK=8"}})
	cmd := arenatest.Command(t, 2*time.Minute, arenatest.Binary(t), "loadtest", "-url", a.URL(), "-rooms", "4", "-players", "2",
		"-mode", "race", "-rate", "4", "-ramp", "0s", "-duration", "2s", "-procs", "2", "-sources", "2", "-metrics", a.MetricsURL(), "-json")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Run(), "stderr: %s", errb.String())
	var res loadtest.Result
	require.NoError(t, json.Unmarshal(out.Bytes(), &res), out.String())
	assert.Equal(t, 2, res.Workers)
	assert.Equal(t, 4, res.Rooms)
	assert.Equal(t, 8, res.Connections)
	assert.Zero(t, res.UnexpectedCloses)
	assert.Greater(t, res.MovesAcked, int64(20))
	assert.Equal(t, res.Measured, res.Latency.Count)
	assert.Positive(t, res.ServerRSS, "read from the metrics listener")
}

// TestLoadtestRefusesRemote: a target that is not loopback is refused
// before anything is sent, unless -allow-remote.
func TestLoadtestRefusesRemote(t *testing.T) {
	for _, u := range []string{"http://192.0.2.1:8080", "http://example.com", "https://10.0.0.1"} {
		var out, errb bytes.Buffer
		code := run([]string{"loadtest", "-url", u, "-duration", "1s"}, nil, &out, &errb)
		assert.Equal(t, exitUsage, code, u)
		assert.Contains(t, errb.String(), "-allow-remote", u)
		assert.Empty(t, out.String())
	}
}

// TestLoadtestCountsUnexpectedCloses: a server that goes away mid-run
// (SIGTERM: it closes every socket with 1001 and stops) ends every
// connection unexpectedly, with its close code, and the load test exits
// non-zero.
func TestLoadtestCountsUnexpectedCloses(t *testing.T) {
	a := arenatest.Start(t, arenatest.Options{Env: []string{"COUNTDOWN=1s", "POOL_STOCK=8"}})
	cmd := arenatest.Command(t, 2*time.Minute, arenatest.Binary(t), "loadtest", "-url", a.URL(), "-rooms", "2", "-players", "2", "-mode", "coop",
		"-rate", "2", "-ramp", "0s", "-duration", "4s", "-json")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Start())
	time.Sleep(2500 * time.Millisecond) // the rooms play
	a.Stop()
	err := cmd.Wait()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "stderr: %s", errb.String())
	assert.Equal(t, 1, exit.ExitCode())
	var res loadtest.Result
	require.NoError(t, json.Unmarshal(out.Bytes(), &res), out.String())
	assert.Equal(t, int64(4), res.UnexpectedCloses)
	assert.Equal(t, int64(4), res.Errors["close:1001"], "%v", res.Errors)
	assert.Zero(t, res.Connections)
}
