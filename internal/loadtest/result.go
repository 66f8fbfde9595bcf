package loadtest

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// Result is what one run measured. Workers of a run spread over several
// processes print theirs as JSON, and Merge adds them up, so every field
// is either a sum, a maximum or a histogram that merges exactly.
type Result struct {
	Mode    string `json:"mode"`
	Workers int    `json:"workers"`
	// Arena is -mode arena's result (RunArena); the rest is then unset.
	Arena *ArenaResult `json:"arena,omitempty"`
	// Rooms is the rooms that reached play; Connections the sockets held
	// open at the end of the measured window, and PeakConnections the most
	// held at once.
	Rooms           int `json:"rooms"`
	Connections     int `json:"connections"`
	PeakConnections int `json:"peak_connections"`
	// Window is the measured time: moves sent in it are counted.
	Window time.Duration `json:"window_ns"`
	// MovesSent counts the moves sent in the window (clashing ones
	// included), MovesAcked those the mover saw answered by its own move
	// event, Clashes those refused as a conflict, as meant, and Measured
	// those whose latency was complete (read by every member).
	MovesSent  int64 `json:"moves_sent"`
	MovesAcked int64 `json:"moves_acked"`
	Clashes    int64 `json:"clashes"`
	Measured   int64 `json:"measured"`
	// Events counts every server event read by every connection.
	Events int64 `json:"events"`
	// Errors counts error events by code, and the client's own failures
	// (dial, create, join, timeout) under names of their own.
	Errors map[string]int64 `json:"errors"`
	// UnexpectedCloses counts connections that ended before the run
	// closed them.
	UnexpectedCloses int64 `json:"unexpected_closes"`
	// Latency is the moves' latency histogram (see Histogram).
	Latency Histogram `json:"latency"`
	// Create is the rooms' creation latency: from the first POST
	// /api/rooms of a room to the answer that made it, the pauses of any
	// retry (after a 503 or 429) included, over the rooms created. It is
	// what a player who opens a room waits for it.
	Create Histogram `json:"create_latency"`
	// ServerRSS is the server's resident memory read at the end of the
	// window (0 when unknown), and ServerCPU the CPU time (user + system)
	// it used over the window, when its PID was given; with several nodes,
	// the sums over them.
	ServerRSS int64         `json:"server_rss_bytes"`
	ServerCPU time.Duration `json:"server_cpu_ns"`
	// Nodes is how many servers the run loaded (sharing one database),
	// and RemoteConnections how many of the players' sockets went to a
	// node that did not own their room, and so through a relay.
	Nodes             int `json:"nodes"`
	RemoteConnections int `json:"remote_connections"`
	// Players is how many players joined the rooms that reached play.
	// Relayed is how many sockets the nodes relayed to another over the
	// run, by their metrics listeners (arena_relays_total summed over
	// Options.Metrics), when RelayedKnown: the players that reached a node
	// that did not run their room, whatever sent them there (-remote's
	// plan, or a balancer). Workers read the same nodes, and merge to the
	// largest.
	Players      int   `json:"players"`
	Relayed      int64 `json:"relayed"`
	RelayedKnown bool  `json:"relayed_known"`
	// Seconds are the measured window's seconds, in order: what a
	// latency's quantiles do not say is whether the slow moves came
	// evenly or together (a stall of the server every few seconds).
	Seconds []Second `json:"seconds"`
}

// Second is one second of the measured window: the moves whose last
// member read them in it, how many of those took over SlowMove, and the
// slowest.
type Second struct {
	Moves int64         `json:"moves"`
	Slow  int64         `json:"slow"`
	Max   time.Duration `json:"max_ns"`
}

// SlowMove is what Second counts as slow: the capacity goal's p99.
const SlowMove = 50 * time.Millisecond

// add counts one move's latency d in the second.
func (s *Second) add(d time.Duration) {
	s.Moves++
	if d > SlowMove {
		s.Slow++
	}
	s.Max = max(s.Max, d)
}

// Failed says whether a connection failed unexpectedly: a dial or join
// that did not go through, or a socket the server closed under a player.
func (r *Result) Failed() bool {
	if r.Arena != nil {
		return r.Arena.Joined < r.Arena.Players || len(r.Arena.Errors) > 0
	}
	return r.UnexpectedCloses > 0 || r.Errors[ErrDial] > 0 || r.Errors[ErrJoin] > 0 || r.Errors[ErrCreate] > 0
}

// Client-side failures, counted in Result.Errors beside the server's codes.
const (
	ErrDial    = "client:dial"
	ErrCreate  = "client:create"
	ErrJoin    = "client:join"
	ErrStart   = "client:start"
	ErrWrite   = "client:write"
	ErrPending = "client:no_answer" // a move unanswered when the next was due
)

// MovesPerSecond is the acknowledged moves over the window.
func (r *Result) MovesPerSecond() float64 {
	if r.Window <= 0 {
		return 0
	}
	return float64(r.MovesAcked) / r.Window.Seconds()
}

// RelayedShare is Relayed over Players, as a percentage ("-" with no
// player).
func (r *Result) RelayedShare() string {
	if r.Players == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(r.Relayed)/float64(r.Players))
}

// RSSPerConnection is the server's RSS divided by the connections held, 0
// when either is unknown.
func (r *Result) RSSPerConnection() int64 {
	if r.ServerRSS == 0 || r.Connections == 0 {
		return 0
	}
	return r.ServerRSS / int64(r.Connections)
}

// Merge adds the workers' results into one: counts add up, the window,
// the server's RSS and CPU are the largest reported (each worker reads the
// same server over nearly the same window), and the histograms merge.
func Merge(parts []Result) Result {
	out := Result{Errors: map[string]int64{}}
	for _, p := range parts {
		if out.Mode == "" {
			out.Mode = p.Mode
		}
		out.Workers += max(p.Workers, 1)
		out.Rooms += p.Rooms
		out.Connections += p.Connections
		out.PeakConnections += p.PeakConnections
		out.Window = max(out.Window, p.Window)
		out.MovesSent += p.MovesSent
		out.MovesAcked += p.MovesAcked
		out.Clashes += p.Clashes
		out.Measured += p.Measured
		out.Events += p.Events
		for k, v := range p.Errors {
			out.Errors[k] += v
		}
		out.UnexpectedCloses += p.UnexpectedCloses
		out.Latency.Merge(&p.Latency)
		out.Create.Merge(&p.Create)
		out.ServerRSS = max(out.ServerRSS, p.ServerRSS)
		out.ServerCPU = max(out.ServerCPU, p.ServerCPU)
		out.Nodes = max(out.Nodes, p.Nodes)
		out.RemoteConnections += p.RemoteConnections
		out.Players += p.Players
		out.Relayed = max(out.Relayed, p.Relayed)
		out.RelayedKnown = out.RelayedKnown || p.RelayedKnown
		for i, sec := range p.Seconds {
			if i == len(out.Seconds) {
				out.Seconds = append(out.Seconds, Second{})
			}
			o := &out.Seconds[i]
			o.Moves += sec.Moves
			o.Slow += sec.Slow
			o.Max = max(o.Max, sec.Max)
		}
	}
	return out
}

// Print writes the result for people.
func (r *Result) Print(w io.Writer) {
	if r.Arena != nil {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(r.Arena)
		return
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }
	fmt.Fprintf(w, "mode %s, %d worker(s), window %s\n", r.Mode, max(r.Workers, 1), r.Window.Round(time.Millisecond))
	fmt.Fprintf(w, "rooms playing        %d\n", r.Rooms)
	fmt.Fprintf(w, "connections held     %d (peak %d)\n", r.Connections, r.PeakConnections)
	if r.Nodes > 1 {
		fmt.Fprintf(w, "nodes                %d, %d connections to a node that does not own the room (relayed)\n", r.Nodes, r.RemoteConnections)
	}
	if r.RelayedKnown {
		fmt.Fprintf(w, "relayed              %d of %d players (%s), by the nodes' arena_relays_total\n", r.Relayed, r.Players, r.RelayedShare())
	}
	fmt.Fprintf(w, "moves sent           %d\n", r.MovesSent)
	fmt.Fprintf(w, "moves acknowledged   %d (%.1f/s), clashes refused %d, measured %d\n", r.MovesAcked, r.MovesPerSecond(), r.Clashes, r.Measured)
	fmt.Fprintf(w, "events received      %d\n", r.Events)
	fmt.Fprintf(w, "unexpected closes    %d\n", r.UnexpectedCloses)
	fmt.Fprintf(w, "latency              p50 %s  p95 %s  p99 %s  max %s\n",
		ms(r.Latency.Quantile(.50)), ms(r.Latency.Quantile(.95)), ms(r.Latency.Quantile(.99)), ms(r.Latency.Max))
	if len(r.Seconds) > 0 {
		fmt.Fprintf(w, "slow seconds         %s\n", r.slowSeconds())
	}
	fmt.Fprintf(w, "room creation        p50 %s  p99 %s  max %s  (%d rooms)\n",
		ms(r.Create.Quantile(.50)), ms(r.Create.Quantile(.99)), ms(r.Create.Max), r.Create.Count)
	if r.ServerRSS > 0 {
		fmt.Fprintf(w, "server RSS           %.1f MiB, %.1f KiB per connection\n", float64(r.ServerRSS)/(1<<20), float64(r.RSSPerConnection())/1024)
	} else {
		fmt.Fprintf(w, "server RSS           unknown (give -pid, or -metrics: the server's METRICS_ADDR)\n")
	}
	if r.ServerCPU > 0 && r.Window > 0 {
		fmt.Fprintf(w, "server CPU           %.1f s over the window (%.0f%% of one core)\n", r.ServerCPU.Seconds(), 100*r.ServerCPU.Seconds()/r.Window.Seconds())
	}
	var codes []string
	for _, k := range slices.Sorted(maps.Keys(r.Errors)) {
		codes = append(codes, fmt.Sprintf("%s=%d", k, r.Errors[k]))
	}
	if len(codes) == 0 {
		codes = []string{"none"}
	}
	fmt.Fprintf(w, "errors by code       %s\n", strings.Join(codes, " "))
}

// slowSeconds says how many of the window's seconds would miss a p99 of
// SlowMove on their own (over 1% of their moves slower), and the worst.
func (r *Result) slowSeconds() string {
	slow, worst := 0, -1
	for i, s := range r.Seconds {
		if s.Slow*100 <= s.Moves {
			continue
		}
		slow++
		if worst < 0 || s.Slow > r.Seconds[worst].Slow {
			worst = i
		}
	}
	if slow == 0 {
		return fmt.Sprintf("none of %d misses a p99 of %s on its own", len(r.Seconds), SlowMove)
	}
	w := r.Seconds[worst]
	return fmt.Sprintf("%d of %d miss a p99 of %s on their own; the worst, +%d s: %d of %d moves over, max %.2f ms",
		slow, len(r.Seconds), SlowMove, worst, w.Slow, w.Moves, float64(w.Max)/float64(time.Millisecond))
}

// Histogram counts latencies in buckets about 1% wide, so that a quantile
// is read to within 1% and workers' histograms merge exactly, in a few
// hundred buckets however many moves were measured.
type Histogram struct {
	// Buckets maps a bucket's index (see bucketOf) to its count.
	Buckets map[int]int64 `json:"buckets"`
	Count   int64         `json:"count"`
	Max     time.Duration `json:"max_ns"`
}

// growth is the ratio of one bucket's upper bound to the one before.
const growth = 1.01

// bucketOf is the index of the bucket that holds d: bucket i holds
// latencies up to growth^i microseconds.
func bucketOf(d time.Duration) int {
	us := float64(d) / float64(time.Microsecond)
	if us <= 1 {
		return 0
	}
	return int(math.Ceil(math.Log(us) / math.Log(growth)))
}

// Add counts one latency.
func (h *Histogram) Add(d time.Duration) {
	if h.Buckets == nil {
		h.Buckets = map[int]int64{}
	}
	h.Buckets[bucketOf(d)]++
	h.Count++
	h.Max = max(h.Max, d)
}

// Merge adds o's counts to h.
func (h *Histogram) Merge(o *Histogram) {
	for i, n := range o.Buckets {
		if h.Buckets == nil {
			h.Buckets = map[int]int64{}
		}
		h.Buckets[i] += n
	}
	h.Count += o.Count
	h.Max = max(h.Max, o.Max)
}

// Quantile is the upper bound of the bucket holding the q-th latency (q
// from 0 to 1), never above Max; 0 when nothing was counted.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.Count == 0 {
		return 0
	}
	rank := int64(math.Ceil(q * float64(h.Count)))
	rank = max(rank, 1)
	var seen int64
	for _, i := range slices.Sorted(maps.Keys(h.Buckets)) {
		seen += h.Buckets[i]
		if seen >= rank {
			d := time.Duration(math.Pow(growth, float64(i)) * float64(time.Microsecond))
			return min(d, h.Max)
		}
	}
	return h.Max
}
