package server

import (
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/sudoku-arena/arena/protocol"
)

// The session cookie, and the origins that may act with it.

// SessionCookie is the cookie that holds a session's secret.
const SessionCookie = "arena_session"

// SessionLifetime is how long a session lasts, from its start: fixed, not
// renewed by use.
const SessionLifetime = 180 * 24 * time.Hour

// sessionSecret is the session cookie's secret, or "" for none.
func sessionSecret(r *http.Request) string {
	c, err := r.Cookie(SessionCookie)
	if err != nil || len(c.Value) > protocol.MaxTokenLen {
		return ""
	}
	return c.Value
}

// setSession gives the browser the session's cookie.
func (s *Server) setSession(w http.ResponseWriter, ns NewSession) {
	http.SetCookie(w, &http.Cookie{
		Name: SessionCookie, Value: ns.Secret, Path: "/",
		MaxAge: int(SessionLifetime / time.Second), Expires: ns.Expires,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.secureCookie(),
	})
}

// clearSession takes the session cookie from the browser.
func (s *Server) clearSession(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{
		Name: SessionCookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.secureCookie(),
	})
}

// secureCookie: the cookie goes over HTTPS only when PUBLIC_URL is https.
func (s *Server) secureCookie() bool { return strings.HasPrefix(s.cfg.PublicURL, "https://") }

// originAllowed reports whether the request's Origin may act with the
// session cookie: PUBLIC_URL's origin (without PUBLIC_URL, the request's
// own host), or one ALLOWED_ORIGINS matches. A request without an Origin
// is not allowed: browsers send one with every POST, DELETE and
// WebSocket.
func (s *Server) originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if s.cfg.PublicURL != "" {
		if p, err := url.Parse(s.cfg.PublicURL); err == nil && strings.EqualFold(p.Scheme, u.Scheme) && strings.EqualFold(p.Host, u.Host) {
			return true
		}
	} else if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	for _, p := range s.cfg.AllowedOrigins {
		target := u.Host
		if strings.Contains(p, "://") {
			target = u.Scheme + "://" + u.Host
		}
		if ok, err := path.Match(strings.ToLower(p), strings.ToLower(target)); err == nil && ok {
			return true
		}
	}
	return false
}

// wsOrigins are the patterns of the origins that may open WebSockets
// beside the request's own host: ALLOWED_ORIGINS, and PUBLIC_URL's origin
// (a proxy may pass the request on under another host).
func wsOrigins(cfg Config) []string {
	u, err := url.Parse(cfg.PublicURL)
	if cfg.PublicURL == "" || err != nil || u.Host == "" {
		return cfg.AllowedOrigins
	}
	return append(slices.Clone(cfg.AllowedOrigins), u.Scheme+"://"+u.Host)
}
