package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
)

// Accounts and sessions (docs/protocol.md, "Accounts and sessions"): a
// browser holds a session cookie whose secret names a player, a guest or
// an account; an account signs in with a passkey, a one-time sign-in code
// or a recovery code. The server reads and sets the cookie, checks the
// Origin of what the cookie authenticates, and asks Accounts for the rest.

// Accounts is the accounts service the account routes and the WebSocket
// join ask (package account implements it). Its refusals are
// *protocol.Error (bad_handle, handle_taken, already_account,
// not_signed_in, passkey_failed, bad_code); any other error means it could
// not answer now.
type Accounts interface {
	// Session is the player of the live session whose cookie holds the
	// secret; ErrNoSession when none is live (unknown, expired, ended).
	Session(ctx context.Context, secret string) (SessionPlayer, error)
	// StartSession starts a session of the player and returns its secret
	// and when it expires.
	StartSession(ctx context.Context, playerID string) (NewSession, error)
	// EndSession ends the session; ending one that is not live is no error.
	EndSession(ctx context.Context, secret string) error
	// Account is the account of the player: its handle, when it was made,
	// its passkeys and recovery codes left.
	Account(ctx context.Context, playerID string) (AccountJSON, error)

	// CheckHandle refuses a handle that is no handle or is taken.
	CheckHandle(ctx context.Context, handle string) error
	// SignUpBegin begins making the guest player an account with the
	// handle: the options for navigator.credentials.create().
	SignUpBegin(ctx context.Context, playerID, handle string) (Ceremony, error)
	// SignUpFinish checks the browser's new credential against the
	// ceremony and makes the player an account; it returns the recovery
	// codes, which are shown this once.
	SignUpFinish(ctx context.Context, playerID, ceremony string, credential json.RawMessage) ([]string, error)
	// SignInBegin begins a sign-in with a discoverable passkey.
	SignInBegin(ctx context.Context) (Ceremony, error)
	// SignInFinish checks the browser's assertion and returns the account
	// it signs in to.
	SignInFinish(ctx context.Context, ceremony string, credential json.RawMessage) (playerID string, err error)
	// PasskeyBegin and PasskeyFinish add a passkey to the account.
	PasskeyBegin(ctx context.Context, playerID string) (Ceremony, error)
	PasskeyFinish(ctx context.Context, playerID, ceremony string, credential json.RawMessage) error
	// SignInCode makes a one-time code that signs another browser in to
	// the account, and returns it with when it expires.
	SignInCode(ctx context.Context, playerID string) (code string, expires time.Time, err error)
	// CodeSignIn uses a sign-in code up and returns its account.
	CodeSignIn(ctx context.Context, code string) (playerID string, err error)
	// RecoverySignIn uses one of the account's recovery codes up and
	// returns the account.
	RecoverySignIn(ctx context.Context, handle, code string) (playerID string, err error)
	// DeleteAccount deletes the account, whose handle is typed again as a
	// confirmation: the player stays, nameless, with their results.
	DeleteAccount(ctx context.Context, playerID, handle string) error
	// PutSettings keeps the account's settings, a JSON object of at most
	// MaxSettingsBytes that the browser client reads back with GET
	// /api/me.
	PutSettings(ctx context.Context, playerID string, settings json.RawMessage) error
}

// ErrNoSession: the cookie's secret is no live session's.
var ErrNoSession = errors.New("no live session")

// SessionPlayer is a session's player as GET /api/me shows it: an
// account's name is its handle.
type SessionPlayer struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Guest bool   `json:"guest"`
}

// AccountJSON is an account as GET /api/me shows it.
type AccountJSON struct {
	Handle            string    `json:"handle"`
	CreatedAt         time.Time `json:"created_at"`
	Passkeys          int       `json:"passkeys"`
	RecoveryCodesLeft int       `json:"recovery_codes_left"`
	// Settings are the account's settings as its browser client saved
	// them (POST /api/account/settings); absent until saved.
	Settings json.RawMessage `json:"settings,omitempty"`
}

// NewSession is a session just started: the cookie's secret and when it
// expires.
type NewSession struct {
	Secret  string
	Expires time.Time
}

// Ceremony is a WebAuthn ceremony begun: its id, for the finish, and the
// options for the browser (the library's CredentialCreation or
// CredentialAssertion: {"publicKey": {...}}).
type Ceremony struct {
	ID      string          `json:"ceremony"`
	Options json.RawMessage `json:"options"`
}

// MeResponse is GET /api/me, and the answer of the routes that sign in:
// the session's player (null with no live session) and, for an account,
// the account.
type MeResponse struct {
	Player  *SessionPlayer `json:"player"`
	Account *AccountJSON   `json:"account,omitempty"`
}

// SignUpResponse is POST /api/account/signup/finish: the account, with
// its recovery codes, shown this once.
type SignUpResponse struct {
	Player        *SessionPlayer `json:"player"`
	Account       *AccountJSON   `json:"account"`
	RecoveryCodes []string       `json:"recovery_codes"`
}

// SessionRequest is POST /api/session's body: a name for a new guest, or
// a token to exchange for a session of its player; neither, the session
// there is.
type SessionRequest struct {
	Name  string `json:"name,omitempty"`
	Token string `json:"token,omitempty"`
}

// HandleRequest is the body of POST /api/account/signup/begin and DELETE
// /api/account.
type HandleRequest struct {
	Handle string `json:"handle"`
}

// FinishRequest is the body of a ceremony's finish: its id and the
// browser's PublicKeyCredential.
type FinishRequest struct {
	Ceremony   string          `json:"ceremony"`
	Credential json.RawMessage `json:"credential"`
}

// CodeRequest is POST /api/account/signin/code's and
// /api/account/signin/recovery's body (the handle for the latter only).
type CodeRequest struct {
	Handle string `json:"handle,omitempty"`
	Code   string `json:"code"`
}

// LinkResponse is POST /api/account/link: a one-time sign-in code and the
// link that carries it (in the fragment, which is never sent to a
// server).
type LinkResponse struct {
	Code      string    `json:"code"`
	URL       string    `json:"url"`
	ExpiresAt time.Time `json:"expires_at"`
}

// maxAccountBody is the most of an account route's body that is read: a
// credential with its attestation fits well within it.
const maxAccountBody = 64 << 10

// SetAccounts gives the server its accounts; until it is set the account
// routes answer 503 unavailable and WebSockets ignore session cookies.
// Call it before serving.
func (s *Server) SetAccounts(a Accounts) { s.accounts = a }

// accountRoutes registers the routes of accounts and sessions.
func (s *Server) accountRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/me", s.getMe)
	mux.HandleFunc("POST /api/session", s.postSession)
	mux.HandleFunc("POST /api/account/signup/begin", s.signUpBegin)
	mux.HandleFunc("POST /api/account/signup/finish", s.signUpFinish)
	mux.HandleFunc("POST /api/account/signin/begin", s.signInBegin)
	mux.HandleFunc("POST /api/account/signin/finish", s.signInFinish)
	mux.HandleFunc("POST /api/account/passkeys/begin", s.passkeyBegin)
	mux.HandleFunc("POST /api/account/passkeys/finish", s.passkeyFinish)
	mux.HandleFunc("POST /api/account/link", s.link)
	mux.HandleFunc("POST /api/account/signin/code", s.codeSignIn)
	mux.HandleFunc("POST /api/account/signin/recovery", s.recoverySignIn)
	mux.HandleFunc("POST /api/account/signout", s.signOut)
	mux.HandleFunc("DELETE /api/account", s.deleteAccount)
	mux.HandleFunc("POST /api/account/settings", s.putSettings)
}

// accountReq is what an account route has read of its request: the
// session's secret and player (Player.ID "" for none).
type accountReq struct {
	secret string
	player SessionPlayer
}

// startAccount begins every account route that changes something: the
// accounts are there, the Origin is allowed when the request carries the
// cookie (or carries a foreign Origin: a page elsewhere may not sign a
// browser in either), and the body, of at most maxAccountBody bytes, is
// one JSON object that decodes into body (nil: no body is read). It reads
// the session. It answers false, having written the refusal.
func (s *Server) startAccount(w http.ResponseWriter, r *http.Request, body any) (accountReq, bool) {
	var ar accountReq
	if s.accounts == nil {
		s.log.Error("accounts: SetAccounts was not called")
		writeError(w, protocol.CodeUnavailable, "accounts are not available on this server")
		return ar, false
	}
	ar.secret = sessionSecret(r)
	if (ar.secret != "" || r.Header.Get("Origin") != "") && !s.originAllowed(r) {
		writeError(w, protocol.CodeBadOrigin, "this request must come from the site's own pages (its Origin is not allowed)")
		return ar, false
	}
	if body != nil {
		const want = "the body must be one JSON object"
		data, rerr := readBody(r.Body, maxAccountBody, want)
		if rerr == nil && len(strings.TrimSpace(string(data))) > 0 && protocol.DecodeObject(data, body, true) != nil {
			rerr = protocol.Errorf(protocol.CodeBadJSON, "%s with the fields docs/protocol.md lists for this route", want)
		}
		if rerr != nil {
			writeRefusal(w, rerr)
			return ar, false
		}
	}
	if ar.secret != "" {
		p, err := s.accounts.Session(r.Context(), ar.secret)
		switch {
		case errors.Is(err, ErrNoSession):
			ar.secret = ""
		case err != nil:
			s.accountsUnavailable(w, "session", err)
			return ar, false
		default:
			ar.player = p
		}
	}
	return ar, true
}

// needAccount answers not_signed_in, and false, unless the session is an
// account's.
func needAccount(w http.ResponseWriter, ar accountReq) bool {
	if ar.player.ID == "" || ar.player.Guest {
		writeError(w, protocol.CodeNotSignedIn, "sign in to your account first")
		return false
	}
	return true
}

// accountsUnavailable answers 503 when the accounts could not answer, and
// logs why.
func (s *Server) accountsUnavailable(w http.ResponseWriter, what string, err error) {
	s.log.Error("accounts: "+what, "err", err)
	writeError(w, protocol.CodeUnavailable, "accounts cannot be reached just now: try again")
}

// accountError answers an error of Accounts: its refusal, or 503.
func (s *Server) accountError(w http.ResponseWriter, what string, err error) {
	var re *protocol.Error
	if errors.As(err, &re) {
		writeRefusal(w, re)
		return
	}
	s.accountsUnavailable(w, what, err)
}

// me is the player's answer: the player and, for an account, the account.
func (s *Server) me(ctx context.Context, p SessionPlayer) (MeResponse, error) {
	resp := MeResponse{Player: &p}
	if !p.Guest {
		a, err := s.accounts.Account(ctx, p.ID)
		if err != nil {
			return MeResponse{}, err
		}
		resp.Account = &a
	}
	return resp, nil
}

// signIn starts a session of the player for this browser, in place of the
// one it had, and answers with the player.
func (s *Server) signIn(w http.ResponseWriter, r *http.Request, ar accountReq, playerID string) {
	ctx := r.Context()
	ns, err := s.accounts.StartSession(ctx, playerID)
	if err != nil {
		s.accountError(w, "start session", err)
		return
	}
	if ar.secret != "" {
		if err := s.accounts.EndSession(ctx, ar.secret); err != nil {
			s.log.Warn("accounts: end the replaced session", "err", err)
		}
	}
	p, err := s.accounts.Session(ctx, ns.Secret)
	var resp MeResponse
	if err == nil {
		resp, err = s.me(ctx, p)
	}
	if err != nil {
		s.accountError(w, "signed in", err)
		return
	}
	s.setSession(w, ns)
	writeJSON(w, http.StatusOK, resp)
}

// getMe is GET /api/me.
func (s *Server) getMe(w http.ResponseWriter, r *http.Request) {
	secret := sessionSecret(r)
	if s.accounts == nil || secret == "" {
		writeJSON(w, http.StatusOK, MeResponse{})
		return
	}
	p, err := s.accounts.Session(r.Context(), secret)
	if errors.Is(err, ErrNoSession) {
		writeJSON(w, http.StatusOK, MeResponse{})
		return
	}
	var resp MeResponse
	if err == nil {
		resp, err = s.me(r.Context(), p)
	}
	if err != nil {
		s.accountError(w, "me", err)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

// postSession is POST /api/session: a token exchanged for a session of
// its player, the session there is, or a new guest with a session.
func (s *Server) postSession(w http.ResponseWriter, r *http.Request) {
	var req SessionRequest
	ar, ok := s.startAccount(w, r, &req)
	if !ok {
		return
	}
	ctx := r.Context()
	switch {
	case req.Token != "":
		if len(req.Token) > protocol.MaxTokenLen {
			writeError(w, protocol.CodeBadToken, "the token is not a player's")
			return
		}
		id, _, _, err := s.playerByToken(ctx, HashToken(req.Token))
		if errors.Is(err, room.ErrUnknownPlayer) {
			writeError(w, protocol.CodeBadToken, "the token is not a player's")
			return
		}
		if err != nil {
			s.accountsUnavailable(w, "player by token", err)
			return
		}
		s.signIn(w, r, ar, id)
	case ar.player.ID != "":
		resp, err := s.me(ctx, ar.player)
		if err != nil {
			s.accountError(w, "me", err)
			return
		}
		writeJSON(w, http.StatusOK, resp)
	default:
		id, perr := s.newGuest(r, req.Name)
		if perr != nil {
			writeRefusal(w, perr)
			return
		}
		s.signIn(w, r, ar, id)
	}
}

// newGuest stores a new guest player with the name, as a join without a
// token does, and returns their id.
func (s *Server) newGuest(r *http.Request, name string) (string, *protocol.Error) {
	name, perr := protocol.CleanName(name)
	if perr != nil {
		return "", perr
	}
	if name == "" {
		return "", protocol.Errorf(protocol.CodeBadName, "a name is needed for a new player")
	}
	if !s.newPlayers.allow(s.remoteAddr(r), s.clock.Now()) {
		return "", protocol.Errorf(protocol.CodeRateLimited, "too many new players from this address: wait a minute")
	}
	id := newMemberID("p_")
	// The guest's token is never given out: the cookie is their identity.
	if err := s.players.CreatePlayer(r.Context(), id, name, HashToken(newToken())); err != nil {
		s.log.Error("accounts: create guest", "err", err)
		return "", protocol.Errorf(protocol.CodeUnavailable, "the server cannot add players just now: try again")
	}
	return id, nil
}

// signUpBegin is POST /api/account/signup/begin: the guest of the session
// (a new one named after the handle when there is none) begins to become
// an account.
func (s *Server) signUpBegin(w http.ResponseWriter, r *http.Request) {
	var req HandleRequest
	ar, ok := s.startAccount(w, r, &req)
	if !ok {
		return
	}
	ctx := r.Context()
	if ar.player.ID != "" && !ar.player.Guest {
		writeError(w, protocol.CodeAlreadyAccount, "this browser is signed in to an account already: sign out first")
		return
	}
	if ar.player.ID == "" {
		// Nothing is stored for a handle that would be refused.
		if err := s.accounts.CheckHandle(ctx, req.Handle); err != nil {
			s.accountError(w, "check handle", err)
			return
		}
		id, perr := s.newGuest(r, req.Handle)
		if perr != nil {
			writeRefusal(w, perr)
			return
		}
		ns, err := s.accounts.StartSession(ctx, id)
		if err != nil {
			s.accountError(w, "start session", err)
			return
		}
		// The browser keeps its new guest whatever happens next.
		s.setSession(w, ns)
		ar.player.ID = id
	}
	c, err := s.accounts.SignUpBegin(ctx, ar.player.ID, req.Handle)
	if err != nil {
		s.accountError(w, "sign-up begin", err)
		return
	}
	writeJSON(w, http.StatusOK, c)
}

// signUpFinish is POST /api/account/signup/finish.
func (s *Server) signUpFinish(w http.ResponseWriter, r *http.Request) {
	var req FinishRequest
	ar, ok := s.startAccount(w, r, &req)
	if !ok {
		return
	}
	if ar.player.ID == "" {
		writeError(w, protocol.CodePasskeyFailed, "the sign-up has no session: begin again")
		return
	}
	ctx := r.Context()
	codes, err := s.accounts.SignUpFinish(ctx, ar.player.ID, req.Ceremony, req.Credential)
	if err != nil {
		s.accountError(w, "sign-up finish", err)
		return
	}
	// The guest's session becomes an account's: a new secret for it.
	ns, err := s.accounts.StartSession(ctx, ar.player.ID)
	var p SessionPlayer
	if err == nil {
		p, err = s.accounts.Session(ctx, ns.Secret)
	}
	var resp MeResponse
	if err == nil {
		resp, err = s.me(ctx, p)
	}
	if err != nil {
		s.accountError(w, "signed up", err)
		return
	}
	if err := s.accounts.EndSession(ctx, ar.secret); err != nil {
		s.log.Warn("accounts: end the guest's session", "err", err)
	}
	s.setSession(w, ns)
	writeJSON(w, http.StatusOK, SignUpResponse{Player: resp.Player, Account: resp.Account, RecoveryCodes: codes})
}

// signInBegin is POST /api/account/signin/begin.
func (s *Server) signInBegin(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.startAccount(w, r, &struct{}{}); !ok {
		return
	}
	c, err := s.accounts.SignInBegin(r.Context())
	if err != nil {
		s.accountError(w, "sign-in begin", err)
		return
	}
	writeJSON(w, http.StatusOK, c)
}

// signInFinish is POST /api/account/signin/finish.
func (s *Server) signInFinish(w http.ResponseWriter, r *http.Request) {
	var req FinishRequest
	ar, ok := s.startAccount(w, r, &req)
	if !ok {
		return
	}
	id, err := s.accounts.SignInFinish(r.Context(), req.Ceremony, req.Credential)
	if err != nil {
		s.accountError(w, "sign-in finish", err)
		return
	}
	s.signIn(w, r, ar, id)
}

// passkeyBegin is POST /api/account/passkeys/begin.
func (s *Server) passkeyBegin(w http.ResponseWriter, r *http.Request) {
	ar, ok := s.startAccount(w, r, &struct{}{})
	if !ok || !needAccount(w, ar) {
		return
	}
	c, err := s.accounts.PasskeyBegin(r.Context(), ar.player.ID)
	if err != nil {
		s.accountError(w, "passkey begin", err)
		return
	}
	writeJSON(w, http.StatusOK, c)
}

// passkeyFinish is POST /api/account/passkeys/finish.
func (s *Server) passkeyFinish(w http.ResponseWriter, r *http.Request) {
	var req FinishRequest
	ar, ok := s.startAccount(w, r, &req)
	if !ok || !needAccount(w, ar) {
		return
	}
	ctx := r.Context()
	err := s.accounts.PasskeyFinish(ctx, ar.player.ID, req.Ceremony, req.Credential)
	var resp MeResponse
	if err == nil {
		resp, err = s.me(ctx, ar.player)
	}
	if err != nil {
		s.accountError(w, "passkey finish", err)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

// link is POST /api/account/link.
func (s *Server) link(w http.ResponseWriter, r *http.Request) {
	ar, ok := s.startAccount(w, r, &struct{}{})
	if !ok || !needAccount(w, ar) {
		return
	}
	code, expires, err := s.accounts.SignInCode(r.Context(), ar.player.ID)
	if err != nil {
		s.accountError(w, "sign-in code", err)
		return
	}
	writeJSON(w, http.StatusOK, LinkResponse{Code: code, URL: s.baseURL(r) + "/signin#" + code, ExpiresAt: expires.UTC()})
}

// codeSignIn is POST /api/account/signin/code.
func (s *Server) codeSignIn(w http.ResponseWriter, r *http.Request) {
	var req CodeRequest
	ar, ok := s.startAccount(w, r, &req)
	if !ok {
		return
	}
	id, err := s.accounts.CodeSignIn(r.Context(), req.Code)
	if err != nil {
		s.accountError(w, "code sign-in", err)
		return
	}
	s.signIn(w, r, ar, id)
}

// recoverySignIn is POST /api/account/signin/recovery.
func (s *Server) recoverySignIn(w http.ResponseWriter, r *http.Request) {
	var req CodeRequest
	ar, ok := s.startAccount(w, r, &req)
	if !ok {
		return
	}
	id, err := s.accounts.RecoverySignIn(r.Context(), req.Handle, req.Code)
	if err != nil {
		s.accountError(w, "recovery sign-in", err)
		return
	}
	s.signIn(w, r, ar, id)
}

// signOut is POST /api/account/signout: the session ends, whoever's it is.
func (s *Server) signOut(w http.ResponseWriter, r *http.Request) {
	ar, ok := s.startAccount(w, r, nil)
	if !ok {
		return
	}
	if ar.secret != "" {
		if err := s.accounts.EndSession(r.Context(), ar.secret); err != nil {
			s.accountError(w, "sign out", err)
			return
		}
	}
	s.clearSession(w)
	w.WriteHeader(http.StatusNoContent)
}

// deleteAccount is DELETE /api/account.
func (s *Server) deleteAccount(w http.ResponseWriter, r *http.Request) {
	var req HandleRequest
	ar, ok := s.startAccount(w, r, &req)
	if !ok || !needAccount(w, ar) {
		return
	}
	if err := s.accounts.DeleteAccount(r.Context(), ar.player.ID, req.Handle); err != nil {
		s.accountError(w, "delete account", err)
		return
	}
	s.log.Info("account deleted", "player", ar.player.ID)
	s.clearSession(w)
	w.WriteHeader(http.StatusNoContent)
}

// wsSession is the session cookie's secret of a WebSocket upgrade, which a
// join without a token then plays as: "" when there is no cookie, no
// accounts, or no Origin (not a browser: scripts join with tokens). A
// cookie from an Origin that is not allowed is refused with 403
// bad_origin, and false. A node relaying a join passes the cookie on; the
// first node checked its Origin.
func (s *Server) wsSession(w http.ResponseWriter, r *http.Request) (string, bool) {
	secret := sessionSecret(r)
	switch {
	case secret == "" || s.accounts == nil:
		return "", true
	case s.fromNode(r):
		return secret, true
	case r.Header.Get("Origin") == "":
		return "", true
	case !s.originAllowed(r):
		s.log.Debug("websocket: a session cookie from a foreign origin", "origin", r.Header.Get("Origin"))
		writeError(w, protocol.CodeBadOrigin, "a WebSocket with the session cookie must come from the site's own pages")
		return "", false
	}
	return secret, true
}

// sessionPlayer is the player of the connection's session cookie; nil
// when the session is no longer live (the join then makes a new player).
func (c *conn) sessionPlayer(ctx context.Context) (*SessionPlayer, *protocol.Error) {
	p, err := c.s.accounts.Session(ctx, c.session)
	if errors.Is(err, ErrNoSession) {
		return nil, nil
	}
	if err != nil {
		c.s.log.Error("join: session", "err", err)
		return nil, protocol.Errorf(protocol.CodeUnavailable, "the server cannot check sessions just now: try again")
	}
	return &p, nil
}

// cookiePlayer is the player of the request's session cookie, or "" for
// none (no cookie, no live session): the reads that show the caller's
// own rows ask it.
func (s *Server) cookiePlayer(r *http.Request) (string, error) {
	secret := sessionSecret(r)
	if secret == "" || s.accounts == nil {
		return "", nil
	}
	p, err := s.accounts.Session(r.Context(), secret)
	if errors.Is(err, ErrNoSession) {
		return "", nil
	}
	return p.ID, err
}
