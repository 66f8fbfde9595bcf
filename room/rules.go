package room

import (
	"time"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
)

// Modes (the rules table, modes.go, lists them with what each allows).
const (
	ModeRace = "race"
	ModeCoop = "coop"
)

// rules are what a mode decides: whose board a move goes to, what counts a
// player's digits, what a solved board means, how finishes are told and
// when the game is over. A Game picks its rules once, at NewGame (and so at
// Restore), and asks them instead of testing its mode, so that a new mode
// is a new implementation rather than a branch in every handler.
//
// What each member may see is not here: view decides it, reading only
// private and liveMistakes from the rules.
type rules interface {
	// mode is the mode's name, as clients and the store know it.
	mode() string
	// private reports whether the game is a contest: each player's digits,
	// notes and hints are theirs alone until the game is over, and the
	// puzzle is shown only once play starts, so nobody gets a head start.
	private() bool
	// liveMistakes reports whether each player's mistakes are told as they
	// are made. A contest says no: a count that goes up the moment a wrong
	// digit is placed tells the mover (and anyone watching) whether the
	// digit is right, so the solution could be read off cell by cell. There
	// the count is told with the player's finish and in the finished room,
	// and a player whose board is full but is not the solution is told
	// only that.
	liveMistakes() bool

	// teamBoard is the board the players share for a puzzle, or nil when
	// each plays their own.
	teamBoard(givens engine.Grid) *board
	// seat gives player m, new to the puzzle, their progress and board.
	seat(g *Game, m *member)
	// boardOf is the board player m's moves, notes and hints go to.
	boardOf(g *Game, m *member) *board

	// lateJoin is the refusal of a new player in phase, or nil.
	lateJoin(phase string) *protocol.Error
	// hintPenalty is how long a hint freezes the asker's board (0: never).
	hintPenalty(cfg Config) time.Duration
	// cursors reports whether players' cursors are shared, and their cell
	// colours with them (a contest's colours stay in the racer's browser).
	cursors() bool
	// earlyRematch reports whether the host may start a rematch while the
	// game runs, once a finish is stored.
	earlyRematch() bool
	// rematches reports whether the room may start a new round at all.
	rematches() bool
	// playsOnJoin reports whether the first player's join starts play at
	// once, with no start and no countdown (the clock starts as the
	// board is first sent to the player).
	playsOnJoin() bool

	// filled keeps Filled when player m changes a cell from one digit to
	// another (0 for none); owner is who had placed from.
	filled(g *Game, m *member, owner string, from, to uint8)
	// solved is player m's board matching the solution at now: the
	// finishes it makes, waiting to be stored (evolve's part).
	solved(g *Game, now time.Time, m *member)
	// results are the results of the finishes solved made, to be stored
	// before anyone hears of them.
	results(g *Game, now time.Time, m *member) []Result
	// announce tells the room the finishes of rs, now stored.
	announce(g *Game, now time.Time, rs []Result)
	// settle ends a game that has nobody left to play, after a finish is
	// stored or a player left.
	settle(g *Game, now time.Time)
}
