package server

// Several nodes behind one URL: a join or a room request that reaches a
// node which does not hold the room is relayed to the node that does
// (Nodes says which), so that a plain round-robin balancer works.

import (
	"context"
	"crypto/subtle"
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

// Headers a node sets on what it relays to another. The client's address
// is believed only beside the right secret, so that a client cannot pose
// as another address to the per-address limits.
const (
	HeaderNodeSecret = "X-Arena-Node-Secret"
	HeaderClientAddr = "X-Arena-Client-Addr"
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
	// Secret is what the nodes show one another on relays.
	Secret() string
}

// relayMetrics count the relays to other nodes.
type relayMetrics struct {
	open  prometheus.Gauge
	total prometheus.Counter
}

// SetNodes makes the server one of several nodes: joins and room requests
// for rooms another node owns are relayed there.
func (s *Server) SetNodes(n Nodes) {
	s.nodes = n
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
	}
	s.metrics.reg.MustRegister(s.relays.open, s.relays.total)
}

// fromNode reports whether the request comes from another node, by its
// secret.
func (s *Server) fromNode(r *http.Request) bool {
	if s.nodes == nil {
		return false
	}
	got, want := r.Header.Get(HeaderNodeSecret), s.nodes.Secret()
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// remoteAddr is the client's address as the limits count it: the one a
// node relaying the request vouches for, or the request's own.
func (s *Server) remoteAddr(r *http.Request) string {
	if a := r.Header.Get(HeaderClientAddr); a != "" && s.fromNode(r) {
		return addrKey(a)
	}
	return clientAddr(r)
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
// side closes; the owner's close code and reason reach the client.
func (c *conn) relay(ctx context.Context, addr string, join []byte) {
	s := c.s
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	h := http.Header{HeaderNodeSecret: {s.nodes.Secret()}, HeaderClientAddr: {c.addr}}
	if c.session != "" {
		// The owner plays the join as the session's player too.
		h.Set("Cookie", (&http.Cookie{Name: SessionCookie, Value: c.session}).String())
	}
	up, _, err := websocket.Dial(dctx, wsURL(addr), &websocket.DialOptions{HTTPHeader: h})
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
	go func() {
		for {
			_, data, err := up.Read(ctx)
			if err != nil {
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
			if !c.Send(room.Frame{Data: data, Type: "relay"}) { // its latency is the owner's to measure
				return
			}
		}
	}()
	for {
		in := c.sock.Next(false)
		if in.Kind != ws.InputMessage {
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
	target, err := url.Parse(addr)
	if err != nil {
		s.log.Error("relay: node address", "addr", addr, "err", err)
		writeNodeUnavailable(w)
		return true
	}
	s.relays.total.Inc()
	client := clientAddr(r)
	p := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Header.Set(HeaderNodeSecret, s.nodes.Secret())
			pr.Out.Header.Set(HeaderClientAddr, client)
		},
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			s.log.Warn("relay: room request", "node", addr, "err", err)
			writeNodeUnavailable(w)
		},
	}
	p.ServeHTTP(w, r)
	return true
}

// writeNodeUnavailable answers that the node owning the room cannot be
// reached: a takeover or a restart will bring the room back in moments.
func writeNodeUnavailable(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "1")
	writeError(w, protocol.CodeUnavailable, "the room's server cannot be reached just now: try again")
}
