// Package lobby is "Play now": the matchmaking queue (package queue) as a
// service. Players join with a ticket, see how many wait at each level,
// and leave at once; a tick groups them, makes a race room for each group
// and tells its players through their tickets; once a rated race is over
// it is rated (package ladder). A rated race is stored as it is made
// (store.RatedRace), so that a restart, or any node, still rates it; a
// tournament's race between accounts is rated the same way (Track).
//
// The lobby lives on one node: every ticket is asked about where it was
// made (see docs/operations.md for how the queue's requests reach that
// node). The rooms it makes are ordinary race rooms, placed on nodes like
// any other; only the rating needs the race's end, which it reads from the
// store that every node shares. It knows nothing of HTTP.
package lobby

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/sudoku-arena/arena/ladder"
	"github.com/sudoku-arena/arena/queue"
	"github.com/sudoku-arena/arena/rating"
	"github.com/sudoku-arena/arena/store"
)

// Errors of Join and Status.
var (
	// ErrUnknownTicket: no such ticket, or it was left, or its match is
	// long over.
	ErrUnknownTicket = errors.New("lobby: unknown ticket")
	// ErrGuestRated: a rated queue is for accounts only.
	ErrGuestRated = errors.New("lobby: rated play is for accounts")
	// ErrQueued: the player, or their account, waits already.
	ErrQueued = queue.ErrQueued
)

// Rooms makes the race rooms of the groups.
type Rooms interface {
	// CreateRace makes a race room on a fresh puzzle of the level, ready
	// for the players to join, and returns its ID.
	CreateRace(ctx context.Context, level string, players []string) (string, error)
}

// Store is what the lobby reads and writes: the ratings (to match by, and
// to rate with), the rated races still to rate, a race room's state (to
// know it is over) and players (to know the accounts among them).
type Store interface {
	ladder.Store
	AddRatedRace(ctx context.Context, r store.RatedRace) error
	RatedRaces(ctx context.Context, limit int) ([]store.RatedRace, error)
	DropRatedRace(ctx context.Context, roomID string) error
	Room(ctx context.Context, id string) (store.Room, error)
	Player(ctx context.Context, id string) (store.Player, error)
	RatingHistory(ctx context.Context, playerID string, limit int) ([]store.RatingChange, error)
	TopRatings(ctx context.Context, maxRD float64, limit int) ([]store.Rating, error)
}

// Config tunes the lobby; zero values take the defaults.
type Config struct {
	Queue queue.Config
	// Tick is how often the queue is matched and rated races looked at
	// (1 s).
	Tick time.Duration
	// Keep is how long a matched ticket still answers with its room
	// (2 min).
	Keep time.Duration
	// RateBy is how long after its match a rated race is rated at the
	// latest, with whatever finishes it has then (1 h): a race a player
	// keeps open for ever does not keep the others' ratings waiting.
	RateBy time.Duration
	// Timeout bounds each storage call (5 s).
	Timeout time.Duration
}

func (c *Config) defaults() {
	if c.Tick <= 0 {
		c.Tick = time.Second
	}
	if c.Keep <= 0 {
		c.Keep = 2 * time.Minute
	}
	if c.RateBy <= 0 {
		c.RateBy = time.Hour
	}
	if c.Timeout <= 0 {
		c.Timeout = 5 * time.Second
	}
}

// Request is a player asking to play now. Account says they have one (a
// rated queue needs it); Addr is where they came from.
type Request struct {
	Player  string
	Account bool
	Addr    string
	Level   string
	Rated   bool
}

// Status is where a ticket stands.
type Status struct {
	Ticket string `json:"ticket"`
	// State is "waiting" or "matched".
	State string `json:"state"`
	Level string `json:"level"`
	Rated bool   `json:"rated"`
	// Rating is the player's rating the queue matches by (rated only).
	Rating float64 `json:"rating,omitempty"`
	// Window is the rating difference the player accepts now (rated
	// only, while waiting).
	Window float64 `json:"window,omitempty"`
	// Waiting is how many wait at each level, in the ticket's kind of
	// queue (rated or casual).
	Waiting map[string]int `json:"waiting"`
	// Room and Players: the race room of the match and who is in it.
	Room    string   `json:"room,omitempty"`
	Players []string `json:"players,omitempty"`
}

// States of a ticket.
const (
	StateWaiting = "waiting"
	StateMatched = "matched"
)

type match struct {
	status Status
	at     time.Time
}

// ratedBatch bounds the rated races looked at in one tick.
const ratedBatch = 500

// Lobby is the Play now service; it is safe for concurrent use.
type Lobby struct {
	cfg    Config
	q      *queue.Queue
	rooms  Rooms
	st     Store
	levels []string
	now    func() time.Time
	log    *slog.Logger

	mu      sync.Mutex
	matched map[string]match // by ticket
	// unsaved are rated races the store refused to record: tried again
	// each tick, by room.
	unsaved map[string]store.RatedRace
}

// New makes a lobby for the levels given; now is its clock.
func New(cfg Config, levels []string, rooms Rooms, st Store, now func() time.Time, log *slog.Logger) *Lobby {
	cfg.defaults()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Lobby{cfg: cfg, q: queue.New(cfg.Queue), rooms: rooms, st: st, levels: levels, now: now, log: log,
		matched: map[string]match{}, unsaved: map[string]store.RatedRace{}}
}

// Join puts the player in the queue of the level and returns their
// ticket's status. ErrQueued: they wait already; ErrGuestRated: a
// guest asked for a rated queue.
func (l *Lobby) Join(ctx context.Context, req Request) (Status, error) {
	if req.Rated && !req.Account {
		return Status{}, ErrGuestRated
	}
	r := rating.DefaultRating
	if req.Account {
		rs, err := l.st.Ratings(ctx, []string{req.Player})
		if err != nil {
			return Status{}, fmt.Errorf("lobby: rating of %s: %w", req.Player, err)
		}
		if s, ok := rs[req.Player]; ok {
			r = s.Rating
		}
	}
	e := queue.Entry{Ticket: newTicket(), Player: req.Player, Addr: req.Addr,
		Pool: queue.Pool{Level: req.Level, Rated: req.Rated}, Rating: r, JoinedAt: l.now()}
	if req.Account {
		e.Account = req.Player
	}
	if err := l.q.Join(e); err != nil {
		return Status{}, err
	}
	return l.Status(e.Ticket)
}

// Status is where the ticket stands.
func (l *Lobby) Status(ticket string) (Status, error) {
	if e, ok := l.q.Waiting(ticket); ok {
		st := Status{Ticket: ticket, State: StateWaiting, Level: e.Pool.Level, Rated: e.Pool.Rated, Waiting: l.waiting(e.Pool.Rated)}
		if e.Pool.Rated {
			st.Rating, st.Window = e.Rating, l.q.WindowAt(e.JoinedAt, l.now())
		}
		return st, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if m, ok := l.matched[ticket]; ok {
		return m.status, nil
	}
	return Status{}, ErrUnknownTicket
}

// Leave takes the ticket out of the queue at once; false when it was not
// waiting (unknown, or matched already).
func (l *Lobby) Leave(ticket string) bool { return l.q.Leave(ticket) }

// Waiting is how many wait at each level of the rated or casual queue.
func (l *Lobby) waiting(rated bool) map[string]int {
	counts := l.q.Counts()
	out := make(map[string]int, len(l.levels))
	for _, lv := range l.levels {
		out[lv] = counts[queue.Pool{Level: lv, Rated: rated}]
	}
	return out
}

// Len is how many wait in all.
func (l *Lobby) Len() int { return l.q.Len() }

// Run ticks the lobby until ctx ends.
func (l *Lobby) Run(ctx context.Context) {
	t := time.NewTicker(l.cfg.Tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			l.Tick(ctx)
		}
	}
}

// Tick matches the queue, makes a room for each group, forgets old
// matches and rates the rated races that are over.
func (l *Lobby) Tick(ctx context.Context) {
	now := l.now()
	groups := l.q.Match(now)
	// Out of the queue, a group's tickets still answer "waiting" while
	// their room is made: a poll meanwhile must not find them gone.
	l.mu.Lock()
	for _, g := range groups {
		for _, e := range g.Entries {
			l.matched[e.Ticket] = match{at: now, status: Status{Ticket: e.Ticket, State: StateWaiting, Level: g.Pool.Level,
				Rated: g.Pool.Rated, Rating: e.Rating, Waiting: map[string]int{}}}
		}
	}
	l.mu.Unlock()
	for _, g := range groups {
		l.start(ctx, g, now)
	}
	l.mu.Lock()
	for t, m := range l.matched {
		if now.Sub(m.at) > l.cfg.Keep {
			delete(l.matched, t)
		}
	}
	unsaved := make([]store.RatedRace, 0, len(l.unsaved))
	for _, r := range l.unsaved {
		unsaved = append(unsaved, r)
	}
	l.mu.Unlock()
	for _, r := range unsaved {
		l.record(ctx, r)
	}
	cctx, cancel := context.WithTimeout(ctx, l.cfg.Timeout)
	races, err := l.st.RatedRaces(cctx, ratedBatch)
	cancel()
	if err != nil {
		l.log.Warn("lobby: rated races", "err", err)
		return
	}
	for _, r := range races {
		if l.rate(ctx, r, now) {
			cctx, cancel := context.WithTimeout(ctx, l.cfg.Timeout)
			if err := l.st.DropRatedRace(cctx, r.RoomID); err != nil {
				l.log.Warn("lobby: drop a rated race", "room", r.RoomID, "err", err)
			}
			cancel()
		}
	}
}

// Track rates the race of the room as a rated race between the accounts
// among players, once it is over (a tournament's race): with fewer than
// two accounts there is nothing to rate.
func (l *Lobby) Track(ctx context.Context, roomID string, players []string) error {
	var accounts []string
	for _, id := range players {
		p, err := l.st.Player(ctx, id)
		if err != nil {
			return fmt.Errorf("lobby: rated race %s: player %s: %w", roomID, id, err)
		}
		if p.Account() {
			accounts = append(accounts, id)
		}
	}
	if len(accounts) < 2 {
		return nil
	}
	l.record(ctx, store.RatedRace{RoomID: roomID, Roster: accounts, At: l.now()})
	return nil
}

// record stores a rated race to rate, or keeps it to try again on the
// next tick.
func (l *Lobby) record(ctx context.Context, r store.RatedRace) {
	cctx, cancel := context.WithTimeout(ctx, l.cfg.Timeout)
	err := l.st.AddRatedRace(cctx, r)
	cancel()
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		l.log.Warn("lobby: record a rated race: kept to try again", "room", r.RoomID, "err", err)
		l.unsaved[r.RoomID] = r
		return
	}
	delete(l.unsaved, r.RoomID)
}

// start makes the group's room. When no room can be made the group goes
// back to the queue as it was, to be matched again on a later tick.
func (l *Lobby) start(ctx context.Context, g queue.Group, now time.Time) {
	cctx, cancel := context.WithTimeout(ctx, l.cfg.Timeout)
	players := make([]string, len(g.Entries))
	for i, e := range g.Entries {
		players[i] = e.Player
	}
	id, err := l.rooms.CreateRace(cctx, g.Pool.Level, players)
	cancel()
	if err != nil {
		l.log.Warn("lobby: no room for a group: back to the queue", "level", g.Pool.Level, "players", len(g.Entries), "err", err)
		for _, e := range g.Entries {
			if err := l.q.Join(e); err != nil {
				l.log.Warn("lobby: back to the queue", "ticket", e.Ticket, "err", err)
			}
		}
		l.mu.Lock()
		for _, e := range g.Entries {
			delete(l.matched, e.Ticket)
		}
		l.mu.Unlock()
		return
	}
	if g.Pool.Rated {
		l.record(ctx, store.RatedRace{RoomID: id, Roster: players, At: now})
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range g.Entries {
		l.matched[e.Ticket] = match{at: now, status: Status{Ticket: e.Ticket, State: StateMatched, Level: g.Pool.Level,
			Rated: g.Pool.Rated, Rating: e.Rating, Room: id, Players: players, Waiting: map[string]int{}}}
	}
	l.log.Info("lobby: match", "room", id, "level", g.Pool.Level, "rated", g.Pool.Rated, "players", players)
}

// rate rates the race once it is over (its room finished, or RateBy has
// passed), and reports whether it is done with it.
func (l *Lobby) rate(ctx context.Context, r store.RatedRace, now time.Time) bool {
	cctx, cancel := context.WithTimeout(ctx, l.cfg.Timeout)
	defer cancel()
	id := r.RoomID
	if now.Sub(r.At) < l.cfg.RateBy {
		rm, err := l.st.Room(cctx, id)
		if err != nil {
			l.log.Warn("lobby: rated room", "room", id, "err", err)
			return false
		}
		// A race that is over is saved with its finish time; its row
		// stays live (running) while its players are still in the room.
		if rm.State != store.StateFinished && rm.FinishedAt.IsZero() {
			return false
		}
	}
	changes, err := ladder.Rate(cctx, l.st, id, r.Roster, now)
	if err != nil {
		l.log.Warn("lobby: rate a race", "room", id, "err", err)
		return false
	}
	l.log.Info("lobby: race rated", "room", id, "players", len(r.Roster), "changes", len(changes))
	return true
}

func newTicket() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24)
	return base64.RawURLEncoding.EncodeToString(b)
}
