package tournament

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store"
)

// Hub is the node's tournaments: the live arenas (upcoming and running),
// and the finished ones in the store. It is the server's Tournaments.
type Hub struct {
	ctx     context.Context
	clock   room.Clock
	races   Races
	st      store.Tournaments
	players interface {
		Player(ctx context.Context, id string) (store.Player, error)
	}
	log *slog.Logger

	mu     sync.Mutex
	arenas map[string]*Arena
	ofRace map[string]string // a race room's tournament
}

var _ server.Tournaments = (*Hub)(nil)

// NewHub is a hub whose arenas run until ctx is done, make their races
// with races and store their results in st.
func NewHub(ctx context.Context, clock room.Clock, races Races, st store.Store, logger *slog.Logger) *Hub {
	if logger == nil {
		logger = slog.Default()
	}
	return &Hub{ctx: ctx, clock: clock, races: races, st: st, players: st, log: logger, arenas: map[string]*Arena{}, ofRace: map[string]string{}}
}

// SetRaces sets what makes the races, once the rooms' registry is made
// (it stores its results through the hub's Results).
func (h *Hub) SetRaces(r Races) { h.races = r }

// StartRace is the hub's Races: its own, set by SetRaces.
func (h *Hub) StartRace(ctx context.Context, tournamentID, level string, players []string) (string, error) {
	if h.races == nil {
		return "", fmt.Errorf("tournament %s: no races yet: %w", tournamentID, ErrClosed)
	}
	return h.races.StartRace(ctx, tournamentID, level, players)
}

// Schedule stores the tournament as upcoming and runs its arena here; a
// tournament stored already is run as it is, and one running here
// already is left alone.
func (h *Hub) Schedule(ctx context.Context, s Spec) error {
	if err := s.Check(); err != nil {
		return err
	}
	h.mu.Lock()
	_, live := h.arenas[s.ID]
	h.mu.Unlock()
	if live {
		return nil
	}
	if !s.EndsAt().After(h.clock.Now()) {
		return fmt.Errorf("%w: %s ended at %s", ErrBadSpec, s.ID, s.EndsAt().Format(time.RFC3339))
	}
	err := h.st.SaveTournament(ctx, store.Tournament{
		ID: s.ID, Name: s.Name, Level: s.Level, StartsAt: s.StartsAt, Duration: s.Duration, Status: store.TournamentUpcoming,
	})
	if err != nil {
		return fmt.Errorf("tournament %s: %w", s.ID, err)
	}
	return h.run(s)
}

// Restore runs the stored upcoming tournaments that have not ended.
func (h *Hub) Restore(ctx context.Context) (int, error) {
	n := 0
	for _, status := range []string{store.TournamentUpcoming, store.TournamentRunning} {
		ts, err := h.st.TournamentsByStatus(ctx, status, 1000)
		if err != nil {
			return n, fmt.Errorf("tournaments: restore: %w", err)
		}
		for _, t := range ts {
			s := Spec{ID: t.ID, Name: t.Name, Level: t.Level, StartsAt: t.StartsAt, Duration: t.Duration}
			if !s.EndsAt().After(h.clock.Now()) {
				continue
			}
			if err := h.run(s); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// run runs the tournament's arena, with the players' lines stored while
// it ran before (a restart).
func (h *Hub) run(s Spec) error {
	lines, err := h.lines(s.ID)
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.arenas[s.ID]; ok {
		return nil
	}
	a, err := Start(h.ctx, Config{Clock: h.clock, Races: h, Saver: h, Logger: h.log, Lines: lines, OnRace: func(roomID string) {
		h.mu.Lock()
		h.ofRace[roomID] = s.ID
		h.mu.Unlock()
	}}, s)
	if err != nil {
		return err
	}
	h.arenas[s.ID] = a
	go func() {
		<-a.Done()
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(h.arenas, s.ID)
		for id, of := range h.ofRace {
			if of == s.ID {
				delete(h.ofRace, id)
			}
		}
	}()
	return nil
}

// lines are the players' lines of the tournament as stored while it ran
// (none when it is not stored yet).
func (h *Hub) lines(id string) ([]Line, error) {
	t, err := h.st.Tournament(h.ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("tournament %s: restore: %w", id, err)
	}
	lines := make([]Line, len(t.Standings))
	for i, st := range t.Standings {
		var games []Game
		if err := json.Unmarshal(st.Games, &games); err != nil {
			return nil, fmt.Errorf("tournament %s: restore the games of %s: %w", id, st.PlayerID, err)
		}
		lines[i] = Line{Joined: st.Joined, Standing: Standing{Games: games, TournamentLine: server.TournamentLine{
			Rank: st.Rank, Player: st.PlayerID, Name: st.Name, Score: st.Score, Wins: st.Wins, Left: st.Withdrawn}}}
	}
	return lines, nil
}

// SaveTournament is the arenas' Saver: the standings, each player's games
// as JSON.
func (h *Hub) SaveTournament(ctx context.Context, r Record) error {
	t := store.Tournament{ID: r.ID, Name: r.Name, Level: r.Level, StartsAt: r.StartsAt, Duration: r.Duration, Status: r.Status}
	var err error
	if t.Standings, err = storedLines(r.ID, r.Lines); err != nil {
		return err
	}
	return h.st.SaveTournament(ctx, t)
}

// SaveLines is the arenas' Saver of a running tournament's lines.
func (h *Hub) SaveLines(ctx context.Context, id string, lines []Line) error {
	sts, err := storedLines(id, lines)
	if err != nil {
		return err
	}
	return h.st.SaveTournamentLines(ctx, id, sts)
}

// storedLines are the lines as stored, their games as JSON.
func storedLines(id string, lines []Line) ([]store.Standing, error) {
	sts := make([]store.Standing, len(lines))
	for i, l := range lines {
		games, err := json.Marshal(l.Games)
		if err != nil {
			return nil, fmt.Errorf("tournament %s: games of %s: %w", id, l.Player, err)
		}
		sts[i] = store.Standing{PlayerID: l.Player, Name: l.Name, Rank: l.Rank, Score: l.Score, Wins: l.Wins, Games: games,
			Joined: l.Joined, Withdrawn: l.Left}
	}
	return sts, nil
}

func (h *Hub) arena(id string) (*Arena, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	a, ok := h.arenas[id]
	return a, ok
}

// arenaErr is the server's error for an arena's.
func arenaErr(err error) error {
	switch {
	case errors.Is(err, ErrFinished), errors.Is(err, ErrClosed):
		return fmt.Errorf("%w: %w", server.ErrTournamentOver, err)
	case errors.Is(err, ErrNotJoined):
		return fmt.Errorf("%w: %w", server.ErrNotInTournament, err)
	}
	return err
}

// Join adds the player to the live tournament, under their name.
func (h *Hub) Join(ctx context.Context, id, playerID string) error {
	a, ok := h.arena(id)
	if !ok {
		return h.gone(ctx, id)
	}
	p, err := h.players.Player(ctx, playerID)
	if err != nil {
		return fmt.Errorf("tournament %s: player %s: %w", id, playerID, err)
	}
	return arenaErr(a.Join(ctx, playerID, p.Name))
}

// Withdraw stops pairing the player in the live tournament.
func (h *Hub) Withdraw(ctx context.Context, id, playerID string) error {
	a, ok := h.arena(id)
	if !ok {
		return h.gone(ctx, id)
	}
	return arenaErr(a.Withdraw(ctx, playerID))
}

// gone is the error for a tournament not live here: over when it is
// stored, else not found.
func (h *Hub) gone(ctx context.Context, id string) error {
	if _, err := h.st.Tournament(ctx, id); err == nil {
		return server.ErrTournamentOver
	}
	return server.ErrNoTournament
}

// Finish is a player's finish of a race room: counted when the room is
// one of a live tournament's races and the player races in it.
func (h *Hub) Finish(ctx context.Context, roomID, playerID string, berserk bool) {
	h.mu.Lock()
	a, ok := h.arenas[h.ofRace[roomID]]
	h.mu.Unlock()
	if !ok {
		return
	}
	if err := a.Finish(ctx, roomID, playerID, berserk); err != nil && !errors.Is(err, ErrNoRace) {
		h.log.Warn("tournament: finish not counted", "room", roomID, "player", playerID, "err", err)
	}
}

// RaceOver is a race room's end: its players who had not finished are
// free again (a player who never came, or left, is not held for ever).
func (h *Hub) RaceOver(roomID string) {
	h.mu.Lock()
	a, ok := h.arenas[h.ofRace[roomID]]
	h.mu.Unlock()
	if !ok {
		return
	}
	if err := a.RaceOver(h.ctx, roomID); err != nil && !errors.Is(err, ErrClosed) {
		h.log.Warn("tournament: race end not counted", "room", roomID, "err", err)
	}
}

// Results is the rooms' store st with the hub's races' finishes.
func (h *Hub) Results(st room.Store) Results { return Results{Store: st, Hub: h} }

// Serve is the hub of a server: it makes its races in rooms (calling
// RaceOver as each ends, and rated with rated: see RegistryRaces) and
// answers srv's tournament routes; with runs
// (one node, or the one of several with TOURNAMENTS) it also runs the
// schedule's tournaments and the store's, a first Tick before it returns,
// then Keep, until the returned stop is called.
func (h *Hub) Serve(ctx context.Context, srv *server.Server, rooms *room.Registry, rated RateFunc, schedule []Recurring, runs bool) (stop func()) {
	h.SetRaces(RegistryRaces{Rooms: rooms, Over: h.RaceOver, Rated: rated, Log: h.log})
	srv.SetTournaments(h)
	if !runs {
		return func() {}
	}
	h.Tick(ctx, schedule)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); h.Keep(ctx, schedule) }()
	return func() { cancel(); <-done }
}

// Results is the rooms' store with the tournaments' finishes: each
// finish of a first round stored is told to the hub.
type Results struct {
	room.Store
	Hub *Hub
}

// SaveResults stores the finish, then tells the hub.
func (r Results) SaveResults(ctx context.Context, rs []room.Result) error {
	if err := r.Store.SaveResults(ctx, rs); err != nil {
		return err
	}
	for _, res := range rs {
		r.Hub.Finish(ctx, res.GameID, res.PlayerID, res.Berserk)
	}
	return nil
}

// RegistryRaces makes the races as race rooms of the registry, and calls
// Over with a room's id when it ends.
//
// The rooms are race rooms made for their players (see StartRace): their
// results are stored as any race's, and each is handed to Rated, which
// rates it between the accounts among its players once it is over
// (package lobby's Track): a tournament's races are rated races.
type RegistryRaces struct {
	Rooms *room.Registry
	Over  func(roomID string)
	Rated RateFunc
	Log   *slog.Logger
}

// RateFunc has a race room rated between the accounts among its players
// once it is over.
type RateFunc func(ctx context.Context, roomID string, players []string) error

// StartRace makes a race room of the level for the players: only they
// join it as players, and it starts by itself once they are in, or
// after a short wait with those who are (room.Registry.CreateGroup).
func (r RegistryRaces) StartRace(ctx context.Context, tournamentID, level string, players []string) (string, error) {
	rm, err := r.Rooms.CreateGroup(ctx, room.ModeRace, level, room.Group{Players: players, Berserk: true})
	if err != nil {
		return "", fmt.Errorf("tournament %s: race: %w", tournamentID, err)
	}
	if r.Over != nil {
		go func() { <-rm.Done(); r.Over(rm.ID()) }()
	}
	if r.Rated != nil {
		if err := r.Rated(ctx, rm.ID(), players); err != nil && r.Log != nil {
			// The race goes on, unrated: its players are waiting for it.
			r.Log.Warn("tournament: a race left unrated", "tournament", tournamentID, "room", rm.ID(), "err", err)
		}
	}
	return rm.ID(), nil
}
