package loadtest

import (
	"fmt"
	"net/url"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
)

// What `arena loadtest` reads from its flags beside the targets
// (CheckTargets), and its own profile.

// ParsePIDs reads -pid: process ids, comma-separated; "" or "0" is none.
func ParsePIDs(raw string) ([]int, error) {
	if raw == "" || raw == "0" {
		return nil, nil
	}
	var pids []int
	for part := range strings.SplitSeq(raw, ",") {
		pid, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || pid <= 0 {
			return nil, fmt.Errorf("-pid %q: want process ids, comma-separated", raw)
		}
		pids = append(pids, pid)
	}
	return pids, nil
}

// ParseMetrics reads -metrics: the servers' metrics listeners
// (METRICS_ADDR), comma-separated, each a base URL (http://HOST:PORT) or
// the whole address of its /metrics; "" is none. They are read, not
// loaded, so any host will do.
func ParseMetrics(raw string) ([]*url.URL, error) {
	if raw == "" {
		return nil, nil
	}
	var out []*url.URL
	for part := range strings.SplitSeq(raw, ",") {
		u, err := url.Parse(strings.TrimSpace(part))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("-metrics %q: want the metrics listeners' http://HOST:PORT, comma-separated", raw)
		}
		if !strings.HasSuffix(u.Path, "/metrics") {
			u = u.JoinPath("/metrics")
		}
		out = append(out, u)
	}
	return out, nil
}

// StartCPUProfile profiles this process into path until the returned
// function is called.
func StartCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile %s: %w", path, err)
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}, nil
}
