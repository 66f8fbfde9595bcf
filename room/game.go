package room

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"sort"
	"time"

	"github.com/sudoku-arena/arena/engine"
)

// Modes.
const (
	ModeRace = "race"
	ModeCoop = "coop"
)

// Puzzle is a game's puzzle and the solution the room keeps to itself.
type Puzzle struct {
	ID       int64
	Level    string
	Givens   engine.Grid
	Solution engine.Grid
}

// Result is one player's finish, for the results sink.
type Result struct {
	GameID     string
	PlayerID   string
	PuzzleID   int64
	Mode       string
	Level      string
	Rank       int
	Elapsed    time.Duration
	Mistakes   int
	Hints      int
	Score      int
	FinishedAt time.Time
}

// Output is an event for some of the room's members.
type Output struct {
	// To is the one member the event is for; empty means everyone,
	// except Skip when that is set.
	To    string
	Skip  string
	Event Event
	// Logged events took a sequence number: they are kept for replay and
	// stored. Replies and passing events (pong, cursor) are not.
	Logged bool
}

// For reports whether the output goes to member id.
func (o *Output) For(id string) bool {
	if o.To != "" {
		return o.To == id
	}
	return o.Skip != id
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
}

// maxUndo bounds a player's undo history: the oldest moves fall off.
const maxUndo = 500

type change struct {
	cell     int
	from, to uint8
}

type notes struct{ corner, centre uint16 }

// board is a player's board (race) or the team's (co-op).
type board struct {
	cells engine.Grid
	notes [engine.NumCells]notes
	// by is who placed each digit (co-op attribution).
	by [engine.NumCells]string
}

type member struct {
	id, name, role string
	order          int
	connected      bool
	awayUntil      time.Time

	// Player state. board is nil for spectators and in co-op.
	board       *board
	undo, redo  []change
	progress    Progress
	frozenUntil time.Time
	finished    bool
	rank        int
	elapsed     time.Duration
	saving      bool
}

// frozen refuses digits while a racer's hint penalty runs (only races set
// frozenUntil).
func (m *member) frozen(now time.Time) *Error {
	if !now.Before(m.frozenUntil) {
		return nil
	}
	return Errorf(CodeFrozen, "your hint penalty runs for another %s", m.frozenUntil.Sub(now).Round(time.Second/10))
}

// Game is one room's state and rules: a plain state machine. Every method
// takes the time from the caller (the injected clock) and returns or
// queues what to send; nothing here blocks, locks or does I/O, because one
// goroutine owns the game (see Room).
type Game struct {
	cfg   Config
	id    string
	mode  string
	round int
	pz    Puzzle
	empty int

	phase      string
	created    time.Time
	startsAt   time.Time
	startedAt  time.Time
	finishedAt time.Time

	host    string
	members map[string]*member
	order   int
	team    *board // co-op's shared board
	ranked  int    // finishers so far
	pending int    // results being stored

	seq int64
	log []Output // the last ReplayEvents logged outputs, oldest first
	// trimmed is the seq of the newest output dropped from log. The log
	// is bounded in outputs, not events, so it can start partway through
	// an event's views (a state, a conflict, a hint): a member whose view
	// of that event was dropped cannot resume from just before it.
	trimmed int64
	out     []Output
	effects []Effect
}

// NewGame is a room in its waiting phase with its first puzzle.
func NewGame(cfg Config, id, mode string, pz Puzzle, now time.Time) (*Game, error) {
	if mode != ModeRace && mode != ModeCoop {
		return nil, fmt.Errorf("room: unknown mode %q", mode)
	}
	g := &Game{
		cfg:     cfg.withDefaults(),
		id:      id,
		mode:    mode,
		round:   1,
		phase:   PhaseWaiting,
		created: now,
		members: map[string]*member{},
	}
	g.setPuzzle(pz)
	// The room is saved from the start, so its link survives a restart.
	g.effects = append(g.effects, Effect{Save: true})
	return g, nil
}

func (g *Game) setPuzzle(pz Puzzle) {
	g.pz = pz
	g.empty = engine.NumCells - pz.Givens.Filled()
	if g.mode == ModeCoop {
		g.team = &board{cells: pz.Givens}
	}
	for _, m := range g.members {
		if m.role != RolePlayer {
			continue
		}
		m.undo, m.redo = nil, nil
		m.progress = Progress{Empty: g.empty}
		m.frozenUntil = time.Time{}
		m.finished, m.rank, m.elapsed, m.saving = false, 0, 0, false
		if g.mode == ModeRace {
			m.board = &board{cells: pz.Givens}
		}
	}
	g.ranked, g.pending = 0, 0
	g.startsAt, g.startedAt, g.finishedAt = time.Time{}, time.Time{}, time.Time{}
}

// ID is the room's id; GameID is the current round's id in the store (the
// room's id for the first round, "ID.N" for round N).
func (g *Game) ID() string   { return g.id }
func (g *Game) Mode() string { return g.mode }
func (g *Game) Phase() string {
	return g.phase
}
func (g *Game) Round() int     { return g.round }
func (g *Game) Puzzle() Puzzle { return g.pz }
func (g *Game) Seq() int64     { return g.seq }
func (g *Game) Host() string   { return g.host }
func (g *Game) GameID() string { return GameID(g.id, g.round) }

// GameID is the store id of a room's round.
func GameID(roomID string, round int) string {
	if round <= 1 {
		return roomID
	}
	return fmt.Sprintf("%s.%d", roomID, round)
}

// Drain hands over the outputs and effects queued since the last call.
func (g *Game) Drain() ([]Output, []Effect) {
	out, eff := g.out, g.effects
	g.out, g.effects = nil, nil
	return out, eff
}

// emit queues a logged event for everyone (to == "") or one member.
func (g *Game) emit(to, skip string, ev Event) {
	g.seq++
	g.emitSame(to, skip, ev)
}

// emitSame queues a logged event under the current sequence number: a
// second view of the event just emitted.
func (g *Game) emitSame(to, skip string, ev Event) {
	ev.header().Seq = g.seq
	o := Output{To: to, Skip: skip, Event: ev, Logged: true}
	g.out = append(g.out, o)
	g.log = append(g.log, o)
	if over := len(g.log) - g.cfg.ReplayEvents; over > 0 {
		g.trimmed = g.log[over-1].Event.header().Seq
		g.log = append(g.log[:0], g.log[over:]...)
	}
}

// reply queues an event that takes no sequence number.
func (g *Game) reply(to, skip string, ev Event) {
	ev.header().Seq = g.seq
	g.out = append(g.out, Output{To: to, Skip: skip, Event: ev})
}

// Players counts the players.
func (g *Game) Players() int { return g.count(RolePlayer) }

// Connected counts the members with a live connection.
func (g *Game) Connected() (n int) {
	for _, m := range g.members {
		if m.connected {
			n++
		}
	}
	return n
}

// Member reports whether id is in the room, and its role.
func (g *Game) Member(id string) (role string, ok bool) {
	m, ok := g.members[id]
	if !ok {
		return "", false
	}
	return m.role, true
}

// Join is a member's arrival: a new player, a player coming back (id is a
// player's already), or a spectator. lastSeq is the last event the client
// saw (0 for none): when the room still holds every event after it, they
// are replayed instead of a snapshot. The welcome's You lacks the token,
// which only the server knows.
func (g *Game) Join(now time.Time, id, name string, spectator bool, lastSeq int64) (*Welcome, []Output, *Error) {
	// What the member missed is read before the join's own presence event
	// (never theirs to see) takes a seq and a place in the log.
	// Only a player coming back resumes: a stray last_seq from a newcomer
	// or a spectator gets a snapshot.
	m, ok := g.members[id]
	var replay []Output
	var resumed bool
	if ok && m.role == RolePlayer {
		replay, resumed = g.missed(id, lastSeq)
	}
	switch {
	case ok && m.role == RolePlayer:
		if m.connected {
			// A second tab: the server closes the first one.
			break
		}
		m.connected, m.awayUntil = true, time.Time{}
		g.emit("", id, &PresenceEvent{Header: Header{Type: TypePresence}, Player: id, Name: m.name, Role: m.role, Status: PresenceBack, Host: g.host})
	case ok:
		return nil, nil, Errorf(CodeAlreadyJoined, "this spectator is in the room already")
	case spectator:
		if err := g.Admits(true); err != nil {
			return nil, nil, err
		}
		m = g.add(id, name, RoleSpectator)
		g.emit("", id, &PresenceEvent{Header: Header{Type: TypePresence}, Player: id, Name: name, Role: RoleSpectator, Status: PresenceJoined, Host: g.host})
	default:
		if err := g.Admits(false); err != nil {
			return nil, nil, err
		}
		m = g.add(id, name, RolePlayer)
		if g.host == "" {
			g.host = id
		}
		g.emit("", id, &PresenceEvent{Header: Header{Type: TypePresence}, Player: id, Name: name, Role: RolePlayer, Status: PresenceJoined, Host: g.host})
	}
	w := &Welcome{
		Header: Header{Type: TypeWelcome, Seq: g.seq},
		You:    You{ID: id, Name: m.name, Role: m.role, Host: g.host == id},
	}
	if resumed {
		w.Resumed, w.Replay = true, len(replay)
		return w, replay, nil
	}
	snap := g.Snapshot(id, now)
	w.Room = &snap
	return w, nil, nil
}

// Admits says whether a newcomer may join, as a spectator or as a player:
// nil, or the refusal Join would give. (A player coming back is always
// let in.)
func (g *Game) Admits(spectator bool) *Error {
	if spectator {
		if g.count(RoleSpectator) >= g.cfg.MaxSpectators {
			return Errorf(CodeRoomFull, "the room has %d spectators, as many as it takes", g.cfg.MaxSpectators)
		}
		return nil
	}
	if g.mode == ModeRace && g.phase != PhaseWaiting {
		return Errorf(CodeGameStarted, "the race has started: join as a spectator, or wait for the rematch")
	}
	if g.count(RolePlayer) >= g.cfg.MaxPlayers {
		return Errorf(CodeRoomFull, "the room has %d players, as many as it takes", g.cfg.MaxPlayers)
	}
	return nil
}

// missed is the logged events for member id after seq, when the log still
// reaches back that far.
func (g *Game) missed(id string, after int64) ([]Output, bool) {
	if after <= 0 || after > g.seq {
		return nil, false
	}
	if len(g.log) == 0 {
		return nil, after == g.seq
	}
	if first := g.log[0].Event.header().Seq; after < first-1 || after < g.trimmed {
		return nil, false
	}
	var out []Output
	for i := range g.log {
		o := &g.log[i]
		if o.Event.header().Seq > after && o.For(id) {
			out = append(out, *o)
		}
	}
	return out, true
}

func (g *Game) add(id, name, role string) *member {
	g.order++
	m := &member{id: id, name: name, role: role, order: g.order, connected: true}
	if role == RolePlayer {
		m.progress.Empty = g.empty
		if g.mode == ModeRace {
			m.board = &board{cells: g.pz.Givens}
		} else {
			// A co-op player who left and comes back still has their
			// digits on the board: Filled counts them, or clearing one
			// would take it below zero.
			for _, by := range g.team.by {
				if by == id {
					m.progress.Filled++
				}
			}
		}
	}
	g.members[id] = m
	return m
}

func (g *Game) count(role string) (n int) {
	for _, m := range g.members {
		if m.role == role {
			n++
		}
	}
	return n
}

// Disconnect is a member's connection dropping. A player keeps their place
// for the reconnect window; a spectator is gone.
func (g *Game) Disconnect(now time.Time, id string) {
	m, ok := g.members[id]
	if !ok || !m.connected {
		return
	}
	if m.role == RoleSpectator {
		g.remove(m)
		return
	}
	m.connected = false
	m.awayUntil = now.Add(g.cfg.ReconnectWindow)
	until := m.awayUntil
	g.emit("", id, &PresenceEvent{Header: Header{Type: TypePresence}, Player: id, Name: m.name, Role: m.role, Status: PresenceAway, Host: g.host, Until: &until})
}

// Leave is a member leaving for good (or their reconnect window running
// out). A host's role passes to the next player to have joined who is
// still connected.
func (g *Game) Leave(now time.Time, id string) {
	if m, ok := g.members[id]; ok {
		g.remove(m)
		g.checkFinished(now)
	}
}

func (g *Game) remove(m *member) {
	delete(g.members, m.id)
	if g.host == m.id {
		g.host = ""
		var next *member
		for _, o := range g.members {
			if o.role == RolePlayer && (next == nil || o.connected && !next.connected || o.connected == next.connected && o.order < next.order) {
				next = o
			}
		}
		if next != nil {
			g.host = next.id
		}
	}
	g.emit("", m.id, &PresenceEvent{Header: Header{Type: TypePresence}, Player: m.id, Name: m.name, Role: m.role, Status: PresenceLeft, Host: g.host})
}

// Deadline is the next time the game needs Tick: the end of a countdown or
// of a reconnect window. Zero when nothing is due.
func (g *Game) Deadline() time.Time {
	var d time.Time
	if g.phase == PhaseCountdown {
		d = g.startsAt
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
	if g.phase == PhaseCountdown && !now.Before(g.startsAt) {
		g.phase = PhaseRunning
		g.startedAt = g.startsAt
		g.effects = append(g.effects, Effect{Save: true})
		g.emitState(now)
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
}

// emitState sends every member their snapshot under one sequence number.
func (g *Game) emitState(now time.Time) {
	g.seq++
	for _, m := range g.sortedMembers() {
		g.emitSame(m.id, "", &State{Header: Header{Type: TypeState}, Room: g.Snapshot(m.id, now)})
	}
}

func (g *Game) sortedMembers() []*member {
	ms := make([]*member, 0, len(g.members))
	for _, m := range g.members {
		ms = append(ms, m)
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].order < ms[j].order })
	return ms
}

// Handle applies one message from member id. A refused message returns an
// Error and changes nothing; the caller sends it to the client (a conflict
// is broadcast by the game itself, and also returned).
func (g *Game) Handle(now time.Time, id string, msg *Msg) *Error {
	m, ok := g.members[id]
	if !ok {
		return Errorf(CodeNotJoined, "join the room first")
	}
	if err := msg.Check(); err != nil {
		return err
	}
	if msg.Room != "" && msg.Type != TypeJoin && msg.Room != g.id {
		return Errorf(CodeWrongRoom, "this connection is in room %s, not %s", g.id, msg.Room)
	}
	switch msg.Type {
	case TypePing:
		g.reply(id, "", &Pong{Header: Header{Type: TypePong}, ID: msg.ID, Now: now})
		return nil
	case TypeLeave:
		g.Leave(now, id)
		return nil
	case TypeJoin:
		return Errorf(CodeAlreadyJoined, "this connection is in room %s already", g.id)
	}
	if m.role != RolePlayer {
		return Errorf(CodeSpectator, "spectators watch; join as a player to play")
	}
	switch msg.Type {
	case TypeStart:
		return g.start(now, m)
	case TypeRematch:
		return g.rematch(now, m)
	case TypeCursor:
		return g.cursor(m, msg)
	}
	if err := g.playing(m); err != nil {
		return err
	}
	switch msg.Type {
	case TypeMove:
		return g.move(now, m, msg)
	case TypeNote:
		return g.note(m, msg)
	case TypeHint:
		return g.hint(now, m, msg)
	case TypeUndo:
		return g.undo(now, m, msg, true)
	case TypeRedo:
		return g.undo(now, m, msg, false)
	}
	return Errorf(CodeUnknownType, "unknown message type %q", msg.Type)
}

// playing refuses play outside the running phase, and by a racer who has
// finished.
func (g *Game) playing(m *member) *Error {
	switch g.phase {
	case PhaseWaiting, PhaseCountdown:
		return Errorf(CodeNotStarted, "the game has not started yet")
	case PhaseFinished:
		return Errorf(CodeFinished, "the game is over")
	case PhasePreparing:
		return Errorf(CodePreparing, "the rematch's puzzle is on its way")
	}
	if m.finished || m.saving {
		return Errorf(CodeFinished, "you have finished this race")
	}
	return nil
}

func (g *Game) start(now time.Time, m *member) *Error {
	if g.host != m.id {
		return Errorf(CodeNotHost, "only the host can start the game")
	}
	switch g.phase {
	case PhaseCountdown, PhaseRunning:
		return Errorf(CodeAlreadyStart, "the game has started already")
	case PhaseFinished:
		return Errorf(CodeFinished, "the game is over: start a rematch")
	case PhasePreparing:
		return Errorf(CodePreparing, "the rematch's puzzle is on its way")
	}
	g.phase = PhaseCountdown
	g.startsAt = now.Add(g.cfg.Countdown)
	g.emit("", "", &CountdownEvent{Header: Header{Type: TypeCountdown}, Seconds: g.cfg.Countdown.Seconds(), StartsAt: g.startsAt, Now: now})
	return nil
}

// boardOf is the board member m plays on.
func (g *Game) boardOf(m *member) *board {
	if g.mode == ModeCoop {
		return g.team
	}
	return m.board
}

// private is whom an event about m's board goes to: m alone in a race,
// everyone in co-op.
func (g *Game) private(m *member) string {
	if g.mode == ModeRace {
		return m.id
	}
	return ""
}

func (g *Game) move(now time.Time, m *member, msg *Msg) *Error {
	cell, digit := *msg.Cell, uint8(*msg.Digit)
	if g.pz.Givens[cell] != 0 {
		return &Error{Code: CodeGivenCell, Message: engine.CellName(cell) + " is a given: it cannot change", Cell: &cell}
	}
	if err := m.frozen(now); digit != 0 && err != nil {
		return err
	}
	b := g.boardOf(m)
	if b.cells[cell] == digit {
		// Nothing changes; the echo confirms the client's view.
		g.reply(m.id, "", &MoveEvent{Header: Header{Type: TypeMove}, ID: msg.ID, Player: m.id, Cell: cell, Digit: int(digit)})
		return nil
	}
	if err := g.conflict(m, b, cell, digit, msg.ID); err != nil {
		return err
	}
	if digit != 0 && digit != g.pz.Solution[cell] {
		m.progress.Mistakes++
	}
	if len(m.undo) == maxUndo {
		m.undo = append(m.undo[:0], m.undo[1:]...)
	}
	m.undo = append(m.undo, change{cell: cell, from: b.cells[cell], to: digit})
	m.redo = m.redo[:0]
	g.place(now, m, b, cell, digit, msg.ID, false, false)
	return nil
}

// conflict refuses a digit a peer already holds, telling the whole room.
// The mover's view carries the id of their message: the room does not send
// them the returned error, so this is the answer they match it by.
func (g *Game) conflict(m *member, b *board, cell int, digit uint8, id json.RawMessage) *Error {
	if digit == 0 {
		return nil
	}
	peers := b.cells.Conflicts(cell, digit)
	if peers.Empty() {
		return nil
	}
	cells := peers.Cells(nil)
	err := &Error{
		Code:    CodeConflict,
		Message: fmt.Sprintf("%d at %s conflicts with %s: same row, column or box", digit, engine.CellName(cell), engine.CellList(cells)),
		Cell:    &cell, Cells: cells,
	}
	ev := err.Event(0, id)
	ev.Player = m.id
	g.emit(m.id, "", ev)
	other := *ev
	other.ID = nil
	if g.mode == ModeRace {
		// A racer's digits are private: the others learn the clashing
		// givens, which everyone sees anyway, and not where the mover's
		// own digits are.
		other.Cells = nil
		for _, p := range cells {
			if g.pz.Givens[p] != 0 {
				other.Cells = append(other.Cells, p)
			}
		}
	}
	if len(other.Cells) > 0 {
		other.Message = fmt.Sprintf("%s's move at %s conflicts with %s", m.name, engine.CellName(cell), engine.CellList(other.Cells))
	} else {
		other.Message = fmt.Sprintf("%s's move at %s conflicts with one of their own digits", m.name, engine.CellName(cell))
	}
	g.emitSame("", m.id, &other)
	return err
}

// place puts digit (0 clears) in cell of b for m and tells the room.
func (g *Game) place(now time.Time, m *member, b *board, cell int, digit uint8, id json.RawMessage, undo, redo bool) {
	from := b.cells[cell]
	b.cells[cell] = digit
	owner := b.by[cell]
	if digit == 0 {
		b.by[cell] = ""
	} else {
		b.by[cell] = m.id
	}
	var cleared []int
	if digit != 0 {
		bit := uint16(1) << digit
		b.notes[cell] = notes{}
		for _, p := range engine.Peers[cell] {
			if n := &b.notes[p]; (n.corner|n.centre)&bit != 0 {
				n.corner &^= bit
				n.centre &^= bit
				cleared = append(cleared, int(p))
			}
		}
		sort.Ints(cleared)
	}
	m.progress.Moves++
	g.updateFilled(m, owner, from, digit)
	g.emit(g.private(m), "", &MoveEvent{Header: Header{Type: TypeMove}, ID: id, Player: m.id, Cell: cell, Digit: int(digit), Undo: undo, Redo: redo, Cleared: cleared})
	g.emitProgress(m)
	if owner != "" && owner != m.id {
		if o, ok := g.members[owner]; ok {
			g.emitProgress(o)
		}
	}
	g.checkSolved(now, m, b)
}

// updateFilled keeps Filled: in a race the player's digits on their board;
// in co-op the digits each player placed that are still on the board.
func (g *Game) updateFilled(m *member, owner string, from, to uint8) {
	if g.mode == ModeRace {
		switch {
		case from == 0 && to != 0:
			m.progress.Filled++
		case from != 0 && to == 0:
			m.progress.Filled--
		}
		return
	}
	if from != 0 {
		if o, ok := g.members[owner]; ok {
			o.progress.Filled--
		}
	}
	if to != 0 {
		m.progress.Filled++
	}
}

func (g *Game) emitProgress(m *member) {
	g.emit("", "", &ProgressEvent{Header: Header{Type: TypeProgress}, Player: m.id, Progress: m.progress})
}

// checkSolved finishes a racer, or the team, whose board is the solution.
func (g *Game) checkSolved(now time.Time, m *member, b *board) {
	if b.cells != g.pz.Solution {
		return
	}
	elapsed := now.Sub(g.startedAt)
	if g.mode == ModeRace {
		g.ranked++
		m.rank, m.elapsed, m.saving = g.ranked, elapsed, true
		g.pending++
		g.effects = append(g.effects, Effect{Results: []Result{g.result(m, now)}})
		return
	}
	var rs []Result
	for _, p := range g.sortedMembers() {
		if p.role == RolePlayer {
			p.rank, p.elapsed, p.saving = 1, elapsed, true
			rs = append(rs, g.result(p, now))
		}
	}
	g.pending += len(rs)
	g.phase = PhaseFinished // no more moves while the results are stored
	g.finishedAt = now
	g.effects = append(g.effects, Effect{Results: rs})
}

func (g *Game) result(m *member, now time.Time) Result {
	return Result{
		GameID: g.GameID(), PlayerID: m.id, PuzzleID: g.pz.ID, Mode: g.mode, Level: g.pz.Level,
		Rank: m.rank, Elapsed: m.elapsed, Mistakes: m.progress.Mistakes, Hints: m.progress.Hints,
		Score:      Score(g.pz.Level, m.elapsed, m.progress.Mistakes, m.progress.Hints),
		FinishedAt: now,
	}
}

// Score is a finish's points: a level's base (1,000 for easy, 2,000 for
// medium, 3,000 for hard, 4,000 for expert) less a point a second, 50 a
// mistake and 100 a hint, and never below 1 (finishing always scores).
func Score(level string, elapsed time.Duration, mistakes, hints int) int {
	base := 1000
	if l, err := engine.ParseLevel(level); err == nil {
		base = 1000 * (int(l) + 1)
	}
	return max(1, base-int(elapsed/time.Second)-50*mistakes-100*hints)
}

// ResultsSaved tells the game that the results of an effect are stored (or
// failed to be: the finish is announced either way, and the caller logs the
// error). Only now are ranks told, so no one hears a rank that is not kept.
func (g *Game) ResultsSaved(now time.Time, rs []Result) {
	for _, r := range rs {
		g.pending--
		if m, ok := g.members[r.PlayerID]; ok {
			m.saving, m.finished = false, true
		}
	}
	switch g.mode {
	case ModeRace:
		for _, r := range rs {
			g.emit("", "", &FinishEvent{Header: Header{Type: TypeFinish}, Player: r.PlayerID, Rank: r.Rank,
				ElapsedMS: r.Elapsed.Milliseconds(), Mistakes: r.Mistakes, Hints: r.Hints, Score: r.Score})
		}
		g.checkFinished(now)
	case ModeCoop:
		if len(rs) == 0 {
			return
		}
		mistakes, hints := 0, 0
		for _, r := range rs {
			mistakes += r.Mistakes
			hints += r.Hints
		}
		g.emit("", "", &FinishEvent{Header: Header{Type: TypeFinish}, ElapsedMS: rs[0].Elapsed.Milliseconds(),
			Mistakes: mistakes, Hints: hints, Score: Score(g.pz.Level, rs[0].Elapsed, mistakes, hints)})
		if g.pending == 0 {
			g.effects = append(g.effects, Effect{Save: true})
			g.emitState(now)
		}
	}
}

// checkFinished ends a race once every player still in it has finished.
func (g *Game) checkFinished(now time.Time) {
	if g.mode != ModeRace || g.phase != PhaseRunning || g.pending > 0 {
		return
	}
	for _, m := range g.members {
		if m.role == RolePlayer && !m.finished {
			return
		}
	}
	g.phase = PhaseFinished
	g.finishedAt = now
	g.effects = append(g.effects, Effect{Save: true})
	g.emitState(now)
}

func (g *Game) note(m *member, msg *Msg) *Error {
	cell, digit := *msg.Cell, *msg.Digit
	b := g.boardOf(m)
	if g.pz.Givens[cell] != 0 {
		return &Error{Code: CodeGivenCell, Message: engine.CellName(cell) + " is a given: it takes no notes", Cell: &cell}
	}
	if b.cells[cell] != 0 {
		return &Error{Code: CodeCellFilled, Message: engine.CellName(cell) + " holds a digit: clear it to take notes", Cell: &cell}
	}
	n := &b.notes[cell]
	mark := &n.corner
	if msg.Kind == NoteCentre {
		mark = &n.centre
	}
	if digit == 0 {
		*mark = 0
	} else {
		*mark ^= 1 << digit
	}
	g.emit(g.private(m), "", &NoteEvent{Header: Header{Type: TypeNote}, ID: msg.ID, Player: m.id, CellNotes: cellNotes(cell, *n)})
	return nil
}

func cellNotes(cell int, n notes) CellNotes {
	return CellNotes{Cell: cell, Corner: maskDigits(n.corner), Centre: maskDigits(n.centre)}
}

func maskDigits(mask uint16) []int {
	var ds []int
	for mask != 0 {
		d := bits.TrailingZeros16(mask)
		ds = append(ds, d)
		mask &= mask - 1
	}
	return ds
}

func (g *Game) hint(now time.Time, m *member, msg *Msg) *Error {
	if err := m.frozen(now); err != nil {
		return err
	}
	b := g.boardOf(m)
	h, err := engine.NextHint(g.pz.Givens, b.cells)
	if err != nil {
		// The room's puzzle is unique and its boards keep the givens, so
		// this is a bug; the client learns only that no hint came.
		return Errorf(CodeUnavailable, "no hint could be found for this board")
	}
	if h.Solved {
		return Errorf(CodeFinished, "the board is solved")
	}
	m.progress.Hints++
	ev := &HintEvent{Header: Header{Type: TypeHint}, ID: msg.ID, Player: m.id, Hints: m.progress.Hints}
	if len(h.Wrong) > 0 {
		ev.Technique, ev.TechniqueName = "wrong-digits", "Wrong digits"
		ev.Wrong = h.Wrong
		ev.Cells = h.Wrong
	} else {
		st := h.Step
		ev.Technique, ev.TechniqueName = st.Technique.String(), st.Technique.Name()
		ev.Cells = stepCells(st)
		ev.Place = marks(st.Place)
		ev.Eliminate = marks(st.Eliminate)
	}
	ev.Explanation = h.Explanation()
	if g.mode == ModeRace && g.cfg.HintPenalty > 0 {
		m.frozenUntil = now.Add(g.cfg.HintPenalty)
		until := m.frozenUntil
		ev.FrozenUntil = &until
	}
	if g.mode == ModeRace {
		g.emit(m.id, "", ev)
		redacted := &HintEvent{Header: Header{Type: TypeHint}, Player: m.id, Technique: ev.Technique,
			TechniqueName: ev.TechniqueName, Hints: ev.Hints, FrozenUntil: ev.FrozenUntil}
		g.emitSame("", m.id, redacted)
	} else {
		g.emit("", "", ev)
	}
	g.emitProgress(m)
	return nil
}

// stepCells is every cell a step rests on or changes, in order.
func stepCells(st *engine.Step) []int {
	var set engine.CellSet
	for _, c := range st.Cells {
		set.Add(c)
	}
	for _, c := range st.Opposite {
		set.Add(c)
	}
	for _, cs := range [][]engine.Candidate{st.Place, st.Eliminate, st.Chain} {
		for _, c := range cs {
			set.Add(c.Cell)
		}
	}
	return set.Cells(nil)
}

func marks(cs []engine.Candidate) []Mark {
	if len(cs) == 0 {
		return nil
	}
	out := make([]Mark, len(cs))
	for i, c := range cs {
		out[i] = Mark{Cell: c.Cell, Digit: int(c.Digit)}
	}
	return out
}

// undo takes back (or, with back false, redoes) the member's last move.
func (g *Game) undo(now time.Time, m *member, msg *Msg, back bool) *Error {
	stack, other := &m.undo, &m.redo
	if !back {
		stack, other = &m.redo, &m.undo
	}
	if len(*stack) == 0 {
		if back {
			return Errorf(CodeNothingToUndo, "you have no move to undo")
		}
		return Errorf(CodeNothingToRedo, "you have no move to redo")
	}
	c := (*stack)[len(*stack)-1]
	from, to := c.to, c.from // what the cell holds now, and what it gets
	if !back {
		from, to = c.from, c.to
	}
	b := g.boardOf(m)
	cell := c.cell
	if b.cells[cell] != from {
		*stack = (*stack)[:len(*stack)-1]
		return &Error{Code: CodeUndoStale, Message: engine.CellName(cell) + " has changed since: that move cannot be taken back", Cell: &cell}
	}
	if err := m.frozen(now); to != 0 && err != nil {
		return err
	}
	if err := g.conflict(m, b, cell, to, msg.ID); err != nil {
		return err
	}
	*stack = (*stack)[:len(*stack)-1]
	*other = append(*other, c)
	g.place(now, m, b, cell, to, msg.ID, back, !back)
	return nil
}

func (g *Game) cursor(m *member, msg *Msg) *Error {
	if g.mode != ModeCoop {
		return Errorf(CodeCoopOnly, "cursors are shared in co-op rooms only")
	}
	g.reply("", m.id, &CursorEvent{Header: Header{Type: TypeCursor}, Player: m.id, Cell: *msg.Cell})
	return nil
}

func (g *Game) rematch(now time.Time, m *member) *Error {
	if g.host != m.id {
		return Errorf(CodeNotHost, "only the host can start a rematch")
	}
	switch {
	case g.phase == PhasePreparing:
		return Errorf(CodePreparing, "the rematch's puzzle is on its way")
	case g.phase == PhaseFinished && g.pending == 0:
	case g.phase == PhaseRunning && g.mode == ModeRace && g.ranked > 0 && g.pending == 0:
	default:
		return Errorf(CodeNotFinished, "a rematch can start once the game is over (in a race, once someone has finished)")
	}
	if g.phase == PhaseRunning {
		g.finishedAt = time.Time{}
	}
	g.phase = PhasePreparing
	// The old round is saved as finished first, so that only the new one
	// is brought back after a restart.
	g.effects = append(g.effects, Effect{Save: true}, Effect{NewRound: g.round + 1})
	g.emitState(now)
	return nil
}

// Rematch starts round NewRound with a fresh puzzle: same players, fresh
// boards, back to waiting for the host's start.
func (g *Game) Rematch(now time.Time, round int, pz Puzzle) {
	if g.phase != PhasePreparing {
		return
	}
	g.round = round
	g.phase = PhaseWaiting
	g.setPuzzle(pz)
	g.effects = append(g.effects, Effect{Save: true})
	g.emitState(now)
}

// RematchFailed goes back to the finished game when no puzzle came.
func (g *Game) RematchFailed(now time.Time) {
	if g.phase != PhasePreparing {
		return
	}
	g.phase = PhaseFinished
	if g.finishedAt.IsZero() {
		g.finishedAt = now
	}
	g.effects = append(g.effects, Effect{Save: true})
	g.emitState(now)
	g.emit(g.host, "", &ErrorEvent{Header: Header{Type: TypeError}, Code: CodeUnavailable, Message: "no puzzle for the rematch could be found: try again"})
}

// Snapshot is the room as member id sees it ("" for an outsider).
func (g *Game) Snapshot(id string, now time.Time) Snapshot {
	s := Snapshot{
		ID: g.id, Mode: g.mode, Level: g.pz.Level, Phase: g.phase, Round: g.round, Host: g.host,
		Now: now, Players: g.playerViews(id, now), Spectators: g.count(RoleSpectator),
	}
	if g.mode == ModeRace {
		s.HintPenaltyMS = g.cfg.HintPenalty.Milliseconds()
	}
	s.StartsAt, s.StartedAt, s.FinishedAt = timePtr(g.startsAt), timePtr(g.startedAt), timePtr(g.finishedAt)
	over := g.phase == PhaseFinished
	if g.mode == ModeCoop || g.phase == PhaseRunning || over {
		s.Givens = g.pz.Givens.String()
	}
	if over {
		s.Solution = g.pz.Solution.String()
	}
	var b *board
	if g.mode == ModeCoop {
		b = g.team
	} else if m, ok := g.members[id]; ok && m.board != nil && s.Givens != "" {
		b = m.board
	}
	if b != nil {
		s.Board = b.cells.String()
		for cell, n := range b.notes {
			if n.corner|n.centre != 0 {
				s.Notes = append(s.Notes, cellNotes(cell, n))
			}
		}
	}
	return s
}

func (g *Game) playerViews(viewer string, now time.Time) []PlayerView {
	over := g.phase == PhaseFinished
	out := []PlayerView{}
	for _, m := range g.sortedMembers() {
		if m.role != RolePlayer {
			continue
		}
		v := PlayerView{ID: m.id, Name: m.name, Connected: m.connected, Progress: m.progress}
		if m.finished {
			v.Rank, v.ElapsedMS = m.rank, m.elapsed.Milliseconds()
		}
		if g.mode == ModeRace && over {
			v.Board = m.board.cells.String()
		}
		if now.Before(m.frozenUntil) {
			v.FrozenUntil = timePtr(m.frozenUntil)
		}
		out = append(out, v)
	}
	return out
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
