package room

import (
	"log/slog"
	"time"
)

// Config holds the rules' tunables. DefaultConfig is their one set of
// defaults: the server's configuration table (internal/config) shows and
// starts from it, and a zero field here takes its value, so a test sets
// only the fields it is about. HintPenalty is the exception: 0 is a
// setting of its own (no freeze) and is kept.
type Config struct {
	// Countdown is the time from start to play.
	Countdown time.Duration
	// GroupWait is how long a race made for a group (Registry.CreateGroup)
	// waits for all its players before it starts with those who are in.
	GroupWait time.Duration
	// HintPenalty is how long a hint freezes a racer's board: the clock
	// runs on and digits are refused until it ends. 0 means no freeze.
	HintPenalty time.Duration
	// ReconnectWindow is how long a dropped player keeps their place.
	ReconnectWindow time.Duration
	// ReplayEvents is how many recent events a room keeps to replay to a
	// player who comes back. Older gaps get a snapshot. The replay is sent
	// in one go, so the server keeps it within a connection's send queue.
	// 64 events (about 100 bytes each) already weigh more than a
	// snapshot (1 to 3 KB): a longer gap is cheaper as one, for the
	// player and for the room, which keeps its log in memory.
	ReplayEvents int
	// MaxPlayers and MaxSpectators bound a room.
	MaxPlayers    int
	MaxSpectators int
	// FloorPercent scales the floors a ranked finish is held under
	// (LevelFloor, and the puzzle's own from its steps), in percent: at
	// 100 they are as defined; a private or practice server whose players
	// know one another may lower them, and a strict one raise them.
	FloorPercent int
}

// DefaultConfig is the rules rooms are played by unless configured
// otherwise.
func DefaultConfig() Config {
	return Config{
		Countdown:       3 * time.Second,
		GroupWait:       20 * time.Second,
		HintPenalty:     15 * time.Second,
		ReconnectWindow: 60 * time.Second,
		ReplayEvents:    64,
		MaxPlayers:      16,
		MaxSpectators:   64,
		FloorPercent:    100,
	}
}

// withDefaults fills the fields that are unset (zero, or negative, which no
// setting allows) from DefaultConfig. A HintPenalty of zero or less is no
// freeze.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	orDefault(&c.Countdown, d.Countdown)
	orDefault(&c.GroupWait, d.GroupWait)
	orDefault(&c.ReconnectWindow, d.ReconnectWindow)
	orDefault(&c.ReplayEvents, d.ReplayEvents)
	orDefault(&c.MaxPlayers, d.MaxPlayers)
	orDefault(&c.MaxSpectators, d.MaxSpectators)
	orDefault(&c.FloorPercent, d.FloorPercent)
	c.HintPenalty = max(c.HintPenalty, 0)
	return c
}

// orDefault sets *v to d when *v is not positive.
func orDefault[T time.Duration | int](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}

// RegistryConfig is the registry's settings. DefaultRegistryConfig holds
// the defaults of the configured ones.
type RegistryConfig struct {
	Game Config
	// IdleTimeout ends a room nobody has been connected to for this long.
	IdleTimeout time.Duration
	// MaxRooms bounds the live rooms: Create answers ErrFull beyond it.
	// Each room holds a goroutine, its boards and a replay buffer.
	MaxRooms int
	// MaxResultsWaiting bounds the results written or waiting to be
	// (while the database is away, finishes wait and are retried): at the
	// bound Create refuses new rooms (ErrBusy) and the server reports
	// itself not ready, while the games already running play on. Nothing
	// waiting is dropped; each player has at most one finish waiting per
	// room (a rematch waits for the last), so live players bound it too.
	MaxResultsWaiting int
	// StoreTimeout bounds each storage call (default 5s; not a setting).
	StoreTimeout time.Duration
	// Clock is the rooms' time and timers (default WallClock).
	Clock  Clock
	Logger *slog.Logger
}

// DefaultRegistryConfig is the registry's settings unless configured
// otherwise: DefaultConfig's rules, rooms nobody is connected to end
// after 10 minutes, at most 10,000 rooms live at once (40,000 sockets at
// four players a room: far beyond what one node serves well), and at most
// 10,000 results wait for the database.
func DefaultRegistryConfig() RegistryConfig {
	return RegistryConfig{Game: DefaultConfig(), IdleTimeout: 10 * time.Minute, MaxRooms: 10000, MaxResultsWaiting: 10000}
}
