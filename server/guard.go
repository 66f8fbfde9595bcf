package server

import (
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/sudoku-arena/arena/protocol"
)

// The web defaults every answer of the public listener carries, whatever
// its route: the web client's pages and files, the JSON API, the health
// probes and the refusals below (docs/protocol.md, "HTTP API").

// ContentSecurityPolicy is the policy of every answer. The client's pages
// load their scripts, styles, images and WebSocket from the site itself
// ('self' covers ws: and wss: on the same host); nothing inline, nothing
// from elsewhere, no page may frame them, and no form may post elsewhere.
const ContentSecurityPolicy = "default-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'"

// securityHeaders are the headers guard sets on every answer.
var securityHeaders = [][2]string{
	{"Content-Security-Policy", ContentSecurityPolicy},
	{"X-Content-Type-Options", "nosniff"},
	{"Referrer-Policy", "same-origin"},
	{"X-Frame-Options", "DENY"},
}

// guard wraps the routes: it first checks whether the request is one
// another node relayed (trustRelay), then sets the security headers on
// every answer before the route (or a refusal) writes it, and refuses,
// before any route reads it, a request for another host than PUBLIC_URL's
// and a POST or DELETE of the API that is not JSON.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = s.trustRelay(w, r)
		h := w.Header()
		for _, kv := range securityHeaders {
			h.Set(kv[0], kv[1])
		}
		if !s.hostAllowed(r) {
			writeError(w, protocol.CodeWrongHost, "this server answers for "+s.publicHost+" only (its PUBLIC_URL)")
			return
		}
		if (r.Method == http.MethodPost || r.Method == http.MethodDelete) && strings.HasPrefix(r.URL.Path, "/api/") && !isJSON(r) {
			writeError(w, protocol.CodeBadContentType, "a "+r.Method+" to the API must send Content-Type: application/json")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// isJSON reports whether the request says its body is JSON. A page of
// another site can make a browser POST without asking first (a "simple"
// request: a form, or a fetch without preflight) only as text/plain, a
// form's urlencoded data or multipart; requiring application/json makes
// the browser ask the server first, and the server allows no other
// origin, so such a request never reaches a route.
func isJSON(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "application/json"
}

// hostAllowed reports whether the request may be answered for the host it
// names. With PUBLIC_URL set, the site is PUBLIC_URL's host alone: a
// request whose Host names another (a name the server was not set up for,
// its bare IP address, a rebinding attacker's domain) is refused with 421,
// so that no page, link or session is made under a host the site does not
// own. The probes, which an orchestrator sends to the node's own address,
// and what another node relays (proved by its MAC: the nodes dial
// NODE_ADDR) are answered whatever their Host. Without PUBLIC_URL any Host
// is answered, and share links are made from it.
func (s *Server) hostAllowed(r *http.Request) bool {
	if s.publicHost == "" || hostKey(r.Host, s.publicScheme) == s.publicHost {
		return true
	}
	switch r.URL.Path {
	case "/livez", "/readyz", "/healthz":
		return true
	}
	return s.fromNode(r)
}

// publicHost is the host of PUBLIC_URL as hostKey writes it, and its
// scheme; "" for none.
func publicHost(publicURL string) (host, scheme string) {
	u, err := url.Parse(publicURL)
	if publicURL == "" || err != nil || u.Host == "" {
		return "", ""
	}
	return hostKey(u.Host, u.Scheme), u.Scheme
}

// hostKey is a Host (host, or host:port) as the host check compares it:
// in lower case, without a trailing dot on the name, and without the port
// that is the default of the scheme (443 for https, 80 for http), which
// browsers leave out.
func hostKey(host, scheme string) string {
	host = strings.ToLower(host)
	name, port, err := net.SplitHostPort(host)
	if err != nil {
		name, port = strings.Trim(host, "[]"), ""
	}
	name = strings.TrimSuffix(name, ".")
	if (port == "443" && scheme == "https") || (port == "80" && scheme == "http") {
		port = ""
	}
	if port != "" {
		return net.JoinHostPort(name, port)
	}
	if strings.Contains(name, ":") {
		return "[" + name + "]" // an IPv6 address
	}
	return name
}
