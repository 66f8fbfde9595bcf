// Package account is players' accounts: a guest takes a handle (public,
// unique up to case and look-alike characters: CheckHandle) and a passkey
// and becomes an account, keeping their player id (and with it their
// history and streak); an account signs in on another browser with a
// passkey, a one-time sign-in code made on a browser already signed in, or
// one of its recovery codes. Browsers hold sessions, whose secrets the
// store keeps only hashed.
//
// Service is what the server's account routes and WebSocket join ask
// (server.Accounts); the server reads and sets the cookie and checks the
// Origin. Passkeys are WebAuthn credentials (github.com/go-webauthn/webauthn),
// bound to the relying party ID, the host name of PUBLIC_URL. The
// ceremonies' state between begin and finish is stored (hashed id, five
// minutes), so a finish may reach another node.
package account

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store"
)

// Store is what the accounts keep: the store's accounts and its players.
type Store interface {
	store.Accounts
	Player(ctx context.Context, id string) (store.Player, error)
	RenamePlayer(ctx context.Context, id, name string) error
}

// Clock is the accounts' time: when sessions, codes and ceremonies expire.
// server.Clock is one.
type Clock interface {
	Now() time.Time
}

type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

// Lifetimes of what the accounts hand out.
const (
	// CeremonyLifetime is how long a passkey ceremony may take from its
	// begin to its finish.
	CeremonyLifetime = 5 * time.Minute
	// CodeLifetime is how long a sign-in code is good for.
	CodeLifetime = 10 * time.Minute
	// RecoveryCodes is how many recovery codes an account gets.
	RecoveryCodes = 10
	// SweepEvery is how often Run deletes the expired sessions, codes and
	// ceremonies.
	SweepEvery = time.Hour
	// DeletedName is the name a deleted account's player keeps.
	DeletedName = "Deleted player"
)

// Config is how the accounts are set up.
type Config struct {
	// PublicURL is the site's base URL (PUBLIC_URL): its host name is
	// the relying party ID that passkeys are bound to, and its origin the
	// one the browser's ceremonies must come from. Empty: localhost, on
	// ListenAddr's port, for a server run on a developer's machine.
	PublicURL  string
	ListenAddr string
	// Clock is the time; nil is the wall clock.
	Clock Clock
	// Logger may be nil.
	Logger *slog.Logger
}

// Service is the accounts; it implements server.Accounts.
type Service struct {
	store Store
	rp    *relyingParty
	clock Clock
	log   *slog.Logger
}

var _ server.Accounts = (*Service)(nil)

// New is the accounts over the store. A PUBLIC_URL whose host is no
// relying party ID (an IP address: browsers make no passkeys there) is
// logged, and the passkey routes then answer unavailable; sessions and
// codes work all the same.
func New(cfg Config, st Store) *Service {
	s := &Service{store: st, clock: cfg.Clock, log: cfg.Logger}
	if s.clock == nil {
		s.clock = wallClock{}
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	rp, err := newRelyingParty(cfg.PublicURL, cfg.ListenAddr)
	if err != nil {
		s.log.Warn("accounts: no passkeys on this server: set PUBLIC_URL to the site's URL, with a host name", "err", err)
	}
	s.rp = rp
	return s
}

// RelyingParty is the relying party ID and the origins passkeys are made
// and used at; none when there are no passkeys.
func (s *Service) RelyingParty() (id string, origins []string) {
	if s.rp == nil {
		return "", nil
	}
	return s.rp.wa.Config.RPID, s.rp.wa.Config.RPOrigins
}

func (s *Service) now() time.Time { return s.clock.Now() }

// Run deletes the expired sessions, sign-in codes and ceremonies every
// SweepEvery until ctx ends.
func (s *Service) Run(ctx context.Context) {
	t := time.NewTicker(SweepEvery)
	defer t.Stop()
	for {
		if n, err := s.Sweep(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("accounts: delete the expired sessions and codes", "err", err)
		} else if n > 0 {
			s.log.Info("accounts: expired sessions and codes deleted", "rows", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Sweep deletes the expired sessions, sign-in codes and ceremonies once.
func (s *Service) Sweep(ctx context.Context) (int64, error) {
	n, err := s.store.DeleteExpired(ctx, s.now())
	if err != nil {
		return 0, fmt.Errorf("account: delete expired: %w", err)
	}
	return n, nil
}

// Session is the player of the live session whose secret it is.
func (s *Service) Session(ctx context.Context, secret string) (server.SessionPlayer, error) {
	sess, err := s.store.Session(ctx, hash(secret), s.now())
	if errors.Is(err, store.ErrNotFound) {
		return server.SessionPlayer{}, server.ErrNoSession
	}
	if err != nil {
		return server.SessionPlayer{}, fmt.Errorf("account: session: %w", err)
	}
	p, err := s.store.Player(ctx, sess.PlayerID)
	if errors.Is(err, store.ErrNotFound) {
		return server.SessionPlayer{}, server.ErrNoSession
	}
	if err != nil {
		return server.SessionPlayer{}, fmt.Errorf("account: session's player %s: %w", sess.PlayerID, err)
	}
	return sessionPlayer(p), nil
}

// sessionPlayer is the player as a session shows them: an account's name
// is its handle.
func sessionPlayer(p store.Player) server.SessionPlayer {
	sp := server.SessionPlayer{ID: p.ID, Name: p.Name, Guest: !p.Account()}
	if p.Account() {
		sp.Name = p.Handle
	}
	return sp
}

// StartSession starts a session of the player, for server.SessionLifetime.
func (s *Service) StartSession(ctx context.Context, playerID string) (server.NewSession, error) {
	secret := newSecret()
	now := s.now()
	ns := server.NewSession{Secret: secret, Expires: now.Add(server.SessionLifetime)}
	err := s.store.CreateSession(ctx, store.Session{Hash: hash(secret), PlayerID: playerID, CreatedAt: now, ExpiresAt: ns.Expires})
	if err != nil {
		return server.NewSession{}, fmt.Errorf("account: start a session of %s: %w", playerID, err)
	}
	return ns, nil
}

// EndSession ends the session.
func (s *Service) EndSession(ctx context.Context, secret string) error {
	if err := s.store.DeleteSession(ctx, hash(secret)); err != nil {
		return fmt.Errorf("account: end a session: %w", err)
	}
	return nil
}

// account is the player, who must be an account (not_signed_in).
func (s *Service) account(ctx context.Context, playerID string) (store.Player, error) {
	p, err := s.store.Player(ctx, playerID)
	if errors.Is(err, store.ErrNotFound) || err == nil && !p.Account() {
		return store.Player{}, protocol.Errorf(protocol.CodeNotSignedIn, "sign in to your account first")
	}
	if err != nil {
		return store.Player{}, fmt.Errorf("account: player %s: %w", playerID, err)
	}
	return p, nil
}

// Account is the player's account as GET /api/me shows it.
func (s *Service) Account(ctx context.Context, playerID string) (server.AccountJSON, error) {
	p, err := s.account(ctx, playerID)
	if err != nil {
		return server.AccountJSON{}, err
	}
	creds, err := s.store.Credentials(ctx, playerID)
	if err != nil {
		return server.AccountJSON{}, fmt.Errorf("account: passkeys of %s: %w", playerID, err)
	}
	left, err := s.store.RecoveryCodesLeft(ctx, playerID)
	if err != nil {
		return server.AccountJSON{}, fmt.Errorf("account: recovery codes of %s: %w", playerID, err)
	}
	settings, err := s.store.AccountSettings(ctx, playerID)
	if err != nil {
		return server.AccountJSON{}, fmt.Errorf("account: settings of %s: %w", playerID, err)
	}
	return server.AccountJSON{Handle: p.Handle, CreatedAt: p.AccountAt.UTC(), Passkeys: len(creds), RecoveryCodesLeft: left, Settings: settings}, nil
}

// PutSettings keeps the account's settings (a JSON object the server has
// checked) for its browsers.
func (s *Service) PutSettings(ctx context.Context, playerID string, settings json.RawMessage) error {
	if err := s.store.PutAccountSettings(ctx, playerID, settings); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return protocol.Errorf(protocol.CodeNotSignedIn, "settings are kept with an account: sign in first")
		}
		return fmt.Errorf("account: put settings of %s: %w", playerID, err)
	}
	return nil
}

// CheckHandle refuses a handle that is no handle (bad_handle) or is taken
// (handle_taken).
func (s *Service) CheckHandle(ctx context.Context, raw string) error {
	_, _, err := s.freeHandle(ctx, raw)
	return err
}

// freeHandle is the handle as shown and its key, when it is a handle and
// no account has it.
func (s *Service) freeHandle(ctx context.Context, raw string) (handle, key string, err error) {
	handle, key, err = CheckHandle(raw)
	if err != nil {
		return "", "", protocol.Errorf(protocol.CodeBadHandle, "%v", err)
	}
	_, err = s.store.PlayerByHandle(ctx, key)
	switch {
	case err == nil:
		return "", "", protocol.Errorf(protocol.CodeHandleTaken, "the handle %q is taken, or looks the same as one that is", handle)
	case !errors.Is(err, store.ErrNotFound):
		return "", "", fmt.Errorf("account: player by handle: %w", err)
	}
	return handle, key, nil
}

// SignInCode makes a one-time code that signs a browser in to the
// account, good for CodeLifetime.
func (s *Service) SignInCode(ctx context.Context, playerID string) (string, time.Time, error) {
	if _, err := s.account(ctx, playerID); err != nil {
		return "", time.Time{}, err
	}
	code := newCode()
	expires := s.now().Add(CodeLifetime)
	if err := s.store.CreateSignInCode(ctx, store.SignInCode{Hash: hash(normalCode(code)), PlayerID: playerID, ExpiresAt: expires}); err != nil {
		return "", time.Time{}, fmt.Errorf("account: store a sign-in code: %w", err)
	}
	return code, expires, nil
}

// badCode is the refusal of a sign-in or recovery code.
func badCode() error {
	return protocol.Errorf(protocol.CodeBadCode, "that code is unknown, used or expired")
}

// CodeSignIn uses the sign-in code up and returns its account.
func (s *Service) CodeSignIn(ctx context.Context, code string) (string, error) {
	c := normalCode(code)
	if len(c) != codeLen {
		return "", badCode()
	}
	id, err := s.store.TakeSignInCode(ctx, hash(c), s.now())
	if errors.Is(err, store.ErrNotFound) {
		return "", badCode()
	}
	if err != nil {
		return "", fmt.Errorf("account: take a sign-in code: %w", err)
	}
	return id, nil
}

// RecoverySignIn uses one of the account's recovery codes up.
func (s *Service) RecoverySignIn(ctx context.Context, handle, code string) (string, error) {
	c := normalCode(code)
	_, key, err := CheckHandle(handle)
	if err != nil || len(c) != codeLen {
		return "", badCode()
	}
	p, err := s.store.PlayerByHandle(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return "", badCode()
	}
	if err != nil {
		return "", fmt.Errorf("account: player by handle: %w", err)
	}
	err = s.store.UseRecoveryCode(ctx, p.ID, hash(c), s.now())
	if errors.Is(err, store.ErrNotFound) {
		return "", badCode()
	}
	if err != nil {
		return "", fmt.Errorf("account: use a recovery code of %s: %w", p.ID, err)
	}
	s.log.Info("account: signed in with a recovery code", "player", p.ID)
	return p.ID, nil
}

// DeleteAccount deletes the account, for good: the player stays, named
// DeletedName, with their results; the handle is free again.
func (s *Service) DeleteAccount(ctx context.Context, playerID, handle string) error {
	p, err := s.account(ctx, playerID)
	if err != nil {
		return err
	}
	if _, key, err := CheckHandle(handle); err != nil || key != p.HandleKey {
		return protocol.Errorf(protocol.CodeBadHandle, "type your handle, %q, to confirm", p.Handle)
	}
	// No token is given out for the player that stays: nobody can play
	// as them again.
	if err := s.store.DeleteAccount(ctx, playerID, DeletedName, hash(newSecret())); err != nil {
		return fmt.Errorf("account: delete %s: %w", playerID, err)
	}
	return nil
}

// newSecret is a session's secret (or a ceremony's id): 32 random bytes,
// base64url.
func newSecret() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// hash is what is stored of a secret or a code.
func hash(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}
