package room

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
)

// Levels are the levels rooms are played at, easiest first: the engine's
// difficulties (engine.Difficulties), each a grade tier and a Sudoku
// Explainer range.
var Levels = engine.DifficultyNames()

// LevelChoices is the levels as an error message lists them: "easy",
// "medium", ... or "master".
func LevelChoices() string {
	quoted := make([]string, len(Levels))
	for i, l := range Levels {
		quoted[i] = strconv.Quote(l)
	}
	return engine.ListNames(quoted)
}

// ErrNotFound: no live room has the id.
var ErrNotFound = errors.New("room: not found")

// ErrFull: the registry holds as many live rooms as it may
// (RegistryConfig.MaxRooms); a room may be made once one ends.
var ErrFull = errors.New("room: the server holds as many rooms as it may")

// Clock is the rooms' time: what time it is, and timers that fire by it.
// Rooms take both from the registry, so that a test can move time by hand
// (roomtest.Clock) instead of sleeping until a deadline passes.
type Clock interface {
	Now() time.Time
	// NewTimer is a timer that fires at the time given.
	NewTimer(at time.Time) Timer
}

// Timer fires once, on C, at the time it is set for. It is set for a time
// on its clock rather than for a duration from now, so that a deadline
// cannot move if the clock moves between reading it and setting the timer.
type Timer interface {
	C() <-chan time.Time
	// Reset sets the timer for at (firing at once if at has passed). A
	// firing of the earlier setting not yet received is dropped.
	Reset(at time.Time)
	// Stop stops the timer; a firing not yet received is dropped.
	Stop()
}

// WallClock is the real clock, the registry's default.
type WallClock struct{}

// Now is time.Now.
func (WallClock) Now() time.Time { return time.Now() }

// NewTimer is a time.Timer that fires at at.
func (WallClock) NewTimer(at time.Time) Timer { return wallTimer{time.NewTimer(time.Until(at))} }

// wallTimer is a time.Timer, whose Reset and Stop (since Go 1.23) drop a
// firing not yet received.
type wallTimer struct{ t *time.Timer }

func (w wallTimer) C() <-chan time.Time { return w.t.C }
func (w wallTimer) Reset(at time.Time)  { w.t.Reset(time.Until(at)) }
func (w wallTimer) Stop()               { w.t.Stop() }

// Registry finds and creates live rooms and forgets them when they end.
type Registry struct {
	cfg    RegistryConfig
	store  Store
	clock  Clock
	logger *slog.Logger
	ctx    context.Context
	stop   context.CancelFunc

	mu    sync.Mutex
	rooms map[string]*Room
	// dailies is the live daily room of each player, day and level (the
	// latest they joined), for the player's status on the day's dailies.
	dailies map[dailyKey]*Room
	// creating counts the Creates under way, which hold a place under
	// MaxRooms while they wait for their puzzle.
	creating int
	wg       sync.WaitGroup

	stats struct {
		members, moves, dropped atomic.Int64
	}
	backlog backlog
}

// backlog is the finishes written or waiting to be, across the rooms: how
// many results, and since when the oldest has waited.
type backlog struct {
	mu      sync.Mutex
	next    uint64
	results int
	since   map[uint64]backlogEntry
}

type backlogEntry struct {
	n     int
	since time.Time
}

// add counts a finish of n results that is waiting from at, and returns
// its key for remove.
func (b *backlog) add(n int, at time.Time) uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.since == nil {
		b.since = map[uint64]backlogEntry{}
	}
	b.next++
	b.since[b.next] = backlogEntry{n: n, since: at}
	b.results += n
	return b.next
}

// remove forgets a finish once it is stored (or given up).
func (b *backlog) remove(key uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.results -= b.since[key].n
	delete(b.since, key)
}

// read is how many results wait and since when the oldest has (zero when
// none does).
func (b *backlog) read() (int, time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var oldest time.Time
	for _, e := range b.since {
		if oldest.IsZero() || e.since.Before(oldest) {
			oldest = e.since
		}
	}
	return b.results, oldest
}

// ErrBusy is Create's refusal while more results wait to be stored than
// RegistryConfig.MaxResultsWaiting: no new games start until the database
// takes them.
var ErrBusy = errors.New("room: too many results wait to be stored")

// NewRegistry is an empty registry whose rooms use st.
func NewRegistry(cfg RegistryConfig, st Store) *Registry {
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultRegistryConfig().IdleTimeout
	}
	if cfg.MaxRooms <= 0 {
		cfg.MaxRooms = DefaultRegistryConfig().MaxRooms
	}
	if cfg.MaxResultsWaiting <= 0 {
		cfg.MaxResultsWaiting = DefaultRegistryConfig().MaxResultsWaiting
	}
	if cfg.StoreTimeout <= 0 {
		cfg.StoreTimeout = 5 * time.Second
	}
	if cfg.Clock == nil {
		cfg.Clock = WallClock{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.Game = cfg.Game.withDefaults()
	ctx, stop := context.WithCancel(context.Background())
	return &Registry{cfg: cfg, store: st, clock: cfg.Clock, logger: cfg.Logger, ctx: ctx, stop: stop, rooms: map[string]*Room{}}
}

// Config is the game rules rooms are made with.
func (reg *Registry) Config() Config { return reg.cfg.Game }

// Create makes a room of the mode with a fresh puzzle of the level. It
// returns ErrFull when the registry holds MaxRooms live rooms, counting
// those being made.
func (reg *Registry) Create(ctx context.Context, mode, level string) (*Room, error) {
	return reg.create(ctx, spec{mode: mode, level: level})
}

// Group is who a room is made for, and how they play it.
type Group struct {
	// Players are the group's ids: only they join the room as players.
	Players []string
	// Berserk lets them go berserk (a tournament's race): see
	// Game.AllowBerserk.
	Berserk bool
}

// CreateGroup makes a room as Create does, for the group's players alone
// (a match of the queue, a tournament's pairing): its first round starts
// by itself once they are all in, or GroupWait after it was made with
// those who are (Game.Group).
func (reg *Registry) CreateGroup(ctx context.Context, mode, level string, g Group) (*Room, error) {
	if len(g.Players) == 0 {
		return nil, fmt.Errorf("room: a %s room for a group needs its players", mode)
	}
	return reg.create(ctx, spec{mode: mode, level: level, group: &g})
}

// spec is what a room is made of: its mode, and its level, or the daily
// it plays (day), or the puzzle a player gave (own, checked by
// OwnPuzzle); group, when set, is who it is for.
type spec struct {
	mode, level, day string
	own              *Puzzle
	group            *Group
}

// ErrBadDay: a daily's date is not a UTC date YYYY-MM-DD, is after today,
// or is more than ArchiveDays before it.
var ErrBadDay = errors.New("room: the date is not a UTC date YYYY-MM-DD from the archive's first day to today")

// ArchiveDays is how far back the archive of dailies goes. Each day asked
// for is generated and stored once, so an archive without a bound would let
// anyone make the server generate and keep puzzles for every date there is.
const ArchiveDays = 366

// DayLayout is how dates are written: UTC YYYY-MM-DD.
const DayLayout = "2006-01-02"

// Today is the UTC date by the registry's clock.
func (reg *Registry) Today() string { return reg.clock.Now().UTC().Format(DayLayout) }

// RevealsDaily reports whether a round on the daily puzzle of day may show
// its solution by now, by the registry's clock: a day after the day is over
// (revealsDaily), the rule snapshots and replays share.
func (reg *Registry) RevealsDaily(day string) bool { return revealsDaily(day, reg.clock.Now()) }

// CheckDay returns ErrBadDay unless day is a UTC date from ArchiveDays
// before today to today.
func (reg *Registry) CheckDay(day string) error {
	t, err := time.Parse(DayLayout, day)
	first := reg.clock.Now().UTC().AddDate(0, 0, -ArchiveDays).Format(DayLayout)
	if err != nil || t.Format(DayLayout) != day || day > reg.Today() || day < first {
		return fmt.Errorf("%w: %q", ErrBadDay, day)
	}
	return nil
}

// CreateDaily makes a room of the mode (daily, or race) on the daily
// puzzle of the day and level. A day before today is an archive day: its
// finishes are unranked.
func (reg *Registry) CreateDaily(ctx context.Context, mode, level, day string) (*Room, error) {
	if m, ok := ModeOf(mode); !ok || m.Date == DateNone {
		return nil, fmt.Errorf("room: a %s room cannot play a daily puzzle", mode)
	}
	if err := reg.CheckDay(day); err != nil {
		return nil, err
	}
	return reg.create(ctx, spec{mode: mode, level: level, day: day})
}

// create makes the room sp says.
func (reg *Registry) create(ctx context.Context, sp spec) (*Room, error) {
	mode, level, day, own := sp.mode, sp.level, sp.day, sp.own
	m, ok := ModeOf(mode)
	if !ok {
		return nil, fmt.Errorf("room: unknown mode %q", mode)
	}
	if day == "" && m.Date == DateRequired {
		return nil, fmt.Errorf("room: a %s room needs its date", mode)
	}
	if own != nil && !m.Own {
		return nil, fmt.Errorf("room: a %s room cannot play a player's puzzle", mode)
	}
	if own == nil && !slices.Contains(Levels, level) {
		return nil, fmt.Errorf("room: unknown level %q", level)
	}
	if err := reg.reserve(); err != nil {
		return nil, err
	}
	defer reg.unreserve()
	if n, _ := reg.backlog.read(); n >= reg.cfg.MaxResultsWaiting {
		return nil, fmt.Errorf("room: new %s room: %w (%d)", mode, ErrBusy, n)
	}
	id := NewID()
	var pz Puzzle
	var err error
	switch {
	case own != nil:
		pz, err = reg.store.OwnGame(ctx, id, id, mode, *own)
	case day != "":
		pz, err = reg.store.DailyGame(ctx, id, id, mode, level, day)
	default:
		pz, err = reg.store.NewGame(ctx, id, id, mode, level)
	}
	if err != nil {
		return nil, fmt.Errorf("room: new %s room: %w", mode, err)
	}
	g, err := NewGame(reg.cfg.Game, id, mode, pz, reg.clock.Now())
	if err != nil {
		return nil, err
	}
	if day != "" {
		g.PlayDaily(day, day < reg.Today())
	}
	if own != nil {
		g.PlayOwn()
	}
	if sp.group != nil {
		g.Group(sp.group.Players, g.created.Add(g.cfg.GroupWait))
		if sp.group.Berserk {
			g.AllowBerserk()
		}
	}
	return reg.start(g)
}

// reserve holds a place for a room being made, or says there is none.
func (reg *Registry) reserve() error {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if len(reg.rooms)+reg.creating >= reg.cfg.MaxRooms {
		return ErrFull
	}
	reg.creating++
	return nil
}

// unreserve gives the place back: the room is in rooms by now, or was not
// made.
func (reg *Registry) unreserve() {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	reg.creating--
}

// Restore brings back the rooms the store kept from the last run, and
// returns how many: each from its saved state with the events recorded
// after it replayed (Rebuild), so that a crash loses only the events not
// yet written. They are not held to MaxRooms: a restart keeps every
// live room, and Create refuses new ones until there is place again.
func (reg *Registry) Restore(ctx context.Context) (int, error) {
	saved, err := reg.store.LoadRooms(ctx)
	if err != nil {
		return 0, fmt.Errorf("room: load saved rooms: %w", err)
	}
	return reg.Adopt(ctx, saved)
}

// Adopt brings back rooms from their saved rounds, as Restore does: the
// latest round of each room, unless it is over, with its events after
// the save replayed. A node that takes over another's room adopts it so.
// It returns how many rooms came back.
func (reg *Registry) Adopt(ctx context.Context, saved []*Saved) (int, error) {
	// A room's rounds are rows of their own: bring back the latest.
	latest := map[string]*Saved{}
	for _, s := range saved {
		if cur, ok := latest[s.ID]; !ok || s.Round > cur.Round {
			latest[s.ID] = s
		}
	}
	n := 0
	for _, s := range saved {
		if latest[s.ID] != s || s.Abandoned || s.Ended || s.Phase == protocol.PhaseFinished && len(s.Players) == 0 {
			continue
		}
		records, err := reg.store.LoadEvents(ctx, s.GameID(), s.Seq)
		if err != nil {
			// Without its records a room would come back older than
			// what its players saw: the database must answer first.
			return n, fmt.Errorf("room: load events of %s: %w", s.GameID(), err)
		}
		g, err := Rebuild(reg.cfg.Game, s, records, reg.clock.Now())
		if err == nil {
			_, err = reg.start(g)
		}
		if err != nil {
			// One bad row must not keep the server from starting.
			reg.logger.Error("room: restore", "room", s.ID, "round", s.Round, "err", err)
			continue
		}
		n++
	}
	return n, nil
}

// Evict stops the live room with the id at once, without saving it, and
// closes its connections with CloseMoved: another node owns the room now
// (its writes here were fenced), and its state there is the room's. It
// reports whether it stopped such a room: false when there is none, or
// when an earlier Evict stopped it (a room stays in the registry until
// its goroutine has closed it, and each of the event log's batches that
// still held its events is refused in turn).
func (reg *Registry) Evict(id string) bool {
	reg.mu.Lock()
	r, ok := reg.rooms[id]
	reg.mu.Unlock()
	if !ok || r.moved.Swap(true) {
		return false
	}
	r.cancel()
	return true
}

// Release stops the live room with the id as a shutdown stops each room:
// its state saved as final, its connections (it has none, when it is
// released as it is made) closed with CloseGoingAway. It waits until the
// room has ended, or ctx has. A node of several releases a room it has
// just made, so that the node its players reach runs it (package
// cluster).
func (reg *Registry) Release(ctx context.Context, id string) error {
	r, err := reg.Get(id)
	if err != nil {
		return err
	}
	r.cancel()
	select {
	case <-r.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("room: release %s: %w", id, ctx.Err())
	}
}

// roomQueue is how many commands wait for a room before the next sender
// waits for room in the queue. A room handles a command in microseconds,
// and its members (a few players, a reader each) send one at a time: 32
// is room for a burst of every member's message and the storage's
// answers, and its 256 bytes are allocated with the room, live or idle.
const roomQueue = 32

func (reg *Registry) start(g *Game) (*Room, error) {
	r := &Room{
		id: g.ID(), g: g, reg: reg,
		cmds:      make(chan func(time.Time), roomQueue),
		done:      make(chan struct{}),
		conns:     map[string]Conn{},
		idleSince: reg.clock.Now(),
	}
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.ctx.Err() != nil {
		return nil, ErrClosed
	}
	if _, dup := reg.rooms[r.id]; dup {
		return nil, fmt.Errorf("room: id %s is taken", r.id)
	}
	reg.rooms[r.id] = r
	reg.wg.Add(1)
	ctx, cancel := context.WithCancel(reg.ctx)
	r.cancel = cancel
	go func() {
		defer reg.wg.Done()
		defer cancel()
		r.run(ctx)
	}()
	return r, nil
}

// Get is the live room with the id.
func (reg *Registry) Get(id string) (*Room, error) {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if r, ok := reg.rooms[id]; ok {
		return r, nil
	}
	return nil, ErrNotFound
}

// IDs are the ids of the live rooms, in no order.
func (reg *Registry) IDs() []string {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	ids := make([]string, 0, len(reg.rooms))
	for id := range reg.rooms {
		ids = append(ids, id)
	}
	return ids
}

// dailyKey is a player's daily of a day and level.
type dailyKey struct{ player, day, level string }

// playing records that the player plays the day's daily of the level in
// room r.
func (reg *Registry) playing(player, day, level string, r *Room) {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.dailies == nil {
		reg.dailies = map[dailyKey]*Room{}
	}
	k := dailyKey{player, day, level}
	reg.dailies[k] = r
	r.dailyKeys = append(r.dailyKeys, k)
}

// PlayingDaily is the id of the live daily room in which the player plays
// the day's daily of the level, or "" when there is none.
func (reg *Registry) PlayingDaily(player, day, level string) string {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if r, ok := reg.dailies[dailyKey{player, day, level}]; ok {
		return r.id
	}
	return ""
}

func (reg *Registry) remove(r *Room) {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.rooms[r.id] == r {
		delete(reg.rooms, r.id)
	}
	for _, k := range r.dailyKeys {
		if reg.dailies[k] == r {
			delete(reg.dailies, k)
		}
	}
}

// Stats are the registry's gauges and counters.
type Stats struct {
	Rooms, Members int
	Moves, Dropped int64
	// ResultsWaiting is how many results are being written or wait to be
	// retried (the database is away); ResultsWaitingSince is when the
	// oldest of them was finished (zero when none waits).
	ResultsWaiting      int
	ResultsWaitingSince time.Time
	// MaxResultsWaiting is the configured bound on ResultsWaiting.
	MaxResultsWaiting int
}

// Stats reads the gauges and counters.
func (reg *Registry) Stats() Stats {
	reg.mu.Lock()
	n := len(reg.rooms)
	reg.mu.Unlock()
	waiting, since := reg.backlog.read()
	return Stats{
		Rooms: n, Members: int(reg.stats.members.Load()), Moves: reg.stats.moves.Load(), Dropped: reg.stats.dropped.Load(),
		ResultsWaiting: waiting, ResultsWaitingSince: since, MaxResultsWaiting: reg.cfg.MaxResultsWaiting,
	}
}

// Shutdown ends every room: each saves its state and closes its
// connections as going away. It returns when all have, or ctx ends.
func (reg *Registry) Shutdown(ctx context.Context) error {
	// Under the lock, so that no room starts (wg.Add) once Wait may run.
	reg.mu.Lock()
	reg.stop()
	reg.mu.Unlock()
	fin := make(chan struct{})
	go func() { reg.wg.Wait(); close(fin) }()
	select {
	case <-fin:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("room: shutdown: %w", ctx.Err())
	}
}

// idAlphabet has no look-alike characters (0/o, 1/l/i), so ids survive
// being read aloud or copied by hand.
const idAlphabet = "23456789abcdefghjkmnpqrstuvwxyz"

// NewID is a random room id: 8 characters of idAlphabet, about 40 bits,
// each drawn uniformly (see idFrom).
func NewID() string {
	id, err := idFrom(rand.Reader)
	if err != nil {
		// crypto/rand's Reader does not fail (it crashes the program
		// instead), so this cannot happen.
		panic(fmt.Sprintf("room: random id: %v", err))
	}
	return id
}

// idAcceptBelow is the largest multiple of len(idAlphabet) that a byte can
// hold: 248 = 8 × 31. A byte below it, taken modulo 31, gives every
// character the same chance; the bytes 248 to 255 are drawn again.
// Taking every byte modulo 31 would make the first 8 characters a third
// likelier than the others (9 of 256 against 8), which shrinks the ids'
// space for a guesser.
const idAcceptBelow = 256 / len(idAlphabet) * len(idAlphabet)

// idFrom draws an id's characters from random bytes by rejection sampling:
// a byte at or over idAcceptBelow is thrown away and another read, so no
// character is likelier than another.
func idFrom(random io.Reader) (string, error) {
	var id [8]byte
	var buf [16]byte // a few spare bytes: 8 of 256 are thrown away
	n := 0
	for n < len(id) {
		if _, err := io.ReadFull(random, buf[:]); err != nil {
			return "", fmt.Errorf("room: read random bytes: %w", err)
		}
		for _, b := range buf {
			if int(b) >= idAcceptBelow {
				continue
			}
			id[n] = idAlphabet[int(b)%len(idAlphabet)]
			if n++; n == len(id) {
				break
			}
		}
	}
	return string(id[:]), nil
}
