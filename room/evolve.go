package room

import (
	"time"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
)

// evolve makes the change a logged event tells of, at the time it happened:
// the one place where the game's state changes for an event it records.
// Live play decides (it checks the message, refuses it or works out what
// it makes happen) and builds the event; publish hands the event here
// before anyone is told of it. A restore hands the store's records here,
// decoded (replay), so that what it brings back is what play did, and a
// test replays every game the tests play to hold the two to each other.
//
// What no event records stays outside: connections (connected, awayUntil,
// leaving), cursors, the outputs and the effects, the rounds (a new round
// is saved at once and its records kept apart), and the results waiting
// to be stored (pending, which a restore asks for again). Two changes
// take no event and ask for a save instead, so that the state a restore
// starts from holds them: an undo that finds its cell changed since drops
// its entry (see undo), and a player of a race on a daily whose finish
// cannot be ranked joins (see Join); a daily's ranked flag comes back
// with the next state event (evolveState).
func (g *Game) evolve(ev protocol.Event, at time.Time) {
	switch ev := ev.(type) {
	case *protocol.PresenceEvent:
		g.evolvePresence(ev)
	case *protocol.CountdownEvent:
		g.phase, g.startsAt, g.startBy = protocol.PhaseCountdown, ev.StartsAt, time.Time{}
	case *protocol.State:
		g.evolveState(&ev.Room)
	case *protocol.MoveEvent:
		g.evolveMove(at, ev)
	case *protocol.NoteEvent:
		g.evolveNote(ev)
	case *protocol.ColourEvent:
		g.evolveColour(ev)
	case *protocol.HintEvent:
		g.evolveHint(ev)
	case *protocol.FinishEvent:
		g.evolveFinish(ev)
	case *protocol.BerserkEvent:
		if m, ok := g.members[ev.Player]; ok {
			m.berserk = true
		}
	}
	// A progress event tells what the move or hint before it changed; an
	// error (a conflict, a notice) changes nothing.
}

// evolvePresence takes the host a presence event names, and adds the
// member who joined or drops the one who left. A member joins away: a
// live join connects them, and a restored player is away until they come
// back. A player whose daily finish here cannot be ranked is known by the
// join's caller (Attempted), or by the next state event.
func (g *Game) evolvePresence(ev *protocol.PresenceEvent) {
	g.host = ev.Host
	m, ok := g.members[ev.Player]
	switch {
	case ev.Status == protocol.PresenceJoined && !ok:
		m = g.add(ev.Player, ev.Name, ev.Role)
		m.guest = ev.Guest
		if a, ok := g.attempts[m.id]; ok && m.role == protocol.RolePlayer {
			m.unranked = a.Unranked
			// Only an attempt begun before the round moves its clock (a
			// store keeps times to the microsecond: the round's own
			// start read back is not before it).
			if !a.Unranked && (g.startedAt.IsZero() || a.Since.Before(g.startedAt.Add(-time.Millisecond))) {
				m.attemptSince = a.Since
			}
		}
	case ev.Status == protocol.PresenceLeft && ok:
		delete(g.members, m.id)
		if g.roster != nil && m.role == protocol.RolePlayer {
			g.left = append(g.left, m.id)
		}
	}
}

// evolveState takes the phase, the round's times and the host of a state.
// Play starting makes a round on a daily whose day is over by then an
// archive round. A state that lists a player as unranked whose finish the
// game would rank tells of the player's flag (Attempted), which no other
// event carries.
func (g *Game) evolveState(s *protocol.Snapshot) {
	if s.Copy != "" && g.copied == "" {
		var m engine.Isomorph
		if err := m.UnmarshalText([]byte(s.Copy)); err == nil {
			g.Copy(m)
		}
	}
	if s.Phase == protocol.PhaseRunning && g.phase != protocol.PhaseRunning {
		g.archiveIfPast(s.Now)
	}
	g.phase, g.host = s.Phase, s.Host
	g.startsAt, g.startedAt, g.finishedAt = timeOf(s.StartsAt), timeOf(s.StartedAt), timeOf(s.FinishedAt)
	for _, p := range s.Players {
		if m, ok := g.members[p.ID]; ok && p.Ranked != nil && !*p.Ranked && g.rankedFinish(m) {
			m.unranked = true
		}
		if m, ok := g.members[p.ID]; ok && p.Since != nil {
			m.attemptSince = *p.Since
		}
	}
}

// evolveMove places a digit (0 clears) as a move, an undo or a redo did:
// the player's undo history, their mistakes (a digit that is not the
// solution's, placed by a move of theirs), their progress and the
// placer's, and a board it solves as the finish it is, waiting to be
// stored.
func (g *Game) evolveMove(at time.Time, ev *protocol.MoveEvent) {
	m, ok := g.members[ev.Player]
	if !ok || m.role != protocol.RolePlayer {
		return
	}
	b := g.rules.boardOf(g, m)
	cell, digit := ev.Cell, uint8(ev.Digit)
	from := b.cells[cell]
	switch {
	case ev.Undo:
		undone(&m.undo, &m.redo, change{cell: uint8(cell), from: digit, to: from})
	case ev.Redo:
		undone(&m.redo, &m.undo, change{cell: uint8(cell), from: from, to: digit})
	default:
		if digit != 0 && digit != g.pz.Solution[cell] {
			m.mistakes++
		}
		if digit != 0 && len(m.placed) < maxPlacements {
			m.placed = append(m.placed, placement{cell: uint8(cell), at: at})
		}
		m.moved(change{cell: uint8(cell), from: from, to: digit})
	}
	owner := b.set(m.id, cell, digit)
	m.progress.Moves++
	g.rules.filled(g, m, owner, from, digit)
	if b.cells == g.pz.Solution && !m.finished && !m.saving {
		g.rules.solved(g, at, m)
	}
}

// undone moves c, the newest change of stack that an undo (or redo) took
// back, onto other. The changes above it are those that undos found stale
// and dropped (see undo), each of which a save keeps the dropping of; a
// replay from an older state drops them here.
func undone(stack, other *[]change, c change) {
	for len(*stack) > 0 {
		top := (*stack)[len(*stack)-1]
		*stack = (*stack)[:len(*stack)-1]
		if top == c {
			*other = append(*other, top)
			return
		}
	}
}

// evolveNote sets a cell's pencil marks.
func (g *Game) evolveNote(ev *protocol.NoteEvent) {
	m, ok := g.members[ev.Player]
	if !ok || m.role != protocol.RolePlayer {
		return
	}
	b := g.rules.boardOf(g, m)
	b.notes[ev.Cell] = notes{corner: digitMask(ev.Corner), centre: digitMask(ev.Centre)}
}

// evolveHint counts a player's hint, and freezes their board for its
// penalty. Like every case of evolve's but a move's, it is kept out of
// evolve's frame, which every move's stack holds.
//
//go:noinline
func (g *Game) evolveHint(ev *protocol.HintEvent) {
	m, ok := g.members[ev.Player]
	if !ok || m.role != protocol.RolePlayer {
		return
	}
	m.progress.Hints = ev.Hints
	if ev.FrozenUntil != nil {
		m.frozenUntil = *ev.FrozenUntil
	}
}

// evolveFinish marks the finish told as stored: the racer's, or each of
// the team's players whose result was waiting (co-op). The rank and time
// are the ones told, which the finish's solving move set already.
//
//go:noinline
func (g *Game) evolveFinish(ev *protocol.FinishEvent) {
	for _, m := range g.members {
		if m.role != protocol.RolePlayer || ev.Player != "" && m.id != ev.Player || ev.Player == "" && !m.saving {
			continue
		}
		m.finished, m.saving = true, false
		if ev.Rank > 0 {
			m.rank = ev.Rank
		}
		// The time told is in milliseconds: a finish timed to the
		// nanosecond keeps it.
		if m.elapsed.Milliseconds() != ev.ElapsedMS {
			m.elapsed = time.Duration(ev.ElapsedMS) * time.Millisecond
		}
	}
}

func digitMask(ds []int) uint16 {
	var mask uint16
	for _, d := range ds {
		mask |= 1 << uint(d&15)
	}
	return mask
}

func timeOf(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}
