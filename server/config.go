package server

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/sudoku-arena/arena/room"
)

// Config is the server's settings, read from the environment by
// ConfigFromEnv. Every variable has a default; a bad value is an error that
// names the variable.
type Config struct {
	// ListenAddr is where to listen (LISTEN_ADDR, default ":8080").
	ListenAddr string
	// PublicURL is the base of share links (PUBLIC_URL); empty means the
	// scheme and host of the request that created the room.
	PublicURL string
	// AllowedOrigins are host patterns (path.Match syntax, as "*.example.com")
	// of other origins allowed to open WebSockets (ALLOWED_ORIGINS, comma
	// separated); the server's own host is always allowed.
	AllowedOrigins []string
	// LogFormat is "text" or "json" (LOG_FORMAT, default "text").
	LogFormat string

	// ReadLimit is the largest frame a client may send (4096 bytes).
	ReadLimit int64
	// RateLimit and RateBurst bound each connection's messages: RateBurst
	// at once, then RateLimit a second (RATE_LIMIT, default 20; RATE_BURST,
	// default 40). A client that keeps on past the limit is closed.
	RateLimit float64
	RateBurst int
	// SendQueue is how many events may wait for a slow client before it is
	// closed as too slow (SEND_QUEUE, default 256).
	SendQueue int
	// WriteTimeout bounds each write to a client (5s).
	WriteTimeout time.Duration
	// JoinTimeout closes a connection that has not joined a room (30s).
	JoinTimeout time.Duration
	// RetryAfter is the hint given to clients closed at shutdown (5s).
	RetryAfter time.Duration

	// Rooms is the rooms' rules and timings: COUNTDOWN (3s), HINT_PENALTY
	// (15s; 0 turns the freeze off), RECONNECT_WINDOW (60s), IDLE_TIMEOUT (10m), MAX_PLAYERS (16),
	// MAX_SPECTATORS (64).
	Rooms room.RegistryConfig
	// PoolStock is how many ready puzzles to keep per level (POOL_STOCK,
	// default 20).
	PoolStock int
	// CreateRate is how many rooms one client address may create a
	// minute, in bursts of as many (CREATE_RATE: ConfigFromEnv's default is
	// 30; 0 turns the limit off, as behind a proxy where every client
	// shares its address).
	CreateRate int
}

// WithDefaults is the configuration with every unset field at its default.
// New applies it; build the room registry from its Rooms, since the replay
// buffer is sized to fit the send queue.
func (c Config) WithDefaults() Config {
	c.defaults()
	return c
}

func (c *Config) defaults() {
	if c.ListenAddr == "" {
		c.ListenAddr = ":8080"
	}
	if c.LogFormat == "" {
		c.LogFormat = "text"
	}
	if c.ReadLimit <= 0 {
		c.ReadLimit = 4096
	}
	if c.RateLimit <= 0 {
		c.RateLimit = 20
	}
	if c.RateBurst <= 0 {
		c.RateBurst = 40
	}
	if c.SendQueue <= 0 {
		c.SendQueue = 256
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = 5 * time.Second
	}
	if c.JoinTimeout <= 0 {
		c.JoinTimeout = 30 * time.Second
	}
	if c.RetryAfter <= 0 {
		c.RetryAfter = 5 * time.Second
	}
	if c.Rooms.Game.ReplayEvents <= 0 {
		// A resume's replay goes out in one go: keep it within the queue.
		c.Rooms.Game.ReplayEvents = max(1, min(200, c.SendQueue-16))
	}
	if c.PoolStock <= 0 {
		c.PoolStock = 20
	}
}

// ConfigFromEnv reads the configuration through getenv (os.Getenv).
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	var c Config
	var errs []string
	str := func(name string, dst *string) {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			*dst = v
		}
	}
	dur := func(name string, dst *time.Duration) {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return
		}
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Sprintf("%s=%q: want a positive duration such as 30s or 2m", name, v))
			return
		}
		*dst = d
	}
	num := func(name string, dst *int, lo, hi int) {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			errs = append(errs, fmt.Sprintf("%s=%q: want a whole number from %d to %d", name, v, lo, hi))
			return
		}
		*dst = n
	}
	str("LISTEN_ADDR", &c.ListenAddr)
	if c.ListenAddr != "" {
		if _, port, err := net.SplitHostPort(c.ListenAddr); err != nil || port == "" {
			errs = append(errs, fmt.Sprintf("LISTEN_ADDR=%q: want HOST:PORT or :PORT", c.ListenAddr))
		}
	}
	str("PUBLIC_URL", &c.PublicURL)
	if c.PublicURL != "" {
		u, err := url.Parse(c.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Sprintf("PUBLIC_URL=%q: want an http:// or https:// URL", c.PublicURL))
		}
		c.PublicURL = strings.TrimRight(c.PublicURL, "/")
	}
	if v := strings.TrimSpace(getenv("ALLOWED_ORIGINS")); v != "" {
		for _, o := range strings.Split(v, ",") {
			if o = strings.TrimSpace(o); o != "" {
				c.AllowedOrigins = append(c.AllowedOrigins, o)
			}
		}
	}
	str("LOG_FORMAT", &c.LogFormat)
	if c.LogFormat != "" && c.LogFormat != "text" && c.LogFormat != "json" {
		errs = append(errs, fmt.Sprintf("LOG_FORMAT=%q: want text or json", c.LogFormat))
	}
	var rate int
	num("RATE_LIMIT", &rate, 1, 10000)
	c.RateLimit = float64(rate)
	num("RATE_BURST", &c.RateBurst, 1, 10000)
	num("SEND_QUEUE", &c.SendQueue, 1, 1<<16)
	num("POOL_STOCK", &c.PoolStock, 1, 10000)
	c.CreateRate = 30
	num("CREATE_RATE", &c.CreateRate, 0, 100000)
	g := &c.Rooms.Game
	dur("COUNTDOWN", &g.Countdown)
	if v := strings.TrimSpace(getenv("HINT_PENALTY")); v == "0" || v == "0s" {
		g.HintPenalty = -1 // no freeze
	} else {
		dur("HINT_PENALTY", &g.HintPenalty)
	}
	dur("RECONNECT_WINDOW", &g.ReconnectWindow)
	dur("IDLE_TIMEOUT", &c.Rooms.IdleTimeout)
	num("MAX_PLAYERS", &g.MaxPlayers, 1, 1000)
	num("MAX_SPECTATORS", &g.MaxSpectators, 1, 10000)
	if len(errs) > 0 {
		return Config{}, fmt.Errorf("configuration: %s", strings.Join(errs, "; "))
	}
	c.defaults()
	return c, nil
}
