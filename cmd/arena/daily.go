package main

// The puzzle of the day in the store: made from its date and level, stored
// once (nodes racing to store it agree through SetDaily), its results on
// the day's leaderboard, and the leaderboards and records as the server
// serves them.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store"
)

// dailyScoreBase turns a daily finish's time into the store's leaderboard
// score, which orders higher first: score = dailyScoreBase − time in ms.
// The store's leaderboards (their indexes and rank counts) order by score,
// so a ranked daily result keeps its time there, to the millisecond, and
// reads it back as dailyScoreBase − score. It is below the largest 32-bit
// score, and a time over it (23 days) scores 1.
const dailyScoreBase = 2_000_000_000

// dailyScore is the leaderboard score of a daily time.
func dailyScore(t time.Duration) int {
	return int(max(1, dailyScoreBase-t.Milliseconds()))
}

// dailyTimeMS is the time in ms a leaderboard score stands for.
func dailyTimeMS(score int) int64 { return int64(dailyScoreBase - score) }

// dailies makes and finds the puzzles of the day. It remembers those it
// has seen, so that only the first request for a day and level reads the
// store (and, once, generates it).
type dailies struct {
	store  store.Store
	mu     sync.Mutex
	known  map[string]store.Puzzle // by day + " " + level
	making sync.Map                // day + " " + level → *sync.Mutex, one maker at a time
}

// puzzle is the daily of the day and level: the stored one, or, the first
// time it is asked for, the one generated from its seed (room.DailySeed),
// stored and set as the day's. Every node generates the same puzzle, and
// SetDaily keeps whichever was set first, so racing nodes agree.
func (d *dailies) puzzle(ctx context.Context, day, level string) (store.Puzzle, error) {
	key := day + " " + level
	d.mu.Lock()
	pz, ok := d.known[key]
	d.mu.Unlock()
	if ok {
		return pz, nil
	}
	lock, _ := d.making.LoadOrStore(key, &sync.Mutex{})
	lock.(*sync.Mutex).Lock()
	defer lock.(*sync.Mutex).Unlock()
	d.mu.Lock()
	pz, ok = d.known[key]
	d.mu.Unlock()
	if ok {
		return pz, nil
	}
	pz, err := d.load(ctx, day, level)
	if err != nil {
		return store.Puzzle{}, err
	}
	d.mu.Lock()
	if d.known == nil {
		d.known = map[string]store.Puzzle{}
	}
	d.known[key] = pz
	d.mu.Unlock()
	return pz, nil
}

// load reads the day's puzzle from the store, or makes and stores it.
func (d *dailies) load(ctx context.Context, day, level string) (store.Puzzle, error) {
	set, err := d.store.Daily(ctx, day, level)
	if errors.Is(err, store.ErrNotFound) {
		made, merr := makePuzzle(ctx, level, room.DailySeed(day, level))
		if merr != nil {
			return store.Puzzle{}, fmt.Errorf("make the daily %s %s: %w", day, level, merr)
		}
		saved, serr := d.store.SavePuzzle(ctx, made)
		if serr != nil {
			return store.Puzzle{}, fmt.Errorf("store the daily %s %s: %w", day, level, serr)
		}
		set, err = d.store.SetDaily(ctx, store.Daily{Day: day, Level: level, PuzzleID: saved.ID})
	}
	if err != nil {
		return store.Puzzle{}, fmt.Errorf("the daily %s %s: %w", day, level, err)
	}
	pz, err := d.store.Puzzle(ctx, set.PuzzleID)
	if err != nil {
		return store.Puzzle{}, fmt.Errorf("puzzle %d of the daily %s %s: %w", set.PuzzleID, day, level, err)
	}
	return pz, nil
}

// prepare makes sure the dailies of the day are stored.
func (d *dailies) prepare(ctx context.Context, day string) error {
	var errs []error
	for _, level := range room.Levels {
		if _, err := d.puzzle(ctx, day, level); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// dailyLead is how long before midnight UTC the keeper makes the next
// day's dailies, so that the first request of a day finds them stored.
const dailyLead = time.Hour

// keep prepares today's dailies, then each next day's dailyLead before
// its midnight UTC, until ctx ends. now is the clock (injected for tests).
func (d *dailies) keep(ctx context.Context, now func() time.Time, logger *slog.Logger) {
	for {
		t := now().UTC()
		for _, day := range []string{t.Format(room.DayLayout), t.Add(dailyLead).Format(room.DayLayout)} {
			if err := d.prepare(ctx, day); err != nil && ctx.Err() == nil {
				logger.Error("daily: prepare", "day", day, "err", err)
			}
		}
		midnight := time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, time.UTC)
		wait := midnight.Add(-dailyLead).Sub(t)
		if wait <= 0 {
			wait = midnight.Sub(t) + time.Minute
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// DailyGame records a game with the daily puzzle of the day and level.
func (st *storage) DailyGame(ctx context.Context, roomID, gameID, mode, level, day string) (room.Puzzle, error) {
	pz, err := st.daily.puzzle(ctx, day, level)
	if err != nil {
		return room.Puzzle{}, err
	}
	return st.recordGame(ctx, gameID, mode, pz)
}

// DailyPlayed reports whether the player has a ranked result on the day's
// leaderboard of the level.
func (st *storage) DailyPlayed(ctx context.Context, day, level, playerID string) (bool, error) {
	_, err := st.store.DailyAround(ctx, day, level, playerID, 0)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, store.ErrNotFound):
		return false, nil
	}
	return false, fmt.Errorf("daily %s %s of %s: %w", day, level, playerID, err)
}

// storeResult is a finish as the store keeps it: a ranked daily finish
// with its day and its time as the leaderboard score.
func storeResult(r room.Result) store.Result {
	out := store.Result{
		RoomID: r.GameID, PlayerID: r.PlayerID, PuzzleID: r.PuzzleID, Mode: r.Mode, Level: r.Level,
		Elapsed: r.Elapsed, Mistakes: r.Mistakes, Hints: r.Hints, Score: r.Score, FinishedAt: r.FinishedAt,
		Flagged: r.Flagged,
	}
	if r.Ranked {
		out.Day, out.Score = r.Day, dailyScore(r.Time())
	}
	return out
}

var _ server.Dailies = (*storage)(nil)

// DailyPuzzle is the id of the day's daily of the level.
func (st *storage) DailyPuzzle(ctx context.Context, day, level string) (int64, error) {
	pz, err := st.daily.puzzle(ctx, day, level)
	return pz.ID, err
}

// DailyCount is how many ranked finishes the day's daily has.
func (st *storage) DailyCount(ctx context.Context, day, level string) (int, error) {
	return st.store.DailyCount(ctx, day, level)
}

// dailyRows are leaderboard entries of a daily as the server sends them.
func dailyRows(es []store.Entry) []server.LeaderRow {
	rows := make([]server.LeaderRow, len(es))
	for i, e := range es {
		rows[i] = leaderRow(e, dailyTimeMS(e.Score))
	}
	return rows
}

func leaderRow(e store.Entry, timeMS int64) server.LeaderRow {
	return server.LeaderRow{
		Rank: e.Rank, Player: server.PlayerRef{ID: e.PlayerID, Name: e.Name}, TimeMS: timeMS,
		ElapsedMS: e.Elapsed.Milliseconds(), Mistakes: e.Mistakes, Hints: e.Hints, FinishedAt: e.FinishedAt.UTC(),
	}
}

// DailyTop is the head of the day's leaderboard.
func (st *storage) DailyTop(ctx context.Context, day, level string, limit int) ([]server.LeaderRow, error) {
	es, err := st.store.DailyTop(ctx, day, level, limit)
	if err != nil {
		return nil, err
	}
	return dailyRows(es), nil
}

// DailyAround is the player's row with n rows either side; nil when the
// player has no ranked result that day.
func (st *storage) DailyAround(ctx context.Context, day, level, playerID string, n int) ([]server.LeaderRow, error) {
	es, err := st.store.DailyAround(ctx, day, level, playerID, n)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return dailyRows(es), nil
}

// BestTimes is the all-time best times of a level.
func (st *storage) BestTimes(ctx context.Context, level string, limit int) ([]server.LeaderRow, error) {
	es, err := st.store.BestTimes(ctx, level, limit)
	if err != nil {
		return nil, err
	}
	rows := make([]server.LeaderRow, len(es))
	for i, e := range es {
		rows[i] = leaderRow(e, room.DailyTime(e.Elapsed, e.Mistakes, e.Hints).Milliseconds())
	}
	return rows, nil
}

// playerResults is how many of a player's results their record shows.
const playerResults = 50

// PlayerRecord is a player's public record as of today.
func (st *storage) PlayerRecord(ctx context.Context, id, today string) (server.PlayerResponse, error) {
	p, err := st.store.Player(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return server.PlayerResponse{}, server.ErrUnknownPlayer
	}
	if err != nil {
		return server.PlayerResponse{}, err
	}
	streak, err := st.store.PlayerStreak(ctx, id, today)
	if err != nil {
		return server.PlayerResponse{}, err
	}
	hist, err := st.store.PlayerHistory(ctx, id, playerResults)
	if err != nil {
		return server.PlayerResponse{}, err
	}
	rec := server.PlayerResponse{
		ID: p.ID, Name: p.Name, Streak: server.StreakJSON{Current: streak.Current, Longest: streak.Longest},
		Best: map[string]server.BestTime{}, Results: []server.PlayerResultJSON{},
	}
	for _, r := range hist {
		res := server.PlayerResultJSON{
			Room: r.RoomID, Mode: r.Mode, Level: r.Level, Date: r.Day, ElapsedMS: r.Elapsed.Milliseconds(),
			TimeMS: room.DailyTime(r.Elapsed, r.Mistakes, r.Hints).Milliseconds(), Ranked: r.Day != "",
			FinishedAt: r.FinishedAt.UTC(),
		}
		if r.Day != "" {
			res.TimeMS = dailyTimeMS(r.Score)
			if row, err := st.store.DailyAround(ctx, r.Day, r.Level, id, 0); err == nil && len(row) == 1 {
				res.Rank = row[0].Rank
			}
		}
		rec.Results = append(rec.Results, res)
	}
	best, err := st.store.PlayerBest(ctx, id)
	if err != nil {
		return server.PlayerResponse{}, err
	}
	for _, b := range best {
		rec.Best[b.Level] = server.BestTime{
			TimeMS:    room.DailyTime(b.Elapsed, b.Mistakes, b.Hints).Milliseconds(),
			ElapsedMS: b.Elapsed.Milliseconds(), FinishedAt: b.FinishedAt.UTC(),
		}
	}
	return rec, nil
}
