package room

import (
	"time"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
)

// coop is the rules of a co-op game: the players solve one shared board,
// see each other's digits, notes, hints and cursors, and finish together
// the moment the board is solved, as one team with one score. It is not a
// contest, so each player's mistakes are shown as they are made: the team
// sees the board anyway, and the count helps it find a wrong digit.
type coop struct{}

func (coop) mode() string       { return ModeCoop }
func (coop) private() bool      { return false }
func (coop) liveMistakes() bool { return true }

func (coop) teamBoard(givens engine.Grid) *board { return &board{cells: givens} }

// seat counts the player's digits already on the shared board: a player
// who left and comes back still has them there, and clearing one must not
// take Filled below zero.
func (coop) seat(g *Game, m *member) {
	m.progress = protocol.Progress{Empty: g.empty, Filled: g.team.placedCount(m.id)}
}

func (coop) boardOf(g *Game, _ *member) *board { return g.team }

func (coop) lateJoin(string) *protocol.Error  { return nil }
func (coop) hintPenalty(Config) time.Duration { return 0 }
func (coop) cursors() bool                    { return true }
func (coop) earlyRematch() bool               { return false }
func (coop) rematches() bool                  { return true }
func (coop) playsOnJoin() bool                { return false }

// filled counts, for each player, the digits they placed that are still on
// the board: a digit cleared or overwritten is taken from whoever placed it.
func (coop) filled(g *Game, m *member, owner string, from, to uint8) {
	if from != 0 {
		if o, ok := g.members[owner]; ok {
			o.progress.Filled--
		}
	}
	if to != 0 {
		m.progress.Filled++
	}
}

// solved finishes the whole team at once, and stops play while their
// results are stored.
func (coop) solved(g *Game, now time.Time, _ *member) {
	elapsed := now.Sub(g.startedAt)
	for _, p := range g.members {
		if p.role == protocol.RolePlayer {
			p.rank, p.elapsed, p.saving = 1, elapsed, true
		}
	}
	g.phase = protocol.PhaseFinished
	g.finishedAt = now
}

// results is the result of each of the team's players, in the order they
// joined.
func (coop) results(g *Game, now time.Time, _ *member) []Result {
	var rs []Result
	for _, p := range g.sortedMembers() {
		if p.role == protocol.RolePlayer {
			rs = append(rs, g.result(p, now))
		}
	}
	return rs
}

// announce tells the team's finish, with the mistakes and hints of all its
// players, and the finished room once every result is stored.
func (coop) announce(g *Game, now time.Time, rs []Result) {
	if len(rs) == 0 {
		return
	}
	mistakes, hints := 0, 0
	for _, r := range rs {
		mistakes += r.Mistakes
		hints += r.Hints
	}
	g.publish(now, fact{kind: kindFinish, ev: &protocol.FinishEvent{Header: protocol.Header{Type: protocol.TypeFinish}, ElapsedMS: rs[0].Elapsed.Milliseconds(),
		Mistakes: mistakes, Hints: hints, Score: Score(g.pz.Level, rs[0].Elapsed, mistakes, hints)}})
	if g.pending == 0 {
		g.effects = append(g.effects, Effect{Save: true})
		g.emitState(now)
	}
}

// settle has nothing to do: the team finishes when the board is solved.
func (coop) settle(*Game, time.Time) {}
