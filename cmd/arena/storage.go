package main

// The wiring of serve: the store serves as the rooms' Store and the
// server's Players, and the engine's generator fills the store's puzzle
// pool. Only cmd knows all the packages; each of the others declares what
// it needs and knows nothing above it.

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
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store"
)

// makePuzzle is the pool's PuzzleMaker: the engine's generator, graded.
func makePuzzle(ctx context.Context, level string, seed uint64) (store.Puzzle, error) {
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

// storage is the store as the rooms and the server need it: puzzles from
// the pool, games, saved rooms and results in the store, events through
// the event log, which writes them in batches off the rooms' path.
type storage struct {
	store  store.Store
	daily  *dailies
	pool   *store.PuzzlePool
	events *store.EventLog
	logger *slog.Logger
	// node is this node's id, the owner of the rooms it makes, when it is
	// one of several.
	node string
	// fences, when this node is one of several, is the epoch each of its
	// rooms' writes carries; nil on a single node (unfenced writes).
	fences *fences
}

var (
	_ room.Store     = (*storage)(nil)
	_ server.Players = (*storage)(nil)
	_ server.Replays = (*storage)(nil)
)

// NewGame takes a pooled puzzle and records the game.
func (st *storage) NewGame(ctx context.Context, roomID, gameID, mode, level string) (room.Puzzle, error) {
	pz, err := st.pool.Take(ctx, level)
	if err != nil {
		return room.Puzzle{}, fmt.Errorf("take %s puzzle for %s: %w", level, gameID, err)
	}
	return st.recordGame(ctx, gameID, mode, pz)
}

// OwnGame stores a puzzle a player gave (once: the same givens keep
// their id) and records the game with it. It is never put in the pool,
// so no other room is dealt it.
func (st *storage) OwnGame(ctx context.Context, roomID, gameID, mode string, pz room.Puzzle) (room.Puzzle, error) {
	saved, err := st.store.SavePuzzle(ctx, store.Puzzle{
		Givens: pz.Givens.String(), Solution: pz.Solution.String(), Level: pz.Level, CreatedAt: time.Now(),
	})
	if err != nil {
		return room.Puzzle{}, fmt.Errorf("save own puzzle for %s: %w", gameID, err)
	}
	return st.recordGame(ctx, gameID, mode, saved)
}

// recordGame records a game of the mode with the puzzle.
func (st *storage) recordGame(ctx context.Context, gameID, mode string, pz store.Puzzle) (room.Puzzle, error) {
	givens, err := engine.Parse(pz.Givens)
	if err != nil {
		return room.Puzzle{}, fmt.Errorf("puzzle %d: givens: %w", pz.ID, err)
	}
	sol, err := engine.Parse(pz.Solution)
	if err != nil {
		return room.Puzzle{}, fmt.Errorf("puzzle %d: solution: %w", pz.ID, err)
	}
	r := store.Room{ID: gameID, Mode: mode, PuzzleID: pz.ID, State: store.StateWaiting, CreatedAt: time.Now()}
	first := store.RoomOf(gameID) == gameID
	if st.fences != nil {
		// A new room is this node's, at epoch 1; a later round is fenced
		// by the room's epoch.
		if first {
			r.Owner = st.node
		} else {
			r.Epoch = st.fences.epoch(gameID)
		}
	}
	if err := st.fences.check(gameID, st.store.CreateRoom(ctx, r)); err != nil {
		return room.Puzzle{}, fmt.Errorf("record game %s: %w", gameID, err)
	}
	if st.fences != nil && first {
		st.fences.hold(gameID, store.FirstEpoch(r))
	}
	return room.Puzzle{ID: pz.ID, Level: pz.Level, Givens: givens, Solution: sol}, nil
}

// SaveResults stores one finish in one transaction; a retry of one stored
// already stores nothing. Values the database refuses (ErrConflict,
// ErrInvalid) are refused for good: retrying cannot store them. A ranked
// daily finish of a player who has one for the day already (two attempts
// played at once) is stored unranked: the first stored is the ranked one.
func (st *storage) SaveResults(ctx context.Context, rs []room.Result) error {
	out := make([]store.Result, len(rs))
	daily := false
	for i, r := range rs {
		out[i] = storeResult(r)
		out[i].Epoch = st.fences.epoch(r.GameID)
		daily = daily || out[i].Day != ""
	}
	err := st.store.SaveResults(ctx, out)
	if daily && errors.Is(err, store.ErrConflict) {
		for i, r := range rs {
			r.Ranked = false
			out[i] = storeResult(r)
			out[i].Epoch = st.fences.epoch(r.GameID)
		}
		err = st.store.SaveResults(ctx, out)
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrFenced):
		// Another node owns the room: the finish is its to store.
		_ = st.fences.check(rs[0].GameID, err)
		return fmt.Errorf("save finish of %d: %w: %w", len(rs), room.ErrRefused, err)
	case errors.Is(err, store.ErrConflict), errors.Is(err, store.ErrInvalid):
		return fmt.Errorf("save finish of %d: %w: %w", len(rs), room.ErrRefused, err)
	default:
		return fmt.Errorf("save finish of %d: %w", len(rs), err)
	}
}

// SaveRoom stores the room's state as the game's settings.
func (st *storage) SaveRoom(ctx context.Context, s *room.Saved) error {
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("encode room %s: %w", s.ID, err)
	}
	// A row is finished once its room has ended (or its round gave way
	// to a rematch's): until then it is live, and a restart brings it
	// back, a finished game included, whose players may still be there.
	state := store.StateWaiting
	switch {
	case s.Unstored():
		// A finish waits to be stored: the room must come back to store it.
		state = store.StateRunning
	case s.Abandoned, s.Ended:
		state = store.StateFinished
	case s.Phase == protocol.PhaseRunning, s.Phase == protocol.PhaseFinished:
		state = store.StateRunning
	}
	finished := s.FinishedAt
	if state == store.StateFinished && finished.IsZero() {
		finished = s.SavedAt
	}
	err = st.fences.check(s.ID, st.store.UpdateRoom(ctx, store.Room{
		ID: s.GameID(), Mode: s.Mode, PuzzleID: s.Puzzle.ID, HostID: s.Host, State: state,
		CreatedAt: s.Created, StartedAt: s.StartedAt, FinishedAt: finished, Settings: data,
		Epoch: st.fences.epoch(s.ID),
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
func (st *storage) LoadRooms(ctx context.Context) ([]*room.Saved, error) {
	rooms, err := st.store.LiveRooms(ctx)
	if err != nil {
		return nil, fmt.Errorf("load live rooms: %w", err)
	}
	var out []*room.Saved
	for _, r := range rooms {
		s, err := st.savedOf(ctx, r)
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
func (st *storage) savedOf(ctx context.Context, r store.Room) (*room.Saved, error) {
	var s room.Saved
	if err := json.Unmarshal(r.Settings, &s); err == nil && s.ID != "" && s.Puzzle.Givens != "" {
		return &s, nil
	}
	return st.unsaved(ctx, r)
}

// unsaved is a game never saved, as NewGame made it, or nil when the row
// is no room's round (another mode's game).
func (st *storage) unsaved(ctx context.Context, r store.Room) (*room.Saved, error) {
	if r.Mode != room.ModeRace && r.Mode != room.ModeCoop {
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
	pz, err := st.store.Puzzle(ctx, r.PuzzleID)
	if err != nil {
		return nil, fmt.Errorf("load puzzle %d of unsaved game %s: %w", r.PuzzleID, r.ID, err)
	}
	return &room.Saved{
		ID: id, Mode: r.Mode, Round: round, Phase: protocol.PhaseWaiting, Created: r.CreatedAt, Host: r.HostID,
		Puzzle: room.SavedPuzzle{ID: pz.ID, Level: pz.Level, Givens: pz.Givens, Solution: pz.Solution},
	}, nil
}

// loadRoom reads back the saved rounds of one room, the first to the
// last, for a node that has claimed it (a room's rounds are numbered
// from 1 with no gap).
func (st *storage) loadRoom(ctx context.Context, roomID string) ([]*room.Saved, error) {
	var out []*room.Saved
	for round := 1; ; round++ {
		r, err := st.store.Room(ctx, room.GameID(roomID, round))
		if errors.Is(err, store.ErrNotFound) && round > 1 {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("load round %d of room %s: %w", round, roomID, err)
		}
		if r.State == store.StateFinished {
			continue
		}
		s, err := st.savedOf(ctx, r)
		if err != nil {
			return nil, err
		}
		if s != nil {
			out = append(out, s)
		}
	}
}

// LoadEvents reads back a game's recorded events after a seq.
func (st *storage) LoadEvents(ctx context.Context, gameID string, afterSeq int64) ([]room.Record, error) {
	evs, err := st.store.Events(ctx, gameID, afterSeq, 0)
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
func (st *storage) RecordEvents(gameID string, records []room.Record) {
	epoch := st.fences.epoch(gameID)
	st.events.AppendEach(len(records), func(i int, e *store.Event) {
		r := &records[i]
		*e = store.Event{RoomID: gameID, Seq: r.Seq, Type: r.Type, PlayerID: r.Player, Data: r.Data, At: r.At, Epoch: epoch}
	})
}

// CreatePlayer stores a new player.
func (st *storage) CreatePlayer(ctx context.Context, id, name string, tokenHash []byte) error {
	now := time.Now()
	return st.store.CreatePlayer(ctx, store.Player{ID: id, Name: name, TokenHash: tokenHash, CreatedAt: now, LastSeen: now})
}

// PlayerByToken finds the player and notes that they were seen.
func (st *storage) PlayerByToken(ctx context.Context, tokenHash []byte) (string, string, error) {
	p, err := st.store.PlayerByToken(ctx, tokenHash)
	if errors.Is(err, store.ErrNotFound) {
		return "", "", server.ErrUnknownPlayer
	}
	if err != nil {
		return "", "", err
	}
	if err := st.store.TouchPlayer(ctx, p.ID, time.Now()); err != nil && st.logger != nil {
		st.logger.Warn("touch player", "player", p.ID, "err", err)
	}
	return p.ID, p.Name, nil
}

// Ping reports whether the database answers.
func (st *storage) Ping(ctx context.Context) error { return st.store.Ping(ctx) }

// ReplayRound reads a round's stored state, or, for a round never saved,
// the state it was made with.
func (st *storage) ReplayRound(ctx context.Context, gameID string) (*room.Saved, error) {
	r, err := st.store.Room(ctx, gameID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, server.ErrNoRound
	}
	if err != nil {
		return nil, fmt.Errorf("load round %s: %w", gameID, err)
	}
	s, err := st.savedOf(ctx, r)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, server.ErrNoRound
	}
	return s, nil
}

// replayFlush bounds the wait for the event log to write what it holds
// before a replay reads the store: a replay of a round that just finished
// needs its last batch, and a database that is slow to take it should not
// hold the request for long.
const replayFlush = 2 * time.Second

// ReplayEvents reads every event of a round, once the event log has
// written the ones it still holds (or the wait for it is over).
func (st *storage) ReplayEvents(ctx context.Context, gameID string) ([]room.Record, error) {
	if st.events != nil {
		fctx, cancel := context.WithTimeout(ctx, replayFlush)
		err := st.events.Flush(fctx)
		cancel()
		if err != nil && st.logger != nil {
			st.logger.Warn("replay: flush the event log", "game", gameID, "err", err)
		}
	}
	return st.LoadEvents(ctx, gameID, 0)
}
