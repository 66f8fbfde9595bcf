package room

import (
	"encoding/json"
	"reflect"
	"time"

	"github.com/sudoku-arena/arena/protocol"
)

// Output is an event for some of the room's members.
type Output struct {
	// To is the one member the event is for; empty means everyone,
	// except Skip when that is set.
	To    string
	Skip  string
	Event protocol.Event
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

// kind is what a fact is. It is finer than the event's wire type (a move
// and the echo of a move that changed nothing are both "move"), because
// view has a rule for each kind.
type kind int

const (
	kindPresence  kind = iota // a member joined, dropped, came back or left
	kindCountdown             // the host started: play begins at a time
	kindState                 // the room's snapshot at a phase change
	kindMove                  // a digit placed or cleared
	kindEcho                  // a move that changed nothing, confirmed to its sender
	kindNote                  // a cell's pencil marks changed
	kindColour                // a cell's colours changed (co-op)
	kindConflict              // a digit refused because a peer holds it
	kindHint                  // a hint a player asked for
	kindProgress              // a player's progress changed
	kindFinish                // a player (race) or the team (co-op) finished
	kindCursor                // a co-op player's cursor moved
	kindPong                  // the answer to a ping
	kindNotice                // an error the room tells one member of its own accord
	kindBoardFull             // a player's board is full but not the solution, told to them alone
	kindBerserk               // a racer went berserk (a tournament's race)
	numKinds
)

// logged reports whether facts of the kind take a sequence number and are
// kept for replay and stored. Replies and passing events are not, nor a
// board-full notice: a number of its own would show up to the others as a
// gap in theirs, and tell them what only its player may know.
func (k kind) logged() bool {
	switch k {
	case kindEcho, kindCursor, kindPong, kindBoardFull:
		return false
	}
	return true
}

// personal reports whether what a member sees of the kind depends on who
// they are (their own board in a snapshot): each member then gets an
// output of their own. view's rule for any other kind may look only at
// whether the viewer is the actor, because publish asks it once for the
// actor and once for everyone else.
func (k kind) personal() bool { return k == kindState }

// fact is one thing that happened in the room, told in full once: the event
// with every field set, and the member it is about or answers. What each
// member gets of it is view's to decide; publish sends it.
type fact struct {
	kind  kind
	actor string // the member the event is about or answers; "" for the room
	ev    protocol.Event
	// team and boards back a state's snapshot: the shared board, and each
	// player's own by id.
	team   *board
	boards map[string]*board
	// reveal is set on a state whose round, once over, may show its
	// solution and every player's board (revealsDaily).
	reveal bool
	// trimmed is view's copy of ev with less in it, when that copy is
	// the same for every viewer who gets it (a progress without its
	// mistakes): made once, so that publish sees the actor's view and
	// the others' as one event and sends it once.
	trimmed protocol.Event
}

// Logged is a logged event as the game made it: the event in full, and the
// time it happened at, which evolve took it at and a replay gives it again.
type Logged struct {
	Event protocol.Event
	At    time.Time
}

// Drain hands over the outputs and effects queued since the last call.
func (g *Game) Drain() ([]Output, []Effect) {
	out, eff := g.out, g.effects
	g.out, g.effects = nil, nil
	return out, eff
}

// reuse gives back the slices Drain and DrainRecords handed over, once the
// caller is done with them, so that the next events are queued without
// growing new ones. Slices queued to meanwhile are kept as they are.
func (g *Game) reuse(out []Output, records []Logged) {
	if g.out == nil {
		clear(out)
		g.out = out[:0]
	}
	if g.records == nil {
		clear(records)
		g.records = records[:0]
	}
}

// DrainRecords hands over the logged events since the last call, one per
// sequence number, each as it happened in full rather than as any member
// sees it (a racer's mistakes, every player's board in a state), with its
// time: what the store keeps, for Rebuild to replay onto a saved state.
// They never go to a client.
func (g *Game) DrainRecords() []Logged {
	recs := g.records
	g.records = nil
	return recs
}

// publish queues what every member gets of f (see view), under the next
// sequence number when f's kind is logged. A logged event first makes its
// change to the game, through evolve, as its record will on a replay; a
// state event is then filled with the room after it. Members who see the
// same are sent one output: the actor's view first, then one for everyone
// else when the others all see alike, or one per member when they do not.
func (g *Game) publish(now time.Time, f fact) {
	logged := f.kind.logged()
	if logged {
		g.seq++
		f.ev.Head().Seq = g.seq
		g.evolve(f.ev, now)
		if f.kind == kindState {
			g.fillState(now, &f)
		}
		g.records = append(g.records, Logged{Event: f.ev, At: now})
	}
	if f.kind.personal() {
		for _, m := range g.sortedMembers() {
			if ev := g.view(&f, viewer{id: m.id, role: m.role}); ev != nil {
				g.queue(m.id, "", ev, logged)
			}
		}
		return
	}
	// Everyone but the actor sees the same (view's rules for these kinds
	// look only at whether the viewer is the actor): one view for them,
	// and one for the actor when it differs.
	others := g.view(&f, viewer{})
	var mine protocol.Event
	if f.actor != "" {
		mine = g.view(&f, g.viewerOf(f.actor))
	}
	if f.actor == "" || alike(mine, others) {
		if others != nil {
			g.queue("", "", others, logged)
		}
		return
	}
	if mine != nil {
		g.queue(f.actor, "", mine, logged)
	}
	if others != nil {
		g.queue("", f.actor, others, logged)
	}
}

// alike reports whether two views are the same event.
func alike(a, b protocol.Event) bool {
	return a == b || reflect.DeepEqual(a, b)
}

// queue queues an output under the current sequence number; a logged one
// is also kept for replay. The replay log is bounded in outputs, not
// events, so it can start partway through an event's views.
func (g *Game) queue(to, skip string, ev protocol.Event, logged bool) {
	ev.Head().Seq = g.seq
	o := Output{To: to, Skip: skip, Event: ev, Logged: logged}
	g.out = append(g.out, o)
	if !logged {
		return
	}
	if old, full := g.log.push(o, g.cfg.ReplayEvents); full {
		g.trimmed = old.Event.Head().Seq
	}
	if told(ev) {
		if g.feed.buf == nil {
			// Grown as needed: most rooms tell a handful of things.
			g.feed.buf = make([]Output, 0, 4)
		}
		g.feed.push(o, feedEvents)
	}
}

// feedEvents is how many outputs a room keeps for History: enough for a
// round's joins, start, hints, conflicts and finishes, each member's view
// counting as one.
const feedEvents = 24

// told reports whether a logged event tells what happened (who came or
// went, the start, a hint, a conflict, a finish) rather than what is on a
// board, which a snapshot holds: moves, notes, progress and states.
func told(ev protocol.Event) bool {
	switch ev.Head().Type {
	case protocol.TypeMove, protocol.TypeNote, protocol.TypeProgress, protocol.TypeState:
		return false
	}
	return true
}

// replayLog is a room's last logged outputs, oldest first, in a ring: at
// its bound, keeping one more drops the oldest without moving the rest.
type replayLog struct {
	buf   []Output
	start int // where the oldest is, once buf has reached its bound
}

// push keeps o, the log holding at most bound outputs, and returns the
// output it dropped to make room, if any.
func (l *replayLog) push(o Output, bound int) (dropped Output, full bool) {
	if len(l.buf) < bound {
		if l.buf == nil {
			// At its bound at once: a round fills it within seconds of
			// play, and growing it by doubling made as much garbage again.
			l.buf = make([]Output, 0, bound)
		}
		l.buf = append(l.buf, o)
		return Output{}, false
	}
	dropped, l.buf[l.start] = l.buf[l.start], o
	l.start = (l.start + 1) % len(l.buf)
	return dropped, true
}

// len is how many outputs the log holds.
func (l *replayLog) len() int { return len(l.buf) }

// at is the log's i-th output, oldest first.
func (l *replayLog) at(i int) *Output { return &l.buf[(l.start+i)%len(l.buf)] }

// missed is the logged events for member id after seq, when the log still
// reaches back that far.
func (g *Game) missed(id string, after int64) ([]Output, bool) {
	if after <= 0 || after > g.seq {
		return nil, false
	}
	if g.log.len() == 0 {
		return nil, after == g.seq
	}
	if first := g.log.at(0).Event.Head().Seq; after < first-1 || after < g.trimmed {
		return nil, false
	}
	var out []Output
	for i := range g.log.len() {
		o := g.log.at(i)
		if o.Event.Head().Seq > after && o.For(id) {
			out = append(out, *o)
		}
	}
	return out, true
}

// History is the room's recent logged events that tell what happened
// (told), as member id got them (or would have, had they been there: what
// everyone but another member got), oldest first, encoded: what a client
// that lost its own (a page reloaded) shows of what happened in the room.
func (g *Game) History(id string) []json.RawMessage {
	var out []json.RawMessage
	for i := range g.feed.len() {
		if o := g.feed.at(i); o.For(id) {
			out = append(out, protocol.AppendEvent(nil, o.Event))
		}
	}
	return out
}

// changePhase moves the room to phase, with the round's times as given:
// the state event says so, evolve makes the change (see publish), and
// every member is sent their snapshot of the room after it, under one
// sequence number.
func (g *Game) changePhase(now time.Time, phase string, startsAt, startedAt, finishedAt time.Time) {
	g.publish(now, fact{kind: kindState, ev: &protocol.State{Header: protocol.Header{Type: protocol.TypeState}, Room: protocol.Snapshot{
		Phase: phase, Host: g.host, Now: now, Copy: g.copied,
		StartsAt: timePtr(startsAt), StartedAt: timePtr(startedAt), FinishedAt: timePtr(finishedAt),
	}}})
}

// emitState sends every member their snapshot of the room as it is.
func (g *Game) emitState(now time.Time) {
	g.changePhase(now, g.phase, g.startsAt, g.startedAt, g.finishedAt)
}
