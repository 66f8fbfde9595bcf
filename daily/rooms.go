package daily

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
)

// Rooms is the rooms' store (room.Store): store's Adapter, with the games
// of the daily puzzle and the results as the leaderboards keep them. It
// is the server's Players and Replays too, through the Adapter.
type Rooms struct {
	*store.Adapter
	Puzzles *Puzzles
	// RankGuests puts guests' finishes on the leaderboards too (the
	// RANK_GUESTS setting); by default only accounts rank.
	RankGuests bool
}

var _ room.Store = (*Rooms)(nil)

// DailyGame records a game with the daily puzzle of the day and level.
func (r *Rooms) DailyGame(ctx context.Context, roomID, gameID, mode, level, day string) (room.Puzzle, error) {
	pz, err := r.Puzzles.Puzzle(ctx, day, level)
	if err != nil {
		return room.Puzzle{}, err
	}
	return r.RecordGame(ctx, gameID, mode, day, pz)
}

// DailyAttempt is what is known of the player's ranked attempt at the
// day's daily of the level: unranked for a guest (unless guests are
// ranked), or for an attempt finished already (a ranked result stored
// before attempts were finished one, as the migration made it); else since
// when it runs (zero when it has not begun). It names the player's own copy of the daily
// (CopySeed) too.
func (r *Rooms) DailyAttempt(ctx context.Context, day, level, playerID string) (room.Attempt, error) {
	return attemptOf(ctx, r.Store, r.RankGuests, day, level, playerID)
}

// attemptOf is Rooms.DailyAttempt over the store st.
func attemptOf(ctx context.Context, st store.Store, rankGuests bool, day, level, playerID string) (room.Attempt, error) {
	p, err := st.Player(ctx, playerID)
	if err != nil {
		return room.Attempt{}, fmt.Errorf("daily attempt of %s: %w", playerID, err)
	}
	cp := CopySeed(p.Seed, day, level)
	if !p.Account() && !rankGuests {
		return room.Attempt{Unranked: true, Copy: cp}, nil
	}
	a, err := st.Attempt(ctx, playerID, day, level)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return room.Attempt{}, fmt.Errorf("daily attempt of %s: %w", playerID, err)
	case !a.FinishedAt.IsZero():
		return room.Attempt{Unranked: true, Copy: cp}, nil
	}
	return room.Attempt{Since: a.StartedAt, Copy: cp}, nil
}

// CopySeed is the seed of a player's own copy of the daily of a day and
// level (engine.NewIsomorph): a hash of their stored random seed, the day
// and the level (SHA-256, so that one day's copy tells nothing of the
// seed or of another day's), the same on every node and every visit. It
// is never 0 (which stands for no copy).
func CopySeed(playerSeed uint64, day, level string) uint64 {
	b := binary.LittleEndian.AppendUint64(nil, playerSeed)
	sum := sha256.Sum256(append(b, "copy:"+day+":"+level...))
	return binary.LittleEndian.Uint64(sum[:8]) | 1
}

// DailyViews starts each player's attempt at the day's daily of the level
// at the time given, unless theirs began before.
func (r *Rooms) DailyViews(ctx context.Context, day, level string, playerIDs []string, at time.Time) error {
	for _, id := range playerIDs {
		if _, err := r.Store.StartAttempt(ctx, store.Attempt{PlayerID: id, Day: day, Level: level, StartedAt: at}); err != nil {
			return fmt.Errorf("start the daily attempt of %s: %w", id, err)
		}
	}
	return nil
}

// SaveResults stores one finish in one transaction (store.Adapter's
// SaveFinish: a retry of one stored already stores nothing, and what the
// database refuses is refused for good), with each result's place on the
// boards decided here:
//
//   - A ranked daily finish is its attempt's: the attempt (begun at the
//     first view, or by this round's start when none was recorded) is
//     finished by it once it is stored, and a later finish of the same
//     attempt (two rooms played at once) is stored unranked. So is a
//     ranked daily finish of a player who has one for the day already:
//     the first stored is the ranked one.
//   - The all-time board takes an account's finishes (a guest's only when
//     guests are ranked) of a race of two or more, or a ranked daily;
//     never co-op, a race of one or a player's own puzzle.
//   - A finish the room found implausible (room.Result.Held) is held for
//     review: off every board until an operator confirms it.
func (r *Rooms) SaveResults(ctx context.Context, rs []room.Result) error {
	out := make([]store.Result, len(rs))
	daily := false
	for i, res := range rs {
		ranked, err := r.rank(ctx, &res)
		if err != nil {
			return err
		}
		out[i] = resultOf(res, ranked)
		daily = daily || out[i].Day != "" || out[i].HeldDay != ""
	}
	err := r.SaveFinish(ctx, out)
	if daily && errors.Is(err, store.ErrConflict) {
		for i, res := range rs {
			// An unranked daily finish is on no board.
			res.Ranked = false
			out[i] = resultOf(res, out[i].AllTime && res.Day == "")
		}
		err = r.SaveFinish(ctx, out)
	}
	if err != nil {
		return err
	}
	// Only a stored ranked finish finishes its attempt (again, harmless,
	// when the write is retried).
	for _, res := range out {
		if day := res.Day + res.HeldDay; day != "" {
			if _, err := r.Store.FinishAttempt(ctx, res.PlayerID, day, res.Level, res.FinishedAt); err != nil {
				return fmt.Errorf("finish the daily attempt of %s: %w", res.PlayerID, err)
			}
		}
	}
	return nil
}

// rank settles whether the finish counts on its day's leaderboard
// (res.Ranked, cleared when it cannot) and reports whether it counts on
// the all-time board.
func (r *Rooms) rank(ctx context.Context, res *room.Result) (bool, error) {
	if res.Mode == room.ModeCoop || res.Flagged || res.Solo && res.Day == "" || res.Day != "" && !res.Ranked {
		return false, nil
	}
	p, err := r.Store.Player(ctx, res.PlayerID)
	if errors.Is(err, store.ErrNotFound) {
		// No such player: the store refuses the finish for good.
		res.Ranked = false
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("rank the finish of %s: %w", res.PlayerID, err)
	}
	if !p.Account() && !r.RankGuests {
		res.Ranked = false
		return false, nil
	}
	if res.Day == "" {
		return true, nil
	}
	// The attempt this finish is of (begun at the first view, or by this
	// round's start when none was recorded): one finished by another
	// finish (two rooms played at once) leaves this one unranked; the
	// leaderboard's one result a day and level settles a tie.
	a, err := r.Store.StartAttempt(ctx, store.Attempt{PlayerID: res.PlayerID, Day: res.Day, Level: res.Level, StartedAt: res.FinishedAt.Add(-res.Elapsed)})
	if err != nil {
		return false, fmt.Errorf("the daily attempt of %s: %w", res.PlayerID, err)
	}
	res.Ranked = a.FinishedAt.IsZero() || a.FinishedAt.Equal(res.FinishedAt)
	return res.Ranked, nil
}

// resultOf is a finish as the store keeps it: a ranked daily finish with
// its day and its time as the leaderboard score, a held one with the day
// it was held from.
func resultOf(r room.Result, allTime bool) store.Result {
	out := store.Result{
		RoomID: r.GameID, PlayerID: r.PlayerID, PuzzleID: r.PuzzleID, Mode: r.Mode, Level: r.Level,
		Elapsed: r.Elapsed, Mistakes: r.Mistakes, Hints: r.Hints, Score: r.Score, FinishedAt: r.FinishedAt,
		Flagged: r.Flagged, AllTime: allTime, RoomRank: r.Rank,
	}
	if r.Day != "" && !r.Archive {
		out.PlayedDay = r.Day
	}
	if r.Ranked {
		out.Day, out.Score = r.Day, Score(r.Time())
	}
	if r.Held != "" && (r.Ranked || allTime) {
		out.Review, out.Reason, out.Flagged = store.ReviewHeld, r.Held, true
		out.HeldDay, out.Day = out.Day, ""
	}
	return out
}
