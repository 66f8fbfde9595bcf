package server

// Several nodes behind one URL: a join or a room request that reaches a
// node which does not hold the room is relayed to the node that does
// (Nodes says which), so that a plain round-robin balancer works. The
// relays are signed and checked as nodeauth.go says.

import (
	"context"
	"errors"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sudoku-arena/arena/internal/ws"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
)

// Nodes is where rooms live when several nodes share one database (cmd
// wires it; without it the server is one node and every room is here).
type Nodes interface {
	// Locate is where the room lives: "" when this node holds it (claimed
	// and brought back here if it had no live owner), or the internal
	// base URL of the live node that owns it. room.ErrNotFound when there
	// is no live room with the id; any other error means "try again soon"
	// (the owner is draining, the database did not answer).
	Locate(ctx context.Context, id string) (addr string, err error)
	// Secret is the key of the MACs the nodes' relays carry.
	Secret() string
	// ID is this node's id, which its relays and its answers to relays
	// name.
	ID() string
	// Peers are the registered nodes: each one's internal base URL by id.
	// A relay is believed only from one of them (nodeauth.go).
	Peers(ctx context.Context) (map[string]string, error)
}

// relayMetrics count the relays to other nodes.
type relayMetrics struct {
	open           prometheus.Gauge
	total, stalled prometheus.Counter
}

// SetNodes makes the server one of several nodes: joins and room requests
// for rooms another node owns are relayed there.
func (s *Server) SetNodes(n Nodes) {
	s.nodes = n
	s.auth = newNodeAuth(n, s.clock, s.log)
	if l, ok := n.(Lease); ok {
		s.lease = l
	}
	s.relays = &relayMetrics{
		open: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "arena_relayed_connections", Help: "WebSockets relayed to the node that owns their room, open now.",
		}),
		total: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "arena_relays_total", Help: "WebSockets and room requests relayed to the node that owns their room.",
		}),
		stalled: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "arena_relays_stalled_total", Help: "Relayed WebSockets closed (4009) because the room's node did not answer the relay's ping.",
		}),
	}
	s.metrics.reg.MustRegister(s.relays.open, s.relays.total, s.relays.stalled)
}

// errRetry: the room's node cannot be reached just now.
var errRetry = errors.New("server: the room's node cannot be reached just now")

// owner is the internal base URL of the node that owns the room, or ""
// when the room is here or nowhere (the join then finds it or not). A
// request relayed by a node is never relayed again: the nodes disagree
// for a moment (a claim under way), and the client tries again.
func (s *Server) owner(ctx context.Context, id string, fromNode bool) (string, error) {
	if s.nodes == nil {
		return "", nil
	}
	if _, err := s.rooms.Get(id); err == nil {
		return "", nil
	}
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	addr, err := s.nodes.Locate(lctx, id)
	switch {
	case errors.Is(err, room.ErrNotFound):
		return "", nil
	case err != nil:
		s.log.Warn("locate room", "room", id, "err", err)
		return "", errRetry
	case addr != "" && fromNode:
		return "", errRetry
	}
	return addr, nil
}

// relay pipes the connection to the node at addr, which owns the room
// the join (the first frame, sent on as it came) is for, until either
// side closes; the owner's close code and reason reach the client. An
// owner that stops answering closes the client with CloseMoved
// (ownerWatch).
func (c *conn) relay(ctx context.Context, addr string, join []byte) {
	s := c.s
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	up, err := s.dialOwner(dctx, addr, c.addr, c.session)
	cancel()
	if err != nil {
		s.log.Warn("relay: dial the room's node", "node", addr, "err", err)
		c.Close(room.CloseGoingAway)
		return
	}
	defer up.CloseNow()
	up.SetReadLimit(-1) // the owner's frames are the owner's to bound
	s.relays.total.Inc()
	s.relays.open.Inc()
	defer s.relays.open.Dec()
	c.joined.Store(true) // pinged as a joined connection is
	c.rearm(s.cfg.PingInterval)
	if err := up.Write(ctx, websocket.MessageText, join); err != nil {
		c.Close(room.CloseGoingAway)
		return
	}
	watch := c.watchOwner(up, addr)
	defer watch.stop()
	go func() {
		for {
			_, data, err := up.Read(ctx)
			if err != nil {
				watch.stop()
				var ce websocket.CloseError
				if errors.As(err, &ce) {
					c.closeWith(protocol.CloseCode(ce.Code), ce.Reason, true)
				} else {
					// The owner went without a close: it died. Another
					// node takes its rooms over; the client comes back.
					c.Close(room.CloseGoingAway)
				}
				return
			}
			watch.heardNow()
			if !c.Send(room.Frame{Data: data, Type: "relay"}) { // its latency is the owner's to measure
				return
			}
		}
	}()
	for {
		in := c.sock.Next(false)
		if in.Kind != ws.InputMessage {
			// The client is gone: the owner's answer to the close is
			// no sign of a stall.
			watch.stop()
			c.ended(in)
			code := websocket.StatusGoingAway
			if in.Kind == ws.InputClose {
				code = websocket.StatusCode(in.Code)
			}
			_ = up.Close(code, "")
			return
		}
		err := up.Write(ctx, websocket.MessageType(in.Op), in.Msg.Bytes())
		ws.DoneWith(in.Msg)
		if err != nil {
			return
		}
	}
}

// wsURL is the /ws endpoint of a node's internal base URL.
func wsURL(base string) string {
	u := strings.TrimRight(base, "/") + "/ws"
	switch {
	case strings.HasPrefix(u, "https://"):
		return "wss://" + strings.TrimPrefix(u, "https://")
	case strings.HasPrefix(u, "http://"):
		return "ws://" + strings.TrimPrefix(u, "http://")
	}
	return u
}

// proxyRoom answers a room request for a room another node owns by
// passing it to that node, and reports whether it did (or answered that
// the node cannot be reached); false: the room is here, or nowhere.
func (s *Server) proxyRoom(w http.ResponseWriter, r *http.Request, id string) bool {
	addr, err := s.owner(r.Context(), id, s.fromNode(r))
	if err != nil {
		writeNodeUnavailable(w)
		return true
	}
	if addr == "" {
		return false
	}
	s.proxyTo(w, r, addr, "room request")
	return true
}

// proxyTo passes the request to the node at addr, signed as this node's
// relay, and the node's answer back once it proved itself; what names
// the request in the log.
func (s *Server) proxyTo(w http.ResponseWriter, r *http.Request, addr, what string) {
	target, err := url.Parse(addr)
	if err != nil {
		s.log.Error("relay: node address", "addr", addr, "err", err)
		writeNodeUnavailable(w)
		return
	}
	s.relays.total.Inc()
	client := clientAddr(r)
	var mac string // the relay's, which the owner's proof covers
	p := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			// The client's Host goes on, as a balancer passes it: the node
			// checks it (PUBLIC_URL's), and a WebSocket's Origin against it.
			pr.Out.Host = pr.In.Host
			mac = s.auth.sign(pr.Out.Header, pr.Out.Method, pr.Out.URL.RequestURI(), client)
		},
		ModifyResponse: func(resp *http.Response) error {
			err := s.auth.checkOwner(resp.Header, mac)
			for _, k := range RelayHeaders {
				resp.Header.Del(k) // the nodes' own
			}
			return err
		},
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			s.log.Warn("relay: "+what, "node", addr, "err", err)
			writeNodeUnavailable(w)
		},
	}
	p.ServeHTTP(w, r)
}

// ArenaLocator is the optional part of Nodes that says where the
// tournaments run (cluster's Node.ArenaNode): "" for this node, else the
// internal base URL of the node that runs them; ErrNoArenaNode when no
// live node does.
type ArenaLocator interface {
	ArenaNode(ctx context.Context) (addr string, err error)
}

// ErrNoArenaNode: no live node runs the tournaments just now.
var ErrNoArenaNode = errors.New("no live node runs the tournaments")

// onArenaNode has a tournament request answered by the node that runs
// the tournaments, which holds the running ones: here when this is that
// node (or the only one, or the request was relayed already), else
// relayed to it. While no live node runs them (it is restarting) a read
// is answered here from the store, and a join, a withdrawal or a live
// socket is refused with unavailable.
func (s *Server) onArenaNode(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		loc, ok := s.nodes.(ArenaLocator)
		if !ok || s.fromNode(r) {
			h(w, r)
			return
		}
		addr, err := loc.ArenaNode(r.Context())
		switch {
		case errors.Is(err, ErrNoArenaNode) && r.Method == http.MethodGet && !strings.HasPrefix(r.URL.Path, "/ws/"):
			h(w, r)
		case err != nil:
			s.log.Warn("relay: where the tournaments run", "err", err)
			writeNodeUnavailable(w)
		case addr == "":
			h(w, r)
		default:
			s.proxyTo(w, r, addr, "tournament request")
		}
	}
}

// writeNodeUnavailable answers that the node holding the room (or the
// tournaments) cannot be reached: a takeover or a restart will bring it
// back in moments.
func writeNodeUnavailable(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "1")
	writeError(w, protocol.CodeUnavailable, "the server that holds it cannot be reached just now: try again")
}
