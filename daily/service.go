package daily

import (
	"context"
	"errors"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store"
)

// Service is what the server's daily routes ask (server.Dailies): the
// day's puzzles, the leaderboards as rows with their times, and players'
// records.
type Service struct {
	Store   store.Store
	Puzzles *Puzzles
	// RankGuests is Rooms.RankGuests, as the server is set up.
	RankGuests bool
}

var _ server.Dailies = (*Service)(nil)

// DailyPuzzle is the id of the day's daily of the level, with its SE
// rating.
func (s *Service) DailyPuzzle(ctx context.Context, day, level string) (int64, engine.SERating, error) {
	pz, err := s.Puzzles.Puzzle(ctx, day, level)
	return pz.ID, pz.SE, err
}

// RanksGuests reports whether guests' finishes are ranked.
func (s *Service) RanksGuests() bool { return s.RankGuests }

// DailyRanks reports whether the player's finish of the day's daily of
// the level would be ranked now: an account's (or a guest's, when guests
// rank) whose attempt has no finish yet.
func (s *Service) DailyRanks(ctx context.Context, day, level, playerID string) (bool, error) {
	a, err := attemptOf(ctx, s.Store, s.RankGuests, day, level, playerID)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return !a.Unranked, err
}

// DailyCount is how many ranked finishes the day's daily has.
func (s *Service) DailyCount(ctx context.Context, day, level string) (int, error) {
	return s.Store.DailyCount(ctx, day, level)
}

// dailyRows are leaderboard entries of a daily as the server sends them.
func dailyRows(es []store.Entry) []server.LeaderRow {
	rows := make([]server.LeaderRow, len(es))
	for i, e := range es {
		rows[i] = leaderRow(e, TimeMS(e.Score))
	}
	return rows
}

func leaderRow(e store.Entry, timeMS int64) server.LeaderRow {
	return server.LeaderRow{
		Rank: e.Rank, Player: server.PlayerRef{ID: e.PlayerID, Name: e.Name, Guest: e.Guest}, TimeMS: timeMS,
		ElapsedMS: e.Elapsed.Milliseconds(), Mistakes: e.Mistakes, Hints: e.Hints, FinishedAt: e.FinishedAt.UTC(),
	}
}

// DailyTop is the head of the day's leaderboard.
func (s *Service) DailyTop(ctx context.Context, day, level string, limit int) ([]server.LeaderRow, error) {
	es, err := s.Store.DailyTop(ctx, day, level, limit)
	if err != nil {
		return nil, err
	}
	return dailyRows(es), nil
}

// DailyAround is the player's row with n rows either side; nil when the
// player has no ranked result that day.
func (s *Service) DailyAround(ctx context.Context, day, level, playerID string, n int) ([]server.LeaderRow, error) {
	es, err := s.Store.DailyAround(ctx, day, level, playerID, n)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return dailyRows(es), nil
}

// BestTimes is the all-time best times of a level.
func (s *Service) BestTimes(ctx context.Context, level string, limit int) ([]server.LeaderRow, error) {
	es, err := s.Store.BestTimes(ctx, level, limit)
	if err != nil {
		return nil, err
	}
	rows := make([]server.LeaderRow, len(es))
	for i, e := range es {
		rows[i] = leaderRow(e, room.DailyTime(e.Elapsed, e.Mistakes, e.Hints).Milliseconds())
	}
	return rows, nil
}

// PlayerRecord is a player's public record as of today, or
// room.ErrUnknownPlayer: six queries, whatever the results shown (the
// player, their streak, their latest games, the ranks of their ranked
// dailies on their days' boards, read together, their best times and
// their tallies).
func (s *Service) PlayerRecord(ctx context.Context, id, today string) (server.PlayerResponse, error) {
	p, err := s.Store.Player(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return server.PlayerResponse{}, room.ErrUnknownPlayer
	}
	if err != nil {
		return server.PlayerResponse{}, err
	}
	streak, err := s.Store.PlayerStreak(ctx, id, today)
	if err != nil {
		return server.PlayerResponse{}, err
	}
	games, err := s.games(ctx, id, nil)
	if err != nil {
		return server.PlayerResponse{}, err
	}
	rec := server.PlayerResponse{
		ID: p.ID, Name: p.Name, Guest: !p.Account(), Streak: server.StreakJSON{Current: streak.Current, Longest: streak.Longest},
		Best: map[string]server.BestTime{}, Results: games.Results, Next: games.Next,
	}
	best, err := s.Store.PlayerBest(ctx, id)
	if err != nil {
		return server.PlayerResponse{}, err
	}
	for _, b := range best {
		rec.Best[b.Level] = server.BestTime{
			TimeMS:    room.DailyTime(b.Elapsed, b.Mistakes, b.Hints).Milliseconds(),
			ElapsedMS: b.Elapsed.Milliseconds(), FinishedAt: b.FinishedAt.UTC(),
		}
	}
	tallies, err := s.Store.PlayerTallies(ctx, id)
	if err != nil {
		return server.PlayerResponse{}, err
	}
	rec.Stats = statsOf(tallies)
	return rec, nil
}

// DailyFinishes is the player's finish of each level's daily of the day,
// played on that day: the ranked one (with its rank on the day's board)
// where there is one, else one held for review, else the first. Two
// queries: the finishes, then the ranks.
func (s *Service) DailyFinishes(ctx context.Context, day, playerID string) (map[string]server.DailyFinish, error) {
	played, err := s.Store.PlayedOn(ctx, playerID, day)
	if err != nil {
		return nil, err
	}
	chosen := map[string]store.Result{}
	weight := func(r store.Result) int {
		switch {
		case r.Day != "":
			return 2
		case r.Review == store.ReviewHeld:
			return 1
		}
		return 0
	}
	for _, r := range played {
		if c, ok := chosen[r.Level]; !ok || weight(r) > weight(c) {
			chosen[r.Level] = r
		}
	}
	out := map[string]server.DailyFinish{}
	var boards []store.Board
	for level, r := range chosen {
		f := server.DailyFinish{TimeMS: room.DailyTime(r.Elapsed, r.Mistakes, r.Hints).Milliseconds(), Ranked: r.Day != ""}
		if r.Review == store.ReviewHeld || r.Review == store.ReviewRemoved {
			f.Review = r.Review
		}
		if f.Ranked {
			f.TimeMS = TimeMS(r.Score)
			boards = append(boards, store.Board{Day: r.Day, Level: level})
		}
		out[level] = f
	}
	ranks, err := s.Store.DailyRanks(ctx, playerID, boards)
	if err != nil {
		return nil, err
	}
	for i, b := range boards {
		f := out[b.Level]
		f.Rank = ranks[i]
		out[b.Level] = f
	}
	return out, nil
}
