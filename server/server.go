// Package server is Sudoku Arena over HTTP: the JSON API (rooms, health),
// the WebSocket connections that carry the protocol (docs/protocol.md)
// with their limits, player identity, and the embedded web client, behind
// the web defaults of guard.go; the metrics and the profiles each on a
// listener of their own (debug.go). The protocol's messages, events, codes
// and codec are package protocol's: a connection decodes each frame with
// it, once, and hands the message to its room. It knows rooms through
// package room and persistence only through the small Players interface it
// declares; it holds no game rules and no SQL. The WebSocket's transport
// (handshake, frames, corked writes, parked readers) is package
// internal/ws; a server owns its ws.Poller. Time comes from the Clock in
// its Config.
package server

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sudoku-arena/arena/internal/ws"

	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
)

// Players is the player identity the server keeps, and the database's
// health. Tokens are secrets: only their SHA-256 is stored.
type Players interface {
	CreatePlayer(ctx context.Context, id, name string, tokenHash []byte) error
	// PlayerByToken is the player whose token has the hash (an account's
	// name is its handle; guest says it has none), or
	// room.ErrUnknownPlayer.
	PlayerByToken(ctx context.Context, tokenHash []byte) (id, name string, guest bool, err error)
	// Ping reports whether the database answers.
	Ping(ctx context.Context) error
}

// Server serves the API, the WebSocket endpoint and the web client.
type Server struct {
	cfg     Config
	rooms   *room.Registry
	players Players
	dailies Dailies // nil: the daily routes answer unavailable
	replays Replays // nil: the replay route answers unavailable
	// tournaments is nil until SetTournaments: their routes answer
	// unavailable (tournaments.go).
	tournaments Tournaments
	brake       Brake // nil: nothing is refused for the event log (SetBrake)
	lease       Lease // nil: one node, or a node whose Nodes holds no lease (SetNodes)
	nodes       Nodes // nil: one node (relay.go)
	relays      *relayMetrics
	log         *slog.Logger
	metrics     *metrics
	handler     http.Handler // the routes behind guard (guard.go)
	clock       Clock        // cfg.Clock, or WallClock
	auth        *nodeAuth    // with nodes: the relays' MACs (nodeauth.go)

	// accounts is nil until SetAccounts: the account routes answer
	// unavailable and session cookies are ignored (accounts.go).
	accounts Accounts
	// playNow is nil until SetPlayNow: the queue and rating routes answer
	// unavailable (playnow.go).
	playNow PlayNow
	// wsOrigins are the origins other than the request's own host that
	// may open WebSockets: ALLOWED_ORIGINS and PUBLIC_URL's.
	wsOrigins []string
	// publicHost is PUBLIC_URL's host as hostKey writes it, the one Host
	// requests may name (guard.go); "" without PUBLIC_URL: any.
	publicHost, publicScheme string

	// The per-address limits (limits.go); nil: no limit.
	creates     *addrLimiter // rooms made a minute
	newPlayers  *addrLimiter // new players a minute
	lab         *addrLimiter // solver lab requests a minute
	replayReqs  *addrLimiter // replay requests a minute
	recordReqs  *addrLimiter // players' records read a minute
	replayCache *replayCache // finished rounds' replays, encoded (replay.go)
	labGate     labGate      // the lab's work under way, and its time
	roomsByAddr *addrCounter // live rooms made
	sockets     *addrCounter // open WebSockets
	queues      queues
	known       identities

	mu      sync.Mutex
	conns   map[*conn]struct{}
	closing bool
	// poller is the read poller the connections' sockets park in, made
	// with the first connection (none for a server that never upgrades
	// one) and closed by CloseConns(true); nil where none is built.
	poller     *ws.Poller
	pollerMade bool
}

// New is a server over the registry's rooms. web is the client's files
// (index.html at its root); logger may be nil.
func New(cfg Config, rooms *room.Registry, players Players, web fs.FS, logger *slog.Logger) *Server {
	cfg.defaults()
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{cfg: cfg, rooms: rooms, players: players, log: logger, clock: cfg.Clock, conns: map[*conn]struct{}{}}
	if s.clock == nil {
		s.clock = WallClock{}
	}
	s.wsOrigins = wsOrigins(cfg)
	s.publicHost, s.publicScheme = publicHost(cfg.PublicURL)
	s.queues.add("results", s.resultsQueue)
	s.metrics = newMetrics(s)
	s.creates = newAddrLimiter(cfg.CreateRate, cfg.CreateRate)
	s.newPlayers = newAddrLimiter(cfg.PlayerRate, cfg.PlayerRate)
	s.lab = newAddrLimiter(cfg.LabRate, cfg.LabRate)
	s.replayReqs = newAddrLimiter(cfg.ReplayRate, cfg.ReplayRate)
	s.recordReqs = newAddrLimiter(cfg.RecordRate, cfg.RecordRate)
	s.replayCache = newReplayCache(cfg.ReplayCache)
	s.labGate = newLabGate(logger)
	s.roomsByAddr = newAddrCounter(cfg.RoomsPerAddr)
	s.sockets = newAddrCounter(cfg.SocketsPerAddr)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /livez", s.livez)
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.HandleFunc("GET /healthz", s.readyz)
	mux.HandleFunc("POST /api/rooms", s.createRoom)
	mux.HandleFunc("GET /api/rooms/{id}", s.getRoom)
	mux.HandleFunc("GET /ws", s.serveWS)
	mux.HandleFunc("GET /api/daily", s.getDaily)
	mux.HandleFunc("GET /api/daily/{date}/{level}/leaderboard", s.getDailyLeaderboard)
	mux.HandleFunc("GET /api/players/{id}", s.getPlayer)
	mux.HandleFunc("GET /api/players/{id}/days", s.getPlayerDays)
	mux.HandleFunc("GET /api/players/{id}/games", s.getPlayerGames)
	mux.HandleFunc("GET /api/leaderboards/{level}", s.getBestTimes)
	// The solver lab (lab.go).
	mux.HandleFunc("POST /api/solve", s.solve)
	mux.HandleFunc("POST /api/grade", s.grade)
	mux.HandleFunc("POST /api/steps", s.steps)
	mux.HandleFunc("GET /api/generate", s.generate)
	mux.HandleFunc("GET /api/rooms/{id}/replay", s.getReplay)
	s.tournamentRoutes(mux)
	s.playNowRoutes(mux)
	s.accountRoutes(mux)
	if web != nil {
		files, err := newStatic(web)
		if err != nil {
			// The embedded client always reads; another fs.FS may not, and
			// then the API still serves while the pages say what is wrong.
			logger.Error("web client", "err", err)
			mux.HandleFunc("GET /", func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, "the web client could not be loaded", http.StatusInternalServerError)
			})
		} else {
			mux.Handle("GET /", files)
			mux.HandleFunc("GET /r/{id}", files.serveIndex)
			mux.HandleFunc("GET /daily/{date}/{level}", files.serveIndex)
			mux.HandleFunc("GET /p/{id}", files.serveIndex)
			mux.HandleFunc("GET /t", files.serveIndex)
			mux.HandleFunc("GET /t/{id}", files.serveIndex)
			mux.HandleFunc("GET /lab", files.serveIndex)
			mux.HandleFunc("GET /r/{id}/replay", files.serveIndex)
			mux.HandleFunc("GET /signin", files.serveIndex)
			mux.HandleFunc("GET /account", files.serveIndex)
		}
	}
	s.handler = s.guard(mux)
	return s
}

// Handler is the server's HTTP handler: the routes behind guard.
func (s *Server) Handler() http.Handler { return s.handler }

// HTTPServer is an http.Server for the handler with the configured
// timeouts (Config.HTTP) and errors logged as warnings. Its read and write
// timeouts do not cut WebSockets: the upgrade clears them.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: s.cfg.HTTP.ReadHeader,
		ReadTimeout:       s.cfg.HTTP.Read,
		WriteTimeout:      s.cfg.HTTP.Write,
		IdleTimeout:       s.cfg.HTTP.Idle,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
}

// Metrics is the Prometheus registry the server reports to, for callers
// that add their own collectors.
func (s *Server) Metrics() *prometheus.Registry { return s.metrics.reg }

// CloseConns refuses new WebSockets and closes, as going away, the
// connections that are in no room; rooms close their own members' as they
// save (Registry.Shutdown). With all set it closes every connection left,
// for after the rooms have ended: http.Server.Shutdown does not wait for
// WebSockets. Then it closes the server's read poller: the connections
// being closed end without it, each woken by its writer once its socket is
// closed.
func (s *Server) CloseConns(all bool) {
	s.mu.Lock()
	s.closing = true
	var cs []*conn
	for c := range s.conns {
		if all || !c.joined.Load() {
			cs = append(cs, c)
		}
	}
	var p *ws.Poller
	if all {
		// A connection admitted from now on keeps a reader of its own.
		p, s.poller, s.pollerMade = s.poller, nil, true
	}
	s.mu.Unlock()
	for _, c := range cs {
		c.Close(room.CloseGoingAway)
	}
	if err := p.Close(); err != nil {
		s.log.Warn("websocket: close the read poller", "err", err)
	}
}

// tune sets a client's socket's limits from the config: a message's
// time, and the ping budget.
func (s *Server) tune(sock *ws.Conn) {
	sock.SetMessageTimeout(s.cfg.MessageTimeout)
	sock.SetPingBudget(s.cfg.PingBurst, s.cfg.PingEvery)
}

func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	closing := s.closing
	s.mu.Unlock()
	if closing {
		w.Header().Set("Retry-After", strconv.Itoa(int(s.cfg.RetryAfter/time.Second)))
		writeError(w, protocol.CodeUnavailable, "the server is restarting: try again shortly")
		return
	}
	// The http.Server's read and write timeouts are deadlines on the
	// connection. net/http clears them when it hands the connection over
	// (Hijack), but its documentation leaves that to the handler: clear
	// them here, so that no WebSocket is cut when they pass. The WebSocket
	// has its own (the write timeout, the join timeout, the pings and the
	// time a message begun has to come whole).
	rc := http.NewResponseController(w)
	if err := errors.Join(rc.SetReadDeadline(time.Time{}), rc.SetWriteDeadline(time.Time{})); err != nil {
		s.log.Debug("websocket: clear deadlines", "err", err)
	}
	session, ok := s.wsSession(w, r)
	if !ok {
		return
	}
	// The socket is counted before the upgrade is answered, so that a
	// client whose upgrade succeeded holds its place: sockets dialled one
	// after another are counted in that order.
	addr := s.remoteAddr(r)
	admitted := s.sockets.acquire(addr)
	sock, err := ws.Accept(w, r, s.wsOrigins, s.cfg.WriteTimeout, int(s.cfg.ReadLimit))
	if err != nil {
		// Accept has answered (403 for a foreign origin, 400 or 426 for
		// a bad handshake).
		s.log.Debug("websocket: accept", "err", err, "origin", r.Header.Get("Origin"))
		if admitted {
			s.sockets.release(addr)
		}
		return
	}
	if !admitted {
		// Upgraded first, so that a browser learns why (it sees no HTTP
		// status), then closed at once.
		sock.CloseHandshake(ws.StatusCode(protocol.CloseTooManySockets), fmt.Sprintf("too many connections from this address (at most %d): close another first", s.cfg.SocketsPerAddr))
		return
	}
	s.tune(sock)
	c := newConn(s, sock)
	c.addr, c.fromNode, c.session = addr, s.fromNode(r), session
	s.admit(c)
	// The connection is read on a goroutine of its own (or parks with
	// none while it has nothing to read), and the handler returns:
	// net/http's state for the request (and the handler's deep stack) is
	// not kept for the WebSocket's life.
	go c.serve()
}

// admit counts a new connection and puts its socket in the server's read
// poller, made with the first connection.
func (s *Server) admit(c *conn) {
	s.mu.Lock()
	s.conns[c] = struct{}{}
	if !s.pollerMade {
		s.pollerMade = true
		p, err := ws.NewPoller(s.log)
		switch {
		case err == nil:
			s.poller = p
		case !errors.Is(err, errors.ErrUnsupported):
			s.log.Warn("websocket: no read poller: connections keep a reader each", "err", err)
		}
	}
	p := s.poller
	s.mu.Unlock()
	s.metrics.sockets.Inc()
	p.Add(c.sock, c)
}

// dropConn forgets a connection whose socket is closed and whose reading
// has ended.
func (s *Server) dropConn(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	s.metrics.sockets.Dec()
	s.sockets.release(c.addr)
}
