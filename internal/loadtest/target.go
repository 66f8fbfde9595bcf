package loadtest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// CheckTarget parses the server's base URL and refuses one whose host is
// not a loopback address (or localhost) unless allowRemote: a load test
// is run against one's own server, and a typo must not aim it elsewhere.
func CheckTarget(raw string, allowRemote bool) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("-url %q: want http://HOST:PORT", raw)
	}
	if allowRemote || isLoopbackHost(u.Hostname()) {
		return u, nil
	}
	return nil, fmt.Errorf("-url %q: %s is not a loopback address; give -allow-remote to load a server elsewhere", raw, u.Hostname())
}

func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// sourceIPs are the local addresses the connections are spread over. A
// TCP connection is named by its four addresses and ports, so one source
// address reaches a server's port from at most the ephemeral port range
// (about 28,000 ports); spreading over 127.0.0.2, 127.0.0.3, … lifts that
// bound. Only an IPv4 loopback target can be reached from those (the
// whole of 127.0.0.0/8 is on the loopback interface); any other gets nil,
// the system's choice.
func sourceIPs(target *url.URL, n, offset int) []net.IP {
	ip := net.ParseIP(target.Hostname())
	if target.Hostname() == "localhost" {
		ip = net.IPv4(127, 0, 0, 1)
	}
	if n <= 0 || ip == nil || ip.To4() == nil || !ip.IsLoopback() {
		return nil
	}
	ips := make([]net.IP, n)
	for i := range ips {
		k := 2 + offset*n + i // 127.0.0.2 onwards, a block per worker
		ips[i] = net.IPv4(127, 0, byte(k>>8), byte(k))
	}
	return ips
}

// source is one source address's dialer, and an HTTP client that dials
// through it.
type source struct {
	dialer *net.Dialer
	http   *http.Client
}

// sourceFrom is the source whose connections leave from ip (any when nil).
func sourceFrom(ip net.IP) source {
	d := &net.Dialer{Timeout: 10 * time.Second}
	if ip != nil {
		d.LocalAddr = &net.TCPAddr{IP: ip}
	}
	return source{dialer: d, http: &http.Client{
		Timeout:   30 * time.Second, // not for WebSockets: DialContext's context bounds those
		Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 16},
	}}
}

// readRSS is a process's resident memory from /proc/PID/status (VmRSS).
func readRSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("server RSS: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("server RSS: VmRSS %q: %w", v, err)
			}
			return kb << 10, nil
		}
	}
	return 0, errors.New("server RSS: no VmRSS line")
}

// clockTick is the unit of /proc/PID/stat's times: USER_HZ, 100 on Linux.
const clockTick = 10 * time.Millisecond

// readCPU is a process's CPU time, user plus system, from /proc/PID/stat.
func readCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("server CPU: %w", err)
	}
	// The command name, in parentheses, may hold spaces: count fields after it.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, errors.New("server CPU: no command name in stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, errors.New("server CPU: short stat")
	}
	// Fields 14 and 15 of stat (utime, stime) are 12 and 13 after the name.
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("server CPU: %w", err)
	}
	return time.Duration(ut+st) * clockTick, nil
}

// Metrics read from the servers' metrics listeners.
const (
	metricRSS    = "process_resident_memory_bytes"
	metricRelays = "arena_relays_total" // a node's relayed sockets and room requests
)

// readMetric reads the metric name (one without labels) from a server's
// metrics listener at u (its /metrics).
func readMetric(ctx context.Context, c *http.Client, u *url.URL, name string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return 0, fmt.Errorf("metrics: %w", err)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, fmt.Errorf("metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("metrics: %s", resp.Status)
	}
	return parseMetric(resp.Body, name)
}

// parseMetric finds the metric name in Prometheus's text format.
func parseMetric(r io.Reader, name string) (int64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				return 0, fmt.Errorf("metrics: %q: %w", v, err)
			}
			return int64(f), nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("metrics: %w", err)
	}
	return 0, fmt.Errorf("metrics: no %s", name)
}
