package arenatest

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// NodeSecret is the secret the nodes StartNodes starts share: random, as
// NODE_SECRET must be (`openssl rand -hex 32`).
const NodeSecret = "785932fe240ee373f79c67a44bd3e2321303fa3892193cb381b030fb3727aee2"

// NodeOptions say how to start several nodes over one PostgreSQL
// database.
type NodeOptions struct {
	// DatabaseURL is the database the nodes share (postgres://…).
	DatabaseURL string
	// DatabaseURLs, where an entry is set, is that node's own DATABASE_URL
	// (n1's first): the same database reached another way, as through a
	// TCPProxy the test cuts.
	DatabaseURLs []string
	// N is how many nodes to start; they are named n1, n2, ….
	N int
	// Heartbeat and Timeout are NODE_HEARTBEAT and NODE_TIMEOUT: tests
	// keep them short so that a dead node's rooms come back soon.
	Heartbeat, Timeout time.Duration
	// Env are NAME=value settings every node gets besides its NODE_*;
	// NodeEnv, where an entry is set, are that node's own besides (n1's
	// first), such as TOURNAMENTS on the node that runs them.
	Env     []string
	NodeEnv [][]string
}

// StartNodes starts opts.N `arena serve` processes as nodes over one
// database, each on a loopback port of its own, which its NODE_ADDR
// names (so a Restart comes back at the same address).
func StartNodes(tb testing.TB, opts NodeOptions) []*Arena {
	tb.Helper()
	nodes := make([]*Arena, opts.N)
	for i := range nodes {
		// A node's address is its LISTEN_ADDR and its NODE_ADDR: another
		// one is drawn if a test beside took the port first.
		bind := func() (string, []string) {
			addr := FreeAddr(tb)
			env := append([]string(nil), opts.Env...)
			if i < len(opts.NodeEnv) {
				env = append(env, opts.NodeEnv[i]...)
			}
			return addr, append(env,
				"NODE_ID=n"+strconv.Itoa(i+1), "NODE_ADDR=http://"+addr, "NODE_SECRET="+NodeSecret,
				"NODE_HEARTBEAT="+opts.Heartbeat.String(), "NODE_TIMEOUT="+opts.Timeout.String())
		}
		addr, env := bind()
		db := opts.DatabaseURL
		if i < len(opts.DatabaseURLs) && opts.DatabaseURLs[i] != "" {
			db = opts.DatabaseURLs[i]
		}
		nodes[i] = Start(tb, Options{DatabaseURL: db, Listen: addr, Env: env, Rebind: func(o *Options) { o.Listen, o.Env = bind() }})
	}
	return nodes
}

// FreeAddr is a loopback address with a port free a moment ago: a node's
// NODE_ADDR, or a balancer's address, must be known before it starts.
func FreeAddr(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("arenatest: free address: %v", err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		tb.Fatalf("arenatest: free address: %v", err)
	}
	return addr
}

// Metric is a counter's or gauge's value (one without labels) on the
// server's metrics listener (METRICS_ADDR, which Defaults set).
func (a *Arena) Metric(name string) (float64, error) {
	metrics := a.MetricsURL()
	if metrics == "" {
		return 0, fmt.Errorf("arenatest: metric %s: the server serves no metrics (METRICS_ADDR)", name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, metrics, nil)
	if err != nil {
		return 0, fmt.Errorf("arenatest: metric %s: %w", name, err)
	}
	resp, err := Client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("arenatest: metric %s: %w", name, err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				return 0, fmt.Errorf("arenatest: metric %s: %q: %w", name, v, err)
			}
			return f, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("arenatest: metric %s: %w", name, err)
	}
	return 0, fmt.Errorf("arenatest: %s is not in %s", name, metrics)
}
