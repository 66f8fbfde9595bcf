package room

import (
	"log/slog"
	"time"
)

// Config holds the rules' tunables. Zero fields take the defaults.
type Config struct {
	// Countdown is the time from start to play (default 3s).
	Countdown time.Duration
	// HintPenalty is how long a hint freezes a racer's board: the clock
	// runs on and digits are refused until it ends (default 15s).
	HintPenalty time.Duration
	// ReconnectWindow is how long a dropped player keeps their place
	// (default 60s).
	ReconnectWindow time.Duration
	// ReplayEvents is how many recent events a room keeps to replay to a
	// player who comes back (default 200). Older gaps get a snapshot. The
	// replay is sent in one go, so it must fit the connection's send queue.
	ReplayEvents int
	// MaxPlayers and MaxSpectators bound a room (defaults 16 and 64).
	MaxPlayers    int
	MaxSpectators int
}

func (c Config) withDefaults() Config {
	if c.Countdown <= 0 {
		c.Countdown = 3 * time.Second
	}
	if c.HintPenalty < 0 {
		c.HintPenalty = 0
	} else if c.HintPenalty == 0 {
		c.HintPenalty = 15 * time.Second
	}
	if c.ReconnectWindow <= 0 {
		c.ReconnectWindow = 60 * time.Second
	}
	if c.ReplayEvents <= 0 {
		c.ReplayEvents = 200
	}
	if c.MaxPlayers <= 0 {
		c.MaxPlayers = 16
	}
	if c.MaxSpectators <= 0 {
		c.MaxSpectators = 64
	}
	return c
}

// RegistryConfig is the registry's settings; zero fields take defaults.
type RegistryConfig struct {
	Game Config
	// IdleTimeout ends a room nobody has been connected to for this long
	// (default 10m).
	IdleTimeout time.Duration
	// StoreTimeout bounds each storage call (default 5s).
	StoreTimeout time.Duration
	// Clock is the rooms' time and timers (default WallClock).
	Clock  Clock
	Logger *slog.Logger
}
