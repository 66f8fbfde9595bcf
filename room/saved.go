package room

import (
	"errors"
	"fmt"
	"time"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
)

// ErrNoRound is what a store answers for the saved state of a round
// nobody played (server.Replays.ReplayRound).
var ErrNoRound = errors.New("room: no such round")

// Saved is a room's state as stored, enough to bring it back after a
// restart: the puzzle and solution, every player's board, notes, undo
// history and progress. Spectators and connections are not kept, nor the
// replay buffer (a player who comes back after a restart gets a snapshot).
type Saved struct {
	ID         string      `json:"id"`
	Mode       string      `json:"mode"`
	Round      int         `json:"round"`
	Puzzle     SavedPuzzle `json:"puzzle"`
	Phase      string      `json:"phase"`
	Created    time.Time   `json:"created"`
	StartsAt   time.Time   `json:"starts_at"`
	StartedAt  time.Time   `json:"started_at"`
	FinishedAt time.Time   `json:"finished_at"`
	Host       string      `json:"host"`
	// Roster and StartsBy: the group the room was made for (Game.Group);
	// Left, those of it who left the round.
	Roster   []string   `json:"roster,omitempty"`
	StartsBy *time.Time `json:"starts_by,omitempty"`
	Left     []string   `json:"left,omitempty"`
	// Berserk: the room's players may go berserk (Game.AllowBerserk).
	Berserk bool  `json:"berserk,omitempty"`
	Seq     int64 `json:"seq"`
	Order   int   `json:"order"`
	Ranked  int   `json:"ranked"`
	// Day and Archive are the game's daily puzzle (see Game.PlayDaily).
	Day     string `json:"day,omitempty"`
	Archive bool   `json:"archive,omitempty"`
	// Own is set on a room that plays a puzzle a player gave (PlayOwn).
	Own     bool          `json:"own,omitempty"`
	Team    *SavedBoard   `json:"team,omitempty"`
	Players []SavedPlayer `json:"players"`
	// Abandoned is set when the room ended unfinished because nobody came
	// back: it is not restored.
	Abandoned bool `json:"abandoned,omitempty"`
	// Ended is set on the state saved when the room ended for good (idle,
	// or everyone left), and on a round that gave way to a rematch's: it
	// is not restored. A finished round whose room lives on (its players
	// reading the results, or about to ask for a rematch) comes back after
	// a restart like any other.
	Ended bool `json:"ended,omitempty"`
	// Final is set on the state saved as the room ended: nothing happened
	// after it. A state saved on the way (a phase change, the periodic
	// save) may be older than the last events clients saw.
	Final   bool      `json:"final,omitempty"`
	SavedAt time.Time `json:"saved_at"`
}

// GameID is the store id of the saved round.
func (s *Saved) GameID() string { return GameID(s.ID, s.Round) }

// Unstored says whether some player's finish was not yet stored: such a
// room must be brought back, finished or not, to store it.
func (s *Saved) Unstored() bool {
	for _, p := range s.Players {
		if p.Unstored {
			return true
		}
	}
	return false
}

// SavedPuzzle is the puzzle with its solution.
type SavedPuzzle struct {
	ID       int64   `json:"id"`
	Level    string  `json:"level"`
	Givens   string  `json:"givens"`
	Solution string  `json:"solution"`
	FloorMS  int64   `json:"floor_ms,omitempty"`
	Unlocked [][]int `json:"unlocked,omitempty"`
	// SE is the puzzle's Sudoku Explainer rating in tenths (0: none).
	SE engine.SERating `json:"se,omitempty"`
	// Copy is the isomorph of the stored puzzle that Givens and Solution
	// are, for a daily shown as its player's copy ("" for none).
	Copy string `json:"copy,omitempty"`
}

// SavedBoard is a board with its notes, its cells' colours and who placed
// each digit.
type SavedBoard struct {
	Cells   string                 `json:"cells"`
	Notes   []protocol.CellNotes   `json:"notes,omitempty"`
	Colours []protocol.CellColours `json:"colours,omitempty"`
	By      []string               `json:"by,omitempty"`
}

// SavedPlayer is one player's state.
type SavedPlayer struct {
	ID          string            `json:"id"`
	Name        string            `json:"name"`
	Order       int               `json:"order"`
	Board       *SavedBoard       `json:"board,omitempty"`
	Undo        [][3]int          `json:"undo,omitempty"`
	Redo        [][3]int          `json:"redo,omitempty"`
	Progress    protocol.Progress `json:"progress"`
	FrozenUntil time.Time         `json:"frozen_until"`
	Finished    bool              `json:"finished,omitempty"`
	// Unstored is set on a finished player whose result was not yet
	// stored when the state was saved: Restore writes it again (the write
	// is idempotent) and announces it once stored, so a crash or a
	// shutdown during a database outage loses no finish.
	Unstored  bool  `json:"unstored,omitempty"`
	Rank      int   `json:"rank,omitempty"`
	ElapsedMS int64 `json:"elapsed_ms,omitempty"`
	// Unranked: the player's finish of the daily cannot count.
	Unranked bool `json:"unranked,omitempty"`
	// AttemptSince: when the player's ranked attempt at the daily began,
	// when before the round (see Attempt).
	AttemptSince *time.Time `json:"attempt_since,omitempty"`
	// Guest: the player has no account.
	Guest bool `json:"guest,omitempty"`
	// Berserk: the player went berserk this round.
	Berserk bool `json:"berserk,omitempty"`
}

// Save is the game's state to store. A rematch being prepared is saved as
// the finished game it came from.
func (g *Game) Save(now time.Time) *Saved {
	s := &Saved{
		ID: g.id, Mode: g.Mode(), Round: g.round, Phase: g.phase,
		Puzzle:  SavedPuzzle{ID: g.pz.ID, Level: g.pz.Level, Givens: g.pz.Givens.String(), Solution: g.pz.Solution.String(), FloorMS: g.pz.Floor.Milliseconds(), Unlocked: g.pz.Unlocked, SE: g.pz.SE, Copy: g.copied},
		Created: g.created, StartsAt: g.startsAt, StartedAt: g.startedAt, FinishedAt: g.finishedAt,
		Host: g.host, Seq: g.seq, Order: g.order, Ranked: g.ranked, SavedAt: now,
		Day: g.day, Archive: g.archive, Own: g.own, Roster: g.roster, StartsBy: timePtr(g.startBy), Left: g.left, Berserk: g.berserk,
	}
	if s.Phase == protocol.PhasePreparing {
		s.Phase, s.Ended = protocol.PhaseFinished, true
	}
	if g.team != nil {
		s.Team = saveBoard(g.team)
	}
	for _, m := range g.sortedMembers() {
		if m.role != protocol.RolePlayer {
			continue
		}
		p := SavedPlayer{
			ID: m.id, Name: m.name, Order: m.order, Undo: saveChanges(m.undo), Redo: saveChanges(m.redo),
			Progress: m.fullProgress(), FrozenUntil: m.frozenUntil, Finished: m.finished || m.saving, Unstored: m.saving, Rank: m.rank,
			ElapsedMS: m.elapsed.Milliseconds(), Unranked: m.unranked, AttemptSince: timePtr(m.attemptSince), Guest: m.guest,
			Berserk: m.berserk,
		}
		if m.board != nil {
			p.Board = saveBoard(m.board)
		}
		s.Players = append(s.Players, p)
	}
	return s
}

func saveBoard(b *board) *SavedBoard {
	sb := &SavedBoard{Cells: b.cells.String(), Notes: b.noteList(), Colours: b.colourList()}
	for cell := range b.by {
		if id := b.placer(cell); id != "" {
			if sb.By == nil {
				sb.By = make([]string, engine.NumCells)
			}
			sb.By[cell] = id
		}
	}
	return sb
}

func saveChanges(cs []change) [][3]int {
	if len(cs) == 0 {
		return nil
	}
	out := make([][3]int, len(cs))
	for i, c := range cs {
		out[i] = [3]int{int(c.cell), int(c.from), int(c.to)}
	}
	return out
}

// seqGapAfterCrash is how far numbering jumps when a room comes back from
// a state that was not its last: more than a room sends between two saves.
const seqGapAfterCrash = 1 << 20

// Restore rebuilds a saved game. Its players are away, each with a fresh
// reconnect window from now, as after any dropped connection.
func Restore(cfg Config, s *Saved, now time.Time) (*Game, error) {
	return Rebuild(cfg, s, nil, now)
}

// Rebuild is Restore, with the game's records after the saved state
// replayed onto it: what happened between the last save and a crash, up to
// the last record written. records may hold events at or before the
// state's seq (skipped); replay stops at the first one missing.
func Rebuild(cfg Config, s *Saved, records []Record, now time.Time) (*Game, error) {
	g, err := load(cfg, s)
	if err != nil {
		return nil, err
	}
	replayed, err := g.replay(records)
	if err != nil {
		return nil, err
	}
	// Replay tells nobody anything and asks nothing of the store: the
	// finishes it leaves waiting are asked for below (storeUnstored).
	g.out, g.effects, g.records = nil, nil, nil
	// A round preparing its rematch comes back as the finished round it
	// was, as Save saves it; spectators are not kept.
	if g.phase == protocol.PhasePreparing {
		g.phase = protocol.PhaseFinished
	}
	for id, m := range g.members {
		if m.role != protocol.RolePlayer {
			delete(g.members, id)
		}
	}
	if !s.Final || replayed > 0 {
		// The server stopped without saving last: events may have gone
		// out after this state and its last record. Numbering goes on
		// past any of them, and nothing before the restart can be resumed.
		g.seq += seqGapAfterCrash
		g.trimmed = g.seq
		// Saved at once: the events from now on follow the gap, and a
		// replay from the older state would stop at it.
		g.effects = append(g.effects, Effect{Save: true})
	}
	for _, m := range g.members {
		m.connected, m.awayUntil = false, now.Add(g.cfg.ReconnectWindow)
	}
	// Finishes are asked for again below, once each.
	g.pending = 0
	g.storeUnstored()
	return g, nil
}

// load is the game a saved state tells of, as it was saved.
func load(cfg Config, s *Saved) (*Game, error) {
	givens, err := engine.Parse(s.Puzzle.Givens)
	if err != nil {
		return nil, fmt.Errorf("room: restore %s: givens: %w", s.ID, err)
	}
	sol, err := engine.Parse(s.Puzzle.Solution)
	if err != nil {
		return nil, fmt.Errorf("room: restore %s: solution: %w", s.ID, err)
	}
	g, err := NewGame(cfg, s.ID, s.Mode, Puzzle{ID: s.Puzzle.ID, Level: s.Puzzle.Level, Givens: givens, Solution: sol, Floor: time.Duration(s.Puzzle.FloorMS) * time.Millisecond, Unlocked: s.Puzzle.Unlocked, SE: s.Puzzle.SE}, s.Created)
	if err != nil {
		return nil, err
	}
	switch s.Phase {
	case protocol.PhaseWaiting, protocol.PhaseCountdown, protocol.PhaseRunning, protocol.PhaseFinished:
	default:
		return nil, fmt.Errorf("room: restore %s: unknown phase %q", s.ID, s.Phase)
	}
	g.round, g.phase, g.host, g.seq, g.order, g.ranked = max(s.Round, 1), s.Phase, s.Host, s.Seq, s.Order, s.Ranked
	g.startsAt, g.startedAt, g.finishedAt = s.StartsAt, s.StartedAt, s.FinishedAt
	g.day, g.archive, g.own, g.copied = s.Day, s.Archive, s.Own, s.Puzzle.Copy
	g.roster, g.startBy, g.left, g.berserk = s.Roster, timeOf(s.StartsBy), s.Left, s.Berserk
	if s.Team != nil && g.team != nil {
		if err := restoreBoard(g.team, s.Team); err != nil {
			return nil, fmt.Errorf("room: restore %s: team board: %w", s.ID, err)
		}
	}
	for _, p := range s.Players {
		m := &member{
			id: p.ID, name: p.Name, role: protocol.RolePlayer, order: p.Order,
			undo: restoreChanges(p.Undo), redo: restoreChanges(p.Redo),
			frozenUntil: p.FrozenUntil, finished: p.Finished && !p.Unstored, saving: p.Unstored, rank: p.Rank, elapsed: time.Duration(p.ElapsedMS) * time.Millisecond,
			unranked: p.Unranked, attemptSince: timeOf(p.AttemptSince), guest: p.Guest, berserk: p.Berserk,
		}
		// The rules give the player the board of their own they play on, if
		// any; the saved progress is kept as it was.
		g.rules.seat(g, m)
		m.setProgress(p.Progress)
		if m.board != nil && p.Board != nil {
			if err := restoreBoard(m.board, p.Board); err != nil {
				return nil, fmt.Errorf("room: restore %s: board of %s: %w", s.ID, p.ID, err)
			}
		}
		g.members[p.ID] = m
	}
	return g, nil
}

func restoreBoard(b *board, sb *SavedBoard) error {
	cells, err := engine.Parse(sb.Cells)
	if err != nil {
		return err
	}
	b.cells = cells
	for _, n := range sb.Notes {
		if n.Cell < 0 || n.Cell >= engine.NumCells {
			return fmt.Errorf("note cell %d out of range", n.Cell)
		}
		b.notes[n.Cell].corner |= digitMask(n.Corner)
		b.notes[n.Cell].centre |= digitMask(n.Centre)
	}
	for _, c := range sb.Colours {
		if c.Cell < 0 || c.Cell >= engine.NumCells {
			return fmt.Errorf("colour cell %d out of range", c.Cell)
		}
		b.colours[c.Cell] |= digitMask(c.Colours)
	}
	for cell, id := range sb.By {
		if cell < engine.NumCells {
			b.setPlacer(cell, id)
		}
	}
	return nil
}

func restoreChanges(cs [][3]int) []change {
	out := make([]change, 0, len(cs))
	for _, c := range cs {
		if c[0] >= 0 && c[0] < engine.NumCells {
			out = append(out, change{cell: uint8(c[0]), from: uint8(c[1]), to: uint8(c[2])})
		}
	}
	return out
}
