package room

import (
	"errors"
	"slices"
	"sort"
	"time"

	"github.com/sudoku-arena/arena/protocol"
)

// ErrUnknownPlayer is what a store of players answers for a token or an id
// that is no player's (server.Players.PlayerByToken, the player record).
var ErrUnknownPlayer = errors.New("room: unknown player")

type member struct {
	id, name, role string
	order          int
	connected      bool
	awayUntil      time.Time

	// Player state. board is nil for spectators, and for players when the
	// team shares one (co-op).
	board      *board
	undo, redo []change
	// progress is what the room is told of the player's game, without
	// mistakes, which are counted apart: whether they may be told is
	// view's to decide (see fullProgress).
	progress    protocol.Progress
	mistakes    int
	frozenUntil time.Time
	finished    bool
	rank        int
	elapsed     time.Duration
	saving      bool
	// leaving is set on a player who left while their finish was being
	// stored: they stay a member, away, until it is (see Leave).
	leaving bool
	// unranked is set on a player of a daily puzzle whose finish cannot
	// count on the day's leaderboard: not their first attempt, or (set
	// at the finish) faster than the level's floor.
	unranked bool
	// attemptSince is when the player's ranked attempt at the daily
	// began, when before this round (zero otherwise): their ranked
	// finish's time runs from it (see clockStart).
	attemptSince time.Time
	// placed are the digits the player set this round, with when (at
	// most maxPlacements), for the checks a ranked finish passes.
	placed []placement
	// guest: the player has no account.
	guest bool
	// berserk: the player went berserk this round (no notes, no hints).
	berserk bool
}

// rankedFinish reports whether player m's finish counts (or, before it,
// would count) on the daily leaderboard of the game's day.
func (g *Game) rankedFinish(m *member) bool {
	if g.day == "" || g.archive || m.unranked {
		return false
	}
	done := m.finished || m.saving
	return !done || m.elapsed <= AttemptLimit
}

// clockStart is when player m's time runs from: the round's start, or
// the start of their ranked attempt at the daily when it began before
// (they saw the board in another room, or before they left and came
// back), for the first view counts.
func (g *Game) clockStart(m *member) time.Time {
	if !m.attemptSince.IsZero() && m.attemptSince.Before(g.startedAt) && g.rankedFinish(m) {
		return m.attemptSince
	}
	return g.startedAt
}

// fullProgress is the player's progress with their mistakes: what a fact
// carries, for view to pass on or trim.
func (m *member) fullProgress() protocol.Progress {
	p := m.progress
	n := m.mistakes
	p.Mistakes = &n
	return p
}

// setProgress is fullProgress's inverse: the progress, and the mistakes
// kept apart, from a full one (a saved state, a recorded event).
func (m *member) setProgress(p protocol.Progress) {
	if p.Mistakes != nil {
		m.mistakes = *p.Mistakes
	}
	p.Mistakes = nil
	m.progress = p
}

// frozen refuses digits while a player's hint penalty runs (only the rules
// with a hint penalty set frozenUntil).
func (m *member) frozen(now time.Time) *protocol.Error {
	if !now.Before(m.frozenUntil) {
		return nil
	}
	return protocol.Errorf(protocol.CodeFrozen, "your hint penalty runs for another %s", m.frozenUntil.Sub(now).Round(time.Second/10))
}

// Players counts the players.
func (g *Game) Players() int { return g.count(protocol.RolePlayer) }

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

// Host is the player who may start the game and rematches.
func (g *Game) Host() string { return g.host }

// Join is a member's arrival: a new player, a player coming back (id is a
// player's already), or a spectator. lastSeq is the last event the client
// saw (0 for none): when the room still holds every event after it, they
// are replayed instead of a snapshot. The welcome's You lacks the token,
// which only the server knows.
func (g *Game) Join(now time.Time, id, name string, spectator bool, lastSeq int64) (*protocol.Welcome, []Output, *protocol.Error) {
	// What the member missed is read before the join's own presence event
	// (never theirs to see) takes a seq and a place in the log.
	// Only a player coming back resumes: a stray last_seq from a newcomer
	// or a spectator gets a snapshot.
	m, ok := g.members[id]
	var replay []Output
	var resumed bool
	if ok && m.role == protocol.RolePlayer {
		replay, resumed = g.missed(id, lastSeq)
	}
	switch {
	case ok && m.role == protocol.RolePlayer:
		if m.connected {
			// A second tab: the server closes the first one.
			break
		}
		m.connected, m.awayUntil, m.leaving = true, time.Time{}, false
		g.presence(now, m, protocol.PresenceBack, g.host, nil)
	case ok:
		return nil, nil, protocol.Errorf(protocol.CodeAlreadyJoined, "this spectator is in the room already")
	case spectator:
		if err := g.Admits(id, true); err != nil {
			return nil, nil, err
		}
		m = g.arrive(now, id, name, protocol.RoleSpectator)
	default:
		if err := g.Admits(id, false); err != nil {
			return nil, nil, err
		}
		m = g.arrive(now, id, name, protocol.RolePlayer)
		g.startGroup(now)
		switch {
		case g.rules.playsOnJoin() && g.phase == protocol.PhaseWaiting:
			// The clock starts now, as the board goes to the player in
			// their welcome.
			g.effects = append(g.effects, Effect{Save: true})
			g.changePhase(now, protocol.PhaseRunning, now, now, time.Time{})
			g.viewed(now)
		case m.unranked:
			// No event tells that the player's finish cannot be ranked
			// until play starts: the saved state does (see evolve).
			g.effects = append(g.effects, Effect{Save: true})
		}
	}
	w := &protocol.Welcome{
		Header: protocol.Header{Type: protocol.TypeWelcome, Seq: g.seq},
		You:    protocol.You{ID: id, Name: m.name, Role: m.role, Host: g.host == id},
	}
	if resumed {
		w.Resumed, w.Replay = true, len(replay)
		return w, replay, nil
	}
	snap := g.Snapshot(id, now)
	w.Room = &snap
	return w, nil, nil
}

// Admits says whether newcomer id may join, as a spectator or as a
// player: nil, or the refusal Join would give. (A player coming back is
// always let in.) In a room made for a group, only its players join as
// players, and they may still join once play has started: they were
// promised a place (unless they left it this round).
func (g *Game) Admits(id string, spectator bool) *protocol.Error {
	if spectator {
		if g.count(protocol.RoleSpectator) >= g.cfg.MaxSpectators {
			return protocol.Errorf(protocol.CodeRoomFull, "the room has %d spectators, as many as it takes", g.cfg.MaxSpectators)
		}
		return nil
	}
	late := g.rules.lateJoin(g.phase)
	if g.roster != nil {
		if !slices.Contains(g.roster, id) {
			return protocol.Errorf(protocol.CodeNotInvited, "this race is for the players it was made for: watch it as a spectator")
		}
		if (g.phase == protocol.PhaseCountdown || g.phase == protocol.PhaseRunning) && !slices.Contains(g.left, id) {
			late = nil
		}
	}
	if late != nil {
		return late
	}
	if g.count(protocol.RolePlayer) >= g.cfg.MaxPlayers {
		return protocol.Errorf(protocol.CodeRoomFull, "the room has %d players, as many as it takes", g.cfg.MaxPlayers)
	}
	return nil
}

// arrive tells the room of a newcomer, whom evolve adds, and connects
// them. A player hosts when nobody does.
func (g *Game) arrive(now time.Time, id, name, role string) *member {
	host := g.host
	if host == "" && role == protocol.RolePlayer {
		host = id
	}
	g.publish(now, fact{kind: kindPresence, actor: id, ev: &protocol.PresenceEvent{Header: protocol.Header{Type: protocol.TypePresence},
		Player: id, Name: name, Role: role, Status: protocol.PresenceJoined, Host: host, Guest: role == protocol.RolePlayer && g.guests[id]}})
	m := g.members[id]
	m.connected = true
	return m
}

// add makes a member, away, with a place in the order of arrivals and,
// for a player, their progress and board (evolvePresence, Restore).
func (g *Game) add(id, name, role string) *member {
	g.order++
	m := &member{id: id, name: name, role: role, order: g.order}
	if role == protocol.RolePlayer {
		g.rules.seat(g, m)
	}
	g.members[id] = m
	return m
}

// presence tells the room about member m's arrival, absence, return or
// departure, with the room's host after it.
func (g *Game) presence(now time.Time, m *member, status, host string, until *time.Time) {
	g.publish(now, fact{kind: kindPresence, actor: m.id, ev: &protocol.PresenceEvent{Header: protocol.Header{Type: protocol.TypePresence},
		Player: m.id, Name: m.name, Role: m.role, Status: status, Host: host, Until: until}})
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
	if m.role == protocol.RoleSpectator {
		g.remove(now, m)
		return
	}
	m.connected = false
	m.awayUntil = now.Add(g.cfg.ReconnectWindow)
	until := m.awayUntil
	g.presence(now, m, protocol.PresenceAway, g.host, &until)
}

// Leave is a member leaving for good (or their reconnect window running
// out). A host's role passes to the next player to have joined who is
// still connected.
func (g *Game) Leave(now time.Time, id string) {
	m, ok := g.members[id]
	if !ok {
		return
	}
	if m.saving {
		// Their finish is still being stored: they stay a member, away,
		// until it is, so that a save meanwhile keeps it (Saved.Unstored)
		// and a restart stores it. ResultsSaved lets them go.
		m.leaving, m.connected, m.awayUntil = true, false, time.Time{}
		return
	}
	g.remove(now, m)
	g.rules.settle(g, now)
}

// remove tells the room that member m left, whom evolve drops. A host's
// role passes to the player who joined first of those connected, or of
// all when none is.
func (g *Game) remove(now time.Time, m *member) {
	host := g.host
	if host == m.id {
		host = ""
		var next *member
		for _, o := range g.members {
			if o != m && o.role == protocol.RolePlayer && (next == nil || o.connected && !next.connected || o.connected == next.connected && o.order < next.order) {
				next = o
			}
		}
		if next != nil {
			host = next.id
		}
	}
	g.presence(now, m, protocol.PresenceLeft, host, nil)
}

// sortedMembers are the members in the order they joined.
func (g *Game) sortedMembers() []*member {
	ms := make([]*member, 0, len(g.members))
	for _, m := range g.members {
		ms = append(ms, m)
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].order < ms[j].order })
	return ms
}
