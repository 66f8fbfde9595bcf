package room

import (
	"time"

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
	// none), and Archive says the round was not played on that day;
	// Ranked says the finish counts on that day's leaderboard. A finish
	// on a puzzle a player gave (Game.PlayOwn) is Flagged: it is never
	// ranked, on any leaderboard.
	Day     string
	Archive bool
	Ranked  bool
	Flagged bool
	// Solo says the round had one player: a race of one is on no
	// leaderboard (a daily is ranked by its own rules).
	Solo bool
	// Held is why a finish that would rank does not look like a person's
	// (see holdReason): it is kept off the leaderboards for review. ""
	// for none.
	Held string
	// Berserk says the player went berserk this round (a tournament's
	// race): no notes and no hints.
	Berserk bool
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
		Archive:    g.archive,
		Ranked:     g.rankedFinish(m),
		Flagged:    g.own,
		Solo:       g.players() == 1,
		Held:       g.held(m),
		Berserk:    m.berserk,
	}
}

// players is how many players the round has.
func (g *Game) players() int {
	n := 0
	for _, m := range g.members {
		if m.role == protocol.RolePlayer {
			n++
		}
	}
	return n
}

// held is why player m's finish is held for review ("" for none): only a
// finish that would rank somewhere is checked, a ranked daily or a race
// of two or more (co-op and own puzzles rank nowhere).
func (g *Game) held(m *member) string {
	ranks := g.rankedFinish(m) || g.day == "" && !g.own && g.rules.mode() == ModeRace && g.players() > 1
	if !ranks {
		return ""
	}
	return holdReason(g.pz, g.cfg.FloorPercent, m.elapsed, m.placed, m.progress.Hints)
}

// Score is a finish's points: a level's base (1,000 for easy, 2,000 for
// medium, 3,000 for hard, 4,000 for expert, 5,000 for master) less a
// point a second, 50 a mistake and 100 a hint, and never below 1
// (finishing always scores).
func Score(level string, elapsed time.Duration, mistakes, hints int) int {
	rank, _ := levelRank(level)
	base := 1000 * (rank + 1)
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
