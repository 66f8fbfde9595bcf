package account

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	arena "github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store"
)

// RPName is the relying party's name, which browsers show beside a
// passkey.
const RPName = "Sudoku Arena"

// relyingParty is the WebAuthn relying party the accounts are.
type relyingParty struct {
	wa *webauthn.WebAuthn
}

// newRelyingParty is the relying party of the site at publicURL: its host
// name is the ID, its origin the one origin; without one, localhost on the
// port of listenAddr (http://localhost:8080 by default), where browsers
// allow passkeys over plain HTTP.
func newRelyingParty(publicURL, listenAddr string) (*relyingParty, error) {
	id, origin := "localhost", "http://localhost"
	if publicURL != "" {
		u, err := url.Parse(publicURL)
		if err != nil || u.Hostname() == "" {
			return nil, fmt.Errorf("account: PUBLIC_URL %q has no host name", publicURL)
		}
		id, origin = u.Hostname(), u.Scheme+"://"+u.Host
	} else if _, port, err := net.SplitHostPort(listenAddr); err == nil && port != "" && port != "80" {
		origin += ":" + port
	}
	wa, err := webauthn.New(&webauthn.Config{
		RPID:          id,
		RPDisplayName: RPName,
		RPOrigins:     []string{origin},
		// Passkeys: discoverable credentials, so that a sign-in needs no
		// handle; the user is verified when the authenticator can.
		AuthenticatorSelection: protocol.AuthenticatorSelection{
			RequireResidentKey: protocol.ResidentKeyRequired(),
			ResidentKey:        protocol.ResidentKeyRequirementRequired,
			UserVerification:   protocol.VerificationPreferred,
		},
		AttestationPreference: protocol.PreferNoAttestation,
		// Browsers and password managers add client extension outputs
		// of their own; nothing here reads them, and they are not signed.
		ExtensionsUnsolicitedOutputPolicy: protocol.UnsolicitedOutputPolicyIgnore,
	})
	if err != nil {
		return nil, fmt.Errorf("account: the relying party %q (PUBLIC_URL): %w", id, err)
	}
	return &relyingParty{wa: wa}, nil
}

// credProps asks the browser whether the new passkey is discoverable
// (the credential keeps the answer).
var credProps = webauthn.WithExtensions(webauthn.WithExtensionCredProps())

// user is a player as the WebAuthn library sees them: the id is the
// player's id, the credentials their stored passkeys.
type user struct {
	id, name string
	creds    []webauthn.Credential
}

func (u *user) WebAuthnID() []byte                         { return []byte(u.id) }
func (u *user) WebAuthnName() string                       { return u.name }
func (u *user) WebAuthnDisplayName() string                { return u.name }
func (u *user) WebAuthnCredentials() []webauthn.Credential { return u.creds }

// userOf is the account's player with their passkeys.
func (s *Service) userOf(ctx context.Context, p store.Player) (*user, error) {
	stored, err := s.store.Credentials(ctx, p.ID)
	if err != nil {
		return nil, fmt.Errorf("account: passkeys of %s: %w", p.ID, err)
	}
	u := &user{id: p.ID, name: p.Handle}
	for _, c := range stored {
		var wc webauthn.Credential
		if err := json.Unmarshal(c.Data, &wc); err != nil {
			return nil, fmt.Errorf("account: passkey of %s: %w", p.ID, err)
		}
		u.creds = append(u.creds, wc)
	}
	return u, nil
}

// Kinds of ceremony.
const (
	kindSignUp  = "signup"
	kindSignIn  = "signin"
	kindPasskey = "passkey"
)

// ceremony is what is stored of a ceremony between its begin and its
// finish: the library's session data and whose ceremony it is.
type ceremony struct {
	Kind     string               `json:"kind"`
	PlayerID string               `json:"player,omitempty"`
	Handle   string               `json:"handle,omitempty"`
	Key      string               `json:"key,omitempty"`
	Session  webauthn.SessionData `json:"session"`
}

// begin stores the ceremony for CeremonyLifetime and returns its id with
// the browser's options.
func (s *Service) begin(ctx context.Context, c ceremony, options any) (server.Ceremony, error) {
	data, err := json.Marshal(c)
	if err != nil {
		return server.Ceremony{}, fmt.Errorf("account: %s ceremony: %w", c.Kind, err)
	}
	opts, err := json.Marshal(options)
	if err != nil {
		return server.Ceremony{}, fmt.Errorf("account: %s options: %w", c.Kind, err)
	}
	id := newSecret()
	if err := s.store.PutCeremony(ctx, store.Ceremony{Hash: hash(id), Data: data, ExpiresAt: s.now().Add(CeremonyLifetime)}); err != nil {
		return server.Ceremony{}, fmt.Errorf("account: store a %s ceremony: %w", c.Kind, err)
	}
	return server.Ceremony{ID: id, Options: opts}, nil
}

// webAuthn is the relying party, or the refusal of a passkey route on a
// server without one.
func (s *Service) webAuthn() (*webauthn.WebAuthn, error) {
	if s.rp == nil {
		return nil, arena.Errorf(arena.CodeUnavailable, "this server has no passkeys: its PUBLIC_URL is not a host name")
	}
	return s.rp.wa, nil
}

// passkeyFailed is the refusal of a ceremony's finish.
func passkeyFailed(why string) error {
	return arena.Errorf(arena.CodePasskeyFailed, "the passkey did not check out: %s", why)
}

// take takes the ceremony, once, when it is of the kind and, for a
// player's, the player's.
func (s *Service) take(ctx context.Context, id, kind, playerID string) (ceremony, error) {
	var c ceremony
	if id == "" || len(id) > 128 {
		return c, passkeyFailed("no such ceremony: begin again")
	}
	data, err := s.store.TakeCeremony(ctx, hash(id), s.now())
	if errors.Is(err, store.ErrNotFound) {
		return c, passkeyFailed("the ceremony is unknown, used or expired: begin again")
	}
	if err != nil {
		return c, fmt.Errorf("account: take a ceremony: %w", err)
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return c, fmt.Errorf("account: a stored ceremony: %w", err)
	}
	if c.Kind != kind || c.PlayerID != playerID {
		return c, passkeyFailed("the ceremony is another's: begin again")
	}
	return c, nil
}

// failed is the refusal of a credential the library did not verify; why
// is logged, since its details are for the server's eyes.
func (s *Service) failed(what string, err error) error {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		s.log.Info("account: "+what+": the passkey did not check out", "err", pe.Details, "info", pe.DevInfo)
	} else {
		s.log.Info("account: "+what+": the passkey did not check out", "err", err)
	}
	return passkeyFailed("the browser's answer does not verify")
}

// SignUpBegin begins to make the guest an account with the handle.
func (s *Service) SignUpBegin(ctx context.Context, playerID, raw string) (server.Ceremony, error) {
	wa, err := s.webAuthn()
	if err != nil {
		return server.Ceremony{}, err
	}
	p, err := s.store.Player(ctx, playerID)
	if err != nil {
		return server.Ceremony{}, fmt.Errorf("account: player %s: %w", playerID, err)
	}
	if p.Account() {
		return server.Ceremony{}, arena.Errorf(arena.CodeAlreadyAccount, "this player is an account already")
	}
	handle, key, err := s.freeHandle(ctx, raw)
	if err != nil {
		return server.Ceremony{}, err
	}
	creation, sd, err := wa.BeginRegistration(&user{id: playerID, name: handle}, credProps)
	if err != nil {
		return server.Ceremony{}, fmt.Errorf("account: begin a registration: %w", err)
	}
	return s.begin(ctx, ceremony{Kind: kindSignUp, PlayerID: playerID, Handle: handle, Key: key, Session: *sd}, creation)
}

// newCredential checks the browser's new credential against the ceremony
// and stores it as the player's passkey.
func (s *Service) newCredential(ctx context.Context, u *user, c ceremony, credential json.RawMessage) error {
	wa, err := s.webAuthn()
	if err != nil {
		return err
	}
	parsed, err := protocol.ParseCredentialCreationResponseBytes(credential)
	if err != nil {
		return s.failed("registration", err)
	}
	wc, err := wa.CreateCredential(u, c.Session, parsed)
	if err != nil {
		return s.failed("registration", err)
	}
	data, err := json.Marshal(wc)
	if err != nil {
		return fmt.Errorf("account: a new passkey: %w", err)
	}
	now := s.now()
	err = s.store.AddCredential(ctx, store.Credential{ID: wc.ID, PlayerID: u.id, Data: data, CreatedAt: now, LastUsed: now})
	if errors.Is(err, store.ErrConflict) {
		return passkeyFailed("this passkey is registered already")
	}
	if err != nil {
		return fmt.Errorf("account: store a passkey of %s: %w", u.id, err)
	}
	return nil
}

// SignUpFinish makes the guest an account, with the passkey the browser
// made and RecoveryCodes recovery codes, which it returns.
func (s *Service) SignUpFinish(ctx context.Context, playerID, id string, credential json.RawMessage) ([]string, error) {
	c, err := s.take(ctx, id, kindSignUp, playerID)
	if err != nil {
		return nil, err
	}
	p, err := s.store.Player(ctx, playerID)
	if err != nil {
		return nil, fmt.Errorf("account: player %s: %w", playerID, err)
	}
	if p.Account() {
		return nil, arena.Errorf(arena.CodeAlreadyAccount, "this player is an account already")
	}
	// The passkey first: a guest's passkey signs nobody in, while an
	// account made first would be left without one if the passkey could
	// not be stored.
	if err := s.newCredential(ctx, &user{id: playerID, name: c.Handle}, c, credential); err != nil {
		return nil, err
	}
	codes, hashes := recoveryCodes()
	err = s.store.CreateAccount(ctx, playerID, c.Handle, c.Key, s.now(), hashes)
	if errors.Is(err, store.ErrConflict) {
		return nil, arena.Errorf(arena.CodeHandleTaken, "the handle %q was taken meanwhile: choose another", c.Handle)
	}
	if err != nil {
		return nil, fmt.Errorf("account: make %s an account: %w", playerID, err)
	}
	// Accounts show their handle, on the boards too.
	if err := s.store.RenamePlayer(ctx, playerID, c.Handle); err != nil {
		s.log.Warn("account: name the player after the handle", "player", playerID, "err", err)
	}
	s.log.Info("account made", "player", playerID)
	return codes, nil
}

// SignInBegin begins a sign-in with a discoverable passkey: the browser
// offers the passkeys it holds for the site.
func (s *Service) SignInBegin(ctx context.Context) (server.Ceremony, error) {
	wa, err := s.webAuthn()
	if err != nil {
		return server.Ceremony{}, err
	}
	assertion, sd, err := wa.BeginDiscoverableLogin(webauthn.WithUserVerification(protocol.VerificationPreferred))
	if err != nil {
		return server.Ceremony{}, fmt.Errorf("account: begin a sign-in: %w", err)
	}
	return s.begin(ctx, ceremony{Kind: kindSignIn, Session: *sd}, assertion)
}

// SignInFinish checks the browser's assertion and returns the account it
// signs in to.
func (s *Service) SignInFinish(ctx context.Context, id string, credential json.RawMessage) (string, error) {
	wa, err := s.webAuthn()
	if err != nil {
		return "", err
	}
	c, err := s.take(ctx, id, kindSignIn, "")
	if err != nil {
		return "", err
	}
	parsed, err := protocol.ParseCredentialRequestResponseBytes(credential)
	if err != nil {
		return "", s.failed("sign-in", err)
	}
	// The store's failures are told apart from a credential that does
	// not check out: they are the server's, not the browser's.
	var storeErr error
	var player string
	find := func(rawID, userHandle []byte) (webauthn.User, error) {
		sc, err := s.store.Credential(ctx, rawID)
		if err != nil {
			if !errors.Is(err, store.ErrNotFound) {
				storeErr = err
			}
			return nil, fmt.Errorf("passkey: %w", err)
		}
		p, err := s.store.Player(ctx, sc.PlayerID)
		if err != nil {
			if !errors.Is(err, store.ErrNotFound) {
				storeErr = err
			}
			return nil, fmt.Errorf("player: %w", err)
		}
		if !p.Account() || string(userHandle) != p.ID {
			return nil, errors.New("the passkey is no account's")
		}
		u, err := s.userOf(ctx, p)
		if err != nil {
			storeErr = err
			return nil, err
		}
		player = p.ID
		return u, nil
	}
	_, wc, err := wa.ValidatePasskeyLogin(find, c.Session, parsed)
	if storeErr != nil {
		return "", fmt.Errorf("account: sign-in: %w", storeErr)
	}
	if err != nil {
		return "", s.failed("sign-in", err)
	}
	if wc.Authenticator.CloneWarning {
		s.log.Warn("account: a passkey's counter went back: refused as a possible copy", "player", player)
		return "", passkeyFailed("the authenticator's counter went back")
	}
	data, err := json.Marshal(wc)
	if err != nil {
		return "", fmt.Errorf("account: a passkey: %w", err)
	}
	if err := s.store.UpdateCredential(ctx, wc.ID, data, s.now()); err != nil {
		return "", fmt.Errorf("account: update a passkey of %s: %w", player, err)
	}
	return player, nil
}

// PasskeyBegin begins to add a passkey to the account.
func (s *Service) PasskeyBegin(ctx context.Context, playerID string) (server.Ceremony, error) {
	wa, err := s.webAuthn()
	if err != nil {
		return server.Ceremony{}, err
	}
	p, err := s.account(ctx, playerID)
	if err != nil {
		return server.Ceremony{}, err
	}
	u, err := s.userOf(ctx, p)
	if err != nil {
		return server.Ceremony{}, err
	}
	// The browser makes no second passkey on an authenticator that
	// holds one of the account's.
	creation, sd, err := wa.BeginRegistration(u, credProps, webauthn.WithExclusions(webauthn.Credentials(u.creds).CredentialDescriptors()))
	if err != nil {
		return server.Ceremony{}, fmt.Errorf("account: begin a registration: %w", err)
	}
	return s.begin(ctx, ceremony{Kind: kindPasskey, PlayerID: playerID, Session: *sd}, creation)
}

// PasskeyFinish adds the browser's new passkey to the account.
func (s *Service) PasskeyFinish(ctx context.Context, playerID, id string, credential json.RawMessage) error {
	c, err := s.take(ctx, id, kindPasskey, playerID)
	if err != nil {
		return err
	}
	p, err := s.account(ctx, playerID)
	if err != nil {
		return err
	}
	u, err := s.userOf(ctx, p)
	if err != nil {
		return err
	}
	return s.newCredential(ctx, u, c, credential)
}
