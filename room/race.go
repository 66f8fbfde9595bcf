package room

import (
	"time"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
)

// race is the rules of a race: every player solves the same puzzle on a
// board of their own; each finish is ranked and told as soon as it is
// stored, and the race is over once every player still in it has finished.
// A race is a contest (private): nobody sees another racer's digits, and
// nobody, the racer included, learns whether a digit is right before the
// racer's finish (no live mistakes): ranks go by finishing order, so a
// penalty would not stop a racer who tests digits one by one.
type race struct{}

func (race) mode() string       { return ModeRace }
func (race) private() bool      { return true }
func (race) liveMistakes() bool { return false }

func (race) teamBoard(engine.Grid) *board { return nil }

func (race) seat(g *Game, m *member) {
	m.progress = protocol.Progress{Empty: g.empty}
	m.board = &board{cells: g.pz.Givens}
}

func (race) boardOf(_ *Game, m *member) *board { return m.board }

func (race) lateJoin(phase string) *protocol.Error {
	if phase != protocol.PhaseWaiting {
		return protocol.Errorf(protocol.CodeGameStarted, "the race has started: join as a spectator, or wait for the rematch")
	}
	return nil
}

func (race) hintPenalty(cfg Config) time.Duration { return cfg.HintPenalty }
func (race) cursors() bool                        { return false }
func (race) earlyRematch() bool                   { return true }
func (race) rematches() bool                      { return true }
func (race) playsOnJoin() bool                    { return false }

// filled counts the player's digits on their own board.
func (race) filled(_ *Game, m *member, _ string, from, to uint8) {
	switch {
	case from == 0 && to != 0:
		m.progress.Filled++
	case from != 0 && to == 0:
		m.progress.Filled--
	}
}

// solved ranks the racer by finishing order; their finish waits to be
// stored.
func (race) solved(g *Game, now time.Time, m *member) {
	g.ranked++
	m.rank, m.elapsed, m.saving = g.ranked, now.Sub(g.clockStart(m)), true
}

// results is the racer's result.
func (race) results(g *Game, now time.Time, m *member) []Result {
	return []Result{g.result(m, now)}
}

// announce tells each racer's finish, then ends the race if nobody is left
// racing.
func (r race) announce(g *Game, now time.Time, rs []Result) {
	for _, res := range rs {
		g.publish(now, fact{kind: kindFinish, actor: res.PlayerID, ev: &protocol.FinishEvent{Header: protocol.Header{Type: protocol.TypeFinish},
			Player: res.PlayerID, Rank: res.Rank, ElapsedMS: res.Elapsed.Milliseconds(),
			Mistakes: res.Mistakes, Hints: res.Hints, Score: res.Score}})
	}
	r.settle(g, now)
}

// settle ends the race once every player still in it has finished and
// every finish is stored.
func (race) settle(g *Game, now time.Time) {
	if g.phase != protocol.PhaseRunning || g.pending > 0 {
		return
	}
	for _, m := range g.members {
		if m.role == protocol.RolePlayer && !m.finished {
			return
		}
	}
	g.effects = append(g.effects, Effect{Save: true})
	g.changePhase(now, protocol.PhaseFinished, g.startsAt, g.startedAt, now)
}
