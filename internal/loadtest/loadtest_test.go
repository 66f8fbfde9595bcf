package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckTarget(t *testing.T) {
	for _, ok := range []string{"http://127.0.0.1:8080", "http://localhost:8080", "http://[::1]:8080", "https://127.0.0.5"} {
		_, err := CheckTarget(ok, false)
		assert.NoError(t, err, ok)
	}
	for _, bad := range []string{"http://192.0.2.1:8080", "http://example.com", "http://10.0.0.1", "http://0.0.0.0:8080"} {
		_, err := CheckTarget(bad, false)
		assert.ErrorContains(t, err, "-allow-remote", bad)
		_, err = CheckTarget(bad, true)
		assert.NoError(t, err, bad)
	}
	for _, bad := range []string{"127.0.0.1:8080", "ftp://127.0.0.1", "http://"} {
		_, err := CheckTarget(bad, true)
		assert.Error(t, err, bad)
	}
}

func TestSourceIPs(t *testing.T) {
	u, err := CheckTarget("http://127.0.0.1:8080", false)
	require.NoError(t, err)
	ips := sourceIPs(u, 3, 1)
	require.Len(t, ips, 3)
	assert.Equal(t, "127.0.0.5", ips[0].String(), "worker 1's block follows worker 0's")
	assert.Equal(t, "127.0.0.7", ips[2].String())
	u6, err := CheckTarget("http://[::1]:8080", false)
	require.NoError(t, err)
	assert.Nil(t, sourceIPs(u6, 3, 0), "IPv6 loopback: the system's choice")
}

func TestHistogram(t *testing.T) {
	var h Histogram
	for i := 1; i <= 1000; i++ {
		h.Add(time.Duration(i) * time.Millisecond)
	}
	assert.InEpsilon(t, float64(500*time.Millisecond), float64(h.Quantile(.5)), 0.02)
	assert.InEpsilon(t, float64(990*time.Millisecond), float64(h.Quantile(.99)), 0.02)
	assert.Equal(t, time.Second, h.Quantile(1))
	assert.Equal(t, time.Second, h.Max)
	var empty Histogram
	assert.Zero(t, empty.Quantile(.5))
}

// TestMerge: workers' results add up, and their histograms merge as if
// one process had counted every latency.
func TestMerge(t *testing.T) {
	var a, b, all Histogram
	for i := 1; i <= 100; i++ {
		d := time.Duration(i) * time.Millisecond
		all.Add(d)
		if i%2 == 0 {
			a.Add(d)
		} else {
			b.Add(d)
		}
	}
	got := Merge([]Result{
		{Mode: "coop", Workers: 1, Rooms: 2, Connections: 8, PeakConnections: 8, Window: 10 * time.Second,
			MovesSent: 50, MovesAcked: 48, Clashes: 2, Measured: 50, Events: 200,
			Errors: map[string]int64{"conflict": 1}, Latency: a, ServerRSS: 100 << 20, ServerCPU: 3 * time.Second,
			Seconds: []Second{{Moves: 10, Slow: 0, Max: 9 * time.Millisecond}, {Moves: 12, Slow: 2, Max: 80 * time.Millisecond}}},
		{Mode: "coop", Workers: 1, Rooms: 3, Connections: 12, PeakConnections: 12, Window: 11 * time.Second,
			MovesSent: 52, MovesAcked: 50, Clashes: 1, Measured: 50, Events: 300, UnexpectedCloses: 1,
			Errors: map[string]int64{"conflict": 2, "close:4001": 1}, Latency: b, ServerRSS: 101 << 20, ServerCPU: 2 * time.Second,
			Seconds: []Second{{Moves: 5, Slow: 1, Max: 60 * time.Millisecond}, {Moves: 7}, {Moves: 3, Slow: 3, Max: 120 * time.Millisecond}}},
	})
	assert.Equal(t, 2, got.Workers)
	assert.Equal(t, 5, got.Rooms)
	assert.Equal(t, 20, got.Connections)
	assert.Equal(t, 11*time.Second, got.Window)
	assert.Equal(t, int64(102), got.MovesSent)
	assert.Equal(t, int64(98), got.MovesAcked)
	assert.Equal(t, int64(3), got.Clashes)
	assert.Equal(t, int64(500), got.Events)
	assert.Equal(t, map[string]int64{"conflict": 3, "close:4001": 1}, got.Errors)
	assert.Equal(t, int64(1), got.UnexpectedCloses)
	assert.True(t, got.Failed())
	assert.Equal(t, int64(101<<20), got.ServerRSS)
	assert.Equal(t, int64(101<<20)/20, got.RSSPerConnection())
	assert.Equal(t, 3*time.Second, got.ServerCPU)
	assert.Equal(t, all.Count, got.Latency.Count)
	for _, q := range []float64{.5, .95, .99, 1} {
		assert.Equal(t, all.Quantile(q), got.Latency.Quantile(q), "q %g", q)
	}
	assert.Equal(t, []Second{
		{Moves: 15, Slow: 1, Max: 60 * time.Millisecond},
		{Moves: 19, Slow: 2, Max: 80 * time.Millisecond},
		{Moves: 3, Slow: 3, Max: 120 * time.Millisecond},
	}, got.Seconds, "second by second: counts add up, the slowest is the slowest")
	var sb strings.Builder
	got.Print(&sb)
	assert.Contains(t, sb.String(), "slow seconds         3 of 3 miss a p99 of 50ms on their own; the worst, +2 s: 3 of 3 moves over, max 120.00 ms")
	quiet := Result{Seconds: []Second{{Moves: 200, Slow: 2}, {Moves: 100, Slow: 1}}}
	assert.Equal(t, "none of 2 misses a p99 of 50ms on its own", quiet.slowSeconds(), "1% slow is a p99 met")
	assert.Contains(t, sb.String(), "unexpected closes    1")
	assert.Contains(t, sb.String(), "close:4001=1 conflict=3")
}

func TestParseMetric(t *testing.T) {
	n, err := parseMetric(strings.NewReader("# HELP x\nprocess_resident_memory_bytes 1.234567e+07\nother 1\n"), metricRSS)
	require.NoError(t, err)
	assert.Equal(t, int64(12345670), n)
	_, err = parseMetric(strings.NewReader("other 1\n"), metricRSS)
	assert.Error(t, err)
	n, err = parseMetric(strings.NewReader("arena_relays_total_x 5\narena_relays_total 7\n"), metricRelays)
	require.NoError(t, err)
	assert.Equal(t, int64(7), n, "the name whole, not a prefix")
}

func TestReadProcSelf(t *testing.T) {
	rss, err := readRSS(os.Getpid())
	if err != nil {
		t.Skip("no /proc here")
	}
	assert.Positive(t, rss)
	_, err = readCPU(os.Getpid())
	assert.NoError(t, err)
}

func TestPeers(t *testing.T) {
	assert.True(t, peers(0, 8))   // row
	assert.True(t, peers(0, 72))  // column
	assert.True(t, peers(0, 20))  // box
	assert.False(t, peers(0, 30)) // none
	assert.False(t, peers(5, 5))
}

// TestCreateLatency: each room's creation is timed from its first POST
// to the answer that made it, a retry after a busy answer and its pause
// included, and a room never made is not counted.
func TestCreateLatency(t *testing.T) {
	var posts atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost || req.URL.Path != "/api/rooms" {
			http.NotFound(w, req)
			return
		}
		n := posts.Add(1)
		time.Sleep(20 * time.Millisecond)
		switch {
		case n == 2: // the second room's first try: busy, tried again
			w.WriteHeader(http.StatusServiceUnavailable)
		case n == 5: // the fourth room: refused for good
			w.WriteHeader(http.StatusBadRequest)
		default:
			w.WriteHeader(http.StatusCreated)
			fmt.Fprintf(w, `{"id":"r%d"}`, n)
		}
	}))
	defer srv.Close()
	u, err := CheckTarget(srv.URL, false)
	require.NoError(t, err)
	r := &run{o: Options{URL: u, Mode: "coop"}, http: srv.Client(), errors: map[string]int64{}}
	ctx := context.Background()
	for range 3 {
		_, err := r.createRoom(ctx, u)
		require.NoError(t, err)
	}
	_, err = r.createRoom(ctx, u)
	require.Error(t, err)

	assert.Equal(t, int64(3), r.create.Count, "three rooms made")
	assert.GreaterOrEqual(t, r.create.Quantile(.5), 20*time.Millisecond)
	assert.Less(t, r.create.Quantile(.5), time.Second, "the rooms made at once")
	assert.GreaterOrEqual(t, r.create.Max, time.Second+40*time.Millisecond, "the retried room: two answers and a second's pause")

	res := Result{Create: r.create}
	var sb strings.Builder
	res.Print(&sb)
	assert.Regexp(t, `room creation +p50 \d+\.\d\d ms  p99 \d+\.\d\d ms  max 1\d{3}\.\d\d ms  \(3 rooms\)`, sb.String())
	merged := Merge([]Result{res, res})
	assert.Equal(t, int64(6), merged.Create.Count)
	data, err := json.Marshal(merged)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"create_latency":{"buckets":`)
}

// TestClientChoice: the epoll client where it can run, the library's for
// TLS, and a client asked for that cannot run is refused.
func TestClientChoice(t *testing.T) {
	plain, err := CheckTarget("http://127.0.0.1:8080", false)
	require.NoError(t, err)
	tls, err := CheckTarget("https://127.0.0.1:8443", false)
	require.NoError(t, err)
	o := Options{URL: plain, Rooms: 1, Players: 1, Mode: "coop", Rate: 1, Duration: time.Second}
	require.NoError(t, o.Validate())
	if epollSupported {
		assert.Equal(t, ClientEpoll, o.client())
	} else {
		assert.Equal(t, ClientLibrary, o.client())
	}
	o.URL = tls
	require.NoError(t, o.Validate())
	assert.Equal(t, ClientLibrary, o.client(), "TLS: the library's")
	o.Client = ClientEpoll
	assert.ErrorContains(t, o.Validate(), "-client epoll")
	o.URL, o.Client = plain, "threads"
	assert.ErrorContains(t, o.Validate(), `-client "threads"`)
	o.Client = ClientLibrary
	require.NoError(t, o.Validate())
	assert.Equal(t, ClientLibrary, o.client())
}

// TestRelayedShare: the players the nodes relayed are printed over the
// players when known, and merge as the largest worker's count (each
// worker reads the same nodes).
func TestRelayedShare(t *testing.T) {
	got := Merge([]Result{
		{Players: 8, Relayed: 3, RelayedKnown: true},
		{Players: 4, Relayed: 3, RelayedKnown: true},
	})
	assert.Equal(t, 12, got.Players)
	assert.Equal(t, int64(3), got.Relayed)
	var sb strings.Builder
	got.Print(&sb)
	assert.Contains(t, sb.String(), "relayed              3 of 12 players (25.0%), by the nodes' arena_relays_total")
	sb.Reset()
	(&Result{Players: 12}).Print(&sb)
	assert.NotContains(t, sb.String(), "relayed", "unknown without the nodes' metrics")
	assert.Equal(t, "-", (&Result{}).RelayedShare())
}
