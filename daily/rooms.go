package daily

import (
	"context"
	"errors"
	"fmt"

	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
)

// Rooms is the rooms' store (room.Store): store's Adapter, with the games
// of the daily puzzle and the results as the leaderboards keep them. It
// is the server's Players and Replays too, through the Adapter.
type Rooms struct {
	*store.Adapter
	Puzzles *Puzzles
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

// DailyPlayed reports whether the player has a ranked result on the day's
// leaderboard of the level.
func (r *Rooms) DailyPlayed(ctx context.Context, day, level, playerID string) (bool, error) {
	_, err := r.Store.DailyAround(ctx, day, level, playerID, 0)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, store.ErrNotFound):
		return false, nil
	}
	return false, fmt.Errorf("daily %s %s of %s: %w", day, level, playerID, err)
}

// SaveResults stores one finish in one transaction (store.Adapter's
// SaveFinish: a retry of one stored already stores nothing, and what the
// database refuses is refused for good). A ranked daily finish of a
// player who has one for the day already (two attempts played at once)
// is stored unranked: the first stored is the ranked one.
func (r *Rooms) SaveResults(ctx context.Context, rs []room.Result) error {
	out := make([]store.Result, len(rs))
	daily := false
	for i, res := range rs {
		out[i] = resultOf(res)
		daily = daily || out[i].Day != ""
	}
	err := r.SaveFinish(ctx, out)
	if daily && errors.Is(err, store.ErrConflict) {
		for i, res := range rs {
			res.Ranked = false
			out[i] = resultOf(res)
		}
		err = r.SaveFinish(ctx, out)
	}
	return err
}

// resultOf is a finish as the store keeps it: a ranked daily finish with
// its day (played on it) and its time as the leaderboard score. It counts
// on the all-time board unless co-op or flagged, as before.
func resultOf(r room.Result) store.Result {
	out := store.Result{
		RoomID: r.GameID, PlayerID: r.PlayerID, PuzzleID: r.PuzzleID, Mode: r.Mode, Level: r.Level,
		Elapsed: r.Elapsed, Mistakes: r.Mistakes, Hints: r.Hints, Score: r.Score, FinishedAt: r.FinishedAt,
		Flagged: r.Flagged, AllTime: r.Mode != room.ModeCoop && !r.Flagged,
	}
	if r.Ranked {
		out.Day, out.PlayedDay, out.Score = r.Day, r.Day, Score(r.Time())
	}
	return out
}
