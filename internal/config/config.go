// Package config is the configuration of `arena serve`: one table,
// Settings, with a row for every environment variable the server reads (its
// name, its default, how its value is read and checked, and a line saying
// what it sets). Load reads and checks them all once, at start, before
// anything is opened (addresses whole: ports in range, hosts well formed),
// and reports every bad value together, each under its variable's name;
// Misspelled names the environment's variables that look like a setting
// mistyped, for a warning. Nothing else in the project reads the
// environment for settings; `arena serve -h` and the configuration tables
// of docs/operations.md and docs/protocol.md follow the table (a test holds
// the documents to it).
//
// The default values live with the code they configure, once each:
// server.DefaultConfig (which takes the rooms' from room.DefaultConfig and
// room.DefaultRegistryConfig) and backend.Default. Default starts from
// them, and a row shows its default by reading its field there, so -h, the
// documents and a server started with nothing set cannot disagree. The
// same defaults fill the zero fields of a room.Config or server.Config
// built by hand (in tests, which set only what they are about), except
// where zero is a setting of its own: HINT_PENALTY=0 is no freeze,
// EVENT_RETENTION=0 keeps events forever, and CREATE_RATE, ROOMS_PER_ADDR,
// PLAYER_RATE, LAB_RATE, REPLAY_RATE, RECORD_RATE and SOCKETS_PER_ADDR at 0
// are no limit, as the table says.
//
// The package does not open anything: it parses DATABASE_URL with
// store/backend, and cmd/arena wires the result.
package config

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"path"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store/backend"
	"github.com/sudoku-arena/arena/tournament"
)

// Config is everything `arena serve` is configured with.
type Config struct {
	// Server is the server's settings, with the rooms' in Server.Rooms.
	Server server.Config
	// Store is the store DATABASE_URL selects.
	Store backend.Kind
	// StoreWait is how long a start waits for a database it cannot reach
	// yet (DATABASE_WAIT); 0 is not at all.
	StoreWait time.Duration
	// Node is the server as one of several nodes sharing a PostgreSQL
	// database (NODE_*); off unless NODE_ADDR is set.
	Node Node
	// RankGuests puts guests' finishes on the leaderboards (RANK_GUESTS);
	// by default only accounts rank.
	RankGuests bool
	// Tournaments are the recurring tournaments the server schedules
	// (TOURNAMENTS); Node.Arenas says this node runs tournaments at all.
	Tournaments []tournament.Recurring
}

// Node is how a server takes part in several nodes behind one URL.
type Node struct {
	// ID names the node in the nodes table; "" draws a random one at
	// start.
	ID string
	// Addr is the internal base URL other nodes relay to ("": one node).
	Addr string
	// Secret is shared by the nodes: the key of the MAC a relayed
	// request, and the owner's answer, carry (checkSecret says which
	// values are refused).
	Secret string
	// Heartbeat is how often the node stamps its row; Timeout is how old
	// a heartbeat may be before its node counts as dead and its rooms are
	// taken over.
	Heartbeat, Timeout time.Duration
	// Arenas says this node runs the tournaments (TOURNAMENTS is set on
	// it): of several nodes one does, and the others relay the
	// tournaments' requests to it (see docs/operations.md).
	Arenas bool
}

// On reports whether the server runs as one of several nodes.
func (n Node) On() bool { return n.Addr != "" }

// DefaultNode is the nodes' timing: a heartbeat every 2 s, dead after 10 s
// without one, so that a dead node's rooms are back within 15 s.
func DefaultNode() Node { return Node{Heartbeat: 2 * time.Second, Timeout: 10 * time.Second} }

// Default is the configuration of an empty environment.
func Default() Config {
	return Config{Server: server.DefaultConfig(), Store: backend.Default(), StoreWait: backend.DefaultWait, Node: DefaultNode()}
}

// DatabaseURL is the variable that selects the store; `arena migrate` reads
// it alone (LoadStore).
const DatabaseURL = "DATABASE_URL"

// Setting is one row of the table: an environment variable and the field it
// sets.
type Setting struct {
	// Name is the environment variable.
	Name string
	// Doc says in a line what the setting is for.
	Doc string
	// Unset says what the default means when it is no value at all (as
	// PUBLIC_URL's: the request's own scheme and host).
	Unset string
	// get formats the field's value, as the variable would give it.
	get func(*Config) string
	// set reads a value (trimmed, not empty) into the field, or says what
	// is wanted instead.
	set func(c *Config, v string) error
	// shown is a value as an error may repeat it (nil: as it is): a
	// secret's is hidden, a URL's password taken out.
	shown func(v string) string
}

// Default is the setting's default: the value Default's field holds,
// written as the variable would give it, or, when that is no value, what
// being unset means (Unset). isValue says which.
func (s Setting) Default() (text string, isValue bool) {
	c := Default()
	if v := s.get(&c); v != "" {
		return v, true
	}
	return s.Unset, false
}

// Settings is the table of every setting `arena serve` reads, in the order
// the help and the documents list them.
func Settings() []Setting {
	return []Setting{
		{
			Name: "LISTEN_ADDR", Doc: "address to listen on, HOST:PORT or :PORT",
			get: func(c *Config) string { return c.Server.ListenAddr },
			set: func(c *Config, v string) error {
				if err := listenAddr(v); err != nil {
					return err
				}
				c.Server.ListenAddr = v
				return nil
			},
		},
		{
			Name: DatabaseURL, Doc: "postgres://… for PostgreSQL; sqlite:PATH for the embedded store",
			get:   func(c *Config) string { return c.Store.URL() },
			shown: redacted,
			set: func(c *Config, v string) error {
				k, err := backend.Parse(v)
				if err != nil {
					return err
				}
				c.Store = k
				return nil
			},
		},
		duration("DATABASE_WAIT", "how long a start retries a database it cannot reach yet, then stops; 0 does not wait", 0,
			func(c *Config) *time.Duration { return &c.StoreWait }),
		{
			Name: "PUBLIC_URL", Doc: "the site, an http:// or https:// URL: base of share links, and the one host served",
			Unset: "the request's scheme and host",
			get:   func(c *Config) string { return c.Server.PublicURL },
			set: func(c *Config, v string) error {
				u, err := url.Parse(v)
				if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
					return errors.New("want an http:// or https:// URL")
				}
				c.Server.PublicURL = strings.TrimRight(v, "/")
				return nil
			},
		},
		{
			Name: "ALLOWED_ORIGINS", Doc: `other origins allowed to open WebSockets: comma-separated host patterns such as "*.example.com"`,
			Unset: "none",
			get:   func(c *Config) string { return strings.Join(c.Server.AllowedOrigins, ",") },
			set: func(c *Config, v string) error {
				c.Server.AllowedOrigins = nil
				for o := range strings.SplitSeq(v, ",") {
					if o = strings.TrimSpace(o); o == "" {
						continue
					}
					// The WebSocket library matches origins with path.Match.
					if _, err := path.Match(o, ""); err != nil {
						return fmt.Errorf("want host patterns such as *.example.com: %q: %w", o, err)
					}
					c.Server.AllowedOrigins = append(c.Server.AllowedOrigins, o)
				}
				return nil
			},
		},
		{
			Name: "LOG_FORMAT", Doc: "text or json",
			get: func(c *Config) string { return c.Server.LogFormat },
			set: func(c *Config, v string) error {
				if v != "text" && v != "json" {
					return errors.New("want text or json")
				}
				c.Server.LogFormat = v
				return nil
			},
		},
		{
			Name: "RANK_GUESTS", Doc: "true ranks guests' finishes beside accounts' on the leaderboards",
			get: func(c *Config) string { return strconv.FormatBool(c.RankGuests) },
			set: func(c *Config, v string) error {
				b, err := strconv.ParseBool(v)
				if err != nil {
					return errors.New("want true or false")
				}
				c.RankGuests = b
				return nil
			},
		},
		whole("FLOOR_PERCENT", "the floors a ranked finish faster than is held for review (each level's, easy 60 s to master 180 s, and each puzzle's own from its steps), in percent of themselves; lower them only on a private or practice server", 1, 1000,
			func(c *Config) *int { return &c.Server.Rooms.Game.FloorPercent }),
		{
			Name: "TOURNAMENTS", Doc: "recurring tournaments, comma-separated EVERY/LEVEL/DURATION such as 1h/easy/20m; set on one node of several", Unset: "none",
			get: func(c *Config) string { return tournament.FormatSchedule(c.Tournaments) },
			set: func(c *Config, v string) error {
				rs, err := tournament.ParseSchedule(v)
				if err != nil {
					return fmt.Errorf("want EVERY/LEVEL/DURATION such as 1h/easy/20m (%w)", err)
				}
				c.Tournaments, c.Node.Arenas = rs, true
				return nil
			},
		},
		duration("COUNTDOWN", "time from start to play", 1,
			func(c *Config) *time.Duration { return &c.Server.Rooms.Game.Countdown }),
		duration("GROUP_WAIT", "how long a race made for a group (Play now, a tournament) waits for all its players before it starts with those who are in", 1,
			func(c *Config) *time.Duration { return &c.Server.Rooms.Game.GroupWait }),
		duration("HINT_PENALTY", "how long a hint freezes a racer's board; 0 turns the freeze off", 0,
			func(c *Config) *time.Duration { return &c.Server.Rooms.Game.HintPenalty }),
		duration("RECONNECT_WINDOW", "how long a dropped player keeps their place", 1,
			func(c *Config) *time.Duration { return &c.Server.Rooms.Game.ReconnectWindow }),
		duration("IDLE_TIMEOUT", "a room nobody is connected to ends after this", 1,
			func(c *Config) *time.Duration { return &c.Server.Rooms.IdleTimeout }),
		whole("MAX_PLAYERS", "players per room", 1, 1000,
			func(c *Config) *int { return &c.Server.Rooms.Game.MaxPlayers }),
		whole("MAX_SPECTATORS", "spectators per room", 1, 10000,
			func(c *Config) *int { return &c.Server.Rooms.Game.MaxSpectators }),
		// A whole number, though the limiter takes a rate.
		wholeTo("RATE_LIMIT", "messages a second per connection, after the burst", 1, 10000,
			func(c *Config) int { return int(c.Server.RateLimit) },
			func(c *Config, n int) { c.Server.RateLimit = float64(n) }),
		whole("RATE_BURST", "messages a connection may send at once", 1, 10000,
			func(c *Config) *int { return &c.Server.RateBurst }),
		whole("SEND_QUEUE", "events queued for a slow client before it is closed (4001)", 1, 1<<16,
			func(c *Config) *int { return &c.Server.SendQueue }),
		whole("POOL_STOCK", "ready puzzles kept per level", 1, 10000,
			func(c *Config) *int { return &c.Server.PoolStock }),
		whole("RESULT_QUEUE", "results waiting for the database before new rooms are refused and /readyz fails", 1, 1_000_000,
			func(c *Config) *int { return &c.Server.Rooms.MaxResultsWaiting }),
		whole("EVENT_QUEUE_MB", "MiB of room events held while the database is slow or away; from three quarters of it new moves, rooms and joins are refused (overloaded)", 1, 65536,
			func(c *Config) *int { return &c.Server.EventQueueMB }),
		whole("CREATE_RATE", "rooms one client address may create a minute; 0 turns the limit off", 0, 100000,
			func(c *Config) *int { return &c.Server.CreateRate }),
		whole("MAX_ROOMS", "live rooms the server holds at most", 1, 1000000,
			func(c *Config) *int { return &c.Server.Rooms.MaxRooms }),
		whole("ROOMS_PER_ADDR", "live rooms one client address may have made; 0 turns the limit off", 0, 1000000,
			func(c *Config) *int { return &c.Server.RoomsPerAddr }),
		whole("PLAYER_RATE", "new players (joins without a token) one client address may make a minute; 0 turns the limit off", 0, 100000,
			func(c *Config) *int { return &c.Server.PlayerRate }),
		whole("LAB_RATE", "solver lab requests (solve, grade, steps, generate) one client address may make a minute; 0 turns the limit off", 0, 100000,
			func(c *Config) *int { return &c.Server.LabRate }),
		whole("REPLAY_RATE", "replay requests (GET /api/rooms/{id}/replay, each page) one client address may make a minute; 0 turns the limit off", 0, 100000,
			func(c *Config) *int { return &c.Server.ReplayRate }),
		whole("RECORD_RATE", "players' records (GET /api/players/{id}, its /days and /games) one client address may read a minute; 0 turns the limit off", 0, 100000,
			func(c *Config) *int { return &c.Server.RecordRate }),
		whole("SOCKETS_PER_ADDR", "WebSockets one client address may hold open; 0 turns the limit off", 0, 1000000,
			func(c *Config) *int { return &c.Server.SocketsPerAddr }),
		duration("PING_INTERVAL", "how often a joined connection is pinged; one that does not answer closes (4007)", 1,
			func(c *Config) *time.Duration { return &c.Server.PingInterval }),
		{
			Name: "METRICS_ADDR", Doc: "HOST:PORT or :PORT where Prometheus scrapes /metrics, on a listener of its own (LISTEN_ADDR never serves them)",
			Unset: "off",
			get:   func(c *Config) string { return c.Server.MetricsAddr },
			set: func(c *Config, v string) error {
				if err := listenAddr(v); err != nil {
					return err
				}
				c.Server.MetricsAddr = v
				return nil
			},
		},
		{
			Name: "DEBUG_ADDR", Doc: "loopback HOST:PORT for net/http/pprof on a listener of its own",
			Unset: "off",
			get:   func(c *Config) string { return c.Server.DebugAddr },
			set: func(c *Config, v string) error {
				if err := loopbackAddr(v); err != nil {
					return err
				}
				c.Server.DebugAddr = v
				return nil
			},
		},
		duration("EVENT_RETENTION", "how long the events of a finished room are kept for replays; 0 keeps them forever", 0,
			func(c *Config) *time.Duration { return &c.Server.EventRetention }),
		{
			Name: "NODE_ID", Doc: "this node's name among several (letters, digits, '.', '_', '-'; at most 64)",
			Unset: "a random id at each start",
			get:   func(c *Config) string { return c.Node.ID },
			set: func(c *Config, v string) error {
				if len(v) > 64 || strings.Trim(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != "" {
					return errors.New("want at most 64 letters, digits, '.', '_' or '-'")
				}
				c.Node.ID = v
				return nil
			},
		},
		{
			Name: "NODE_ADDR", Doc: "internal base URL other nodes reach this one at; set, the server is one of several nodes (PostgreSQL only)",
			Unset: "one node",
			get:   func(c *Config) string { return c.Node.Addr },
			set: func(c *Config, v string) error {
				u, err := url.Parse(v)
				if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.Trim(u.Path, "/") != "" {
					return errors.New("want an http:// or https:// base URL such as http://10.0.0.5:8080")
				}
				if p := u.Port(); p != "" {
					if err := port(p, 1); err != nil {
						return err
					}
				}
				c.Node.Addr = strings.TrimRight(v, "/")
				return nil
			},
		},
		{
			Name: "NODE_SECRET", Doc: "secret the nodes share, the key of their relays' MACs: 32 characters or more, not guessable (openssl rand -hex 32); needed with NODE_ADDR",
			Unset: "none",
			shown: func(v string) string { return fmt.Sprintf("(%d characters, not shown)", len(v)) },
			get:   func(c *Config) string { return c.Node.Secret },
			set: func(c *Config, v string) error {
				if err := checkSecret(v); err != nil {
					return err
				}
				c.Node.Secret = v
				return nil
			},
		},
		duration("NODE_HEARTBEAT", "how often a node stamps its heartbeat (and looks for dead nodes' rooms)", 1,
			func(c *Config) *time.Duration { return &c.Node.Heartbeat }),
		duration("NODE_TIMEOUT", "a node whose heartbeat is older is dead and its rooms are taken over; at least 3 heartbeats", 1,
			func(c *Config) *time.Duration { return &c.Node.Timeout }),
	}
}

// checkListeners refuses two listeners on one port: METRICS_ADDR or
// DEBUG_ADDR where LISTEN_ADDR (or each other) listens would stop the
// start at its bind, after the store had opened.
func checkListeners(c Config) []error {
	var problems []error
	seen := map[string]string{}
	for _, l := range []struct{ name, addr string }{
		{"LISTEN_ADDR", c.Server.ListenAddr}, {"METRICS_ADDR", c.Server.MetricsAddr}, {"DEBUG_ADDR", c.Server.DebugAddr},
	} {
		_, port, err := net.SplitHostPort(l.addr)
		if l.addr == "" || err != nil || port == "0" {
			continue
		}
		if other, ok := seen[port]; ok {
			problems = append(problems, fmt.Errorf("%s=%q: the port of %s: want a port of its own", l.name, l.addr, other))
			continue
		}
		seen[port] = l.name
	}
	return problems
}

// checkNode checks the NODE_* settings together: several nodes need
// PostgreSQL, since SQLite is one process's file, and a secret for relays.
func checkNode(c Config) []error {
	var problems []error
	set := c.Node.Addr != "" || c.Node.Secret != "" || c.Node.ID != "" || c.Node.Heartbeat != DefaultNode().Heartbeat || c.Node.Timeout != DefaultNode().Timeout
	switch {
	case set && c.Store.Driver != "postgres":
		problems = append(problems, fmt.Errorf("NODE_*: several nodes need PostgreSQL: set DATABASE_URL=postgres://… or leave the NODE_* settings unset"))
	case set && c.Node.Addr == "":
		problems = append(problems, fmt.Errorf("NODE_ADDR: the NODE_* settings need NODE_ADDR, this node's internal base URL"))
	case c.Node.Addr != "" && c.Node.Secret == "":
		problems = append(problems, fmt.Errorf("NODE_SECRET: several nodes need the secret they share for relays"+makeSecret))
	}
	if c.Node.Timeout < 3*c.Node.Heartbeat {
		problems = append(problems, fmt.Errorf("NODE_TIMEOUT=%s: want at least 3 times NODE_HEARTBEAT (%s)", c.Node.Timeout, c.Node.Heartbeat))
	}
	return problems
}

// listenAddr checks that v is an address to listen on, HOST:PORT or
// :PORT, with a port from 0 (any free one) to 65535 and a host that is an
// IP address or a host name.
func listenAddr(v string) error {
	host, p, err := net.SplitHostPort(v)
	if err != nil || p == "" {
		return errors.New("want HOST:PORT or :PORT")
	}
	if err := port(p, 0); err != nil {
		return err
	}
	if host != "" && net.ParseIP(host) == nil && !hostName(host) {
		return fmt.Errorf("want HOST:PORT or :PORT: %q is neither an IP address nor a host name", host)
	}
	return nil
}

// port checks a port number: least (0 or 1) to 65535.
func port(p string, least int) error {
	n, err := strconv.Atoi(p)
	if err != nil || n < least || n > 65535 {
		return fmt.Errorf("want a port from %d to 65535, not %q", least, p)
	}
	return nil
}

// hostName reports whether h is written as a DNS host name: labels of
// letters, digits and '-', joined by dots.
func hostName(h string) bool {
	if len(h) > 253 {
		return false
	}
	for label := range strings.SplitSeq(strings.TrimSuffix(h, "."), ".") {
		if label == "" || len(label) > 63 || strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") ||
			strings.Trim(label, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") != "" {
			return false
		}
	}
	return true
}

// loopbackAddr checks that v is a HOST:PORT whose host is a loopback IP
// address or localhost: profiles show the server's insides, so they are
// never served on an address others can reach.
func loopbackAddr(v string) error {
	host, p, err := net.SplitHostPort(v)
	if err != nil || p == "" {
		return errors.New("want a loopback HOST:PORT such as 127.0.0.1:6060")
	}
	if err := port(p, 0); err != nil {
		return err
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return errors.New("want a loopback address such as 127.0.0.1:6060, not one others can reach")
	}
	return nil
}

// duration is a setting read as a Go duration of at least least (0 or 1ns:
// zero allowed or not).
func duration(name, doc string, least time.Duration, field func(*Config) *time.Duration) Setting {
	want := "want a positive duration such as 30s or 2m"
	if least <= 0 {
		want = "want 0 or a positive duration such as 30s or 2m"
	}
	return Setting{
		Name: name, Doc: doc,
		get: func(c *Config) string { return formatDuration(*field(c)) },
		set: func(c *Config, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d < least {
				return errors.New(want)
			}
			*field(c) = d
			return nil
		},
	}
}

// formatDuration writes d as time.Duration.String does, without the zero
// units it ends with: 10m rather than 10m0s.
func formatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// whole is a setting read as a whole number from lo to hi into field.
func whole(name, doc string, lo, hi int, field func(*Config) *int) Setting {
	return wholeTo(name, doc, lo, hi,
		func(c *Config) int { return *field(c) },
		func(c *Config, n int) { *field(c) = n })
}

// wholeTo is a setting read as a whole number from lo to hi and given to
// put; the range is added to its doc.
func wholeTo(name, doc string, lo, hi int, get func(*Config) int, put func(*Config, int)) Setting {
	return Setting{
		Name: name, Doc: fmt.Sprintf("%s, %d to %d", doc, lo, hi),
		get: func(c *Config) string { return strconv.Itoa(get(c)) },
		set: func(c *Config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < lo || n > hi {
				return fmt.Errorf("want a whole number from %d to %d", lo, hi)
			}
			put(c, n)
			return nil
		},
	}
}

// Error is every bad value one Load found, each naming its variable.
type Error struct {
	Problems []error
}

func (e *Error) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Error()
	}
	return "configuration: " + strings.Join(msgs, "; ")
}

func (e *Error) Unwrap() []error { return e.Problems }

// Load reads every setting through getenv (os.Getenv at start): an unset or
// blank variable keeps its default. It returns all the bad values together
// in an *Error.
func Load(getenv func(string) string) (Config, error) {
	c, err := load(getenv, func(Setting) bool { return true })
	if err != nil {
		return Config{}, err
	}
	c.Server = c.Server.WithDefaults() // the replay buffer fits SEND_QUEUE
	return c, nil
}

// LoadStore reads DATABASE_URL alone, for commands that only reach the
// database.
func LoadStore(getenv func(string) string) (backend.Kind, error) {
	c, err := load(getenv, func(s Setting) bool { return s.Name == DatabaseURL })
	return c.Store, err
}

func load(getenv func(string) string, want func(Setting) bool) (Config, error) {
	c := Default()
	var problems []error
	for _, s := range Settings() {
		if !want(s) {
			continue
		}
		v := strings.TrimSpace(getenv(s.Name))
		if v == "" {
			continue
		}
		if err := s.set(&c, v); err != nil {
			if s.shown != nil {
				v = s.shown(v)
			}
			problems = append(problems, fmt.Errorf("%s=%q: %w", s.Name, v, err))
		}
	}
	if len(problems) == 0 && want(Setting{Name: "NODE_ADDR"}) {
		problems = append(checkNode(c), checkListeners(c)...)
	}
	if len(problems) > 0 {
		return Config{}, &Error{Problems: problems}
	}
	return c, nil
}

// Usage writes the table for `arena serve -h`: each variable, what it sets
// and its default.
func Usage(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, s := range Settings() {
		def, isValue := s.Default()
		sep := " "
		if !isValue {
			sep = ": "
		}
		fmt.Fprintf(tw, "  %s\t%s (default%s%s)\n", s.Name, s.Doc, sep, def)
	}
	return tw.Flush()
}

// redacted is a database URL as an error may repeat it: without its
// password, or not at all when it does not parse as a URL.
func redacted(v string) string {
	u, err := url.Parse(v)
	if err != nil {
		return "(not shown: not a URL)"
	}
	return u.Redacted()
}
