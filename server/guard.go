package server

import (
	"mime"
	"net/http"
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

// guard wraps the routes: it sets the security headers on every answer
// before the route (or a refusal) writes it, and refuses, before any route
// reads it, a POST or DELETE of the API that is not JSON.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		for _, kv := range securityHeaders {
			h.Set(kv[0], kv[1])
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
