// Package room is the game: a room's state and rules as a plain state
// machine (Game), which the goroutine of a Room runs, sending what it
// queues to the members' connections and what it asks to the Store; and
// the Registry of the live rooms.
package room

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
)

// The Game's jobs live in files named for them:
//
//	game.go     the Game, its phases and rounds, and Handle's dispatch
//	events.go   sequence numbers, publishing, the replay buffer, Drain
//	evolve.go   the change each logged event makes, live and on a replay
//	view.go     what each member may see of an event or of the room
//	members.go  membership, the host role, join, leave, disconnect
//	board.go    boards, moves, conflicts, notes, undo, cursors
//	hints.go    hints
//	score.go    results and scoring
//	rules.go    the mode's rules, with race.go, coop.go and daily.go
//	saved.go    saving and restoring a room
//	replay.go   replaying the recorded events after a saved state
//
// and the Room's, which runs a Game:
//
//	room.go     the room's goroutine, and the commands it takes
//	flush.go    sending the game's outputs, and its records to the store
//	effects.go  the Store, and the storage work done beside the room
//	registry.go the live rooms, making and restoring them
//	config.go   the rules' and the registry's settings
//	own.go      rooms on a puzzle a player gave
//	protocol.go the messages and events, with errors.go and encode.go

// Puzzle is a game's puzzle and the solution the room keeps to itself.
type Puzzle struct {
	ID       int64
	Level    string
	Givens   engine.Grid
	Solution engine.Grid
	// Floor is the puzzle's own floor from its grade (PuzzleFloor): a
	// ranked finish faster than it is held for review.
	Floor time.Duration
	// Unlocked are the cells each run of the grade's harder steps opened
	// (engine.Unlocked): a person pauses before them.
	Unlocked [][]int
	// SE is the puzzle's Sudoku Explainer rating (engine.RateSE); 0 when
	// it is beyond the rater.
	SE engine.SERating
}

// Effect is work the room's goroutine does off the game's thread and
// reports back: storing results before ranks are announced, fetching a
// rematch's puzzle, saving the room.
type Effect struct {
	// Results to store; the goroutine then calls ResultsSaved.
	Results []Result
	// NewRound asks for a puzzle of the level for the round; the
	// goroutine then calls Rematch or RematchFailed.
	NewRound int
	// Save asks for the room's state to be saved.
	Save bool
	// Views are the players who were just sent the board of the day's
	// daily (Day, Level) at At: each one's ranked attempt starts then
	// unless it started before (Store.DailyViews).
	Views []string
	Day   string
	Level string
	At    time.Time
}

// Game is one room's state and rules: a plain state machine. Every method
// takes the time from the caller (the injected clock) and returns or
// queues what to send; nothing here blocks, locks or does I/O, because one
// goroutine owns the game (see Room).
type Game struct {
	cfg   Config
	rules rules
	id    string
	round int
	pz    Puzzle
	empty int

	phase      string
	created    time.Time
	startsAt   time.Time
	startedAt  time.Time
	finishedAt time.Time

	// day is the UTC date (YYYY-MM-DD) of the daily puzzle the round
	// plays, or "" when it plays none; archive is set when that date was
	// before today as the room was made, so that no finish in it is ranked.
	day     string
	archive bool
	// attempts are what the store said of each joining player's attempt
	// at the day's daily (Attempt): whether their finish can be ranked,
	// and since when its clock runs.
	attempts map[string]Attempt
	// guests are the joining players known to have no account (Guest).
	guests map[string]bool
	// copied is the copy of the daily the round plays (an isomorph's
	// text, "" for the puzzle as stored): its first player's (Copy).
	copied string
	// own is set when the room plays a puzzle a player gave: no finish in
	// it is ranked, since its player may know the puzzle's solution.
	own bool

	// roster, when set, are the players the room was made for (Group):
	// nobody else joins it as a player. startBy is when its first round
	// starts by itself with whoever of them is in, if not all are by
	// then; zero once it has started, and in a room made for nobody.
	roster  []string
	startBy time.Time
	// left are the roster's players who left the round: no place late
	// for them (a new board would wipe their mistakes and hints).
	left []string
	// berserk is set on a tournament's race: its players may go berserk
	// (AllowBerserk).
	berserk bool

	host    string
	members map[string]*member
	order   int
	team    *board // the board the players share, when they share one
	ranked  int    // finishers so far
	pending int    // results being stored

	seq int64
	log replayLog // the last ReplayEvents logged outputs
	// trimmed is the seq of the newest output dropped from log. The log
	// is bounded in outputs, not events, so it can start partway through
	// an event's views (a state, a conflict, a hint): a member whose view
	// of that event was dropped cannot resume from just before it.
	trimmed int64
	// feed is the last feedEvents logged outputs that tell what happened
	// rather than change a board (History): kept apart from log, where a
	// race's moves and progress soon push them out.
	feed replayLog
	out  []Output
	// records are the logged events in full, for the store (DrainRecords).
	records []Logged
	effects []Effect
}

// NewGame is a room in its waiting phase with its first puzzle.
func NewGame(cfg Config, id, mode string, pz Puzzle, now time.Time) (*Game, error) {
	r, err := rulesFor(mode)
	if err != nil {
		return nil, err
	}
	g := &Game{
		cfg:     cfg.withDefaults(),
		rules:   r,
		id:      id,
		round:   1,
		phase:   protocol.PhaseWaiting,
		created: now,
		members: map[string]*member{},
	}
	g.setPuzzle(pz)
	// The room is saved from the start, so its link survives a restart.
	g.effects = append(g.effects, Effect{Save: true})
	return g, nil
}

// setPuzzle deals a puzzle: fresh boards, and the players' progress and
// finishes cleared.
func (g *Game) setPuzzle(pz Puzzle) {
	g.pz = pz
	g.empty = engine.NumCells - pz.Givens.Filled()
	g.team = g.rules.teamBoard(pz.Givens)
	for _, m := range g.members {
		if m.role != protocol.RolePlayer {
			continue
		}
		m.undo, m.redo = nil, nil
		m.frozenUntil = time.Time{}
		m.finished, m.rank, m.elapsed, m.saving = false, 0, 0, false
		m.mistakes, m.berserk = 0, false
		m.placed = nil
		g.rules.seat(g, m)
	}
	g.ranked, g.pending, g.left = 0, 0, nil
	g.startsAt, g.startedAt, g.finishedAt = time.Time{}, time.Time{}, time.Time{}
}

// Group makes the room one for the players of roster (a match of the
// queue, a tournament's pairing): only they join it as players, and its
// first round starts by itself once all of them are in, or at startBy
// with those who are; nobody's start is taken before. Call it before
// the first join.
func (g *Game) Group(roster []string, startBy time.Time) {
	g.roster = slices.Clone(roster)
	g.startBy = startBy
}

// AllowBerserk lets the room's players go berserk (a tournament's race):
// no notes and no hints for them this round, for a bonus point if they
// win. Call it before the first join.
func (g *Game) AllowBerserk() { g.berserk = true }

// Roster is who the room was made for (nil for anyone).
func (g *Game) Roster() []string { return g.roster }

// ID is the room's id; GameID is the current round's id in the store (the
// room's id for the first round, "ID.N" for round N).
func (g *Game) ID() string     { return g.id }
func (g *Game) Mode() string   { return g.rules.mode() }
func (g *Game) Phase() string  { return g.phase }
func (g *Game) Round() int     { return g.round }
func (g *Game) Puzzle() Puzzle { return g.pz }
func (g *Game) Seq() int64     { return g.seq }
func (g *Game) GameID() string { return GameID(g.id, g.round) }

// Day is the UTC date of the daily puzzle the round plays ("" for none).
func (g *Game) Day() string { return g.day }

// Attempt records what the store knows of player id's ranked attempt at
// the game's daily (Store.DailyAttempt): if they join to play, their
// finish here is unranked when it says so, and a ranked finish's time
// runs from the attempt's start when it began before this round. Call
// it before their join.
func (g *Game) Attempt(id string, a Attempt) {
	if g.attempts == nil {
		g.attempts = map[string]Attempt{}
	}
	g.attempts[id] = a
}

// Copy makes the round play the copy m of its daily puzzle: each player
// is shown their own copy of a day's daily (an isomorph: the same puzzle
// for difficulty and the leaderboard, but a solution found in one copy
// does not fit another), and a room on it plays the copy of its first
// player, its host. It does nothing once a copy is chosen, once play
// has started, or when the round plays no daily. Call it before the
// player's join.
func (g *Game) Copy(m engine.Isomorph) {
	if g.day == "" || g.copied != "" || g.phase != protocol.PhaseWaiting || m.IsIdentity() {
		return
	}
	text, err := m.MarshalText()
	if err != nil {
		return
	}
	pz := g.pz
	pz.Givens, pz.Solution = m.Grid(pz.Givens), m.Grid(pz.Solution)
	pz.Unlocked = make([][]int, len(g.pz.Unlocked))
	for i, cells := range g.pz.Unlocked {
		for _, c := range cells {
			pz.Unlocked[i] = append(pz.Unlocked[i], m.Cell(c))
		}
	}
	g.setPuzzle(pz)
	g.copied = string(text)
}

// Guest records that player id has no account, so that if they join to
// play, the room shows them as a guest. Call it before their join.
func (g *Game) Guest(id string) {
	if g.guests == nil {
		g.guests = map[string]bool{}
	}
	g.guests[id] = true
}

// Attempted records that player id cannot rank on the game's daily (see
// Attempt).
func (g *Game) Attempted(id string) { g.Attempt(id, Attempt{Unranked: true}) }

// viewed asks the store to start the ranked attempts of the players who
// are shown the daily's board now, as play starts.
func (g *Game) viewed(now time.Time) {
	if g.day == "" || g.archive {
		return
	}
	var ids []string
	for _, m := range g.sortedMembers() {
		if m.role == protocol.RolePlayer {
			ids = append(ids, m.id)
		}
	}
	if len(ids) > 0 {
		g.effects = append(g.effects, Effect{Views: ids, Day: g.day, Level: g.pz.Level, At: now})
	}
}

// PlayDaily makes the game's first round the daily puzzle of day; archive
// says the day was before today as the room was made (no finish in it is
// ranked). Call it before anyone joins.
func (g *Game) PlayDaily(day string, archive bool) {
	g.day, g.archive = day, archive
}

// PlayOwn marks the game as played on a puzzle a player gave: its
// finishes are flagged, kept off every leaderboard.
func (g *Game) PlayOwn() { g.own = true }

// Own reports whether the game plays a puzzle a player gave (PlayOwn).
func (g *Game) Own() bool { return g.own }

// GameID is the store id of a room's round.
func GameID(roomID string, round int) string {
	if round <= 1 {
		return roomID
	}
	return fmt.Sprintf("%s.%d", roomID, round)
}

// Deadline is the next time the game needs Tick: the end of a countdown or
// of a reconnect window. Zero when nothing is due.
func (g *Game) Deadline() time.Time {
	var d time.Time
	switch {
	case g.phase == protocol.PhaseCountdown:
		d = g.startsAt
	case g.waitsForGroup():
		d = g.startBy
	}
	for _, m := range g.members {
		if !m.awayUntil.IsZero() && (d.IsZero() || m.awayUntil.Before(d)) {
			d = m.awayUntil
		}
	}
	return d
}

// Tick does what is due by now.
func (g *Game) Tick(now time.Time) {
	if g.phase == protocol.PhaseCountdown && !now.Before(g.startsAt) {
		g.effects = append(g.effects, Effect{Save: true})
		g.changePhase(now, protocol.PhaseRunning, g.startsAt, g.startsAt, time.Time{})
		g.viewed(now)
	}
	var gone []*member
	for _, m := range g.members {
		if !m.awayUntil.IsZero() && !now.Before(m.awayUntil) {
			gone = append(gone, m)
		}
	}
	sort.Slice(gone, func(i, j int) bool { return gone[i].order < gone[j].order })
	for _, m := range gone {
		g.Leave(now, m.id)
	}
	g.startGroup(now)
}

// Handle applies one message from member id. The message is one
// protocol.Decode accepted, so its shape is checked (a known type, each
// field the type needs present and in range) and is not checked again
// here. A refused message returns an Error and changes nothing anyone sees
// (an undo whose cell has changed since drops its move: see undo); the
// caller sends it to the client (a conflict is broadcast by the game
// itself, and also returned).
func (g *Game) Handle(now time.Time, id string, msg *protocol.Msg) *protocol.Error {
	m, ok := g.members[id]
	if !ok {
		return protocol.Errorf(protocol.CodeNotJoined, "join the room first")
	}
	if msg.Room != "" && msg.Type != protocol.TypeJoin && msg.Room != g.id {
		return protocol.Errorf(protocol.CodeWrongRoom, "this connection is in room %s, not %s", g.id, msg.Room)
	}
	switch msg.Type {
	case protocol.TypePing:
		g.publish(now, fact{kind: kindPong, actor: id, ev: &protocol.Pong{Header: protocol.Header{Type: protocol.TypePong}, ID: msg.ID, Now: now}})
		return nil
	case protocol.TypeLeave:
		g.Leave(now, id)
		return nil
	case protocol.TypeJoin:
		return protocol.Errorf(protocol.CodeAlreadyJoined, "this connection is in room %s already", g.id)
	}
	if m.role != protocol.RolePlayer {
		return protocol.Errorf(protocol.CodeSpectator, "spectators watch; join as a player to play")
	}
	switch msg.Type {
	case protocol.TypeStart:
		return g.start(now, m)
	case protocol.TypeRematch:
		return g.rematch(now, m)
	case protocol.TypeCursor:
		return g.cursor(now, m, msg)
	case protocol.TypeBerserk:
		return g.goBerserk(now, m)
	}
	if err := g.playing(m); err != nil {
		return err
	}
	if m.berserk && (msg.Type == protocol.TypeNote || msg.Type == protocol.TypeHint) {
		return protocol.Errorf(protocol.CodeBerserk, "you went berserk: no notes and no hints in this race")
	}
	switch msg.Type {
	case protocol.TypeMove:
		return g.move(now, m, msg)
	case protocol.TypeNote:
		return g.note(now, m, msg)
	case protocol.TypeColour:
		return g.colour(now, m, msg)
	case protocol.TypeHint:
		return g.hint(now, m, msg)
	case protocol.TypeUndo:
		return g.undo(now, m, msg, true)
	case protocol.TypeRedo:
		return g.undo(now, m, msg, false)
	}
	return protocol.Errorf(protocol.CodeUnknownType, "unknown message type %q", msg.Type)
}

// playing refuses play outside the running phase, and by a player who has
// finished.
func (g *Game) playing(m *member) *protocol.Error {
	switch g.phase {
	case protocol.PhaseWaiting, protocol.PhaseCountdown:
		return protocol.Errorf(protocol.CodeNotStarted, "the game has not started yet")
	case protocol.PhaseFinished:
		return protocol.Errorf(protocol.CodeFinished, "the game is over")
	case protocol.PhasePreparing:
		return protocol.Errorf(protocol.CodePreparing, "the rematch's puzzle is on its way")
	}
	if m.finished || m.saving {
		return protocol.Errorf(protocol.CodeFinished, "you have finished this race")
	}
	return nil
}

func (g *Game) start(now time.Time, m *member) *protocol.Error {
	if !g.startBy.IsZero() && g.phase == protocol.PhaseWaiting {
		return protocol.Errorf(protocol.CodeStartsItself, "this race starts by itself once its %d players are in, or at %s with those who are",
			len(g.roster), g.startBy.UTC().Format(time.TimeOnly))
	}
	if g.host != m.id {
		return protocol.Errorf(protocol.CodeNotHost, "only the host can start the game")
	}
	switch g.phase {
	case protocol.PhaseCountdown, protocol.PhaseRunning:
		return protocol.Errorf(protocol.CodeAlreadyStart, "the game has started already")
	case protocol.PhaseFinished:
		return protocol.Errorf(protocol.CodeFinished, "the game is over: start a rematch")
	case protocol.PhasePreparing:
		return protocol.Errorf(protocol.CodePreparing, "the rematch's puzzle is on its way")
	}
	g.countdown(now)
	return nil
}

// goBerserk is player m going berserk: in a room that allows it, before
// the round is over and before their first digit, note or hint.
func (g *Game) goBerserk(now time.Time, m *member) *protocol.Error {
	refuse := func(why string) *protocol.Error { return protocol.Errorf(protocol.CodeCannotBerserk, "%s", why) }
	switch {
	case !g.berserk || g.round > 1:
		return refuse("berserk is for a tournament's races, not their rematches")
	case m.berserk:
		return refuse("you went berserk already")
	case g.phase == protocol.PhaseFinished || g.phase == protocol.PhasePreparing || m.finished || m.saving:
		return refuse("the race is over")
	case len(m.placed) > 0 || m.progress.Filled > 0 || m.progress.Hints > 0 || (m.board != nil && len(m.board.noteList()) > 0):
		return refuse("berserk is taken before your first digit, note or hint")
	}
	g.publish(now, fact{kind: kindBerserk, actor: m.id, ev: &protocol.BerserkEvent{Header: protocol.Header{Type: protocol.TypeBerserk}, Player: m.id}})
	return nil
}

// countdown starts the round's countdown.
func (g *Game) countdown(now time.Time) {
	g.publish(now, fact{kind: kindCountdown, ev: &protocol.CountdownEvent{Header: protocol.Header{Type: protocol.TypeCountdown},
		Seconds: g.cfg.Countdown.Seconds(), StartsAt: now.Add(g.cfg.Countdown), Now: now}})
}

// waitsForGroup reports whether the room waits for its roster to start
// its first round with some of them in, the clock deciding when.
func (g *Game) waitsForGroup() bool {
	return !g.startBy.IsZero() && g.phase == protocol.PhaseWaiting && g.count(protocol.RolePlayer) > 0
}

// startGroup starts a group's first round once every player of its
// roster is in, or from startBy on with those who are (the first to come
// after startBy starts it at once).
func (g *Game) startGroup(now time.Time) {
	if !g.waitsForGroup() {
		return
	}
	if now.Before(g.startBy) {
		for _, id := range g.roster {
			if m, ok := g.members[id]; !ok || m.role != protocol.RolePlayer {
				return
			}
		}
	}
	g.countdown(now)
}

func (g *Game) rematch(now time.Time, m *member) *protocol.Error {
	if g.host != m.id {
		return protocol.Errorf(protocol.CodeNotHost, "only the host can start a rematch")
	}
	switch {
	case g.phase == protocol.PhasePreparing:
		return protocol.Errorf(protocol.CodePreparing, "the rematch's puzzle is on its way")
	case !g.rules.rematches():
		return protocol.Errorf(protocol.CodeNotFinished, "a daily has no rematch: play another daily, or open a race")
	case g.phase == protocol.PhaseFinished && g.pending == 0:
	case g.phase == protocol.PhaseRunning && g.rules.earlyRematch() && g.ranked > 0 && g.pending == 0:
	default:
		return protocol.Errorf(protocol.CodeNotFinished, "a rematch can start once the game is over (in a race, once someone has finished)")
	}
	finishedAt := g.finishedAt
	if g.phase == protocol.PhaseRunning {
		finishedAt = time.Time{}
	}
	// The old round is saved as finished first, so that only the new one
	// is brought back after a restart.
	g.effects = append(g.effects, Effect{Save: true}, Effect{NewRound: g.round + 1})
	g.changePhase(now, protocol.PhasePreparing, g.startsAt, g.startedAt, finishedAt)
	return nil
}

// Rematch starts round NewRound with a fresh puzzle: same players, fresh
// boards, back to waiting for the host's start. A round starts afresh, as
// a new game does, outside evolve: it is saved at once, and the store
// keeps its records apart from the last round's.
func (g *Game) Rematch(now time.Time, round int, pz Puzzle) {
	if g.phase != protocol.PhasePreparing {
		return
	}
	g.round = round
	// The rematch's puzzle is a fresh one, not the daily.
	g.day, g.archive = "", false
	g.setPuzzle(pz)
	g.effects = append(g.effects, Effect{Save: true})
	g.changePhase(now, protocol.PhaseWaiting, time.Time{}, time.Time{}, time.Time{})
}

// RematchFailed goes back to the finished game when no puzzle came.
func (g *Game) RematchFailed(now time.Time) {
	if g.phase != protocol.PhasePreparing {
		return
	}
	finishedAt := g.finishedAt
	if finishedAt.IsZero() {
		finishedAt = now
	}
	g.effects = append(g.effects, Effect{Save: true})
	g.changePhase(now, protocol.PhaseFinished, g.startsAt, g.startedAt, finishedAt)
	g.publish(now, fact{kind: kindNotice, actor: g.host, ev: &protocol.ErrorEvent{Header: protocol.Header{Type: protocol.TypeError},
		Code: protocol.CodeUnavailable, Message: "no puzzle for the rematch could be found: try again"}})
}
