// Package roomtest has in-memory fakes of what the room package declares it
// needs, for the tests of room and of the packages above it: a Store that
// keeps everything in maps, and a Clock that moves only when told. The real
// store is tested with the real adapter in store and daily.
package roomtest

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sort"
	"sync"
	"time"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/room"
)

// Store is a room.Store in memory. Puzzles come from engine.Generate with
// seeds 1, 2, 3…, so a test's puzzles are the same on every run.
type Store struct {
	// Forward, when set (before the store is used), receives the events
	// RecordEvents is given instead of the store keeping them.
	Forward func(gameID string, records []room.Record)
	// Copies, when set (before the store is used), gives each player
	// their own copy of the daily: DailyAttempt's Copy is the FNV hash of
	// their id.
	Copies bool

	mu      sync.Mutex
	err     error
	seed    uint64
	puzzles map[string]room.Puzzle // by game id
	saved   map[string][]byte      // the JSON of each game's last saved state
	history map[string][][]byte    // the JSON of every state saved of each game, in order
	results []room.Result
	events  map[string][]room.Record
	// views are when each player's attempt at a daily began, by
	// "player day level".
	views map[string]time.Time
}

var _ room.Store = (*Store)(nil)

// NewStore is an empty store.
func NewStore() *Store {
	return &Store{puzzles: map[string]room.Puzzle{}, saved: map[string][]byte{}, history: map[string][][]byte{},
		events: map[string][]room.Record{}}
}

// Fail makes every call that can fail return err from now on (nil: none).
func (s *Store) Fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = err
}

// NewGame generates a puzzle of the level and records it as the game's.
func (s *Store) NewGame(ctx context.Context, roomID, gameID, mode, level string) (room.Puzzle, error) {
	d, _, err := engine.ParseDifficulty(level)
	if err != nil {
		return room.Puzzle{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return room.Puzzle{}, s.err
	}
	s.seed++
	g, err := engine.Generate(d.Options(s.seed, false))
	if err != nil {
		return room.Puzzle{}, fmt.Errorf("roomtest: generate %s puzzle: %w", level, err)
	}
	pz := room.Puzzle{ID: int64(s.seed), Level: level, Givens: g.Givens, Solution: g.Solution, SE: g.SE}
	s.puzzles[gameID] = pz
	return pz, nil
}

// DailyGame generates the daily puzzle of the day and level from its seed
// (room.DailySeed) and records it as the game's; its ID is the seed's
// lower 62 bits, the same for every store.
func (s *Store) DailyGame(ctx context.Context, roomID, gameID, mode, level, day string) (room.Puzzle, error) {
	d, _, err := engine.ParseDifficulty(level)
	if err != nil {
		return room.Puzzle{}, err
	}
	seed := room.DailySeed(day, level)
	g, err := engine.Generate(d.Options(seed, false))
	if err != nil {
		return room.Puzzle{}, fmt.Errorf("roomtest: generate the daily %s %s: %w", day, level, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return room.Puzzle{}, s.err
	}
	pz := room.Puzzle{ID: int64(seed >> 2), Level: level, Givens: g.Givens, Solution: g.Solution, SE: g.SE}
	s.puzzles[gameID] = pz
	return pz, nil
}

// OwnGame records a puzzle a player gave as the game's, with the ID the
// same givens had before or a new one.
func (s *Store) OwnGame(ctx context.Context, roomID, gameID, mode string, pz room.Puzzle) (room.Puzzle, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return room.Puzzle{}, s.err
	}
	pz.ID = 0
	for _, old := range s.puzzles {
		if old.Givens == pz.Givens {
			pz.ID = old.ID
		}
	}
	if pz.ID == 0 {
		s.seed++
		pz.ID = int64(s.seed)
	}
	s.puzzles[gameID] = pz
	return pz, nil
}

// DailyAttempt says the player's finish is unranked when a ranked result
// of theirs is kept for the day and level, and since when their attempt
// runs when DailyViews started one.
func (s *Store) DailyAttempt(ctx context.Context, day, level, playerID string) (room.Attempt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return room.Attempt{}, s.err
	}
	a := room.Attempt{Since: s.views[playerID+" "+day+" "+level]}
	if s.Copies {
		h := fnv.New64a()
		h.Write([]byte(playerID))
		a.Copy = h.Sum64()
	}
	for _, r := range s.results {
		if r.Ranked && r.Day == day && r.Level == level && r.PlayerID == playerID {
			a.Unranked = true
		}
	}
	return a, nil
}

// DailyViews starts the players' attempts that have not started.
func (s *Store) DailyViews(ctx context.Context, day, level string, playerIDs []string, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if s.views == nil {
		s.views = map[string]time.Time{}
	}
	for _, id := range playerIDs {
		k := id + " " + day + " " + level
		if _, ok := s.views[k]; !ok {
			s.views[k] = at
		}
	}
	return nil
}

// SaveResults keeps the results; like the real store, it keeps one per
// player and game, so a retried save adds nothing.
func (s *Store) SaveResults(ctx context.Context, rs []room.Result) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	for _, r := range rs {
		dup := false
		for _, kept := range s.results {
			dup = dup || kept.GameID == r.GameID && kept.PlayerID == r.PlayerID
		}
		if !dup {
			s.results = append(s.results, r)
		}
	}
	return nil
}

// SaveRoom keeps the state as JSON, as the real store does, so that what
// comes back is only what survives encoding.
func (s *Store) SaveRoom(ctx context.Context, st *room.Saved) error {
	data, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("roomtest: encode room %s: %w", st.ID, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	s.saved[st.GameID()] = data
	s.history[st.GameID()] = append(s.history[st.GameID()], data)
	return nil
}

// LoadRooms is the saved states of the games whose room has not ended, or
// with a finish not yet stored.
func (s *Store) LoadRooms(ctx context.Context) ([]*room.Saved, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	var out []*room.Saved
	for id := range s.saved {
		st := s.decode(id)
		if st.Unstored() || !st.Abandoned && !st.Ended {
			out = append(out, st)
		}
	}
	return out, nil
}

// RecordEvents keeps the events, or hands them to Forward when it is set.
func (s *Store) RecordEvents(gameID string, records []room.Record) {
	if s.Forward != nil {
		s.Forward(gameID, records)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events[gameID] = append(s.events[gameID], records...)
}

// LoadEvents is the events kept for the game after afterSeq, in order.
func (s *Store) LoadEvents(ctx context.Context, gameID string, afterSeq int64) ([]room.Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	var out []room.Record
	for _, r := range s.events[gameID] {
		if r.Seq > afterSeq {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out, nil
}

// Puzzle is the puzzle recorded for the game, solution included.
func (s *Store) Puzzle(gameID string) (room.Puzzle, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pz, ok := s.puzzles[gameID]
	return pz, ok
}

// Saved is the game's last saved state, or nil.
func (s *Store) Saved(gameID string) *room.Saved {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.saved[gameID]; !ok {
		return nil
	}
	return s.decode(gameID)
}

// History is every state saved of the game, in the order they were saved.
func (s *Store) History(gameID string) []*room.Saved {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*room.Saved
	for _, data := range s.history[gameID] {
		out = append(out, decodeSaved(gameID, data))
	}
	return out
}

// Games is the ids of the games with a saved state, in order.
func (s *Store) Games() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for id := range s.saved {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// decode reads back a saved state; s.mu is held.
func (s *Store) decode(gameID string) *room.Saved {
	return decodeSaved(gameID, s.saved[gameID])
}

func decodeSaved(gameID string, data []byte) *room.Saved {
	var st room.Saved
	if err := json.Unmarshal(data, &st); err != nil {
		// SaveRoom encoded it: this cannot happen.
		panic(fmt.Sprintf("roomtest: decode room %s: %v", gameID, err))
	}
	return &st
}

// Results is the results kept, in the order they were saved.
func (s *Store) Results() []room.Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]room.Result(nil), s.results...)
}

// Events is the events kept for the game, in the order they came.
func (s *Store) Events(gameID string) []room.Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]room.Record(nil), s.events[gameID]...)
}
