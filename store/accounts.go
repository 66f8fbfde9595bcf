package store

import (
	"context"
	"time"
)

// Accounts is the persistence of accounts: a player becomes an account
// when they take a handle and a passkey; the account signs in through
// sessions (a cookie's secret, of which only a hash is kept), one-time
// sign-in codes and recovery codes. Beside them: the WebAuthn ceremonies
// between their begin and finish, the daily attempts (the first view of a
// day's daily by a player, whose clock the ranked time runs on), and the
// review of held results.
//
// Secrets are stored as hashes only (SHA-256 of the secret): a hash
// argument is what the caller computed.
type Accounts interface {
	// CreateAccount turns the player into an account with the handle
	// (as shown) and its key (the handle's confusables skeleton, unique
	// among accounts), and stores its recovery codes' hashes, in one
	// transaction. ErrNotFound: no such player; ErrConflict: another
	// account has the key, or the player is an account already.
	CreateAccount(ctx context.Context, playerID, handle, handleKey string, at time.Time, recovery [][]byte) error
	// PlayerByHandle is the account whose handle has the key.
	PlayerByHandle(ctx context.Context, handleKey string) (Player, error)
	// DeleteAccount makes the account an anonymous player again, for
	// good: its name becomes the one given, its handle, key and settings
	// are cleared, its token hash replaced, and its credentials, sessions,
	// sign-in codes and recovery codes are deleted. Its results and
	// attempts stay (the results are then a nameless player's).
	// ErrNotFound: no such account.
	DeleteAccount(ctx context.Context, playerID, name string, tokenHash []byte) error
	// AccountSettings are the account's settings as its browser client
	// keeps them (a JSON object, opaque to the store); nil until saved.
	// ErrNotFound: no such account (a guest's stay in their browser).
	AccountSettings(ctx context.Context, playerID string) ([]byte, error)
	// PutAccountSettings stores the account's settings in place of those
	// it had. ErrNotFound: no such account.
	PutAccountSettings(ctx context.Context, playerID string, settings []byte) error

	// AddCredential stores a passkey; ErrConflict when its ID is stored.
	AddCredential(ctx context.Context, c Credential) error
	// Credential finds a passkey by its ID.
	Credential(ctx context.Context, id []byte) (Credential, error)
	// Credentials are the account's passkeys, oldest first.
	Credentials(ctx context.Context, playerID string) ([]Credential, error)
	// UpdateCredential stores a passkey's data after a sign-in (its
	// counter moves) and when it was used.
	UpdateCredential(ctx context.Context, id, data []byte, usedAt time.Time) error

	// CreateSession stores a session; ErrConflict when its hash is stored.
	CreateSession(ctx context.Context, s Session) error
	// Session finds a session by its hash; ErrNotFound when there is none
	// or it has expired by now.
	Session(ctx context.Context, hash []byte, now time.Time) (Session, error)
	// DeleteSession ends a session; ending one that does not exist is not
	// an error.
	DeleteSession(ctx context.Context, hash []byte) error
	// DeleteExpired deletes the sessions, sign-in codes and ceremonies that
	// expired before now and returns how many rows went.
	DeleteExpired(ctx context.Context, now time.Time) (int64, error)

	// CreateSignInCode stores a one-time sign-in code.
	CreateSignInCode(ctx context.Context, c SignInCode) error
	// TakeSignInCode uses a sign-in code up and returns its player: a code
	// is taken once, by one caller, even by several at once. ErrNotFound
	// when there is no such code, it was taken, or it has expired.
	TakeSignInCode(ctx context.Context, hash []byte, now time.Time) (string, error)
	// UseRecoveryCode uses one of the account's recovery codes up, once;
	// ErrNotFound when none unused has the hash.
	UseRecoveryCode(ctx context.Context, playerID string, hash []byte, at time.Time) error
	// RecoveryCodesLeft is how many of the account's recovery codes are
	// unused.
	RecoveryCodesLeft(ctx context.Context, playerID string) (int, error)

	// PutCeremony stores a WebAuthn ceremony's state between its begin and
	// its finish (which may reach another node).
	PutCeremony(ctx context.Context, c Ceremony) error
	// TakeCeremony returns a ceremony's state and deletes it: once, to one
	// caller. ErrNotFound when there is none or it has expired.
	TakeCeremony(ctx context.Context, hash []byte, now time.Time) ([]byte, error)

	// StartAttempt records the player's first view of a day's daily of a
	// level, unless one is recorded already, and returns the one that is
	// (callers racing to start it agree).
	StartAttempt(ctx context.Context, a Attempt) (Attempt, error)
	// Attempt is the player's attempt of a day and level; ErrNotFound when
	// they have not seen it.
	Attempt(ctx context.Context, playerID, day, level string) (Attempt, error)
	// FinishAttempt marks the attempt finished at the time given unless it
	// is finished already, and reports whether this call finished it.
	// ErrNotFound when there is no such attempt.
	FinishAttempt(ctx context.Context, playerID, day, level string, at time.Time) (bool, error)

	// HeldResults are the results held for review (Review "held"), oldest
	// first, at most limit (<= 0: all).
	HeldResults(ctx context.Context, limit int) ([]Result, error)
	// ReviewResult confirms a held result (it goes on the boards it was
	// held from: its HeldDay's leaderboard, the all-time board when
	// AllTime) or removes it (it stays off them, for good), and returns
	// it as it now is. ErrNotFound when no held result has the id;
	// ErrConflict when confirming would put a second result of the player
	// on the day's leaderboard.
	ReviewResult(ctx context.Context, id int64, confirm bool, at time.Time) (Result, error)
}

// Review states of a result.
const (
	ReviewNone      = ""          // never held
	ReviewHeld      = "held"      // off the boards until a person looks
	ReviewConfirmed = "confirmed" // held, then put on the boards
	ReviewRemoved   = "removed"   // held, then kept off the boards for good
)

// Credential is an account's passkey. Data is the WebAuthn library's
// credential (its public key, counter, flags), opaque to the store.
type Credential struct {
	ID        []byte
	PlayerID  string
	Data      []byte
	CreatedAt time.Time
	LastUsed  time.Time
}

// Session is a signed-in browser: the hash of its cookie's secret.
type Session struct {
	Hash      []byte
	PlayerID  string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// SignInCode is a one-time code (or link) that signs another device in
// to the account that made it.
type SignInCode struct {
	Hash      []byte
	PlayerID  string
	ExpiresAt time.Time
}

// Ceremony is a WebAuthn registration or sign-in between its begin and
// its finish: the library's session data, opaque to the store.
type Ceremony struct {
	Hash      []byte
	Data      []byte
	ExpiresAt time.Time
}

// Attempt is a player's ranked attempt at a day's daily of a level: it
// starts when the board is first sent to them, in any room, and its
// clock runs from then; FinishedAt is zero until it is finished.
type Attempt struct {
	PlayerID   string
	Day        string
	Level      string
	StartedAt  time.Time
	FinishedAt time.Time
}
