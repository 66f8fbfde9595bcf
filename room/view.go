package room

import (
	"fmt"
	"time"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
)

// viewer is a member as view sees them: their id and role. The role is
// empty for an outsider (the room's public snapshot) and for a member who
// has just left.
type viewer struct{ id, role string }

// viewerOf is member id as a viewer.
func (g *Game) viewerOf(id string) viewer {
	if m, ok := g.members[id]; ok {
		return viewer{id: id, role: m.role}
	}
	return viewer{id: id}
}

// view is what viewer v gets of fact f: f's event as it is, a copy with
// less in it, or nil for nothing. It is the one place that decides who may
// see what, so that an event cannot leak by a handler forgetting to hide
// something. The rules it keeps:
//
//   - The room's own news (countdown, progress, finishes) is everyone's.
//   - Under rules without live mistakes (a race) a player's mistakes are
//     nobody's, their own included, until their finish is told or the
//     round is over (mistakesShown): progress and snapshots leave the
//     count out, so that no event or snapshot differs between a right
//     digit and a wrong one.
//   - The member an event is about does not hear of it again (their own
//     presence, their own cursor); an answer (pong, echo, notice, a full
//     board that is not the solution) is for its actor alone.
//   - In a contest (rules.private, a race) a player's digits, notes and
//     hints are theirs alone while the game is live: the others learn who
//     asked for a hint and its technique, and of a conflict only the
//     clashing givens, which everyone sees anyway. In co-op the team sees
//     it all.
//   - A snapshot shows the solution only once the room is finished, a
//     contest's puzzle only once play has started, and a contest's boards
//     to their players alone until the end; nobody else sees a digit.
//     Who placed each digit goes with a shared board (co-op) only.
//
// A kind without a rule here goes to its actor alone (or to nobody), and a
// test fails until the rule is written.
func (g *Game) view(f *fact, v viewer) protocol.Event {
	actor := f.actor != "" && v.id == f.actor
	private := g.rules.private()
	switch f.kind {
	case kindCountdown, kindFinish, kindBerserk:
		return f.ev
	case kindProgress:
		p := f.ev.(*protocol.ProgressEvent)
		if g.mistakesShown(p.Player) {
			return f.ev
		}
		if f.trimmed == nil {
			hidden := *p
			hidden.Mistakes = nil
			f.trimmed = &hidden
		}
		return f.trimmed
	case kindPresence, kindCursor:
		if actor {
			return nil
		}
		return f.ev
	case kindMove, kindNote, kindColour:
		if actor || !private {
			return f.ev
		}
		return nil
	case kindHint:
		if actor || !private {
			return f.ev
		}
		// Not even the technique: a "wrong-digits" hint would tell the
		// others the asker has a wrong digit, and any other technique that
		// they have none.
		h := f.ev.(*protocol.HintEvent)
		return &protocol.HintEvent{Header: h.Header, Player: h.Player, Hints: h.Hints, FrozenUntil: h.FrozenUntil}
	case kindConflict:
		if actor {
			return f.ev
		}
		return g.othersConflict(f.ev.(*protocol.ErrorEvent), private)
	case kindState:
		return g.stateView(f, v)
	}
	if actor {
		return f.ev
	}
	return nil
}

// stateView is what viewer v gets of a state fact: its own snapshot. It
// is a function of its own, not a case of view's, because a snapshot is a
// large value: in view's frame it took 1.2 KB of the stack of every
// event's view, and moves took their room's stack past 4 KiB.
//
//go:noinline
func (g *Game) stateView(f *fact, v viewer) protocol.Event {
	st := f.ev.(*protocol.State)
	return &protocol.State{Header: st.Header, Room: g.snapshotFor(st.Room, f, v)}
}

// othersConflict is a conflict as the room sees it: without the mover's
// message id, and, in a contest, naming only the clashing givens, not where
// the mover's own digits are.
func (g *Game) othersConflict(ev *protocol.ErrorEvent, private bool) *protocol.ErrorEvent {
	other := *ev
	other.ID = nil
	if private {
		other.Digit = 0 // a racer's digits are their own
		other.Cells = nil
		for _, p := range ev.Cells {
			if g.pz.Givens[p] != 0 {
				other.Cells = append(other.Cells, p)
			}
		}
	}
	name := ev.Player
	if m, ok := g.members[ev.Player]; ok {
		name = m.name
	}
	cell := engine.CellName(*ev.Cell)
	if len(other.Cells) > 0 {
		other.Message = fmt.Sprintf("%s's move at %s conflicts with %s", name, cell, engine.CellList(other.Cells))
	} else {
		other.Message = fmt.Sprintf("%s's move at %s conflicts with one of their own digits", name, cell)
	}
	return &other
}

// mistakesShown reports whether player id's mistakes may be told now:
// always under rules with live mistakes, otherwise once the player's
// finish is told (they are in it) or the round is over: the room is
// finished, or preparing a rematch, which ends the race of anyone still
// in it.
func (g *Game) mistakesShown(id string) bool {
	if g.rules.liveMistakes() || g.phase == protocol.PhaseFinished || g.phase == protocol.PhasePreparing {
		return true
	}
	m, ok := g.members[id]
	return ok && m.finished
}

// snapshotFor is the full snapshot full of fact f as viewer v may see it
// (view's rule for a state).
func (g *Game) snapshotFor(full protocol.Snapshot, f *fact, v viewer) protocol.Snapshot {
	private := g.rules.private()
	s := full
	s.Copy = "" // the records' alone
	over := s.Phase == protocol.PhaseFinished
	// A round on a day's daily puzzle shows no solution, and no other
	// player's board, even once it is over, until a day after its day
	// (f.reveal): others may still play it for a rank, and a room ends as
	// finished when its only player leaves. The replays open as late.
	reveal := over && f.reveal
	if !reveal {
		s.Solution = ""
	}
	if private && s.Phase != protocol.PhaseRunning && !over {
		s.Givens = ""
	}
	b := f.team
	if b == nil && s.Givens != "" {
		b = f.boards[v.id]
	}
	if b != nil {
		s.Board, s.Notes = b.cells.String(), b.noteList()
		if b == f.team {
			s.Colours = b.colourList()
			// Who placed what is seen with the shared board; a racer's
			// own board says nothing of the kind.
			s.PlacedBy = b.placedBy()
		}
	}
	s.Players = make([]protocol.PlayerView, len(full.Players))
	for i, p := range full.Players {
		if !reveal && (!over || p.ID != v.id) {
			p.Board = ""
		}
		if !g.mistakesShown(p.ID) {
			p.Mistakes = nil
		}
		s.Players[i] = p
	}
	return s
}

// stateFact is the room's state in full: the snapshot with the puzzle, the
// solution and every player's board, and the boards behind it.
func (g *Game) stateFact(now time.Time) fact {
	f := fact{kind: kindState, ev: &protocol.State{Header: protocol.Header{Type: protocol.TypeState}}}
	g.fillState(now, &f)
	return f
}

// fillState makes state fact f the room's state in full, as it is now.
func (g *Game) fillState(now time.Time, f *fact) {
	st := f.ev.(*protocol.State)
	s := &st.Room
	*s = protocol.Snapshot{
		ID: g.id, Mode: g.rules.mode(), Level: g.pz.Level, Date: g.day, Phase: g.phase, Round: g.round, Host: g.host,
		Givens: g.pz.Givens.String(), Solution: g.pz.Solution.String(), Copy: g.copied,
		Now: now, Players: []protocol.PlayerView{}, Spectators: g.count(protocol.RoleSpectator),
		HintPenaltyMS: g.rules.hintPenalty(g.cfg).Milliseconds(), SE: float64(g.pz.SE) / 10,
	}
	s.StartsAt, s.StartedAt, s.FinishedAt = timePtr(g.startsAt), timePtr(g.startedAt), timePtr(g.finishedAt)
	s.Roster, s.StartsBy, s.Berserk = g.roster, timePtr(g.startBy), g.berserk && g.round == 1
	boards := map[string]*board{}
	for _, m := range g.sortedMembers() {
		if m.role != protocol.RolePlayer {
			continue
		}
		p := protocol.PlayerView{ID: m.id, Name: m.name, Connected: m.connected, Progress: m.fullProgress(), Guest: m.guest, Berserk: m.berserk}
		if m.finished {
			p.Rank, p.ElapsedMS = m.rank, m.elapsed.Milliseconds()
			// A ranked daily's hold is known here; a race's is settled
			// as it is stored (an account's only), and the player's
			// record tells it.
			if g.rankedFinish(m) && g.held(m) != "" {
				p.Review = ReviewHeld
			}
		}
		if m.board != nil {
			p.Board = m.board.cells.String()
			boards[m.id] = m.board
		}
		if now.Before(m.frozenUntil) {
			p.FrozenUntil = timePtr(m.frozenUntil)
		}
		if g.day != "" {
			ranked := g.rankedFinish(m)
			p.Ranked = &ranked
			if start := g.clockStart(m); start.Before(g.startedAt) {
				p.Since = &start
			}
		}
		s.Players = append(s.Players, p)
	}
	f.team, f.boards, f.reveal = g.team, boards, revealsDaily(g.day, now)
}

// Snapshot is the room as member id sees it ("" for an outsider).
func (g *Game) Snapshot(id string, now time.Time) protocol.Snapshot {
	f := g.stateFact(now)
	return g.view(&f, g.viewerOf(id)).(*protocol.State).Room
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
