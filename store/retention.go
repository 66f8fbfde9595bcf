package store

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// EventPruner is the part of a Store the event retention deletes from.
type EventPruner interface {
	DeleteFinishedEvents(ctx context.Context, before time.Time, maxRooms int) (int64, error)
}

// Retention deletes the stored events of rooms that finished longer ago
// than Keep (EVENT_RETENTION). A finished room's events serve replays for
// a while; kept for ever they would grow the database without end. Rooms
// and results are not touched. Zero values take the defaults.
type Retention struct {
	Store EventPruner
	// Keep is how long after its finish a room's events are kept; 0 keeps
	// them for ever (Run returns at once).
	Keep time.Duration
	// Every is the time between runs (default an hour).
	Every time.Duration
	// BatchRooms is how many rooms' events one statement deletes (default
	// 10,000), so that no one statement holds the database for long.
	BatchRooms int
	// Now is the clock (default time.Now).
	Now    func() time.Time
	Logger *slog.Logger
}

func (r *Retention) defaults() {
	if r.Every <= 0 {
		r.Every = time.Hour
	}
	if r.BatchRooms <= 0 {
		r.BatchRooms = 10000
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.Logger == nil {
		r.Logger = slog.New(slog.DiscardHandler)
	}
}

// Run prunes at once and then every Every until ctx ends. A run that fails
// (the database is away) is logged; the next one catches up.
func (r *Retention) Run(ctx context.Context) {
	if r.Keep <= 0 {
		return
	}
	r.defaults()
	t := time.NewTicker(r.Every)
	defer t.Stop()
	for {
		n, err := r.Prune(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			r.Logger.Warn("event retention", "err", err, "deleted", n)
		case n > 0:
			r.Logger.Info("event retention: deleted the events of finished rooms", "events", n, "finished_before", r.Now().Add(-r.Keep))
		}
		select {
		case <-t.C:
		case <-ctx.Done():
			return
		}
	}
}

// Prune deletes the events of the rooms finished before Keep ago, batch
// after batch until none is left, and returns how many it deleted.
func (r *Retention) Prune(ctx context.Context) (int64, error) {
	if r.Keep <= 0 {
		return 0, nil
	}
	r.defaults()
	before := r.Now().Add(-r.Keep)
	var total int64
	for {
		n, err := r.Store.DeleteFinishedEvents(ctx, before, r.BatchRooms)
		total += n
		if err != nil {
			return total, fmt.Errorf("store: delete events of rooms finished before %s: %w", before.Format(time.RFC3339), err)
		}
		if n == 0 {
			return total, nil
		}
	}
}
