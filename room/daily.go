package room

import (
	"hash/fnv"
	"time"

	"github.com/sudoku-arena/arena/protocol"
)

// ModeDaily is the puzzle of the day played alone.
const ModeDaily = "daily"

// The daily's time: a finish's time is its elapsed time plus a penalty per
// mistake and per hint, and the leaderboard goes by it. A hint costs time
// instead of freezing the board, so a daily has no hint freeze.
const (
	DailyMistakePenalty = 30 * time.Second
	DailyHintPenalty    = 60 * time.Second
)

// DailyTime is a daily finish's time: elapsed plus the penalties.
func DailyTime(elapsed time.Duration, mistakes, hints int) time.Duration {
	return elapsed + time.Duration(mistakes)*DailyMistakePenalty + time.Duration(hints)*DailyHintPenalty
}

// AttemptLimit is how long a ranked attempt at a daily stays open: its
// clock runs from the first view of the board, across rooms, leaving and
// coming back, and a finish later than this after it is unranked.
const AttemptLimit = 3 * time.Hour

// Attempt is what the store knows of a player's ranked attempt at a
// day's daily as they join a room on it (Store.DailyAttempt).
type Attempt struct {
	// Unranked: their finish cannot count (a guest, while guests are not
	// ranked, or their attempt is finished already).
	Unranked bool
	// Since is when the attempt began (its board first sent to them, in
	// any room), zero when it has not: a ranked finish's time runs from
	// it.
	Since time.Time
	// Copy, when not 0, is the seed of the player's own copy of the
	// daily (engine.NewIsomorph): a room on the daily that they are the
	// first player to join plays it (see Game.Copy).
	Copy uint64
}

// daily is the rules of the puzzle of the day: a race of one. The player
// plays alone (spectators may watch); there is no start and no countdown,
// for the clock starts when the board is first sent to the player, at
// their join. Like a race it is a contest: nothing tells the player
// whether a digit is right before the finish. It has no rematch: another
// attempt is another room.
type daily struct{ race }

func (daily) mode() string { return ModeDaily }

// lateJoin refuses a second player: the first one's join started play.
func (daily) lateJoin(phase string) *protocol.Error {
	if phase != protocol.PhaseWaiting {
		return protocol.Errorf(protocol.CodeGameStarted, "a daily is played alone: join as a spectator, or play the daily in a room of your own")
	}
	return nil
}

func (daily) hintPenalty(Config) time.Duration { return 0 }
func (daily) earlyRematch() bool               { return false }

// playsOnJoin reports whether the first player's join starts play at
// once, with no start and no countdown.
func (daily) playsOnJoin() bool { return true }

// rematches reports whether the room may start a new round.
func (daily) rematches() bool { return false }

// DailySeed is the generator's seed of the daily puzzle of a day
// (YYYY-MM-DD) and level: a hash of both and nothing else, so that every
// node, and every restart, makes the same puzzle.
func DailySeed(day, level string) uint64 {
	h := fnv.New64a()
	h.Write([]byte("daily:" + day + ":" + level))
	return h.Sum64()
}

// archiveIfPast makes the round an archive round (no finish in it ranked)
// when its play starts after its day: a room made just before midnight and
// held open is not played for that day's rank once the day is over, when
// an archive room of the same day may be showing its solution.
func (g *Game) archiveIfPast(now time.Time) {
	if g.day != "" && g.day < now.UTC().Format(DayLayout) {
		g.archive = true
	}
}

// revealsDaily reports whether a round on the puzzle of day may show its
// solution and every player's board once it is over: a day after the day is
// over (as the replays open), since a round whose play started on the day
// may go on being played for its rank past midnight.
func revealsDaily(day string, now time.Time) bool {
	return day == "" || day < now.UTC().AddDate(0, 0, -1).Format(DayLayout)
}
