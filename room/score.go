package room

import (
	"time"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
)

// Result is one player's finish, for the results sink.
type Result struct {
	GameID     string
	PlayerID   string
	PuzzleID   int64
	Mode       string
	Level      string
	Rank       int
	Elapsed    time.Duration
	Mistakes   int
	Hints      int
	Score      int
	FinishedAt time.Time
	// Day is the UTC date of the daily puzzle the finish was on ("" for
	// none); Ranked says it counts on that day's leaderboard, and Flagged
	// that it was faster than the level's floor (DailyFloor), so it is
	// kept off the leaderboard for a person to look at. A finish on a
	// puzzle a player gave (Game.PlayOwn) is flagged too: it is never
	// ranked, on any leaderboard.
	Day     string
	Ranked  bool
	Flagged bool
}

// Time is the finish's time on a daily leaderboard: elapsed plus the
// penalties of its mistakes and hints (DailyTime).
func (r Result) Time() time.Duration { return DailyTime(r.Elapsed, r.Mistakes, r.Hints) }

// result is player m's finish in the current round.
func (g *Game) result(m *member, now time.Time) Result {
	return Result{
		GameID: g.GameID(), PlayerID: m.id, PuzzleID: g.pz.ID, Mode: g.rules.mode(), Level: g.pz.Level,
		Rank: m.rank, Elapsed: m.elapsed, Mistakes: m.mistakes, Hints: m.progress.Hints,
		Score:      Score(g.pz.Level, m.elapsed, m.mistakes, m.progress.Hints),
		FinishedAt: now,
		Day:        g.day,
		Ranked:     g.rankedFinish(m),
		Flagged:    g.own || g.day != "" && m.elapsed < DailyFloor(g.pz.Level),
	}
}

// Score is a finish's points: a level's base (1,000 for easy, 2,000 for
// medium, 3,000 for hard, 4,000 for expert) less a point a second, 50 a
// mistake and 100 a hint, and never below 1 (finishing always scores).
func Score(level string, elapsed time.Duration, mistakes, hints int) int {
	base := 1000
	if l, err := engine.ParseLevel(level); err == nil {
		base = 1000 * (int(l) + 1)
	}
	return max(1, base-int(elapsed/time.Second)-50*mistakes-100*hints)
}

// storeUnstored asks again for the results of the players a restored state
// says finished without their result stored (Saved.Unstored), as one
// finish: writing a stored result again changes nothing, and each is
// announced once stored, as it was not before.
func (g *Game) storeUnstored() {
	var rs []Result
	for _, m := range g.sortedMembers() {
		if m.role == protocol.RolePlayer && m.saving {
			rs = append(rs, g.result(m, g.startedAt.Add(m.elapsed)))
		}
	}
	if len(rs) > 0 {
		g.pending += len(rs)
		g.effects = append(g.effects, Effect{Results: rs})
	}
}

// ResultsSaved tells the game that the results of an effect are stored.
// Only now are ranks told, so no one hears a rank that is not kept: while
// the database is away the room retries the write and the finish waits,
// unannounced (the one exception is a finish the store refuses for good,
// which the room logs and announces so that the game can go on).
func (g *Game) ResultsSaved(now time.Time, rs []Result) {
	var leaving []*member
	for _, r := range rs {
		g.pending--
		if m, ok := g.members[r.PlayerID]; ok && m.leaving {
			leaving = append(leaving, m)
		}
	}
	// The finish events mark the finishes stored (evolveFinish).
	g.rules.announce(g, now, rs)
	// Those who left while their finish was stored go now that it is.
	for _, m := range leaving {
		g.remove(now, m)
	}
	if len(leaving) > 0 {
		g.rules.settle(g, now)
	}
}
