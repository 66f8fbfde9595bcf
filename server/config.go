package server

import (
	"time"

	"github.com/sudoku-arena/arena/internal/ws"
	"github.com/sudoku-arena/arena/room"
)

// Config is the server's settings. DefaultConfig is their one set of
// defaults; internal/config reads the environment into a Config that starts
// from it, and New fills any zero field from it (see WithDefaults), so a
// test sets only the fields it is about.
type Config struct {
	// ListenAddr is where to listen, HOST:PORT or :PORT.
	ListenAddr string
	// PublicURL is the base of share links, without a trailing slash;
	// empty means the scheme and host of the request that created the room.
	PublicURL string
	// AllowedOrigins are host patterns (path.Match syntax, as "*.example.com")
	// of other origins allowed to open WebSockets; the server's own host is
	// always allowed.
	AllowedOrigins []string
	// LogFormat is "text" or "json".
	LogFormat string

	// ReadLimit is the largest frame a client may send (not a setting).
	ReadLimit int64
	// RateLimit and RateBurst bound each connection's messages: RateBurst
	// at once, then RateLimit a second. A client that keeps on past the
	// limit is closed.
	RateLimit float64
	RateBurst int
	// SendQueue is how many events may wait for a slow client before it is
	// closed as too slow.
	SendQueue int
	// WriteTimeout bounds each write to a client (not a setting).
	WriteTimeout time.Duration
	// MessageTimeout bounds the time from a client's message's first byte
	// to its last, and a frame's (not a setting): one begun and not whole
	// by then, trickling or stalled, closes the connection with
	// ClosePolicyViolation (ws.Conn.SetMessageTimeout).
	MessageTimeout time.Duration
	// PingBurst and PingEvery are a client's budget of WebSocket pings
	// (not settings): PingBurst at once, then one each PingEvery; past it
	// the connection closes with ClosePolicyViolation
	// (ws.Conn.SetPingBudget).
	PingBurst int
	PingEvery time.Duration
	// JoinTimeout closes a connection that has not joined a room (not a
	// setting).
	JoinTimeout time.Duration
	// RetryAfter is the hint given to clients closed at shutdown (not a
	// setting).
	RetryAfter time.Duration
	// RelayPingEvery and RelayPingWait are how a node that relays a socket
	// to the room's owner checks the owner (not settings): when nothing
	// has come from it for RelayPingEvery it pings it, and an owner that
	// does not answer within RelayPingWait has stalled (relay.go).
	RelayPingEvery, RelayPingWait time.Duration

	// Rooms is the rooms' rules and timings. WithDefaults keeps the replay
	// buffer within the send queue.
	Rooms room.RegistryConfig
	// PoolStock is how many ready puzzles to keep per level.
	PoolStock int
	// EventQueueMB bounds, in MiB, the room events held in memory while
	// the database is away (store.EventLogOptions.MaxPendingBytes); past
	// it new events are dropped and counted, and readiness fails.
	EventQueueMB int
	// CreateRate is how many rooms one client address may create a
	// minute, in bursts of as many. 0 turns the limit off, as behind a
	// proxy where every client shares its address; WithDefaults keeps it.
	CreateRate int
	// RoomsPerAddr is how many live rooms one client address may have
	// made; the registry's Rooms.MaxRooms bounds them all. 0 turns the
	// per-address bound off; WithDefaults keeps it.
	RoomsPerAddr int
	// PlayerRate is how many new players (joins without a token) one
	// client address may make a minute, in bursts of as many: each is a
	// stored row and logged events. 0 turns the limit off; WithDefaults
	// keeps it.
	PlayerRate int
	// LabRate is how many solver lab requests (solve, grade, steps,
	// generate) one client address may make a minute, in bursts of as
	// many: each is engine work on the server's cores. 0 turns the limit
	// off; WithDefaults keeps it.
	LabRate int
	// ReplayRate is how many replay requests (GET /api/rooms/{id}/replay,
	// each page counted) one client address may make a minute, in bursts
	// of as many: a replay reads a round's events. 0 turns the limit off;
	// WithDefaults keeps it.
	ReplayRate int
	// RecordRate is how many players' records (GET /api/players/{id}, its /days and /games)
	// one client address may read a minute, in bursts of as many: each
	// is several queries. 0 turns the limit off; WithDefaults keeps it.
	RecordRate int
	// ReplayCache bounds the replays kept encoded, ready to send (not a
	// setting).
	ReplayCache ReplayCacheConfig
	// SocketsPerAddr is how many WebSockets one client address may hold
	// open; one more is closed with CloseTooManySockets. 0 turns the bound
	// off; WithDefaults keeps it.
	SocketsPerAddr int
	// PingInterval is how often a joined connection is pinged; one that
	// does not answer within PingTimeout (not a setting) is closed with
	// CloseIdle, so a peer that vanished without a close does not hold its
	// place (and its socket) until the operating system notices.
	PingInterval time.Duration
	PingTimeout  time.Duration

	// HTTP is the http.Server's timeouts (not settings); HTTPServer applies
	// them. WebSockets are exempt from Read and Write once upgraded.
	HTTP HTTPTimeouts

	// EventRetention is how long the events of a finished room are kept
	// (for replays) before serve deletes them. 0 keeps them forever;
	// WithDefaults keeps it.
	EventRetention time.Duration

	// MetricsAddr, when set, is the HOST:PORT where serve exposes the
	// metrics (GET /metrics) on a listener of its own, for Prometheus;
	// the public listener never serves them. Empty (the default) serves
	// none.
	MetricsAddr string

	// DebugAddr, when set, is a loopback HOST:PORT where serve exposes
	// net/http/pprof on a listener of its own, apart from the public one.
	// Empty (the default) serves no profiles.
	DebugAddr string

	// Clock is the server's time and its connections' timers (not a
	// setting); nil is WallClock. A test that moves time by hand gives
	// the rooms the same clock (Rooms.Clock), so that one clock decides.
	Clock Clock
}

// ReplayCacheConfig bounds the replay cache: the answers of finished
// rounds, kept encoded so that a replay asked for again (or by many at
// once) is read from the store once.
type ReplayCacheConfig struct {
	// Bytes is the most the kept answers hold in all; the least recently
	// used go first.
	Bytes int64
	// Age is the longest an answer is kept: a round's events may be
	// deleted (EventRetention) or grow after its finish (players leaving
	// the finished room), and a kept answer says so only once it is gone.
	Age time.Duration
}

// HTTPTimeouts bound each HTTP connection, so that a client that sends or
// reads slowly (or not at all) cannot hold a connection and its goroutine
// for ever.
type HTTPTimeouts struct {
	// ReadHeader bounds reading a request's headers.
	ReadHeader time.Duration
	// Read bounds reading a whole request, body included.
	Read time.Duration
	// Write bounds a response, from the end of reading its request.
	Write time.Duration
	// Idle is how long a keep-alive connection may wait for its next
	// request.
	Idle time.Duration
}

// DefaultConfig is the server's configuration unless configured otherwise,
// with the rooms' defaults from room.DefaultRegistryConfig.
func DefaultConfig() Config {
	c := Config{
		ListenAddr:     ":8080",
		LogFormat:      "text",
		ReadLimit:      4096,
		RateLimit:      20,
		RateBurst:      40,
		SendQueue:      256,
		WriteTimeout:   5 * time.Second,
		MessageTimeout: ws.DefaultMessageTimeout,
		PingBurst:      ws.PingBurst,
		PingEvery:      ws.PingEvery,
		JoinTimeout:    30 * time.Second,
		RetryAfter:     5 * time.Second,
		RelayPingEvery: 2 * time.Second,
		RelayPingWait:  3 * time.Second,
		Rooms:          room.DefaultRegistryConfig(),
		PoolStock:      20,
		EventQueueMB:   64,
		CreateRate:     30,
		// A household or a classroom behind one address plays a few rooms
		// with a few dozen sockets; these leave them room and stop a
		// script.
		RoomsPerAddr:   20,
		PlayerRate:     30,
		LabRate:        120,
		ReplayRate:     60,
		RecordRate:     120,
		ReplayCache:    ReplayCacheConfig{Bytes: 32 << 20, Age: 5 * time.Minute},
		SocketsPerAddr: 64,
		PingInterval:   30 * time.Second,
		PingTimeout:    10 * time.Second,
		HTTP: HTTPTimeouts{
			ReadHeader: 5 * time.Second,
			Read:       10 * time.Second,
			Write:      30 * time.Second,
			Idle:       2 * time.Minute,
		},
		EventRetention: 30 * 24 * time.Hour,
	}
	c.fitReplay()
	return c
}

// WithDefaults is the configuration with every unset field (zero) at
// DefaultConfig's value, except CreateRate, RoomsPerAddr, PlayerRate, LabRate,
// ReplayRate, RecordRate, SocketsPerAddr, EventRetention and the rooms'
// HintPenalty, whose zero
// turns the limit, the retention or the freeze off. New applies it; build the
// room registry from its Rooms, since the replay buffer is sized to fit the
// send queue.
func (c Config) WithDefaults() Config {
	c.defaults()
	return c
}

func (c *Config) defaults() {
	d := DefaultConfig()
	if c.ListenAddr == "" {
		c.ListenAddr = d.ListenAddr
	}
	if c.LogFormat == "" {
		c.LogFormat = d.LogFormat
	}
	orDefault(&c.ReadLimit, d.ReadLimit)
	orDefault(&c.RateLimit, d.RateLimit)
	orDefault(&c.RateBurst, d.RateBurst)
	orDefault(&c.SendQueue, d.SendQueue)
	orDefault(&c.WriteTimeout, d.WriteTimeout)
	orDefault(&c.MessageTimeout, d.MessageTimeout)
	orDefault(&c.PingBurst, d.PingBurst)
	orDefault(&c.PingEvery, d.PingEvery)
	orDefault(&c.JoinTimeout, d.JoinTimeout)
	orDefault(&c.RetryAfter, d.RetryAfter)
	orDefault(&c.RelayPingEvery, d.RelayPingEvery)
	orDefault(&c.RelayPingWait, d.RelayPingWait)
	orDefault(&c.PoolStock, d.PoolStock)
	orDefault(&c.PingInterval, d.PingInterval)
	orDefault(&c.PingTimeout, d.PingTimeout)
	orDefault(&c.HTTP.ReadHeader, d.HTTP.ReadHeader)
	orDefault(&c.HTTP.Read, d.HTTP.Read)
	orDefault(&c.HTTP.Write, d.HTTP.Write)
	orDefault(&c.HTTP.Idle, d.HTTP.Idle)
	orDefault(&c.EventQueueMB, d.EventQueueMB)
	orDefault(&c.ReplayCache.Bytes, d.ReplayCache.Bytes)
	orDefault(&c.ReplayCache.Age, d.ReplayCache.Age)
	orDefault(&c.Rooms.MaxResultsWaiting, d.Rooms.MaxResultsWaiting)
	orDefault(&c.Rooms.Game.ReplayEvents, d.Rooms.Game.ReplayEvents)
	orDefault(&c.Rooms.MaxRooms, d.Rooms.MaxRooms)
	c.fitReplay()
}

// fitReplay keeps the rooms' replay buffer within the send queue, leaving
// room for the events that follow it: a resume's replay goes out in one go.
func (c *Config) fitReplay() {
	c.Rooms.Game.ReplayEvents = max(1, min(c.Rooms.Game.ReplayEvents, c.SendQueue-16))
}

// orDefault sets *v to d when *v is not positive.
func orDefault[T int | int64 | float64 | time.Duration](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}
