// Package wire connects the parts: it makes the store serve as the rooms'
// Store and the server's Players, and the engine's generator fill the store's
// puzzle pool. cmd/arena builds the server with it, and the server's tests
// build the same graph over a real store.
package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store"
)

// MakePuzzle is the pool's PuzzleMaker: the engine's generator, graded.
func MakePuzzle(ctx context.Context, level string, seed uint64) (store.Puzzle, error) {
	l, err := engine.ParseLevel(level)
	if err != nil {
		return store.Puzzle{}, err
	}
	if err := ctx.Err(); err != nil {
		return store.Puzzle{}, err
	}
	g, err := engine.Generate(engine.GenerateOptions{Level: l, Seed: seed})
	if err != nil {
		return store.Puzzle{}, fmt.Errorf("generate %s puzzle: %w", level, err)
	}
	counts := make(map[string]int, len(g.Grade.Counts))
	for t, n := range g.Grade.Counts {
		counts[t.String()] = n
	}
	return store.Puzzle{
		Givens: g.Givens.String(), Solution: g.Solution.String(), Level: level,
		Score: g.Grade.Score, Techniques: counts, Seed: seed, CreatedAt: time.Now(),
	}, nil
}

// Backend is the store as the rooms and the server need it.
type Backend struct {
	Store  store.Store
	Pool   *store.PuzzlePool
	Events *store.EventLog
	Clock  func() time.Time
	Logger *slog.Logger
}

var (
	_ room.Store     = (*Backend)(nil)
	_ server.Players = (*Backend)(nil)
)

func (b *Backend) now() time.Time {
	if b.Clock != nil {
		return b.Clock()
	}
	return time.Now()
}

// NewGame takes a pooled puzzle and records the game.
func (b *Backend) NewGame(ctx context.Context, roomID, gameID, mode, level string) (room.Puzzle, error) {
	pz, err := b.Pool.Take(ctx, level)
	if err != nil {
		return room.Puzzle{}, err
	}
	givens, err := engine.Parse(pz.Givens)
	if err != nil {
		return room.Puzzle{}, fmt.Errorf("puzzle %d: givens: %w", pz.ID, err)
	}
	sol, err := engine.Parse(pz.Solution)
	if err != nil {
		return room.Puzzle{}, fmt.Errorf("puzzle %d: solution: %w", pz.ID, err)
	}
	err = b.Store.CreateRoom(ctx, store.Room{
		ID: gameID, Mode: mode, PuzzleID: pz.ID, State: store.StateWaiting, CreatedAt: b.now(),
	})
	if err != nil {
		return room.Puzzle{}, fmt.Errorf("record game %s: %w", gameID, err)
	}
	return room.Puzzle{ID: pz.ID, Level: pz.Level, Givens: givens, Solution: sol}, nil
}

// SaveResults stores finishes; one stored already (a retry) is fine.
func (b *Backend) SaveResults(ctx context.Context, rs []room.Result) error {
	var errs []error
	for _, r := range rs {
		_, err := b.Store.SaveResult(ctx, store.Result{
			RoomID: r.GameID, PlayerID: r.PlayerID, PuzzleID: r.PuzzleID, Mode: r.Mode, Level: r.Level,
			Elapsed: r.Elapsed, Mistakes: r.Mistakes, Hints: r.Hints, Score: r.Score, FinishedAt: r.FinishedAt,
		})
		if err != nil && !errors.Is(err, store.ErrConflict) {
			errs = append(errs, fmt.Errorf("result of %s in %s: %w", r.PlayerID, r.GameID, err))
		}
	}
	return errors.Join(errs...)
}

// SaveRoom stores the room's state as the game's settings.
func (b *Backend) SaveRoom(ctx context.Context, s *room.Saved) error {
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("encode room %s: %w", s.ID, err)
	}
	state := store.StateWaiting
	switch {
	case s.Abandoned, s.Phase == room.PhaseFinished:
		state = store.StateFinished
	case s.Phase == room.PhaseRunning:
		state = store.StateRunning
	}
	finished := s.FinishedAt
	if state == store.StateFinished && finished.IsZero() {
		finished = s.SavedAt
	}
	return b.Store.UpdateRoom(ctx, store.Room{
		ID: s.GameID(), Mode: s.Mode, PuzzleID: s.Puzzle.ID, HostID: s.Host, State: state,
		CreatedAt: s.Created, StartedAt: s.StartedAt, FinishedAt: finished, Settings: data,
	})
}

// LoadRooms reads back the saved state of the games not finished.
func (b *Backend) LoadRooms(ctx context.Context) ([]*room.Saved, error) {
	rooms, err := b.Store.LiveRooms(ctx)
	if err != nil {
		return nil, err
	}
	var out []*room.Saved
	for _, r := range rooms {
		var s room.Saved
		if err := json.Unmarshal(r.Settings, &s); err != nil || s.ID == "" || s.Puzzle.Givens == "" {
			continue // never saved: nothing to bring back
		}
		out = append(out, &s)
	}
	return out, nil
}

// RecordEvents queues the events on the event log, which writes them in
// batches off the rooms' path.
func (b *Backend) RecordEvents(gameID string, records []room.Record) {
	events := make([]store.Event, len(records))
	for i, r := range records {
		events[i] = store.Event{RoomID: gameID, Seq: r.Seq, Type: r.Type, PlayerID: r.Player, Data: r.Data, At: r.At}
	}
	b.Events.Append(events...)
}

// CreatePlayer stores a new player.
func (b *Backend) CreatePlayer(ctx context.Context, id, name string, tokenHash []byte) error {
	now := b.now()
	return b.Store.CreatePlayer(ctx, store.Player{ID: id, Name: name, TokenHash: tokenHash, CreatedAt: now, LastSeen: now})
}

// PlayerByToken finds the player and notes that they were seen.
func (b *Backend) PlayerByToken(ctx context.Context, tokenHash []byte) (string, string, error) {
	p, err := b.Store.PlayerByToken(ctx, tokenHash)
	if errors.Is(err, store.ErrNotFound) {
		return "", "", server.ErrUnknownPlayer
	}
	if err != nil {
		return "", "", err
	}
	if err := b.Store.TouchPlayer(ctx, p.ID, b.now()); err != nil && b.Logger != nil {
		b.Logger.Warn("touch player", "player", p.ID, "err", err)
	}
	return p.ID, p.Name, nil
}

// Ping reports whether the database answers.
func (b *Backend) Ping(ctx context.Context) error { return b.Store.Ping(ctx) }
