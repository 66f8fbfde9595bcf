package server_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/account"
	"github.com/sudoku-arena/arena/daily"
	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/sqlite"
	"github.com/sudoku-arena/arena/web"
)

// acctEnv is a real server with real accounts over the embedded SQLite
// store (its players, sessions, passkeys and codes), on a loopback port
// whose site is http://localhost:PORT (a relying party ID must be a host
// name), and its clock moved by hand.
type acctEnv struct {
	*env
	st     *sqlite.Store
	clk    *server.FakeClock
	origin string // the site's origin: PUBLIC_URL
}

func newAcctEnv(t *testing.T) *acctEnv {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "arena.db"))
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	origin := fmt.Sprintf("http://localhost:%d", ln.Addr().(*net.TCPAddr).Port)

	logger := slog.New(slog.NewTextHandler(tbWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	clk := server.NewFakeClock(time.Now())
	cfg := server.Config{RateLimit: 1000, RateBurst: 1000, PublicURL: origin}
	server.WithFakeClock(clk)(&cfg)
	cfg.Rooms.Logger = logger
	cfg = cfg.WithDefaults()
	k := newKept()
	rooms := room.NewRegistry(cfg.Rooms, k.rooms)
	srv := server.New(cfg, rooms, &store.Adapter{Store: st, Logger: logger}, web.FS(), logger)
	srv.SetDailies(&daily.Service{Store: st})
	srv.SetAccounts(account.New(account.Config{PublicURL: origin, Clock: clk, Logger: logger}, st))
	hs := httptest.NewUnstartedServer(srv.Handler())
	hs.Listener.Close()
	hs.Listener = ln
	hs.Config = srv.HTTPServer()
	hs.Start()
	hs.URL = origin // the site's host: the server answers for no other
	e := &env{tb: t, kept: k, rooms: rooms, srv: srv, http: hs}
	t.Cleanup(e.stop)
	return &acctEnv{env: e, st: st, clk: clk, origin: origin}
}

// race makes a race room and returns its id (its link is on the site's
// origin, not the loopback address the tests dial).
func (e *acctEnv) race() string {
	e.tb.Helper()
	var out server.CreateRoomResponse
	e.browser().ok(http.MethodPost, "/api/rooms", server.CreateRoomRequest{Mode: "race", Level: "easy"}, &out)
	require.Equal(e.tb, e.origin+"/r/"+out.ID, out.URL)
	return out.ID
}

// browser is one browser: its own cookie jar, on a page of origin (the
// Origin its POSTs carry; "" for none).
type browser struct {
	t      *testing.T
	e      *acctEnv
	jar    http.CookieJar
	client *http.Client
	origin string
	// contentType is the type of its POSTs and DELETEs; "" is
	// application/json, as the web client sends.
	contentType string
}

func (e *acctEnv) browser() *browser {
	jar, err := cookiejar.New(nil)
	require.NoError(e.tb, err)
	return &browser{t: e.tb.(*testing.T), e: e, jar: jar, client: &http.Client{Jar: jar, Timeout: 10 * time.Second}, origin: e.origin}
}

// call sends the request with body (JSON, nil for none) and decodes a 2xx
// answer into out (when set); it returns the status and, for an error,
// its code.
func (b *browser) call(method, path string, body, out any) (int, string) {
	b.t.Helper()
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		require.NoError(b.t, err)
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, b.e.http.URL+path, rd)
	require.NoError(b.t, err)
	if method != http.MethodGet {
		req.Header.Set("Content-Type", cmp.Or(b.contentType, "application/json"))
	}
	if b.origin != "" {
		req.Header.Set("Origin", b.origin)
	}
	resp, err := b.client.Do(req)
	require.NoError(b.t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(b.t, err)
	if resp.StatusCode >= 300 {
		var e struct {
			Error struct{ Code, Message string }
		}
		require.NoError(b.t, json.Unmarshal(data, &e), "%s %s: %s", method, path, data)
		return resp.StatusCode, e.Error.Code
	}
	if out != nil && len(data) > 0 {
		require.NoError(b.t, json.Unmarshal(data, out), "%s", data)
	}
	return resp.StatusCode, ""
}

// ok sends the request and fails the test unless it answers 2xx.
func (b *browser) ok(method, path string, body, out any) {
	b.t.Helper()
	status, code := b.call(method, path, body, out)
	require.Less(b.t, status, 300, "%s %s: %d %s", method, path, status, code)
}

// refused sends the request and checks that it is refused with the
// status and code.
func (b *browser) refused(method, path string, body any, status int, code string) {
	b.t.Helper()
	got, gotCode := b.call(method, path, body, nil)
	assert.Equal(b.t, status, got, "%s %s", method, path)
	assert.Equal(b.t, code, gotCode, "%s %s", method, path)
}

// me is GET /api/me.
func (b *browser) me() server.MeResponse {
	b.t.Helper()
	var me server.MeResponse
	b.ok(http.MethodGet, "/api/me", nil, &me)
	return me
}

// guest makes the browser a new guest through POST /api/session.
func (b *browser) guest(name string) server.SessionPlayer {
	b.t.Helper()
	var me server.MeResponse
	b.ok(http.MethodPost, "/api/session", map[string]string{"name": name}, &me)
	require.NotNil(b.t, me.Player)
	require.True(b.t, me.Player.Guest)
	return *me.Player
}

// signUp makes the browser's guest (or a new one) an account with the
// handle and a new passkey, and returns the answer.
func (b *browser) signUp(handle string, pk *arenatest.Passkey) server.SignUpResponse {
	b.t.Helper()
	var c server.Ceremony
	b.ok(http.MethodPost, "/api/account/signup/begin", map[string]string{"handle": handle}, &c)
	cred, err := pk.Create(c.Options)
	require.NoError(b.t, err)
	var out server.SignUpResponse
	b.ok(http.MethodPost, "/api/account/signup/finish", server.FinishRequest{Ceremony: c.ID, Credential: cred}, &out)
	return out
}

// signInBegin begins a passkey sign-in.
func (b *browser) signInBegin() server.Ceremony {
	b.t.Helper()
	var c server.Ceremony
	b.ok(http.MethodPost, "/api/account/signin/begin", nil, &c)
	return c
}

// assertion is the passkey's answer to the ceremony's options.
func assertion(t *testing.T, pk *arenatest.Passkey, c server.Ceremony) server.FinishRequest {
	t.Helper()
	cred, err := pk.Get(c.Options)
	require.NoError(t, err)
	return server.FinishRequest{Ceremony: c.ID, Credential: cred}
}

// signIn signs the browser in with the passkey.
func (b *browser) signIn(pk *arenatest.Passkey) server.MeResponse {
	b.t.Helper()
	var me server.MeResponse
	b.ok(http.MethodPost, "/api/account/signin/finish", assertion(b.t, pk, b.signInBegin()), &me)
	return me
}

// dial opens a WebSocket with the browser's cookies, from its origin.
func (b *browser) dial() (*client, *http.Response, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	h := http.Header{}
	if b.origin != "" {
		h.Set("Origin", b.origin)
	}
	ws, resp, err := websocket.Dial(ctx, b.e.wsURL(), &websocket.DialOptions{HTTPClient: b.client, HTTPHeader: h})
	if err != nil {
		return nil, resp, err
	}
	ws.SetReadLimit(1 << 20)
	b.t.Cleanup(func() { _ = ws.CloseNow() })
	return &client{tb: b.t, name: "browser", ws: ws}, resp, nil
}

// A guest signs up: their player id stays, they get ten different
// recovery codes, and the same passkey signs a fresh browser in to the
// account.
func TestAccountSignUpAndSignIn(t *testing.T) {
	t.Parallel()
	e := newAcctEnv(t)
	pk := arenatest.NewPasskey(e.origin)
	b := e.browser()
	assert.Nil(t, b.me().Player, "no session yet")
	guest := b.guest("Ann")
	assert.Equal(t, guest, *b.me().Player)

	up := b.signUp("Ann", pk)
	assert.Equal(t, server.SessionPlayer{ID: guest.ID, Name: "Ann", Guest: false}, *up.Player, "the guest became the account")
	require.NotNil(t, up.Account)
	assert.Equal(t, "Ann", up.Account.Handle)
	assert.Equal(t, 1, up.Account.Passkeys)
	assert.Equal(t, 10, up.Account.RecoveryCodesLeft)
	require.Len(t, up.RecoveryCodes, 10)
	seen := map[string]bool{}
	for _, c := range up.RecoveryCodes {
		assert.Regexp(t, `^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$`, c)
		assert.False(t, seen[c], "the recovery code %s twice", c)
		seen[c] = true
	}
	me := b.me()
	assert.Equal(t, up.Player, me.Player)
	assert.Equal(t, up.Account, me.Account)
	b.refused(http.MethodPost, "/api/account/signup/begin", map[string]string{"handle": "Ann2"}, http.StatusConflict, protocol.CodeAlreadyAccount)

	// Another browser, with nothing: the passkey signs it in.
	other := e.browser()
	assert.Nil(t, other.me().Player)
	got := other.signIn(pk)
	assert.Equal(t, up.Player, got.Player)
	assert.Equal(t, guest.ID, other.me().Player.ID)

	// A second passkey, then either signs in.
	pk2 := arenatest.NewPasskey(e.origin)
	var c server.Ceremony
	other.ok(http.MethodPost, "/api/account/passkeys/begin", nil, &c)
	cred, err := pk2.Create(c.Options)
	require.NoError(t, err)
	other.ok(http.MethodPost, "/api/account/passkeys/finish", server.FinishRequest{Ceremony: c.ID, Credential: cred}, &me)
	assert.Equal(t, 2, me.Account.Passkeys)
	assert.Equal(t, guest.ID, e.browser().signIn(pk2).Player.ID)
	assert.Equal(t, guest.ID, e.browser().signIn(pk).Player.ID, "the first one still, its counter moving on")
}

// A ceremony is finished once; an answer from a page elsewhere, for the
// wrong ceremony or replayed does not sign in.
func TestPasskeyRefusals(t *testing.T) {
	t.Parallel()
	e := newAcctEnv(t)
	_, pk := e.signedUp("Bea")

	// The client data of a page elsewhere: refused at sign-up and sign-in.
	evil := arenatest.NewPasskey("https://evil.example")
	c := e.browser()
	var cer server.Ceremony
	c.ok(http.MethodPost, "/api/account/signup/begin", map[string]string{"handle": "Cid"}, &cer)
	cred, err := evil.Create(cer.Options)
	require.NoError(t, err)
	c.refused(http.MethodPost, "/api/account/signup/finish", server.FinishRequest{Ceremony: cer.ID, Credential: cred}, http.StatusBadRequest, protocol.CodePasskeyFailed)
	assert.True(t, c.me().Player.Guest, "still a guest")
	pk.Origin = "https://evil.example"
	d := e.browser()
	d.refused(http.MethodPost, "/api/account/signin/finish", assertion(t, pk, d.signInBegin()), http.StatusBadRequest, protocol.CodePasskeyFailed)
	assert.Nil(t, d.me().Player)
	pk.Origin = e.origin

	// A ceremony is finished once.
	begun := d.signInBegin()
	answer := assertion(t, pk, begun)
	var me server.MeResponse
	d.ok(http.MethodPost, "/api/account/signin/finish", answer, &me)
	require.NotNil(t, me.Account)
	f := e.browser()
	f.refused(http.MethodPost, "/api/account/signin/finish", answer, http.StatusBadRequest, protocol.CodePasskeyFailed)
	// An answer replayed to another ceremony: its challenge is not that one's.
	answer.Ceremony = f.signInBegin().ID
	f.refused(http.MethodPost, "/api/account/signin/finish", answer, http.StatusBadRequest, protocol.CodePasskeyFailed)
	// Nor is a sign-in ceremony finished as a sign-up, nor an unknown one.
	f.refused(http.MethodPost, "/api/account/signin/finish", server.FinishRequest{Ceremony: "nope", Credential: answer.Credential}, http.StatusBadRequest, protocol.CodePasskeyFailed)
	assert.Nil(t, f.me().Player)

	// A ceremony expires after 5 minutes.
	begun = f.signInBegin()
	e.clk.Advance(account.CeremonyLifetime + time.Second)
	f.refused(http.MethodPost, "/api/account/signin/finish", assertion(t, pk, begun), http.StatusBadRequest, protocol.CodePasskeyFailed)
	assert.Nil(t, f.me().Player)
}

// A sign-in code signs one browser in, once, within its ten minutes; a
// recovery code signs in once.
func TestAccountSignInCodes(t *testing.T) {
	t.Parallel()
	e := newAcctEnv(t)
	pk := arenatest.NewPasskey(e.origin)
	b := e.browser()
	up := b.signUp("Cat", pk)

	var link server.LinkResponse
	b.ok(http.MethodPost, "/api/account/link", nil, &link)
	assert.Regexp(t, `^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$`, link.Code)
	assert.Equal(t, e.origin+"/signin#"+link.Code, link.URL)
	assert.WithinDuration(t, e.clk.Now().Add(10*time.Minute), link.ExpiresAt, time.Second)
	third := e.browser()
	var me server.MeResponse
	third.ok(http.MethodPost, "/api/account/signin/code", server.CodeRequest{Code: strings.ToLower(link.Code)}, &me)
	assert.Equal(t, up.Player, me.Player)
	assert.Equal(t, up.Player.ID, third.me().Player.ID)
	fourth := e.browser()
	fourth.refused(http.MethodPost, "/api/account/signin/code", server.CodeRequest{Code: link.Code}, http.StatusBadRequest, protocol.CodeBadCode)
	assert.Nil(t, fourth.me().Player)

	// Expired.
	b.ok(http.MethodPost, "/api/account/link", nil, &link)
	e.clk.Advance(account.CodeLifetime + time.Second)
	fourth.refused(http.MethodPost, "/api/account/signin/code", server.CodeRequest{Code: link.Code}, http.StatusBadRequest, protocol.CodeBadCode)
	fourth.refused(http.MethodPost, "/api/account/signin/code", server.CodeRequest{Code: "ABCD-EFGH-JKLM"}, http.StatusBadRequest, protocol.CodeBadCode)
	assert.Nil(t, fourth.me().Player)

	// A recovery code, typed in capitals.
	code := up.RecoveryCodes[3]
	fourth.ok(http.MethodPost, "/api/account/signin/recovery", server.CodeRequest{Handle: "cat", Code: strings.ToUpper(code)}, &me)
	assert.Equal(t, up.Player.ID, me.Player.ID)
	assert.Equal(t, 9, me.Account.RecoveryCodesLeft)
	fifth := e.browser()
	fifth.refused(http.MethodPost, "/api/account/signin/recovery", server.CodeRequest{Handle: "Cat", Code: code}, http.StatusBadRequest, protocol.CodeBadCode)
	fifth.refused(http.MethodPost, "/api/account/signin/recovery", server.CodeRequest{Handle: "Dog", Code: up.RecoveryCodes[4]}, http.StatusBadRequest, protocol.CodeBadCode)
	assert.Nil(t, fifth.me().Player)

	// A guest makes no codes.
	g := e.browser()
	g.guest("Gus")
	g.refused(http.MethodPost, "/api/account/link", nil, http.StatusUnauthorized, protocol.CodeNotSignedIn)
}

// Signing out ends the session, wherever its cookie is.
func TestSessionSignOut(t *testing.T) {
	t.Parallel()
	e := newAcctEnv(t)
	b := e.browser()
	b.signUp("Dan", arenatest.NewPasskey(e.origin))
	u, err := url.Parse(e.http.URL)
	require.NoError(t, err)
	cookies := b.jar.Cookies(u)
	require.Len(t, cookies, 1)
	assert.Equal(t, server.SessionCookie, cookies[0].Name)
	copied := e.browser()
	copied.jar.SetCookies(u, cookies)
	assert.NotNil(t, copied.me().Account)

	status, _ := b.call(http.MethodPost, "/api/account/signout", nil, nil)
	assert.Equal(t, http.StatusNoContent, status)
	assert.Nil(t, b.me().Player)
	assert.Empty(t, b.jar.Cookies(u), "the cookie is cleared")
	assert.Nil(t, copied.me().Player, "the session is over, not only the cookie")
	copied.refused(http.MethodPost, "/api/account/link", nil, http.StatusUnauthorized, protocol.CodeNotSignedIn)
}

// Deleting an account frees its handle; the player stays, nameless, with
// their results.
func TestAccountDelete(t *testing.T) {
	t.Parallel()
	e := newAcctEnv(t)
	ctx := context.Background()
	b := e.browser()
	up := b.signUp("Eve", arenatest.NewPasskey(e.origin))
	id := up.Player.ID
	pz, err := e.st.SavePuzzle(ctx, store.Puzzle{Givens: strings.Repeat("1", 80) + ".", Solution: strings.Repeat("1", 81), Level: "easy", CreatedAt: time.Now()})
	require.NoError(t, err)
	require.NoError(t, e.st.CreateRoom(ctx, store.Room{ID: "r1", Mode: room.ModeRace, PuzzleID: pz.ID, HostID: id, State: store.StateFinished, CreatedAt: time.Now()}))
	require.NoError(t, e.st.SaveResults(ctx, []store.Result{{RoomID: "r1", PlayerID: id, PuzzleID: pz.ID, Mode: room.ModeRace, Level: "easy",
		Elapsed: time.Minute, FinishedAt: time.Now()}}))

	b.refused(http.MethodDelete, "/api/account", server.HandleRequest{Handle: "Eva"}, http.StatusBadRequest, protocol.CodeBadHandle)
	assert.NotNil(t, b.me().Account, "a wrong confirmation deletes nothing")
	status, _ := b.call(http.MethodDelete, "/api/account", server.HandleRequest{Handle: "eve"}, nil)
	assert.Equal(t, http.StatusNoContent, status)
	assert.Nil(t, b.me().Player)

	var rec server.PlayerResponse
	b.ok(http.MethodGet, "/api/players/"+id, nil, &rec)
	assert.Equal(t, account.DeletedName, rec.Name)
	require.Len(t, rec.Results, 1, "the results stay")
	assert.Equal(t, "r1", rec.Results[0].Room)

	// The handle is free again, for someone new.
	again := e.browser().signUp("Eve", arenatest.NewPasskey(e.origin))
	assert.NotEqual(t, id, again.Player.ID)
	assert.Equal(t, "Eve", again.Account.Handle)
}

// A handle that is refused, or taken (the same or looking the same), stores
// nothing: no guest, no cookie.
func TestAccountHandleRefusals(t *testing.T) {
	t.Parallel()
	e := newAcctEnv(t)
	e.browser().signUp("Fay", arenatest.NewPasskey(e.origin))
	e.browser().signUp("Ace", arenatest.NewPasskey(e.origin))
	b := e.browser()
	for _, tt := range []struct {
		handle string
		status int
		code   string
	}{
		{"", http.StatusBadRequest, protocol.CodeBadHandle},
		{"x", http.StatusBadRequest, protocol.CodeBadHandle},
		{strings.Repeat("x", 40), http.StatusBadRequest, protocol.CodeBadHandle},
		{"Fay", http.StatusConflict, protocol.CodeHandleTaken},
		{"Fa\u200by", http.StatusBadRequest, protocol.CodeBadHandle}, // an invisible character
		{"FAY", http.StatusConflict, protocol.CodeHandleTaken},
		{"F\u0430y", http.StatusBadRequest, protocol.CodeBadHandle},           // Latin and Cyrillic in one word
		{"\u0410\u0441\u0435", http.StatusConflict, protocol.CodeHandleTaken}, // Cyrillic, looking as Ace
	} {
		b.refused(http.MethodPost, "/api/account/signup/begin", map[string]string{"handle": tt.handle}, tt.status, tt.code)
	}
	u, err := url.Parse(e.http.URL)
	require.NoError(t, err)
	assert.Empty(t, b.jar.Cookies(u), "no guest was made")
	assert.Nil(t, b.me().Player)

	// A guest is refused the same, and stays a guest.
	g := b.guest("Gil")
	b.refused(http.MethodPost, "/api/account/signup/begin", map[string]string{"handle": "fay"}, http.StatusConflict, protocol.CodeHandleTaken)
	assert.Equal(t, g, *b.me().Player)
}

// What the cookie authenticates must come from the site's own pages: a
// POST or DELETE with the cookie from another Origin, or none, changes
// nothing.
func TestCookieOrigin(t *testing.T) {
	t.Parallel()
	e := newAcctEnv(t)
	b := e.browser()
	b.signUp("Gia", arenatest.NewPasskey(e.origin))
	for _, origin := range []string{"https://evil.example", ""} {
		b.origin = origin
		b.refused(http.MethodPost, "/api/account/signout", nil, http.StatusForbidden, protocol.CodeBadOrigin)
		b.refused(http.MethodDelete, "/api/account", server.HandleRequest{Handle: "Gia"}, http.StatusForbidden, protocol.CodeBadOrigin)
		b.refused(http.MethodPost, "/api/account/link", nil, http.StatusForbidden, protocol.CodeBadOrigin)
		b.refused(http.MethodPost, "/api/session", server.SessionRequest{Name: "Mallory"}, http.StatusForbidden, protocol.CodeBadOrigin)
	}
	b.origin = e.origin
	me := b.me()
	require.NotNil(t, me.Account, "still signed in")
	assert.Equal(t, "Gia", me.Account.Handle)

	// Nor may a page elsewhere sign a browser in.
	c := e.browser()
	c.origin = "https://evil.example"
	c.refused(http.MethodPost, "/api/session", server.SessionRequest{Name: "Hal"}, http.StatusForbidden, protocol.CodeBadOrigin)
	c.origin = ""
	c.guest("Hal") // a script, with no Origin and no cookie yet
}

// A WebSocket with the session's cookie joins as its player, without a
// token in the welcome; one from another origin is refused; a token join
// works as before.
func TestSessionWebSocket(t *testing.T) {
	t.Parallel()
	e := newAcctEnv(t)
	id := e.race()
	b := e.browser()
	guest := b.guest("Ike")

	c, _, err := b.dial()
	require.NoError(t, err)
	c.send(map[string]any{"type": "join", "room": id})
	w := await[protocol.Welcome](c, protocol.TypeWelcome, nil)
	assert.Equal(t, guest.ID, w.You.ID)
	assert.Equal(t, "Ike", w.You.Name)
	assert.Empty(t, w.You.Token)
	assert.NotContains(t, string(c.seen[len(c.seen)-1].raw), `"token"`)
	require.Len(t, w.Room.Players, 1)
	assert.True(t, w.Room.Players[0].Guest, "the room shows a guest as one")

	b.signUp("Ike", arenatest.NewPasskey(e.origin))
	c2, _, err := b.dial()
	require.NoError(t, err)
	c2.send(map[string]any{"type": "join", "room": id, "name": "Someone"})
	w = await[protocol.Welcome](c2, protocol.TypeWelcome, nil)
	assert.Equal(t, guest.ID, w.You.ID, "the account is the guest it was")
	assert.Equal(t, "Ike", w.You.Name, "an account plays under its handle")
	assert.Empty(t, w.You.Token)
	c2b, _, err := b.dial()
	require.NoError(t, err)
	c2b.send(map[string]any{"type": "join", "room": e.race()})
	w = await[protocol.Welcome](c2b, protocol.TypeWelcome, nil)
	require.Len(t, w.Room.Players, 1)
	assert.False(t, w.Room.Players[0].Guest, "an account in a room it joins is no guest")

	// A foreign origin with the cookie is refused.
	b.origin = "https://evil.example"
	_, resp, err := b.dial()
	require.Error(t, err)
	require.NotNil(t, resp)
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)

	// No Origin (not a browser): the cookie is not used, and the join
	// makes a new player with a token, as a token join gets its token.
	b.origin = ""
	c3, _, err := b.dial()
	require.NoError(t, err)
	c3.send(map[string]any{"type": "join", "room": id, "name": "Jo"})
	w = await[protocol.Welcome](c3, protocol.TypeWelcome, nil)
	assert.NotEqual(t, guest.ID, w.You.ID)
	require.NotEmpty(t, w.You.Token)
	b.origin = e.origin
	c4, _, err := b.dial()
	require.NoError(t, err)
	c4.send(map[string]any{"type": "join", "room": id, "token": w.You.Token})
	w4 := await[protocol.Welcome](c4, protocol.TypeWelcome, nil)
	assert.Equal(t, w.You.ID, w4.You.ID, "a token wins over the cookie")
	assert.Equal(t, w.You.Token, w4.You.Token)

	// Signed out: a new join with the old cookie's browser is a new guest.
	b.ok(http.MethodPost, "/api/account/signout", nil, nil)
	c5, _, err := b.dial()
	require.NoError(t, err)
	c5.send(map[string]any{"type": "join", "room": id, "name": "Kim"})
	w5 := await[protocol.Welcome](c5, protocol.TypeWelcome, nil)
	assert.NotEqual(t, guest.ID, w5.You.ID)
	assert.NotEmpty(t, w5.You.Token)
}

// A token kept from before sessions becomes a session of its player.
func TestSessionFromToken(t *testing.T) {
	t.Parallel()
	e := newAcctEnv(t)
	id := e.race()
	cl := e.dial("Lea")
	w := cl.join(id)
	b := e.browser()
	b.refused(http.MethodPost, "/api/session", server.SessionRequest{Token: "not-a-token"}, http.StatusUnauthorized, protocol.CodeBadToken)
	var me server.MeResponse
	b.ok(http.MethodPost, "/api/session", server.SessionRequest{Token: w.You.Token}, &me)
	assert.Equal(t, &server.SessionPlayer{ID: w.You.ID, Name: "Lea", Guest: true}, me.Player)
	b.ok(http.MethodPost, "/api/session", struct{}{}, &me)
	assert.Equal(t, w.You.ID, me.Player.ID, "an empty body is the session there is")
	b.refused(http.MethodPost, "/api/session", map[string]string{"nick": "x"}, http.StatusBadRequest, protocol.CodeBadJSON)
}
