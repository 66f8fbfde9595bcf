package server

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// QueueStats is what a write-behind queue (the room event log, the results
// waiting for the database) holds, for /readyz and /metrics.
type QueueStats struct {
	// Depth is the items waiting to be written.
	Depth int
	// Bytes is their size, for a queue bounded in bytes (0 otherwise).
	Bytes int64
	// OldestAt is when the oldest of them was queued; zero when none is.
	OldestAt time.Time
	// Full is set when the queue is at (or near) its bound: the server is
	// then not ready.
	Full bool
	// Dropped counts items dropped at the bound, ever.
	Dropped int64
}

// queue is a named source of QueueStats.
type queue struct {
	name  string
	stats func() QueueStats
}

// queues are the server's write-behind queues: the results waiting in the
// rooms, and whatever cmd adds (AddQueue).
type queues struct {
	mu   sync.Mutex
	list []queue
}

func (q *queues) add(name string, stats func() QueueStats) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.list = append(q.list, queue{name, stats})
}

func (q *queues) all() []queue {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]queue(nil), q.list...)
}

// AddQueue reports a write-behind queue under the name in /readyz (not
// ready while it is full) and /metrics (arena_queue_*{queue=NAME}). cmd
// adds the room event log's; the results waiting in the rooms are the
// server's own ("results").
func (s *Server) AddQueue(name string, stats func() QueueStats) { s.queues.add(name, stats) }

// resultsQueue is the results the rooms are writing or waiting to retry.
func (s *Server) resultsQueue() QueueStats {
	st := s.rooms.Stats()
	return QueueStats{Depth: st.ResultsWaiting, OldestAt: st.ResultsWaitingSince, Full: st.ResultsWaiting >= st.MaxResultsWaiting}
}

// livez answers while the process serves HTTP, whatever the database does:
// an orchestrator that restarts on it does not restart every node when the
// database goes away (they would come back to the same outage, and lose
// what their queues hold).
func (s *Server) livez(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz answers 200 when the database answers within 2 s and every queue
// is below its bound, and 503 otherwise, saying which check failed: a load
// balancer sends new players elsewhere meanwhile, while the rooms here
// play on. /healthz is the same, kept for compatibility.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	body := map[string]string{"status": "ok", "database": "ok"}
	status := http.StatusOK
	if err := s.players.Ping(ctx); err != nil {
		s.log.Warn("readiness: database", "err", err)
		body["database"] = "unreachable"
		status = http.StatusServiceUnavailable
	}
	for _, q := range s.queues.all() {
		body[q.name] = "ok"
		if q.stats().Full {
			body[q.name] = "full"
			status = http.StatusServiceUnavailable
		}
	}
	if status != http.StatusOK {
		body["status"] = "unavailable"
	}
	writeJSON(w, status, body)
}

// queueCollector exports every queue's stats at each scrape; the oldest
// item's age is by clock.
type queueCollector struct {
	q                                   *queues
	clock                               Clock
	depth, bytes, oldest, full, dropped *prometheus.Desc
}

func newQueueCollector(q *queues, clock Clock) *queueCollector {
	l := []string{"queue"}
	return &queueCollector{
		q:       q,
		clock:   clock,
		depth:   prometheus.NewDesc("arena_queue_depth", "Items waiting to be written to the database, by queue (results, events).", l, nil),
		bytes:   prometheus.NewDesc("arena_queue_bytes", "Size of the items waiting, for queues bounded in bytes.", l, nil),
		oldest:  prometheus.NewDesc("arena_queue_oldest_seconds", "Age of the oldest item not yet written (0 when none waits).", l, nil),
		full:    prometheus.NewDesc("arena_queue_full", "1 while the queue is at its bound (the server is then not ready).", l, nil),
		dropped: prometheus.NewDesc("arena_queue_dropped_total", "Items dropped because the queue was at its bound.", l, nil),
	}
}

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.depth, c.bytes, c.oldest, c.full, c.dropped} {
		ch <- d
	}
}

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	now := c.clock.Now()
	for _, q := range c.q.all() {
		st := q.stats()
		age, full := 0.0, 0.0
		if !st.OldestAt.IsZero() {
			age = max(0, now.Sub(st.OldestAt).Seconds())
		}
		if st.Full {
			full = 1
		}
		ch <- prometheus.MustNewConstMetric(c.depth, prometheus.GaugeValue, float64(st.Depth), q.name)
		ch <- prometheus.MustNewConstMetric(c.bytes, prometheus.GaugeValue, float64(st.Bytes), q.name)
		ch <- prometheus.MustNewConstMetric(c.oldest, prometheus.GaugeValue, age, q.name)
		ch <- prometheus.MustNewConstMetric(c.full, prometheus.GaugeValue, full, q.name)
		ch <- prometheus.MustNewConstMetric(c.dropped, prometheus.CounterValue, float64(st.Dropped), q.name)
	}
}
