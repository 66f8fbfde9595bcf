// Package server is Sudoku Arena over HTTP: the JSON API (rooms, health,
// metrics), the WebSocket connections that carry the protocol
// (docs/protocol.md) with their limits, player identity, and the embedded
// web client. The protocol's messages, events, codes and codec are package
// protocol's: a connection decodes each frame with it, once, and hands the
// message to its room. It knows rooms through package room and persistence
// only through the small Players interface it declares; it holds no game
// rules and no SQL. The WebSocket's transport (handshake, frames, corked
// writes, parked readers) is package internal/ws; a server owns its
// ws.Poller. Time comes from the Clock in its Config.
package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/sudoku-arena/arena/internal/ws"

	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
)

// Players is the player identity the server keeps, and the database's
// health. Tokens are secrets: only their SHA-256 is stored.
type Players interface {
	CreatePlayer(ctx context.Context, id, name string, tokenHash []byte) error
	// PlayerByToken is the player whose token has the hash, or
	// room.ErrUnknownPlayer.
	PlayerByToken(ctx context.Context, tokenHash []byte) (id, name string, err error)
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
	nodes   Nodes   // nil: one node (relay.go)
	relays  *relayMetrics
	log     *slog.Logger
	metrics *metrics
	mux     *http.ServeMux
	clock   Clock // cfg.Clock, or WallClock

	// The per-address limits (limits.go); nil: no limit.
	creates     *addrLimiter // rooms made a minute
	newPlayers  *addrLimiter // new players a minute
	lab         *addrLimiter // solver lab requests a minute
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
	s.queues.add("results", s.resultsQueue)
	s.metrics = newMetrics(s)
	s.creates = newAddrLimiter(cfg.CreateRate, cfg.CreateRate)
	s.newPlayers = newAddrLimiter(cfg.PlayerRate, cfg.PlayerRate)
	s.lab = newAddrLimiter(cfg.LabRate, cfg.LabRate)
	s.labGate = newLabGate(logger)
	s.roomsByAddr = newAddrCounter(cfg.RoomsPerAddr)
	s.sockets = newAddrCounter(cfg.SocketsPerAddr)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /livez", s.livez)
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.HandleFunc("GET /healthz", s.readyz)
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("POST /api/rooms", s.createRoom)
	mux.HandleFunc("GET /api/rooms/{id}", s.getRoom)
	mux.HandleFunc("GET /ws", s.serveWS)
	mux.HandleFunc("GET /api/daily", s.getDaily)
	mux.HandleFunc("GET /api/daily/{date}/{level}/leaderboard", s.getDailyLeaderboard)
	mux.HandleFunc("GET /api/players/{id}", s.getPlayer)
	mux.HandleFunc("GET /api/leaderboards/{level}", s.getBestTimes)
	// The solver lab (lab.go).
	mux.HandleFunc("POST /api/solve", s.solve)
	mux.HandleFunc("POST /api/grade", s.grade)
	mux.HandleFunc("POST /api/steps", s.steps)
	mux.HandleFunc("GET /api/generate", s.generate)
	mux.HandleFunc("GET /api/rooms/{id}/replay", s.getReplay)
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
			mux.HandleFunc("GET /lab", files.serveIndex)
			mux.HandleFunc("GET /r/{id}/replay", files.serveIndex)
		}
	}
	s.mux = mux
	return s
}

// Handler is the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.mux }

// HTTPServer is an http.Server for the handler with the configured
// timeouts (Config.HTTP) and errors logged as warnings. Its read and write
// timeouts do not cut WebSockets: the upgrade clears them.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s.mux,
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

// apiError is the JSON body of every API error.
type apiError struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// CreateRoomRequest is POST /api/rooms's body.
type CreateRoomRequest struct {
	Mode  string `json:"mode"`
	Level string `json:"level,omitempty"`
	// Date (UTC, YYYY-MM-DD) plays that day's daily puzzle: a daily room
	// (today when left out) or a race on it.
	Date string `json:"date,omitempty"`
	// Puzzle (81 cells, '.' or '0' for an empty one) plays the player's
	// own puzzle instead of a fresh one of the level: race or coop only,
	// never ranked.
	Puzzle string `json:"puzzle,omitempty"`
}

// CreateRoomResponse is POST /api/rooms's answer.
type CreateRoomResponse struct {
	ID    string `json:"id"`
	Mode  string `json:"mode"`
	Level string `json:"level"`
	// URL is the link to share: it opens the room in the web client.
	URL string `json:"url"`
	// WS is the WebSocket endpoint's path; join with {"type":"join","room":ID}.
	WS string `json:"ws"`
}

// Retry-After of the refusals of POST /api/rooms, in seconds: a minute
// refills the per-address buckets; a room ends within IDLE_TIMEOUT of its
// last player leaving, so a minute is only a hint for the others.
const (
	retryCreateRate  = "60"
	retryRoomsByAddr = "60"
	retryServerFull  = "30"
)

func (s *Server) createRoom(w http.ResponseWriter, r *http.Request) {
	addr := clientAddr(r)
	if !s.creates.allow(addr, s.clock.Now()) {
		w.Header().Set("Retry-After", retryCreateRate)
		writeError(w, protocol.CodeRateLimited, "too many rooms made from this address: wait a minute")
		return
	}
	req, rerr := readCreateRoom(r.Body)
	if rerr == nil {
		rerr = s.checkRoomDate(&req)
	}
	var own room.Puzzle
	if rerr == nil && req.Puzzle != "" {
		own, rerr = ownPuzzle(req)
		req.Level = own.Level
	}
	if rerr != nil {
		writeRefusal(w, rerr)
		return
	}
	if !s.roomsByAddr.acquire(addr) {
		w.Header().Set("Retry-After", retryRoomsByAddr)
		writeError(w, protocol.CodeTooManyRooms,
			fmt.Sprintf("this address has %d live rooms, as many as it may: play in one, or wait for one to end", s.cfg.RoomsPerAddr))
		return
	}
	var rm *room.Room
	var err error
	switch {
	case req.Puzzle != "":
		rm, err = s.rooms.CreateOwn(r.Context(), req.Mode, own)
	case req.Date != "":
		rm, err = s.rooms.CreateDaily(r.Context(), req.Mode, req.Level, req.Date)
	default:
		rm, err = s.rooms.Create(r.Context(), req.Mode, req.Level)
	}
	if err != nil {
		s.roomsByAddr.release(addr)
		if errors.Is(err, room.ErrFull) {
			s.log.Warn("create room: the server is full", "rooms", s.rooms.Stats().Rooms)
			w.Header().Set("Retry-After", retryServerFull)
			writeError(w, protocol.CodeServerFull, "the server holds as many rooms as it may: try again later")
			return
		}
		s.log.Error("create room", "mode", req.Mode, "level", req.Level, "err", err)
		writeError(w, protocol.CodeUnavailable, "no room could be made just now: try again")
		return
	}
	if s.roomsByAddr != nil {
		// The address holds the room until it ends.
		go func() {
			<-rm.Done()
			s.roomsByAddr.release(addr)
		}()
	}
	s.log.Info("room created", "room", rm.ID(), "mode", req.Mode, "level", req.Level)
	writeJSON(w, http.StatusCreated, CreateRoomResponse{
		ID: rm.ID(), Mode: req.Mode, Level: req.Level, URL: s.baseURL(r) + "/r/" + rm.ID(), WS: "/ws",
	})
}

// maxCreateBody is the most of a POST /api/rooms body that is read.
const maxCreateBody = 1024

// readCreateRoom reads and checks a POST /api/rooms body: one JSON object in
// valid UTF-8, of at most maxCreateBody bytes, with no field but mode and
// level, a known mode and a known level (easy when left out).
func readCreateRoom(body io.Reader) (CreateRoomRequest, *protocol.Error) {
	var req CreateRoomRequest
	const want = `the body must be one JSON object such as {"mode":"race","level":"easy"}`
	data, rerr := readBody(body, maxCreateBody, want)
	if rerr != nil {
		return req, rerr
	}
	if err := protocol.DecodeObject(data, &req, true); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return req, protocol.Errorf(protocol.CodeBadField, "%s must be a string", te.Field)
		}
		return req, protocol.Errorf(protocol.CodeBadJSON, "%s, and no field but mode, level, date and puzzle", want)
	}
	if _, ok := room.ModeOf(req.Mode); !ok {
		return req, protocol.Errorf(protocol.CodeBadField, "mode must be %s", room.ModeNames("or", nil))
	}
	if req.Puzzle != "" {
		// The level is the puzzle's grade (ownPuzzle).
		if req.Level != "" {
			return req, protocol.Errorf(protocol.CodeBadField, "a room on your own puzzle takes its level from the puzzle's grade: leave level out")
		}
		return req, nil
	}
	if req.Level == "" {
		req.Level = "easy"
	}
	if !slices.Contains(room.Levels, req.Level) {
		return req, badLevel()
	}
	return req, nil
}

// checkRoomDate checks a new room's date against today (UTC, by the
// rooms' clock), as its mode's row of the rules table says: a daily plays
// today's unless told, a race may play a day's daily, co-op none.
func (s *Server) checkRoomDate(req *CreateRoomRequest) *protocol.Error {
	mode, _ := room.ModeOf(req.Mode) // readCreateRoom checked it
	switch {
	case mode.Date == room.DateRequired && req.Date == "":
		req.Date = s.rooms.Today()
	case mode.Date == room.DateNone && req.Date != "":
		return protocol.Errorf(protocol.CodeBadField, "a %s room has no daily: date is for %s", mode.Title,
			room.ModeNames("and", func(m room.Mode) bool { return m.Date != room.DateNone }))
	case req.Date == "":
		return nil
	}
	if s.rooms.CheckDay(req.Date) != nil {
		return badDate(s.rooms.Today())
	}
	return nil
}

// baseURL is PUBLIC_URL, or the scheme and host the request came to.
func (s *Server) baseURL(r *http.Request) string {
	if s.cfg.PublicURL != "" {
		return s.cfg.PublicURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func (s *Server) getRoom(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	rm, err := s.rooms.Get(id)
	if err != nil && s.nodes != nil {
		if s.proxyRoom(w, r, id) {
			return
		}
		rm, err = s.rooms.Get(id)
	}
	if err != nil {
		writeError(w, protocol.CodeRoomNotFound, "no live room has that id")
		return
	}
	snap, err := rm.Snapshot(r.Context())
	if err != nil {
		writeError(w, protocol.CodeRoomNotFound, "the room has ended")
		return
	}
	writeJSON(w, http.StatusOK, snap)
}

// newToken is a player's secret: 32 random bytes, base64url.
func newToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// HashToken is what is stored of a token.
func HashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// newMemberID is a player's ("p_…") or spectator's ("s_…") id.
func newMemberID(prefix string) string {
	var b [9]byte
	_, _ = rand.Read(b[:])
	return prefix + strings.ToLower(base64.RawURLEncoding.EncodeToString(b[:]))
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
	// has its own (the write timeout, the join timeout and the pings).
	rc := http.NewResponseController(w)
	if err := errors.Join(rc.SetReadDeadline(time.Time{}), rc.SetWriteDeadline(time.Time{})); err != nil {
		s.log.Debug("websocket: clear deadlines", "err", err)
	}
	// The socket is counted before the upgrade is answered, so that a
	// client whose upgrade succeeded holds its place: sockets dialled one
	// after another are counted in that order.
	addr := s.remoteAddr(r)
	admitted := s.sockets.acquire(addr)
	sock, err := ws.Accept(w, r, s.cfg.AllowedOrigins, s.cfg.WriteTimeout, int(s.cfg.ReadLimit))
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
	c := newConn(s, sock)
	c.addr, c.fromNode = addr, s.fromNode(r)
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
