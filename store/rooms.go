package store

// The adapter between the rooms and the store: the store as room.Store
// needs it (with package daily, which adds the daily's games and the
// results' rules), and as the server's Players and Replays need it.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
)

// Fences is the epoch a node holds for each room it owns, which every
// write for the room carries (package cluster's Fences satisfies it). It
// is declared here, not imported, because cluster builds on this package.
type Fences interface {
	// Epoch is the epoch held for the game's room.
	Epoch(gameID string) int64
	// Hold records the epoch now held for the room.
	Hold(roomID string, epoch int64)
	// Check passes err on, and stops the game's room here when err is a
	// fencing refusal (ErrFenced) of a write for it.
	Check(gameID string, err error) error
}

// Adapter is the store as the rooms and the server need it: puzzles from
// the pool, games, saved rooms and results in the store, events through
// the event log, which writes them in batches off the rooms' path.
type Adapter struct {
	Store  Store
	Pool   *PuzzlePool
	Events *EventLog
	Logger *slog.Logger
	// Node is this node's id, the owner of the rooms it makes, and Fences
	// the epochs its rooms' writes carry, when it is one of several; nil
	// Fences on a single node (unfenced writes).
	Node   string
	Fences Fences
}

// epoch is the epoch held for the game's room; 0 (an unfenced write) on a
// single node.
func (a *Adapter) epoch(gameID string) int64 {
	if a.Fences == nil {
		return 0
	}
	return a.Fences.Epoch(gameID)
}

// check passes err on, telling the fences when it is a fencing refusal.
func (a *Adapter) check(gameID string, err error) error {
	if a.Fences == nil {
		return err
	}
	return a.Fences.Check(gameID, err)
}

// NewGame takes a pooled puzzle and records the game.
func (a *Adapter) NewGame(ctx context.Context, roomID, gameID, mode, level string) (room.Puzzle, error) {
	pz, err := a.Pool.Take(ctx, level)
	if err != nil {
		return room.Puzzle{}, fmt.Errorf("take %s puzzle for %s: %w", level, gameID, err)
	}
	return a.RecordGame(ctx, gameID, mode, "", pz)
}

// OwnGame stores a puzzle a player gave (once: the same givens keep
// their id) and records the game with it. It is never put in the pool,
// so no other room is dealt it.
func (a *Adapter) OwnGame(ctx context.Context, roomID, gameID, mode string, pz room.Puzzle) (room.Puzzle, error) {
	saved, err := a.Store.SavePuzzle(ctx, Puzzle{
		Givens: pz.Givens.String(), Solution: pz.Solution.String(), Level: pz.Level, CreatedAt: time.Now(),
	})
	if err != nil {
		return room.Puzzle{}, fmt.Errorf("save own puzzle for %s: %w", gameID, err)
	}
	return a.RecordGame(ctx, gameID, mode, "", saved)
}

// made is what a game's row holds until its state is first saved: what
// unsaved needs to bring the game back that the row's columns do not say.
type made struct {
	// Day is the daily puzzle's date, for a game that plays one.
	Day string `json:"day,omitempty"`
}

// RecordGame records a game of the mode with the stored puzzle; day, when
// set, is the date of the daily puzzle it plays.
func (a *Adapter) RecordGame(ctx context.Context, gameID, mode, day string, pz Puzzle) (room.Puzzle, error) {
	givens, err := engine.Parse(pz.Givens)
	if err != nil {
		return room.Puzzle{}, fmt.Errorf("puzzle %d: givens: %w", pz.ID, err)
	}
	sol, err := engine.Parse(pz.Solution)
	if err != nil {
		return room.Puzzle{}, fmt.Errorf("puzzle %d: solution: %w", pz.ID, err)
	}
	r := Room{ID: gameID, Mode: mode, PuzzleID: pz.ID, State: StateWaiting, CreatedAt: time.Now()}
	if day != "" {
		if r.Settings, err = json.Marshal(made{Day: day}); err != nil {
			return room.Puzzle{}, fmt.Errorf("record game %s: %w", gameID, err)
		}
	}
	first := RoomOf(gameID) == gameID
	if a.Fences != nil {
		// A new room is this node's, at epoch 1; a later round is fenced
		// by the room's epoch.
		if first {
			r.Owner = a.Node
		} else {
			r.Epoch = a.Fences.Epoch(gameID)
		}
	}
	if err := a.check(gameID, a.Store.CreateRoom(ctx, r)); err != nil {
		return room.Puzzle{}, fmt.Errorf("record game %s: %w", gameID, err)
	}
	if a.Fences != nil && first {
		a.Fences.Hold(gameID, FirstEpoch(r))
	}
	out := room.Puzzle{ID: pz.ID, Level: pz.Level, Givens: givens, Solution: sol, Floor: room.PuzzleFloor(pz.Techniques), SE: pz.SE}
	if out.SE == 0 {
		// A puzzle stored unrated (a player's own, or one pooled before
		// ratings were stored) is rated now.
		out.SE, _ = engine.RateSE(givens)
	}
	// The cells the grade's harder steps open, for the checks of a ranked
	// finish; a puzzle the grader cannot take (none the pool deals) has
	// none.
	if gr, err := engine.GradePuzzle(givens); err == nil {
		out.Unlocked = engine.Unlocked(gr.Steps)
	}
	return out, nil
}

// SaveFinish stores one finish, as the store keeps it, in one
// transaction, each result fenced by its room's epoch (which it sets); a
// retry of one stored already stores nothing. Values the database refuses
// (ErrConflict, ErrInvalid) are refused for good, wrapping
// room.ErrRefused: retrying cannot store them; a write for a room another
// node owns (ErrFenced) wraps room.ErrMoved, and the room announces
// nothing.
func (a *Adapter) SaveFinish(ctx context.Context, rs []Result) error {
	for i := range rs {
		rs[i].Epoch = a.epoch(rs[i].RoomID)
	}
	err := a.Store.SaveResults(ctx, rs)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrFenced):
		// Another node owns the room: the finish is its to store.
		_ = a.check(rs[0].RoomID, err)
		return fmt.Errorf("save finish of %d: %w: %w", len(rs), room.ErrMoved, err)
	case errors.Is(err, ErrConflict), errors.Is(err, ErrInvalid):
		return fmt.Errorf("save finish of %d: %w: %w", len(rs), room.ErrRefused, err)
	default:
		return fmt.Errorf("save finish of %d: %w", len(rs), err)
	}
}

// SaveRoom stores the room's state as the game's settings.
func (a *Adapter) SaveRoom(ctx context.Context, s *room.Saved) error {
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("encode room %s: %w", s.ID, err)
	}
	// A row is finished once its room has ended (or its round gave way
	// to a rematch's): until then it is live, and a restart brings it
	// back, a finished game included, whose players may still be there.
	state := StateWaiting
	switch {
	case s.Unstored():
		// A finish waits to be stored: the room must come back to store it.
		state = StateRunning
	case s.Abandoned, s.Ended:
		state = StateFinished
	case s.Phase == protocol.PhaseRunning, s.Phase == protocol.PhaseFinished:
		state = StateRunning
	}
	finished := s.FinishedAt
	if state == StateFinished && finished.IsZero() {
		finished = s.SavedAt
	}
	err = a.check(s.ID, a.Store.UpdateRoom(ctx, Room{
		ID: s.GameID(), Mode: s.Mode, PuzzleID: s.Puzzle.ID, HostID: s.Host, State: state,
		CreatedAt: s.Created, StartedAt: s.StartedAt, FinishedAt: finished, Settings: data,
		Epoch: a.epoch(s.ID),
	}))
	if err != nil {
		return fmt.Errorf("save room %s: %w", s.GameID(), err)
	}
	return nil
}

// LoadRooms reads back the saved state of the games not finished. A game
// whose state was never saved (the process died right after making it)
// comes back as it was made, from its row and puzzle: its events, which
// Restore replays, bring back the rest.
func (a *Adapter) LoadRooms(ctx context.Context) ([]*room.Saved, error) {
	rooms, err := a.Store.LiveRooms(ctx)
	if err != nil {
		return nil, fmt.Errorf("load live rooms: %w", err)
	}
	var out []*room.Saved
	for _, r := range rooms {
		s, err := a.savedOf(ctx, r)
		if err != nil {
			return nil, err
		}
		if s != nil {
			out = append(out, s)
		}
	}
	return out, nil
}

// savedOf is a game's saved state, or, for a game never saved, the state
// it was made with (unsaved), or nil when there is none.
func (a *Adapter) savedOf(ctx context.Context, r Room) (*room.Saved, error) {
	var s room.Saved
	if err := json.Unmarshal(r.Settings, &s); err == nil && s.ID != "" && s.Puzzle.Givens != "" {
		return &s, nil
	}
	return a.unsaved(ctx, r)
}

// unsaved is a game never saved, as RecordGame made it, or nil when the
// row is no room's round: a mode the rules table does not know, or a
// dated mode's game with no date.
func (a *Adapter) unsaved(ctx context.Context, r Room) (*room.Saved, error) {
	mode, ok := room.ModeOf(r.Mode)
	if !ok {
		return nil, nil
	}
	var m made
	if len(r.Settings) > 0 {
		if err := json.Unmarshal(r.Settings, &m); err != nil {
			return nil, nil
		}
	}
	if m.Day == "" && mode.Date == room.DateRequired {
		return nil, nil
	}
	id, round := r.ID, 1
	if i := strings.LastIndexByte(r.ID, '.'); i > 0 {
		n, err := strconv.Atoi(r.ID[i+1:])
		if err != nil || n < 2 {
			return nil, nil
		}
		id, round = r.ID[:i], n
	}
	pz, err := a.Store.Puzzle(ctx, r.PuzzleID)
	if err != nil {
		return nil, fmt.Errorf("load puzzle %d of unsaved game %s: %w", r.PuzzleID, r.ID, err)
	}
	return &room.Saved{
		ID: id, Mode: r.Mode, Round: round, Phase: protocol.PhaseWaiting, Created: r.CreatedAt, Host: r.HostID,
		Puzzle: room.SavedPuzzle{ID: pz.ID, Level: pz.Level, Givens: pz.Givens, Solution: pz.Solution},
		// A day before the one the room was made on is an archive day:
		// its finishes are unranked (Registry.CreateDaily).
		Day: m.Day, Archive: m.Day != "" && m.Day < r.CreatedAt.UTC().Format(room.DayLayout),
	}, nil
}

// LoadRoom reads back the saved rounds of one room, the first to the
// last, for a node that has claimed it (a room's rounds are numbered
// from 1 with no gap).
func (a *Adapter) LoadRoom(ctx context.Context, roomID string) ([]*room.Saved, error) {
	var out []*room.Saved
	for round := 1; ; round++ {
		r, err := a.Store.Room(ctx, room.GameID(roomID, round))
		if errors.Is(err, ErrNotFound) && round > 1 {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("load round %d of room %s: %w", round, roomID, err)
		}
		if r.State == StateFinished {
			continue
		}
		s, err := a.savedOf(ctx, r)
		if err != nil {
			return nil, err
		}
		if s != nil {
			out = append(out, s)
		}
	}
}

// LoadEvents reads back a game's recorded events after a seq.
func (a *Adapter) LoadEvents(ctx context.Context, gameID string, afterSeq int64) ([]room.Record, error) {
	return a.loadEvents(ctx, gameID, afterSeq, 0)
}

// loadEvents reads back up to limit (0: all) of a game's recorded events
// after a seq.
func (a *Adapter) loadEvents(ctx context.Context, gameID string, afterSeq int64, limit int) ([]room.Record, error) {
	evs, err := a.Store.Events(ctx, gameID, afterSeq, limit)
	if err != nil {
		return nil, fmt.Errorf("load events of %s: %w", gameID, err)
	}
	out := make([]room.Record, len(evs))
	for i, e := range evs {
		out[i] = room.Record{Seq: e.Seq, Type: e.Type, Player: e.PlayerID, Data: e.Data, At: e.At}
	}
	return out, nil
}

// RecordEvents queues the events on the event log, which writes them in
// batches off the rooms' path.
func (a *Adapter) RecordEvents(gameID string, records []room.Record) {
	epoch := a.epoch(gameID)
	a.Events.AppendEach(len(records), func(i int, e *Event) {
		r := &records[i]
		*e = Event{RoomID: gameID, Seq: r.Seq, Type: r.Type, PlayerID: r.Player, Data: r.Data, At: r.At, Epoch: epoch}
	})
}
