package server

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/sudoku-arena/arena/protocol"
)

// metrics are the server's Prometheus series, on a registry of its own so
// that two servers in one process (tests) do not collide.
type metrics struct {
	reg        *prometheus.Registry
	sockets    prometheus.Gauge
	latency    prometheus.Histogram
	slowClosed prometheus.Counter
	overloaded prometheus.Counter
	messages   *prometheus.CounterVec
	// byType are messages' counters for the types clients send, looked
	// up once rather than hashed on every message.
	byType map[string]prometheus.Counter
}

// message counts one well-formed message of the type.
func (m *metrics) message(typ string) {
	if c, ok := m.byType[typ]; ok {
		c.Inc()
		return
	}
	m.messages.WithLabelValues(typ).Inc()
}

func newMetrics(s *Server) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.sockets = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "arena_websockets_open", Help: "WebSocket connections open, joined to a room or not.",
	})
	m.latency = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "arena_broadcast_latency_seconds",
		Help: "Time from a message reaching the server (or a room acting on its own) to each resulting event being written to a socket.",
		// Past 1 s up to 30 s, so that an overload shows its size
		// rather than piling into +Inf.
		Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	})
	m.slowClosed = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "arena_slow_clients_dropped_total", Help: "Connections closed because their send queue filled up (close code 4001).",
	})
	m.overloaded = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "arena_overloaded_refusals_total",
		Help: "Moves, joins and new rooms refused with overloaded while the event log was saturated (see arena_queue_full{queue=\"events\"}).",
	})
	m.messages = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "arena_messages_total", Help: "Well-formed client messages received, by type.",
	}, []string{"type"})
	m.byType = map[string]prometheus.Counter{}
	for _, typ := range []string{protocol.TypeJoin, protocol.TypeStart, protocol.TypeMove, protocol.TypeNote, protocol.TypeColour, protocol.TypeHint, protocol.TypeUndo,
		protocol.TypeRedo, protocol.TypeCursor, protocol.TypeRematch, protocol.TypeBerserk, protocol.TypePing, protocol.TypeLeave} {
		m.byType[typ] = m.messages.WithLabelValues(typ)
	}
	rooms := s.rooms
	m.reg.MustRegister(
		m.sockets, m.latency, m.slowClosed, m.overloaded, m.messages,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "arena_rooms", Help: "Live rooms."},
			func() float64 { return float64(rooms.Stats().Rooms) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "arena_room_members", Help: "Players and spectators connected to a room."},
			func() float64 { return float64(rooms.Stats().Members) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "arena_moves_total", Help: "Move messages handled by rooms; rate() gives moves per second."},
			func() float64 { return float64(rooms.Stats().Moves) }),
		newQueueCollector(&s.queues, s.clock),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return m
}
