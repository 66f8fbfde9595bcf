package room

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/sudoku-arena/arena/protocol"
)

// A room's state is saved at its phase changes and every 30 s, while every
// logged event is recorded (Record) within the event log's batch interval.
// Replaying the records after a saved state onto it brings back what a
// crash would otherwise lose since that save: a kill then costs at most
// the events of the batch not yet written.
//
// What replay reads of each record is what the room changed for it. A
// change that takes no seq is not recorded: a cursor, which is not kept
// anyway, and the stale entry an undo drops when its cell has changed
// since. Replay drops such an entry when a later undo of the player's
// passes it (see undone); otherwise it comes back, and the next undo finds
// it stale again, as it would have been.

// replay applies the records that follow the game's seq, in order, and
// stops at the first gap (an event the log dropped at its bound, or lost):
// a record after a gap would land on a state it did not follow. It
// returns how many it applied.
func (g *Game) replay(records []Record) (int, error) {
	n := 0
	for _, rec := range records {
		if rec.Seq <= g.seq {
			continue
		}
		if rec.Seq != g.seq+1 {
			break
		}
		if err := g.apply(rec); err != nil {
			return n, fmt.Errorf("room: replay %s seq %d (%s): %w", g.id, rec.Seq, rec.Type, err)
		}
		g.seq = rec.Seq
		n++
	}
	// Replay tells nobody anything and asks nothing of the store: the
	// finishes it leaves waiting are asked for by Restore (storeUnstored).
	g.out, g.effects, g.records = nil, nil, nil
	return n, nil
}

// apply makes the change one record tells of.
func (g *Game) apply(rec Record) error {
	switch rec.Type {
	case protocol.TypePresence:
		var ev protocol.PresenceEvent
		if err := json.Unmarshal(rec.Data, &ev); err != nil {
			return err
		}
		g.applyPresence(&ev)
	case protocol.TypeCountdown:
		var ev protocol.CountdownEvent
		if err := json.Unmarshal(rec.Data, &ev); err != nil {
			return err
		}
		g.phase, g.startsAt = protocol.PhaseCountdown, ev.StartsAt
	case protocol.TypeState:
		var ev protocol.State
		if err := json.Unmarshal(rec.Data, &ev); err != nil {
			return err
		}
		g.applyState(&ev.Room)
	case protocol.TypeMove:
		var ev protocol.MoveEvent
		if err := json.Unmarshal(rec.Data, &ev); err != nil {
			return err
		}
		return g.applyMove(rec.At, &ev)
	case protocol.TypeNote:
		var ev protocol.NoteEvent
		if err := json.Unmarshal(rec.Data, &ev); err != nil {
			return err
		}
		if m, ok := g.members[ev.Player]; ok && m.role == protocol.RolePlayer && ev.Cell >= 0 && ev.Cell < len(g.pz.Givens) {
			b := g.rules.boardOf(g, m)
			b.notes[ev.Cell] = notes{corner: digitMask(ev.Corner), centre: digitMask(ev.Centre)}
		}
	case protocol.TypeHint:
		var ev protocol.HintEvent
		if err := json.Unmarshal(rec.Data, &ev); err != nil {
			return err
		}
		if m, ok := g.members[ev.Player]; ok && ev.FrozenUntil != nil {
			m.frozenUntil = *ev.FrozenUntil
		}
	case protocol.TypeProgress:
		var ev protocol.ProgressEvent
		if err := json.Unmarshal(rec.Data, &ev); err != nil {
			return err
		}
		if m, ok := g.members[ev.Player]; ok && m.role == protocol.RolePlayer {
			m.setProgress(ev.Progress)
		}
	case protocol.TypeFinish:
		var ev protocol.FinishEvent
		if err := json.Unmarshal(rec.Data, &ev); err != nil {
			return err
		}
		g.applyFinish(&ev)
	}
	// Errors (a conflict, a notice) change nothing.
	return nil
}

func (g *Game) applyPresence(ev *protocol.PresenceEvent) {
	g.host = ev.Host
	if ev.Role != protocol.RolePlayer {
		// Spectators are not brought back; their arrival took its place
		// in the order of arrivals.
		if ev.Status == protocol.PresenceJoined {
			g.order++
		}
		return
	}
	m, ok := g.members[ev.Player]
	switch {
	case ev.Status == protocol.PresenceJoined && !ok:
		m = g.add(ev.Player, ev.Name, protocol.RolePlayer)
		m.connected = false
	case ev.Status == protocol.PresenceLeft && ok:
		delete(g.members, m.id)
	}
}

// applyState takes the phase, round times and host of a state, and seats
// the players it lists that the game does not know yet (a rematch's round,
// replayed over no saved state of its own).
func (g *Game) applyState(s *protocol.Snapshot) {
	g.phase = s.Phase
	if g.phase == protocol.PhasePreparing {
		// A round whose rematch was being prepared is over.
		g.phase = protocol.PhaseFinished
	}
	g.host = s.Host
	g.startsAt, g.startedAt, g.finishedAt = timeOf(s.StartsAt), timeOf(s.StartedAt), timeOf(s.FinishedAt)
	for _, p := range s.Players {
		if _, ok := g.members[p.ID]; !ok {
			m := g.add(p.ID, p.Name, protocol.RolePlayer)
			m.connected = false
		}
	}
}

// applyMove replays a digit placed, undone or redone, with the player's
// undo history, and a board it solves as the finish it was.
func (g *Game) applyMove(at time.Time, ev *protocol.MoveEvent) error {
	m, ok := g.members[ev.Player]
	if !ok || m.role != protocol.RolePlayer {
		return nil
	}
	if ev.Cell < 0 || ev.Cell >= len(g.pz.Givens) || ev.Digit < 0 || ev.Digit > 9 {
		return fmt.Errorf("move %d at cell %d out of range", ev.Digit, ev.Cell)
	}
	b := g.rules.boardOf(g, m)
	cell, digit := ev.Cell, uint8(ev.Digit)
	switch {
	case ev.Undo:
		undone(&m.undo, &m.redo, cell)
	case ev.Redo:
		undone(&m.redo, &m.undo, cell)
	default:
		m.moved(change{cell: uint8(cell), from: b.cells[cell], to: digit})
	}
	b.set(m.id, cell, digit)
	if b.cells == g.pz.Solution && !m.finished && !m.saving {
		// Its finish is stored or not: the finish record that follows
		// says it was; Restore asks again for one that is not.
		g.rules.solved(g, at, m)
	}
	return nil
}

// undone moves the last change of stack for cell onto other, as an undo
// (or redo) did. The changes on top of it for other cells were dropped by
// undos that found their cell changed since, which take no seq.
func undone(stack, other *[]change, cell int) {
	for len(*stack) > 0 {
		c := (*stack)[len(*stack)-1]
		*stack = (*stack)[:len(*stack)-1]
		if int(c.cell) == cell {
			*other = append(*other, c)
			return
		}
	}
}

// applyFinish marks the finish told as stored: the racer's, or the whole
// team's.
func (g *Game) applyFinish(ev *protocol.FinishEvent) {
	for _, m := range g.sortedMembers() {
		if m.role != protocol.RolePlayer || ev.Player != "" && m.id != ev.Player {
			continue
		}
		if ev.Player != "" || m.saving {
			m.finished, m.saving = true, false
			if ev.Rank > 0 {
				m.rank = ev.Rank
			}
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
