package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/arenatest"
)

// startAccountArena starts a server whose public address is
// http://localhost:PORT on a free port, and answers it with that address:
// passkeys are bound to a domain name (localhost), never to an IP address
// such as 127.0.0.1, and are made and used only at the server's public
// origin.
func startAccountArena(t *testing.T, env ...string) (*arena, string) {
	t.Helper()
	requireChromium(t)
	// A passkey's origin is localhost, so the server is reached (and
	// PUBLIC_URL names it) by that name, on a port chosen again if taken.
	bind := func(o *arenatest.Options) {
		o.Listen = arenatest.FreeAddr(t)
		_, port, _ := strings.Cut(o.Listen, ":")
		o.URL = "http://localhost:" + port
		o.Env = append(append(slices.Clone(arenaEnv), "PUBLIC_URL="+o.URL), env...)
	}
	opts := arenatest.Options{Rebind: bind}
	bind(&opts)
	a := arenatest.Start(t, opts)
	return &arena{Arena: a, t: t}, a.URL()
}

// authenticator gives the page's tab a virtual passkey authenticator, as a
// phone's or a laptop's built-in one: it keeps discoverable credentials,
// verifies the user and says yes without a prompt.
func (p *page) authenticator() webauthn.AuthenticatorID {
	p.t.Helper()
	var id webauthn.AuthenticatorID
	p.run("add a virtual authenticator", chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, webauthn.Enable, webauthn.EnableParams{EnableUI: ptrTo(false)}); err != nil {
			return err
		}
		r, err := cdp.Call(ctx, t, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{
			Options: &webauthn.VirtualAuthenticatorOptions{
				Protocol:                    webauthn.AuthenticatorProtocolCtap2,
				Ctap2version:                webauthn.Ctap2versionCtap21,
				Transport:                   webauthn.AuthenticatorTransportInternal,
				HasResidentKey:              true,
				HasUserVerification:         true,
				IsUserVerified:              true,
				AutomaticPresenceSimulation: true,
			},
		})
		id = r.AuthenticatorID
		return err
	}))
	return id
}

// credentials are the passkeys the page's authenticator holds.
func (p *page) credentials(auth webauthn.AuthenticatorID) []*webauthn.Credential {
	p.t.Helper()
	var creds []*webauthn.Credential
	p.run("read the authenticator's credentials", chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		r, err := cdp.Call(ctx, t, webauthn.GetCredentials, webauthn.GetCredentialsParams{AuthenticatorID: auth})
		creds = r.Credentials
		return err
	}))
	return creds
}

// addCredentials puts the passkeys into the page's authenticator: the same
// passkey on a second device, as a synced passkey is.
func (p *page) addCredentials(auth webauthn.AuthenticatorID, creds []*webauthn.Credential) {
	p.t.Helper()
	p.run("add credentials to the authenticator", chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for _, c := range creds {
			if _, err := cdp.Call(ctx, t, webauthn.AddCredential, webauthn.AddCredentialParams{AuthenticatorID: auth, Credential: c}); err != nil {
				return err
			}
		}
		return nil
	}))
}

// bogusSignatures makes the authenticator's signatures worthless (or
// good again): a sign-in the server must refuse.
func (p *page) bogusSignatures(auth webauthn.AuthenticatorID, bogus bool) {
	p.t.Helper()
	p.run("set bogus signatures", chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, webauthn.SetResponseOverrideBits, webauthn.SetResponseOverrideBitsParams{AuthenticatorID: auth, IsBogusSignature: ptrTo(bogus)})
		return err
	}))
}

// cancelNextPasskey makes the page's next passkey prompt end as a player
// closing it does: a NotAllowedError.
func (p *page) cancelNextPasskey() {
	p.t.Helper()
	p.run("cancel the next passkey prompt", evalVoid(`(() => {
		const c = navigator.credentials;
		const create = c.create.bind(c), get = c.get.bind(c);
		const cancel = () => {
			c.create = create;
			c.get = get;
			return Promise.reject(new DOMException('The operation either timed out or was not allowed.', 'NotAllowedError'));
		};
		c.create = cancel;
		c.get = cancel;
	})()`))
}

// recordCopies keeps what the page puts on the clipboard in
// window.__copied (a headless browser's clipboard is not the test's to
// read).
func (p *page) recordCopies() {
	p.initScript("record copies", `(() => {
		window.__copied = null;
		Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (t) => { window.__copied = String(t); } } });
	})()`)
}

// meReply is GET /api/me as the page's browser context asks it (its
// session cookie).
type meReply struct {
	Player *struct {
		ID    string `json:"id"`
		Name  string `json:"name"`
		Guest bool   `json:"guest"`
	} `json:"player"`
	Account *struct {
		Handle            string `json:"handle"`
		Passkeys          int    `json:"passkeys"`
		RecoveryCodesLeft int    `json:"recovery_codes_left"`
	} `json:"account"`
}

func me(p *page) meReply {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitTimeout)
	defer cancel()
	body, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch('/api/me').then(r => r.text())`, chromedp.EvalAwaitPromise))
	require.NoError(p.t, err, "%s: GET /api/me", p.name)
	var r meReply
	require.NoError(p.t, json.Unmarshal([]byte(body), &r), "%s: GET /api/me: %s", p.name, body)
	return r
}

// playerRecord is GET /api/players/{id}, as anyone sees it.
type playerRecord struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Guest  bool   `json:"guest"`
	Streak struct {
		Current int `json:"current"`
		Longest int `json:"longest"`
	} `json:"streak"`
	Results []json.RawMessage `json:"results"`
}

func (a *arena) player(id string) (playerRecord, int) {
	a.t.Helper()
	resp, err := arenatest.Get(a.URL() + "/api/players/" + id)
	require.NoError(a.t, err)
	defer resp.Body.Close()
	var r playerRecord
	if resp.StatusCode == http.StatusOK {
		require.NoError(a.t, json.NewDecoder(resp.Body).Decode(&r))
	}
	return r, resp.StatusCode
}

// accountView is a predicate: the account page shows the view (guest,
// codes or account).
func accountView(view string) string {
	return fmt.Sprintf(`document.querySelector('.account-page')?.dataset.view === %q`, view)
}

// saysIn is a predicate: the element's text holds the words.
func saysIn(sel, words string) string {
	return fmt.Sprintf(`(document.querySelector(%q)?.textContent || '').includes(%q)`, sel, words)
}

// look is a screenshot's size and colour scheme, and the suffix of its
// file's name.
type look struct {
	suffix string
	w, h   int64
	mobile bool
	scheme string
}

// looks are the screenshots' looks.
var looks = []look{
	{"", 1280, 800, false, "light"},
	{"-dark", 1280, 800, false, "dark"},
	{"-phone", 375, 740, true, "light"},
	{"-phone-dark", 375, 740, true, "dark"},
}

// shots saves the page in every look as name.png, name-dark.png,
// name-phone.png and name-phone-dark.png, scrolled to the top or to the
// element sel; on a phone nothing may scroll sideways. The page is left on
// a light desktop.
func (p *page) shots(name, sel string) {
	p.t.Helper()
	p.shotsIn(looks, name, sel)
}

// shotsIn is shots in the looks ls.
func (p *page) shotsIn(ls []look, name, sel string) {
	p.t.Helper()
	for _, l := range ls {
		p.viewport(l.w, l.h, l.mobile)
		p.colorScheme(l.scheme)
		p.wait(l.scheme+" theme", fmt.Sprintf(`document.documentElement.dataset.theme === %q`, l.scheme))
		if sel == "" {
			p.run("scroll to the top", evalVoid(`window.scrollTo(0, 0)`))
		} else {
			p.run("scroll to "+sel, evalVoid(fmt.Sprintf(`document.querySelector(%q)?.scrollIntoView({block: 'nearest'})`, sel)))
		}
		if l.mobile {
			assert.True(p.t, eval[bool](p, `document.documentElement.scrollWidth <= window.innerWidth`),
				"%s fits a phone: scrollWidth %d", name, eval[int](p, `document.documentElement.scrollWidth`))
		}
		// Let the new size settle and the colours' transitions end.
		p.run("a frame", chromedp.Evaluate[chromedp.Void](`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))`, chromedp.EvalAwaitPromise))
		time.Sleep(300 * time.Millisecond)
		p.shot(name + l.suffix)
	}
	p.viewport(1280, 800, false)
	p.colorScheme("light")
	p.wait("light theme", `document.documentElement.dataset.theme === 'light'`)
}

// startDailyAs opens today's easy daily from home as a new guest named
// name, and waits for its board; it answers the date.
func startDailyAs(p *page, base, name string) string {
	p.t.Helper()
	p.navigate(base + "/")
	p.wait("today's dailies", `document.querySelectorAll('#daily [data-level][data-status]').length === 5`)
	p.click(`#daily [data-level="easy"] a`)
	p.wait("the daily's start", `location.pathname.startsWith('/daily/')`+" && "+visible("#daily-go"))
	p.typeInto("#name", name)
	p.click("#daily-go")
	waitPlaying(p)
	return strings.Split(eval[string](p, `location.pathname`), "/")[2]
}

// TestAccount is the life of an account in the browser: two guests play
// the day's daily (so they have history, a streak and a place on the
// leaderboard); one makes an account with a passkey, after a cancelled
// prompt and refused handles said in words, sees her recovery codes once
// and keeps her player, history and streak; the leaderboard shows her
// handle and the other as a guest. Her passkey signs her in on a second
// device (after a signature the server refuses); a one-time link signs in
// a third and not a fourth; a code typed in, a recovery code, sign-out,
// and deleting the account with the handle typed again.
func TestAccount(t *testing.T) {
	t.Parallel()
	srv, base := startAccountArena(t, "RANK_GUESTS=true")
	b := newBrowser(t)
	ann, gus := b.newPage("Ann"), b.newPage("Gus")
	annAuth := ann.authenticator()
	ann.recordCopies()

	// Two guests on today's daily, both ranked.
	date := startDailyAs(ann, base, "Ann")
	startDailyAs(gus, base, "Gus")
	solveLikePeople(easyFloor, ann, gus)
	for _, p := range []*page{ann, gus} {
		p.wait("a ranked result", visible("#finish")+` && document.querySelector('#finish-sub').dataset.ranked === 'true'`)
	}
	before := me(ann)
	require.NotNil(t, before.Player, "the guest's session")
	assert.True(t, before.Player.Guest, "Ann is a guest")
	annID := before.Player.ID
	rec, status := srv.player(annID)
	require.Equal(t, http.StatusOK, status)
	require.Len(t, rec.Results, 1, "the guest's history")
	require.Equal(t, 1, rec.Streak.Current, "the guest's streak")
	assert.Empty(t, eval[string](ann, `localStorage.getItem('arena.token') || ''`), "no token in local storage")

	// The header's "Sign in" leads to the account page.
	ann.navigate(base + "/")
	ann.wait("the header's link", visible("#acct"))
	assert.Equal(t, "Sign in", text(ann, "#acct"))
	ann.click("#acct")
	ann.wait("the sign-up form", accountView("guest")+" && "+visible("#signup-handle"))
	assert.Equal(t, "Ann", eval[string](ann, `document.querySelector('#signup-handle').value`), "the guest's name is offered as the handle")
	assert.Contains(t, text(ann, "#acct-guest"), "history and your streak come along")
	ann.shots("account-signup", "")

	// Refusals are said beside the form, and nothing typed is lost: no
	// handle, a cancelled passkey prompt, a handle the server refuses.
	ann.typeInto("#signup-handle", " ")
	ann.click("#signup")
	ann.wait("no handle", saysIn("#signup-message", "Pick a handle"))
	ann.typeInto("#signup-handle", "Ann")
	ann.cancelNextPasskey()
	ann.click("#signup")
	ann.wait("the cancelled prompt in words", saysIn("#signup-message", "passkey prompt was closed"))
	assert.Equal(t, "Ann", eval[string](ann, `document.querySelector('#signup-handle').value`), "the handle stays")
	assert.False(t, eval[bool](ann, `document.querySelector('#signup').disabled`), "the button works again")
	assert.True(t, me(ann).Player.Guest, "still a guest")
	ann.typeInto("#signup-handle", "Ann!")
	ann.click("#signup")
	ann.wait("the refused handle in words", `(document.querySelector('#signup-message')?.textContent || '').length > 0 && !`+saysIn("#signup-message", "passkey prompt"))
	assert.NotContains(t, text(ann, "#signup-message"), "bad_handle", "a sentence, not the code")
	assert.Equal(t, "Ann!", eval[string](ann, `document.querySelector('#signup-handle').value`), "the handle stays")

	// Sign-up with the passkey: the recovery codes, once.
	ann.typeInto("#signup-handle", "Ann")
	ann.click("#signup")
	ann.wait("the recovery codes", accountView("codes")+` && document.querySelectorAll('#codes-list li').length === 10`)
	codes := eval[[]string](ann, `[...document.querySelectorAll('#codes-list li')].map(li => li.textContent)`)
	assert.Contains(t, text(ann, "#acct-codes"), "only this once")
	assert.Len(t, ann.credentials(annAuth), 1, "the passkey on Ann's device")
	ann.shots("account-codes", "")
	ann.click("#codes-copy")
	ann.wait("the codes copied", `window.__copied !== null`)
	assert.Equal(t, strings.Join(codes, "\n"), eval[string](ann, `window.__copied`))
	ann.click("#codes-done")
	ann.wait("the account page", accountView("account"))

	// The account: the handle, one passkey, ten codes; the header says the
	// handle. The player, their history and streak are the guest's.
	assert.Equal(t, "Ann", text(ann, "#acct-handle"))
	assert.Equal(t, "1", text(ann, "#acct-passkeys"))
	assert.Equal(t, "10", text(ann, "#acct-codes-left"))
	assert.Equal(t, "Ann", text(ann, "#acct"))
	assert.NotEmpty(t, text(ann, "#acct-since"))
	assert.Equal(t, "/p/"+annID, eval[string](ann, `document.querySelector('#acct-record').getAttribute('href')`))
	ann.shots("account", "")
	after := me(ann)
	require.NotNil(t, after.Player)
	require.NotNil(t, after.Account)
	assert.Equal(t, annID, after.Player.ID, "the same player")
	assert.False(t, after.Player.Guest)
	assert.Equal(t, "Ann", after.Account.Handle)
	rec, _ = srv.player(annID)
	assert.Equal(t, annID, rec.ID)
	assert.Len(t, rec.Results, 1, "the history came along")
	assert.Equal(t, 1, rec.Streak.Current, "the streak came along")
	assert.False(t, rec.Guest, "the record is an account's")

	// Another browser cannot take the handle, nor one that looks like it.
	gus.navigate(base + "/account")
	gus.wait("Gus's sign-up form", accountView("guest"))
	for _, h := range []string{"Ann", "ann"} {
		gus.typeInto("#signup-handle", h)
		gus.click("#signup")
		gus.wait("the taken handle in words", saysIn("#signup-message", "taken"))
		gus.run("clear the message", evalVoid(`document.querySelector('#signup-message').textContent = ''`))
	}

	// The leaderboard: Ann's handle as it is, Gus as a guest.
	ann.navigate(base + "/daily/" + date + "/easy")
	ann.wait("both on the leaderboard", `document.querySelectorAll('#lb-rows tr[data-player]').length === 2`)
	row := func(id string) string {
		return eval[string](ann, fmt.Sprintf(`document.querySelector('#lb-rows tr[data-player=%q] .name').textContent`, id))
	}
	assert.Equal(t, "Ann", row(annID))
	assert.Equal(t, "Gus (guest)", row(me(gus).Player.ID))
	ann.shots("account-leaderboard", ".daily-panel")

	// A second device with the same passkey signs in with it, once a
	// signature the server refuses has been said in words.
	bea := b.newPage("Ann's tablet")
	beaAuth := bea.authenticator()
	bea.addCredentials(beaAuth, ann.credentials(annAuth))
	bea.navigate(base + "/account")
	bea.wait("the sign-in", accountView("guest")+" && "+visible("#signin"))
	bea.bogusSignatures(beaAuth, true)
	bea.click("#signin")
	bea.wait("the refused passkey in words", saysIn("#signin-message", "could not be checked"))
	bea.bogusSignatures(beaAuth, false)
	bea.click("#signin")
	bea.wait("signed in", accountView("account")+` && `+saysIn("#acct-handle", "Ann"))
	assert.Equal(t, annID, me(bea).Player.ID, "the tablet plays as Ann")
	assert.Equal(t, "Ann", text(bea, "#acct"))

	// A one-time link: shown as a code, a link and its time left; it signs
	// in a third browser, and not a fourth.
	ann.navigate(base + "/account")
	ann.wait("the account page", accountView("account"))
	ann.click("#link-make")
	ann.wait("the sign-in code", visible("#link-box")+` && /expires in (10:00|9:[0-5]\d)/.test(document.querySelector('#link-expiry').textContent)`)
	code := text(ann, "#link-code")
	link := eval[string](ann, `document.querySelector('#link-url').value`)
	assert.True(t, strings.HasSuffix(link, "/signin#"+code), "the link %s carries the code %s", link, code)
	first := text(ann, "#link-expiry")
	ann.wait("the time left counting down", fmt.Sprintf(`document.querySelector('#link-expiry').textContent !== %q`, first))
	cal := b.newPage("Ann at a friend's")
	cal.navigate(link)
	cal.wait("signed in by the link", accountView("account")+` && location.pathname === '/account' && location.hash === ''`)
	assert.Equal(t, annID, me(cal).Player.ID)
	dan := b.newPage("Dan")
	dan.navigate(link)
	dan.wait("the used link refused", accountView("guest")+" && "+saysIn("#code-message", "used already"))
	assert.Nil(t, me(dan).Player, "Dan is nobody")

	// A code typed in.
	ann.click("#link-make")
	ann.wait("a new code", fmt.Sprintf(`document.querySelector('#link-code').textContent !== %q`, code))
	dan.typeInto("#signin-code", strings.ToLower(text(ann, "#link-code")))
	dan.click("#code-go")
	dan.wait("signed in by the code", accountView("account"))
	assert.Equal(t, annID, me(dan).Player.ID)

	// Sign out, then back in with a recovery code: one fewer left, and a
	// used code refused.
	dan.click("#signout")
	dan.wait("signed out", accountView("guest")+" && "+saysIn("#acct-note", "Signed out"))
	assert.Nil(t, me(dan).Player, "no session")
	assert.Equal(t, "Sign in", text(dan, "#acct"))
	dan.click("#recovery-box summary")
	dan.typeInto("#rec-handle", "Ann")
	dan.typeInto("#rec-code", codes[0])
	dan.click("#rec-go")
	dan.wait("signed in by a recovery code", accountView("account")+` && document.querySelector('#acct-codes-left').textContent === '9'`)
	assert.Equal(t, annID, me(dan).Player.ID)
	dan.click("#signout")
	dan.wait("signed out again", accountView("guest"))
	dan.click("#recovery-box summary")
	dan.typeInto("#rec-handle", "Ann")
	dan.typeInto("#rec-code", codes[0])
	dan.click("#rec-go")
	dan.wait("the used code refused", saysIn("#rec-message", "do not match"))
	assert.Nil(t, me(dan).Player)

	cal.click("#signout")
	cal.wait("signed out", accountView("guest"))
	assert.Nil(t, me(cal).Player)

	// Deleting takes the handle typed again.
	ann.click("#delete-open")
	ann.typeInto("#delete-handle", "Anne")
	assert.True(t, eval[bool](ann, `document.querySelector('#delete-go').disabled`), "a wrong handle deletes nothing")
	ann.typeInto("#delete-handle", "Ann")
	ann.wait("the delete button", `!document.querySelector('#delete-go').disabled`)
	ann.click("#delete-go")
	ann.wait("deleted", accountView("guest")+" && "+saysIn("#acct-note", "deleted"))
	assert.Nil(t, me(ann).Player, "no session after the delete")
	assert.Equal(t, "Sign in", text(ann, "#acct"))
	assert.Nil(t, me(bea).Account, "the tablet's session is no account's any more")
	rec, status = srv.player(annID)
	if status == http.StatusOK {
		assert.NotEqual(t, "Ann", rec.Name, "the handle is gone from the record")
	}
}

// TestAccountLegacyToken opens the client in a browser whose local storage
// holds the token an older version of the page kept: the client exchanges
// it for a session of that same player and deletes it, and the room page
// joins without it.
func TestAccountLegacyToken(t *testing.T) {
	t.Parallel()
	srv, base := startAccountArena(t)
	p := newBrowser(t).newPage("Lea")

	// A player made the old way: a join without a session, whose welcome
	// brings the token.
	p.navigate(base + "/lab")
	p.wait("the page", `document.documentElement.dataset.page === 'lab'`)
	require.Nil(t, me(p).Player, "no session yet")
	ctx, cancel := context.WithTimeout(p.ctx, waitTimeout)
	defer cancel()
	welcome, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(async () => {
		const room = await fetch('/api/rooms', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{"mode":"race","level":"easy"}'}).then(r => r.json());
		const ws = new WebSocket('ws://' + location.host + '/ws');
		return await new Promise((ok, fail) => {
			ws.onopen = () => ws.send(JSON.stringify({type: 'join', room: room.id, name: 'Lea'}));
			ws.onmessage = (m) => { ws.close(); ok(m.data); };
			ws.onerror = () => fail('socket');
		});
	})()`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	var w struct {
		Type string `json:"type"`
		You  struct {
			ID    string `json:"id"`
			Token string `json:"token"`
		} `json:"you"`
	}
	require.NoError(t, json.Unmarshal([]byte(welcome), &w), welcome)
	require.Equal(t, "welcome", w.Type, welcome)
	if w.You.Token == "" {
		// The join made a session of its own: nothing to exchange.
		t.Skipf("the welcome of a join without a session brought no token: %s", welcome)
	}
	p.run("keep the token the old way", evalVoid(fmt.Sprintf(`localStorage.setItem('arena.token', %q); localStorage.setItem('arena.name', 'Lea')`, w.You.Token)))

	// The client takes the token's player and drops the token.
	p.navigate(base + "/")
	p.wait("the token dropped", `localStorage.getItem('arena.token') === null`)
	m := me(p)
	require.NotNil(t, m.Player, "a session")
	assert.Equal(t, w.You.ID, m.Player.ID, "the same player")
	assert.Equal(t, w.You.ID, eval[string](p, `localStorage.getItem('arena.id')`))

	// A room joins as that player, and the page sees no token.
	p.recordWelcomeTokens()
	id := createRoom(p, base, "race", "easy", "Lea")
	assert.Equal(t, w.You.ID, playerIDs(t, srv, id)["Lea"], "the room's player is the token's")
	assert.Empty(t, eval[string](p, `window.__welcomeTokens.join('')`), "no token in the welcome")
	assert.Empty(t, eval[string](p, `localStorage.getItem('arena.token') || ''`))
}

// recordWelcomeTokens keeps, in window.__welcomeTokens, the token of each
// welcome and of each join the page sends.
func (p *page) recordWelcomeTokens() {
	p.initScript("watch the tokens", `(() => {
		const Real = WebSocket;
		window.__welcomeTokens = [];
		window.WebSocket = class extends Real {
			constructor(...a) {
				super(...a);
				this.addEventListener('message', (ev) => {
					try { const m = JSON.parse(ev.data); if (m.type === 'welcome') window.__welcomeTokens.push(m.you?.token || ''); } catch {}
				});
			}
			send(data) {
				try { const m = JSON.parse(data); if (m.type === 'join') window.__welcomeTokens.push(m.token || ''); } catch {}
				super.send(data);
			}
		};
	})()`)
}

// signUp makes the page's browser an account with the handle, through the
// account page and a passkey of a new virtual authenticator.
func signUp(p *page, base, handle string) {
	p.t.Helper()
	p.authenticator()
	p.navigate(base + "/account")
	p.wait("the sign-up form", accountView("guest"))
	p.typeInto("#signup-handle", handle)
	p.click("#signup")
	p.wait("the recovery codes", accountView("codes"))
	p.click("#codes-done")
	p.wait("the account page", accountView("account"))
}

// TestAccountNames plays a race between an account and a guest: the room
// shows the account's handle as it is and the guest as "Name (guest)" in
// the players, the feed and the results; the home page plays the account
// under its handle, with no name to type.
func TestAccountNames(t *testing.T) {
	t.Parallel()
	srv, base := startAccountArena(t)
	b := newBrowser(t)
	ann, gus := b.newPage("Ann"), b.newPage("Gus")
	signUp(ann, base, "Ann")

	ann.navigate(base + "/")
	ann.wait("the home page", visible("#create-race"))
	assert.False(t, eval[bool](ann, visible("#name")), "no name field for an account")
	assert.Equal(t, "Ann", text(ann, "#playing-as strong"))
	ann.click("#create-race")
	ann.wait("the room's lobby", `location.pathname.startsWith('/r/') && `+phaseIs("waiting")+" && "+connIs("open"))
	id := eval[string](ann, `location.pathname.slice(3)`)
	joinRoom(gus, base+"/r/"+id, "Gus")
	ids := playerIDs(t, srv, id)
	require.Len(t, ids, 2)
	pname := func(p *page, name string) string {
		return eval[string](p, fmt.Sprintf(`document.querySelector('#players li[data-player=%q] .pname').textContent`, ids[name]))
	}
	for _, p := range []*page{ann, gus} {
		p.wait("both in the room", playersHave("Ann", "Gus"))
		p.wait("Gus marked a guest", fmt.Sprintf(`document.querySelector('#players li[data-player=%q] .pname')?.textContent === 'Gus (guest)'`, ids["Gus"]))
		assert.Equal(t, "Ann", pname(p, "Ann"), "%s: the account's handle as it is", p.name)
	}
	ann.wait("the join in the feed", feedHas("join", "Gus (guest) joined."))
	ann.shots("account-room", "")

	// The results name them the same way.
	startGame(ann, gus)
	givens, sol := puzzle(gus)
	cells := empties(givens)
	gus.solve(cells, sol)
	ann.wait("Gus's finish in the feed", feedHas("finish", "Gus (guest) finished 1st"))
	gus.wait("the results", visible("#finish")+` && [...document.querySelectorAll('#finish-rows .name')].some(td => td.textContent === 'Gus (guest)')`)
}
