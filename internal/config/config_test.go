package config

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store/backend"
)

func envOf(m map[string]string) func(string) string {
	return func(name string) string { return m[name] }
}

func TestLoadDefaults(t *testing.T) {
	c, err := Load(envOf(nil))
	require.NoError(t, err)
	assert.Equal(t, Default(), c)
	assert.Equal(t, server.DefaultConfig(), c.Server)
	s := c.Server
	assert.Equal(t, ":8080", s.ListenAddr)
	assert.Equal(t, "text", s.LogFormat)
	assert.Equal(t, 20.0, s.RateLimit)
	assert.Equal(t, 40, s.RateBurst)
	assert.Equal(t, 256, s.SendQueue)
	assert.Equal(t, 20, s.PoolStock)
	assert.Equal(t, 30, s.CreateRate)
	assert.Equal(t, 10000, s.Rooms.MaxRooms)
	assert.Equal(t, 20, s.RoomsPerAddr)
	assert.Equal(t, 30, s.PlayerRate)
	assert.Equal(t, 60, s.ReplayRate)
	assert.Equal(t, 120, s.RecordRate)
	assert.Equal(t, 64, s.SocketsPerAddr)
	assert.Equal(t, 30*time.Second, s.PingInterval)
	assert.Equal(t, 30*24*time.Hour, s.EventRetention)
	assert.Equal(t, 10*time.Minute, s.Rooms.IdleTimeout)
	assert.Equal(t, room.DefaultConfig(), s.Rooms.Game)
	assert.Equal(t, 15*time.Second, s.Rooms.Game.HintPenalty)
	assert.Equal(t, 64, s.Rooms.Game.ReplayEvents)
	assert.Equal(t, 100, s.Rooms.Game.FloorPercent, "the floors as they are")
	assert.Equal(t, backend.Kind{Driver: "sqlite", Target: backend.DefaultSQLitePath}, c.Store)
	assert.Equal(t, 30*time.Second, c.StoreWait)
}

func TestLoadFromEnvironment(t *testing.T) {
	c, err := Load(envOf(map[string]string{
		"LISTEN_ADDR": "127.0.0.1:9000", "PUBLIC_URL": "https://sudoku.example/", "ALLOWED_ORIGINS": "a.example, *.b.example,",
		"RECONNECT_WINDOW": "2m", "HINT_PENALTY": "30s", "MAX_PLAYERS": "4", "RATE_LIMIT": "5", "LOG_FORMAT": " json ",
		"IDLE_TIMEOUT": "1h", "SEND_QUEUE": "50", "CREATE_RATE": "0", "COUNTDOWN": "",
		"MAX_ROOMS": "500", "ROOMS_PER_ADDR": "0", "PLAYER_RATE": "0", "SOCKETS_PER_ADDR": "0", "REPLAY_RATE": "0", "RECORD_RATE": "0",
		"PING_INTERVAL": "1m", "EVENT_RETENTION": "0",
		"RESULT_QUEUE": "500", "EVENT_QUEUE_MB": "8",
		"DATABASE_URL": "postgres://arena@db/arena",
	}))
	require.NoError(t, err)
	s := c.Server
	assert.Equal(t, "127.0.0.1:9000", s.ListenAddr)
	assert.Equal(t, "https://sudoku.example", s.PublicURL)
	assert.Equal(t, []string{"a.example", "*.b.example"}, s.AllowedOrigins)
	assert.Equal(t, 2*time.Minute, s.Rooms.Game.ReconnectWindow)
	assert.Equal(t, 30*time.Second, s.Rooms.Game.HintPenalty)
	assert.Equal(t, 3*time.Second, s.Rooms.Game.Countdown, "blank is unset")
	assert.Equal(t, 4, s.Rooms.Game.MaxPlayers)
	assert.Equal(t, 5.0, s.RateLimit)
	assert.Equal(t, "json", s.LogFormat)
	assert.Equal(t, time.Hour, s.Rooms.IdleTimeout)
	assert.Equal(t, 50, s.SendQueue)
	assert.Equal(t, 34, s.Rooms.Game.ReplayEvents, "the replay fits the send queue")
	assert.Equal(t, 0, s.CreateRate, "0 turns the limit off")
	assert.Equal(t, 500, s.Rooms.MaxRooms)
	assert.Equal(t, time.Minute, s.PingInterval)
	for name, v := range map[string]int{"ROOMS_PER_ADDR": s.RoomsPerAddr, "PLAYER_RATE": s.PlayerRate, "SOCKETS_PER_ADDR": s.SocketsPerAddr,
		"REPLAY_RATE": s.ReplayRate, "RECORD_RATE": s.RecordRate} {
		assert.Zero(t, v, "%s=0 turns the limit off", name)
	}
	assert.Zero(t, s.EventRetention, "0 keeps events forever")
	kept := s.WithDefaults()
	assert.Zero(t, kept.RoomsPerAddr+kept.PlayerRate+kept.SocketsPerAddr+kept.ReplayRate+kept.RecordRate, "the server keeps the limits off")
	assert.Zero(t, kept.EventRetention, "the server keeps the events")
	assert.Equal(t, 500, s.Rooms.MaxResultsWaiting)
	assert.Equal(t, 8, s.EventQueueMB)
	assert.Equal(t, backend.Kind{Driver: "postgres", Target: "postgres://arena@db/arena"}, c.Store)
}

func TestHintPenaltyZeroIsNoFreeze(t *testing.T) {
	for _, v := range []string{"0", "0s"} {
		c, err := Load(envOf(map[string]string{"HINT_PENALTY": v}))
		require.NoError(t, err, v)
		assert.Equal(t, time.Duration(0), c.Server.Rooms.Game.HintPenalty, v)
		assert.Equal(t, time.Duration(0), c.Server.WithDefaults().Rooms.Game.HintPenalty, "the server keeps it")
	}
}

// TestFloorPercent: FLOOR_PERCENT takes a whole percentage from 1 to
// 1000 and nothing else, each refusal saying what it wants.
func TestFloorPercent(t *testing.T) {
	for v, want := range map[string]int{"1": 1, "25": 25, " 100 ": 100, "1000": 1000} {
		c, err := Load(envOf(map[string]string{"FLOOR_PERCENT": v}))
		require.NoError(t, err, v)
		assert.Equal(t, want, c.Server.Rooms.Game.FloorPercent, v)
	}
	for _, v := range []string{"0", "-5", "1001", "50%", "0.5", "half"} {
		_, err := Load(envOf(map[string]string{"FLOOR_PERCENT": v}))
		if assert.Error(t, err, v) {
			assert.Equal(t, fmt.Sprintf("configuration: FLOOR_PERCENT=%q: want a whole number from 1 to 1000", v), err.Error())
		}
	}
}

func TestLoadErrorsNameTheVariable(t *testing.T) {
	bad := map[string]string{
		"LISTEN_ADDR":      "8080",
		"DATABASE_URL":     "mysql://x",
		"DATABASE_WAIT":    "-1s",
		"PUBLIC_URL":       "sudoku.example",
		"ALLOWED_ORIGINS":  "a.example,[b",
		"LOG_FORMAT":       "xml",
		"RANK_GUESTS":      "maybe",
		"FLOOR_PERCENT":    "0",
		"TOURNAMENTS":      "1h/impossible/20m",
		"COUNTDOWN":        "soon",
		"GROUP_WAIT":       "0s",
		"HINT_PENALTY":     "-3s",
		"RECONNECT_WINDOW": "0s",
		"IDLE_TIMEOUT":     "10",
		"MAX_PLAYERS":      "0",
		"MAX_SPECTATORS":   "many",
		"RATE_LIMIT":       "1.5",
		"RATE_BURST":       "-1",
		"SEND_QUEUE":       "0",
		"POOL_STOCK":       "x",
		"RESULT_QUEUE":     "0",
		"EVENT_QUEUE_MB":   "65537",
		"CREATE_RATE":      "-1",
		"MAX_ROOMS":        "0",
		"ROOMS_PER_ADDR":   "-2",
		"PLAYER_RATE":      "lots",
		"LAB_RATE":         "100001",
		"REPLAY_RATE":      "-1",
		"RECORD_RATE":      "often",
		"SOCKETS_PER_ADDR": "1.5",
		"PING_INTERVAL":    "0",
		"METRICS_ADDR":     "9090",
		"DEBUG_ADDR":       "0.0.0.0:6060",
		"EVENT_RETENTION":  "30d",
		"NODE_ID":          "a b",
		"NODE_ADDR":        "10.0.0.5:8080",
		"NODE_SECRET":      "short",
		"NODE_HEARTBEAT":   "0s",
		"NODE_TIMEOUT":     "-1s",
	}
	// A secret is not repeated in the error, nor a database URL's
	// password.
	shown := map[string]string{"NODE_SECRET": "(5 characters, not shown)"}
	for name, value := range bad {
		_, err := Load(envOf(map[string]string{name: value}))
		if assert.Error(t, err, name) {
			if s, ok := shown[name]; ok {
				value = s
			}
			assert.Regexp(t, regexp.QuoteMeta(fmt.Sprintf("%s=%q: ", name, value))+"(invalid value: )?want ", err.Error())
		}
	}
	for _, bad := range []string{"postgres://ann:hunter2@db:99999/arena", "mysql://ann:hunter2@db/arena"} {
		_, err := Load(envOf(map[string]string{DatabaseURL: bad}))
		if assert.Error(t, err, bad) {
			assert.NotContains(t, err.Error(), "hunter2", "the password is not repeated")
			assert.Contains(t, err.Error(), "ann:xxxxx@db", "the rest of the URL is")
		}
	}

	// All at once: every one is reported, each once.
	_, err := Load(envOf(bad))
	var cerr *Error
	require.ErrorAs(t, err, &cerr)
	assert.Len(t, cerr.Problems, len(bad))
	for name := range bad {
		assert.Equal(t, 1, strings.Count(err.Error(), name+"="), name)
	}
	assert.Len(t, Settings(), len(bad), "the test tries a bad value of every setting")
}

// TestAddressesAreCheckedWhole: a listen address's port is a number from
// 0 to 65535 and its host an IP address or a host name, so that a bad one
// stops the start before anything is opened; NODE_ADDR's port, when
// given, is one from 1.
func TestAddressesAreCheckedWhole(t *testing.T) {
	for _, ok := range []string{":8080", ":0", "127.0.0.1:0", "localhost:8080", "[::1]:80", "arena1:8080", "0.0.0.0:65535", "db.example.com.:1"} {
		c, err := Load(envOf(map[string]string{"LISTEN_ADDR": ok}))
		require.NoError(t, err, ok)
		assert.Equal(t, ok, c.Server.ListenAddr)
	}
	bad := map[string][]string{
		"LISTEN_ADDR": {":99999", ":65536", ":-1", ":http", "bad host:80", "a..b:80", "-a:80", "8080", ":"},
		"DEBUG_ADDR":  {"127.0.0.1:70000", "localhost:x"},
		"NODE_ADDR":   {"http://10.0.0.5:99999", "http://10.0.0.5:0"},
	}
	for name, values := range bad {
		for _, v := range values {
			_, err := Load(envOf(map[string]string{name: v}))
			if assert.Error(t, err, "%s=%s", name, v) {
				assert.Regexp(t, "^configuration: "+regexp.QuoteMeta(fmt.Sprintf("%s=%q: want ", name, v)), err.Error())
			}
		}
	}
}

func TestDatabaseWait(t *testing.T) {
	for v, want := range map[string]time.Duration{"0": 0, "0s": 0, "2m": 2 * time.Minute, "500ms": 500 * time.Millisecond} {
		c, err := Load(envOf(map[string]string{"DATABASE_WAIT": v}))
		require.NoError(t, err, v)
		assert.Equal(t, want, c.StoreWait, v)
	}
	_, err := Load(envOf(map[string]string{"DATABASE_WAIT": "30"}))
	assert.ErrorContains(t, err, `DATABASE_WAIT="30": want 0 or a positive duration`)
}

// TestNodeSettingsTogether: several nodes need PostgreSQL, NODE_ADDR and
// a secret, and a timeout of some heartbeats.
func TestNodeSettingsTogether(t *testing.T) {
	const pg = "postgres://arena@db/arena"
	const secret = "a82774c0c949ad215581e59e34bb981e4a7af0a8a834920fd80715a098a9b696"
	tests := []struct {
		env  map[string]string
		want string // "" when it loads
	}{
		{map[string]string{"NODE_ADDR": "http://10.0.0.5:8080", "NODE_SECRET": secret}, "NODE_*: several nodes need PostgreSQL"},
		{map[string]string{"NODE_ID": "a"}, "NODE_*: several nodes need PostgreSQL"},
		{map[string]string{"DATABASE_URL": pg, "NODE_ID": "a"}, "NODE_ADDR: the NODE_* settings need NODE_ADDR"},
		{map[string]string{"DATABASE_URL": pg, "NODE_ADDR": "http://10.0.0.5:8080"}, "NODE_SECRET: several nodes need the secret"},
		{map[string]string{"DATABASE_URL": pg, "NODE_ADDR": "http://10.0.0.5:8080", "NODE_SECRET": secret, "NODE_TIMEOUT": "5s"}, "NODE_TIMEOUT=5s: want at least 3 times"},
		{map[string]string{"DATABASE_URL": pg, "NODE_ADDR": "http://10.0.0.5:8080/", "NODE_SECRET": secret, "NODE_ID": "n-1"}, ""},
		{map[string]string{"DATABASE_URL": pg}, ""},
	}
	for _, tt := range tests {
		c, err := Load(envOf(tt.env))
		if tt.want != "" {
			assert.ErrorContains(t, err, tt.want, "%v", tt.env)
			continue
		}
		require.NoError(t, err, "%v", tt.env)
		assert.Equal(t, tt.env["NODE_ADDR"] != "", c.Node.On())
		if c.Node.On() {
			assert.Equal(t, Node{ID: "n-1", Addr: "http://10.0.0.5:8080", Secret: secret, Heartbeat: 2 * time.Second, Timeout: 10 * time.Second}, c.Node)
		}
	}
}

func TestLoadStoreReadsDatabaseURLAlone(t *testing.T) {
	k, err := LoadStore(envOf(map[string]string{"DATABASE_URL": "sqlite:x.db", "COUNTDOWN": "soon"}))
	require.NoError(t, err)
	assert.Equal(t, backend.Kind{Driver: "sqlite", Target: "x.db"}, k)

	_, err = LoadStore(envOf(map[string]string{"DATABASE_URL": "mysql://x"}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `DATABASE_URL="mysql://x": invalid value: want postgres://`)
}

// TestSettings checks the table itself: each row's default, written out,
// reads back as the default configuration, so what -h and the documents
// show is what an unset variable gives.
func TestSettings(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Settings() {
		assert.Regexp(t, `^[A-Z][A-Z_]*$`, s.Name)
		assert.False(t, seen[s.Name], "%s twice", s.Name)
		seen[s.Name] = true
		assert.NotEmpty(t, s.Doc, s.Name)
		def, isValue := s.Default()
		require.NotEmpty(t, def, s.Name)
		if !isValue {
			assert.Equal(t, s.Unset, def)
			continue
		}
		c := Default()
		require.NoError(t, s.set(&c, def), "%s=%q", s.Name, def)
		assert.Equal(t, Default(), c, "%s=%q is the default", s.Name, def)
	}
}

func TestUsage(t *testing.T) {
	var b strings.Builder
	require.NoError(t, Usage(&b))
	out := b.String()
	assert.Contains(t, out, "  LISTEN_ADDR       address to listen on, HOST:PORT or :PORT (default :8080)\n")
	assert.Contains(t, out, "  PUBLIC_URL        the site, an http:// or https:// URL: base of share links, and the one host served (default: the request's scheme and host)\n")
	assert.Contains(t, out, "  MAX_PLAYERS       players per room, 1 to 1000 (default 16)\n")
	assert.Equal(t, len(Settings()), strings.Count(out, "\n"))
}

// TestDocs holds the configuration tables of docs/operations.md and
// docs/protocol.md to the table: the same variables in the same order, and
// each default as Default gives it (a value in backticks, or the words of
// Unset).
func TestDocs(t *testing.T) {
	for _, doc := range []string{"operations.md", "protocol.md"} {
		t.Run(doc, func(t *testing.T) {
			text, err := os.ReadFile(filepath.Join("..", "..", "docs", doc))
			require.NoError(t, err)
			rows := docConfigRows(t, string(text))
			var names []string
			for _, s := range Settings() {
				names = append(names, s.Name)
				def, isValue := s.Default()
				if isValue {
					def = "`" + def + "`"
				}
				if assert.Contains(t, rows, s.Name, "%s is missing from the table", s.Name) {
					assert.Equal(t, def, rows[s.Name][0], "the default of %s", s.Name)
				}
			}
			var documented []string
			for _, r := range regexp.MustCompile("(?m)^\\| `([A-Z_]+)` \\|").FindAllStringSubmatch(docSection(t, string(text)), -1) {
				documented = append(documented, r[1])
			}
			assert.Equal(t, names, documented, "the table's variables, in order")
		})
	}

	text, err := os.ReadFile(filepath.Join("..", "..", "docs", "protocol.md"))
	require.NoError(t, err)
	d := server.DefaultConfig()
	assert.Contains(t, docSection(t, string(text)),
		fmt.Sprintf("the replay buffer (%d events, or `SEND_QUEUE` − 16 when that is less)", d.Rooms.Game.ReplayEvents))
}

// docSection is a document's "## Configuration" section.
func docSection(t *testing.T, doc string) string {
	t.Helper()
	return docSectionNamed(t, doc, "Configuration")
}

// docSectionNamed is a document's "## name" section.
func docSectionNamed(t *testing.T, doc, name string) string {
	t.Helper()
	_, sec, ok := strings.Cut(doc, "\n## "+name+"\n")
	require.True(t, ok, "no %s section", name)
	sec, _, _ = strings.Cut(sec, "\n## ")
	return sec
}

// TestDocsSeveralNodes: the settings operations.md's "Several nodes"
// names in its table are the server's, with the server's defaults.
func TestDocsSeveralNodes(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "..", "docs", "operations.md"))
	require.NoError(t, err)
	defaults := map[string]string{}
	for _, s := range Settings() {
		def, isValue := s.Default()
		if isValue {
			def = "`" + def + "`"
		}
		defaults[s.Name] = def
	}
	rows := tableRows(t, docSectionNamed(t, string(text), "Several nodes"))
	var names []string
	for name, cells := range rows {
		if strings.ToUpper(name) != name {
			continue // a metric's row
		}
		names = append(names, name)
		if assert.Contains(t, defaults, name, "%s is not a setting", name) {
			assert.Equal(t, defaults[name], cells[0], "the default of %s", name)
		}
	}
	for _, want := range []string{"NODE_ID", "NODE_ADDR", "NODE_SECRET", "NODE_HEARTBEAT", "NODE_TIMEOUT"} {
		assert.Contains(t, names, want)
	}
}

// docConfigRows is the section's table: each variable's other cells.
func docConfigRows(t *testing.T, doc string) map[string][]string {
	t.Helper()
	return tableRows(t, docSection(t, doc))
}

// tableRows are the rows of a section's tables whose first cell is code,
// by that code, each with the cells after it.
func tableRows(t *testing.T, sec string) map[string][]string {
	t.Helper()
	rows := map[string][]string{}
	for line := range strings.Lines(sec) {
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		if !strings.HasPrefix(line, "| `") || len(cells) < 3 {
			continue
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows[strings.Trim(cells[0], "`")] = cells[1:]
	}
	require.NotEmpty(t, rows, "the section has no table")
	return rows
}

// TestDebugAddrLoopbackOnly: profiles are off by default, a loopback
// address turns them on, and any other address stops the start with an
// error naming DEBUG_ADDR.
func TestDebugAddrLoopbackOnly(t *testing.T) {
	c, err := Load(envOf(nil))
	require.NoError(t, err)
	assert.Empty(t, c.Server.DebugAddr, "off by default")

	for _, ok := range []string{"127.0.0.1:6060", "[::1]:6060", "localhost:0", "127.0.0.2:6060"} {
		c, err := Load(envOf(map[string]string{"DEBUG_ADDR": ok}))
		require.NoError(t, err, ok)
		assert.Equal(t, ok, c.Server.DebugAddr)
	}
	for _, bad := range []string{":6060", "0.0.0.0:6060", "10.0.0.1:6060", "[::]:6060", "example.com:6060", "127.0.0.1"} {
		_, err := Load(envOf(map[string]string{"DEBUG_ADDR": bad}))
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "DEBUG_ADDR=", bad)
	}
}

// TestMetricsAddr: the metrics are off unless METRICS_ADDR names a
// listener, which any address to listen on may be (Prometheus scrapes it
// from another machine); what is no such address stops the start with an
// error naming METRICS_ADDR.
func TestMetricsAddr(t *testing.T) {
	c, err := Load(envOf(nil))
	require.NoError(t, err)
	assert.Empty(t, c.Server.MetricsAddr, "off by default")

	for _, ok := range []string{":9090", "127.0.0.1:9090", "[::1]:0", "10.0.0.5:9090", "metrics.internal:9090"} {
		c, err := Load(envOf(map[string]string{"METRICS_ADDR": ok}))
		require.NoError(t, err, ok)
		assert.Equal(t, ok, c.Server.MetricsAddr)
	}
	for _, bad := range []string{"9090", "127.0.0.1", ":99999", "http://127.0.0.1:9090", "bad_host:9090"} {
		_, err := Load(envOf(map[string]string{"METRICS_ADDR": bad}))
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "METRICS_ADDR=", bad)
	}
}

// Two listeners on one port are refused at load, each named, rather than
// at their bind once the store is open.
func TestListenersNeedPortsOfTheirOwn(t *testing.T) {
	_, err := Load(envOf(map[string]string{"LISTEN_ADDR": ":8080", "METRICS_ADDR": "127.0.0.1:8080"}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `METRICS_ADDR="127.0.0.1:8080": the port of LISTEN_ADDR`)
	_, err = Load(envOf(map[string]string{"METRICS_ADDR": "127.0.0.1:9090", "DEBUG_ADDR": "127.0.0.1:9090"}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "DEBUG_ADDR")
	_, err = Load(envOf(map[string]string{"METRICS_ADDR": "127.0.0.1:9090", "DEBUG_ADDR": "127.0.0.1:6060"}))
	assert.NoError(t, err)
	_, err = Load(envOf(map[string]string{"LISTEN_ADDR": "127.0.0.1:0", "METRICS_ADDR": "127.0.0.1:0"}))
	assert.NoError(t, err, "port 0 is a free one each")
}
