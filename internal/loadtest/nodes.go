package loadtest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strings"
	"time"
)

// Several nodes: a run may load several servers that share one database
// (each one node behind one public URL). Rooms are created round robin
// over the nodes, so each is owned by the node that made it, and a share
// of each room's players (Options.Remote) connects to another node, which
// relays their sockets to the owner: what a round-robin load balancer
// does to a room's players, made exact.

// CheckTargets parses a comma-separated list of base URLs, each checked
// as CheckTarget checks one.
func CheckTargets(raw string, allowRemote bool) ([]*url.URL, error) {
	var out []*url.URL
	for part := range strings.SplitSeq(raw, ",") {
		u, err := CheckTarget(strings.TrimSpace(part), allowRemote)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}

// nodes are the servers the run loads: Nodes, or URL alone.
func (o *Options) nodes() []*url.URL {
	if len(o.Nodes) > 0 {
		return o.Nodes
	}
	return []*url.URL{o.URL}
}

// validateNodes checks the options about several nodes.
func (o *Options) validateNodes() error {
	switch {
	case o.Remote < 0 || o.Remote > 1:
		return fmt.Errorf("-remote %g: want a share from 0 to 1", o.Remote)
	case o.Remote > 0 && len(o.nodes()) < 2:
		return errors.New("-remote needs two nodes or more in -url")
	}
	return nil
}

// remotePlayers is how many of a room's players connect to a node that
// does not own the room.
func (o *Options) remotePlayers() int {
	return int(math.Round(o.Remote * float64(o.Players)))
}

// creator is the node that makes room i, and so owns it.
func (o *Options) creator(i int) int { return i % len(o.nodes()) }

// nodeOf is the node the k-th player of a room made by node owner dials,
// and whether that node does not own the room. The last remotePlayers
// players are remote (the host, player 0, is local unless all are); they
// go to the other nodes in turn.
func (o *Options) nodeOf(owner, k int) (node int, remote bool) {
	n := len(o.nodes())
	if k < o.Players-o.remotePlayers() || n < 2 {
		return owner, false
	}
	return (owner + 1 + k%(n-1)) % n, true
}

// remoteConnections counts the players of the rooms that connected to a
// node that does not own their room.
func remoteConnections(rooms []*roomRun) int {
	n := 0
	for _, rm := range rooms {
		for _, p := range rm.players {
			if p.remote {
				n++
			}
		}
	}
	return n
}

// serverCPU is the CPU time the servers' processes have used, summed.
func serverCPU(pids []int) (time.Duration, error) {
	var sum time.Duration
	for _, pid := range pids {
		d, err := readCPU(pid)
		if err != nil {
			return 0, err
		}
		sum += d
	}
	return sum, nil
}

// serverRSS is the servers' resident memory, summed: from their processes
// when pids are given, else from each metrics listener's /metrics; 0 with
// neither.
func (r *run) serverRSS(ctx context.Context) (int64, error) {
	var sum int64
	if len(r.o.PIDs) > 0 {
		for _, pid := range r.o.PIDs {
			n, err := readRSS(pid)
			if err != nil {
				return 0, err
			}
			sum += n
		}
		return sum, nil
	}
	return r.sumMetric(ctx, metricRSS)
}

// sumMetric is the metric name summed over the servers' metrics
// listeners (Options.Metrics); 0 with none.
func (r *run) sumMetric(ctx context.Context, name string) (int64, error) {
	var sum int64
	for _, u := range r.o.Metrics {
		mctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		n, err := readMetric(mctx, r.http, u, name)
		cancel()
		if err != nil {
			return 0, err
		}
		sum += n
	}
	return sum, nil
}

// relays is how many sockets (and room requests) the nodes have relayed
// so far, by their metrics listeners, and whether it is known: each node
// of several counts arena_relays_total, which a single server has not.
// Read before the rooms are set up and after the window, it says how many
// of the run's players were relayed, whatever sent them where: -remote's
// plan, or a balancer in front of the nodes (then -url is the balancer's,
// and -metrics names the nodes').
func (r *run) relays(ctx context.Context) (int64, bool) {
	if len(r.o.Metrics) == 0 {
		return 0, false
	}
	n, err := r.sumMetric(ctx, metricRelays)
	if err != nil {
		r.log.Debug("relays", "err", err)
		return 0, false
	}
	return n, true
}
