package server

import "net/http"

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

// guard wraps the routes: it sets the security headers on every answer
// before the route (or a refusal) writes it.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		for _, kv := range securityHeaders {
			h.Set(kv[0], kv[1])
		}
		next.ServeHTTP(w, r)
	})
}
