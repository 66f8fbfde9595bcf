package server

// How the nodes trust one another. A node relays a join or a room request
// to the room's owner and vouches for the client's address, which the
// owner's per-address limits then count: whoever could pose as a node
// could pose as any address. So a request is a node's only when it carries
// a MAC keyed by NODE_SECRET over what it asks (method, path and query),
// the relaying node's id, the time and the client address; the time is
// within RelayWindow of the owner's clock (a recorded request soon goes
// stale); the id is a registered node's (Nodes.Peers); and the request
// comes from an address that node's NODE_ADDR host resolves to. Anything
// else is a client's, whatever headers it sends, with nothing said about
// which check failed (a debug log line says it). The owner proves itself
// in turn: its answer carries a MAC over the request's, so that a node
// relays only to a node that knows the secret.

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// The headers of a relay between nodes: a node sets the four on what it
// relays, and the owner answers with HeaderNode (its own id) and
// HeaderMAC (its proof). A balancer in front of the nodes clears each
// one a client sends (deploy/nginx.conf).
const (
	HeaderNode       = "X-Arena-Node"
	HeaderTime       = "X-Arena-Time" // Unix milliseconds, in decimal
	HeaderClientAddr = "X-Arena-Client-Addr"
	HeaderMAC        = "X-Arena-Mac"
)

// RelayHeaders are the headers a node reads on a request from another.
var RelayHeaders = []string{HeaderNode, HeaderTime, HeaderClientAddr, HeaderMAC}

// RelayWindow is how far a relay's time may be from the owner's clock,
// either way: the nodes' clocks must agree within it.
const RelayWindow = 30 * time.Second

// How long what the checks look up is kept. A miss (a node not in the
// list, an address its host did not resolve to) looks again, but not
// more often than the retry: only a request with a good MAC gets that
// far, so a client cannot make a node query its database or DNS.
const (
	peersFresh    = 5 * time.Second
	peersRetry    = 500 * time.Millisecond
	hostsFresh    = 30 * time.Second
	hostsRetry    = time.Second
	lookupTimeout = 2 * time.Second
)

// RelayMAC is the MAC a relayed request carries: HMAC-SHA256 keyed by the
// nodes' secret over the method, the request URI (path and query), the
// relaying node's id, the time as HeaderTime gives it (at) and the client
// address, joined by newlines, in unpadded base64url. None of them can
// hold a newline, so no two requests share what is signed.
func RelayMAC(secret, method, uri, node, at, client string) string {
	return mac(secret, method, uri, node, at, client)
}

// OwnerMAC is the owner's proof on its answer: the MAC over the request's
// MAC and the owner's id.
func OwnerMAC(secret, requestMAC, owner string) string {
	return mac(secret, requestMAC, owner)
}

func mac(secret string, parts ...string) string {
	h := hmac.New(sha256.New, []byte(secret))
	for i, p := range parts {
		if i > 0 {
			h.Write([]byte{'\n'})
		}
		h.Write([]byte(p))
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// errNoProof: the node a relay reached did not answer with the owner's
// proof, so it cannot be told from something else at that address.
var errNoProof = errors.New("the node did not prove itself (no or a wrong " + HeaderMAC +
	" on its answer): is NODE_SECRET the same on every node, and are their clocks within 30 s?")

// relayed is what a node's request proved: the node, the client address
// it vouches for, and its MAC (which the owner's proof covers).
type relayed struct {
	node, client, mac string
}

type relayKey struct{}

// nodeAuth signs this node's relays and checks the others'.
type nodeAuth struct {
	secret, self string
	clock        Clock
	log          *slog.Logger
	peers        *lookups[map[string]string] // by "": the registered nodes
	hosts        *lookups[[]netip.Addr]      // by host: its addresses
}

func newNodeAuth(n Nodes, clock Clock, log *slog.Logger) *nodeAuth {
	return &nodeAuth{
		secret: n.Secret(), self: n.ID(), clock: clock, log: log,
		peers: newLookups(clock, peersFresh, peersRetry, func(ctx context.Context, _ string) (map[string]string, error) {
			return n.Peers(ctx)
		}),
		hosts: newLookups(clock, hostsFresh, hostsRetry, lookupHost),
	}
}

// lookupHost is the addresses host resolves to.
func lookupHost(ctx context.Context, host string) ([]netip.Addr, error) {
	names, err := net.DefaultResolver.LookupHost(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("look up %s: %w", host, err)
	}
	var addrs []netip.Addr
	for _, n := range names {
		if a, err := netip.ParseAddr(n); err == nil {
			addrs = append(addrs, a.WithZone("").Unmap())
		}
	}
	return addrs, nil
}

// sign sets the relay headers on h for a request of method for uri that
// this node relays for client, and returns its MAC.
func (a *nodeAuth) sign(h http.Header, method, uri, client string) string {
	at := strconv.FormatInt(a.clock.Now().UnixMilli(), 10)
	m := RelayMAC(a.secret, method, uri, a.self, at, client)
	h.Set(HeaderNode, a.self)
	h.Set(HeaderTime, at)
	h.Set(HeaderClientAddr, client)
	h.Set(HeaderMAC, m)
	return m
}

// checkOwner checks the proof on the answer to a relay whose MAC was
// requestMAC.
func (a *nodeAuth) checkOwner(h http.Header, requestMAC string) error {
	owner := h.Get(HeaderNode)
	if owner == "" || !hmac.Equal([]byte(h.Get(HeaderMAC)), []byte(OwnerMAC(a.secret, requestMAC, owner))) {
		return errNoProof
	}
	return nil
}

// verify is what r proves of the node that relayed it; false: r is a
// client's.
func (a *nodeAuth) verify(r *http.Request) (relayed, bool) {
	h := r.Header
	rel := relayed{node: h.Get(HeaderNode), client: h.Get(HeaderClientAddr), mac: h.Get(HeaderMAC)}
	if why := a.check(r, rel, h.Get(HeaderTime)); why != "" {
		a.log.Debug("relay headers not believed: the request is a client's", "why", why, "remote", r.RemoteAddr, "node", rel.node)
		return relayed{}, false
	}
	return rel, true
}

// check says why r is not the relay rel it says it is ("": it is).
func (a *nodeAuth) check(r *http.Request, rel relayed, at string) string {
	ms, err := strconv.ParseInt(at, 10, 64)
	if err != nil {
		return "no time"
	}
	if d := a.clock.Now().Sub(time.UnixMilli(ms)); d > RelayWindow || d < -RelayWindow {
		return "its time is " + d.Round(time.Millisecond).String() + " off"
	}
	if !hmac.Equal([]byte(rel.mac), []byte(RelayMAC(a.secret, r.Method, r.RequestURI, rel.node, at, rel.client))) {
		return "a wrong MAC"
	}
	// The look-ups serve every request that waits on them: one client
	// leaving does not cut them short.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), lookupTimeout)
	defer cancel()
	peers := a.peers.get(ctx, "", func(p map[string]string) bool { _, ok := p[rel.node]; return ok }, a.log)
	base, ok := peers[rel.node]
	if !ok {
		return "not a registered node"
	}
	from, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return "no remote address"
	}
	ip := from.Addr().WithZone("").Unmap()
	u, err := url.Parse(base)
	if err != nil {
		return "the node's address is not a URL"
	}
	if lit, err := netip.ParseAddr(u.Hostname()); err == nil {
		if lit.WithZone("").Unmap() != ip {
			return "not from the node's address"
		}
		return ""
	}
	if !slices.Contains(a.hosts.get(ctx, u.Hostname(), func(addrs []netip.Addr) bool { return slices.Contains(addrs, ip) }, a.log), ip) {
		return "not from an address of the node's host"
	}
	return ""
}

// trustRelay is r, with what it proves of the node that relayed it in its
// context when it is a node's (fromNode and remoteAddr read it), and the
// owner's proof set on the answer. The routes' guard calls it first.
func (s *Server) trustRelay(w http.ResponseWriter, r *http.Request) *http.Request {
	if s.auth == nil || r.Header.Get(HeaderMAC) == "" {
		return r
	}
	rel, ok := s.auth.verify(r)
	if !ok {
		return r
	}
	w.Header().Set(HeaderNode, s.auth.self)
	w.Header().Set(HeaderMAC, OwnerMAC(s.auth.secret, rel.mac, s.auth.self))
	return r.WithContext(context.WithValue(r.Context(), relayKey{}, rel))
}

// fromNode reports whether the request comes from another node, as
// trustRelay found.
func (s *Server) fromNode(r *http.Request) bool {
	_, ok := r.Context().Value(relayKey{}).(relayed)
	return ok
}

// remoteAddr is the client's address as the limits count it: the one a
// node relaying the request vouches for, or the request's own.
func (s *Server) remoteAddr(r *http.Request) string {
	if rel, ok := r.Context().Value(relayKey{}).(relayed); ok && rel.client != "" {
		return addrKey(rel.client)
	}
	return clientAddr(r)
}

// dialOwner opens the relay's WebSocket to the node at addr for the
// client at client (with the session cookie's secret, when there is
// one), signed as this node's, and checks that the node proved itself.
func (s *Server) dialOwner(ctx context.Context, addr, client, session string) (*websocket.Conn, error) {
	target := wsURL(addr)
	u, err := url.Parse(target)
	if err != nil {
		return nil, fmt.Errorf("the node's address: %w", err)
	}
	h := http.Header{}
	m := s.auth.sign(h, http.MethodGet, u.RequestURI(), client)
	if session != "" {
		// The owner plays the join as the session's player too.
		h.Set("Cookie", (&http.Cookie{Name: SessionCookie, Value: session}).String())
	}
	up, resp, err := websocket.Dial(ctx, target, &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		return nil, err
	}
	if err := s.auth.checkOwner(resp.Header, m); err != nil {
		_ = up.CloseNow()
		return nil, err
	}
	return up, nil
}

// lookups keeps what a slow look-up (the database, DNS) answered, by key:
// an answer is asked again once it is fresh old, or, when it lacks what
// is sought, once it is retry old. One look-up runs at a time; a failed
// one keeps the last answer.
type lookups[V any] struct {
	clock        Clock
	fresh, retry time.Duration
	look         func(ctx context.Context, key string) (V, error)

	load sync.Mutex // held while a look-up runs
	mu   sync.Mutex
	m    map[string]lookup[V]
}

type lookup[V any] struct {
	v  V
	at time.Time // when it was asked for, answered or not
}

func newLookups[V any](clock Clock, fresh, retry time.Duration, look func(context.Context, string) (V, error)) *lookups[V] {
	return &lookups[V]{clock: clock, fresh: fresh, retry: retry, look: look, m: map[string]lookup[V]{}}
}

// get is the answer for key: the one kept, unless it is fresh old, or it
// is retry old and has (what is sought) says it lacks it; then a new one.
func (l *lookups[V]) get(ctx context.Context, key string, has func(V) bool, log *slog.Logger) V {
	if v, ok := l.kept(key, has); ok {
		return v
	}
	l.load.Lock()
	defer l.load.Unlock()
	if v, ok := l.kept(key, has); ok {
		return v // looked up while this one waited
	}
	v, err := l.look(ctx, key)
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.m[key]
	if err == nil {
		e.v = v
	} else {
		log.Warn("relay check: look-up failed; the last answer stands", "key", key, "err", err)
	}
	e.at = l.clock.Now()
	l.m[key] = e
	return e.v
}

// kept is the answer kept for key, and whether it will do.
func (l *lookups[V]) kept(key string, has func(V) bool) (V, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.m[key]
	if !ok {
		return e.v, false
	}
	age := l.clock.Now().Sub(e.at)
	return e.v, age < l.fresh && (age < l.retry || has(e.v))
}
