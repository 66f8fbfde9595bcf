package daily

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store"
)

// statsOf sums a player's tallies into their record's stats: each mode
// (all of them, zero where none), and each level with a timed finish.
func statsOf(ts []store.Tally) server.PlayerStats {
	st := server.PlayerStats{Modes: map[string]server.ModeStats{}, Levels: map[string]server.LevelStats{}}
	won, contested := 0, 0
	st.Modes[room.ModeRace] = server.ModeStats{Won: &won, Contested: &contested}
	for _, m := range []string{room.ModeCoop, room.ModeDaily} {
		st.Modes[m] = server.ModeStats{}
	}
	type times struct {
		n      int
		best   time.Duration
		totals time.Duration
	}
	levels := map[string]times{}
	for _, t := range ts {
		m := st.Modes[t.Mode]
		m.Finished += t.Finished
		if m.Won != nil {
			*m.Won += t.Won
			*m.Contested += t.Contested
		}
		st.Modes[t.Mode] = m
		if t.Timed == 0 {
			continue
		}
		l := levels[t.Level]
		if l.n == 0 || t.Best < l.best {
			l.best = t.Best
		}
		l.n += t.Timed
		l.totals += t.Total
		levels[t.Level] = l
	}
	for level, l := range levels {
		st.Levels[level] = server.LevelStats{
			Finished: l.n, BestMS: l.best.Milliseconds(), AverageMS: (l.totals / time.Duration(l.n)).Milliseconds(),
		}
	}
	return st
}

// PlayerDays is the dailies of the month (YYYY-MM, checked by the server)
// the player finished, or room.ErrUnknownPlayer: each daily once, with
// the time of its fastest finish and whether any finish was on its day.
// Two queries: the player, then the month's dailies among their results.
func (s *Service) PlayerDays(ctx context.Context, id, month string) (server.PlayerDaysResponse, error) {
	if _, err := s.Store.Player(ctx, id); errors.Is(err, store.ErrNotFound) {
		return server.PlayerDaysResponse{}, room.ErrUnknownPlayer
	} else if err != nil {
		return server.PlayerDaysResponse{}, err
	}
	first, err := time.Parse("2006-01", month)
	if err != nil {
		return server.PlayerDaysResponse{}, err
	}
	last := first.AddDate(0, 1, -1)
	solved, err := s.Store.DailiesSolved(ctx, id, first.Format(store.DayLayout), last.Format(store.DayLayout))
	if err != nil {
		return server.PlayerDaysResponse{}, err
	}
	out := server.PlayerDaysResponse{ID: id, Month: month, Days: []server.SolvedDaily{}}
	for _, d := range solved {
		t := room.DailyTime(d.Elapsed, d.Mistakes, d.Hints).Milliseconds()
		// The store reads them by date and level: a daily's finishes are
		// next to one another.
		if n := len(out.Days); n > 0 && out.Days[n-1].Date == d.Day && out.Days[n-1].Level == d.Level {
			prev := &out.Days[n-1]
			prev.TimeMS, prev.OnDay = min(prev.TimeMS, t), prev.OnDay || d.OnDay
			continue
		}
		out.Days = append(out.Days, server.SolvedDaily{Date: d.Day, Level: d.Level, TimeMS: t, OnDay: d.OnDay})
	}
	return out, nil
}

// playerResults is how many of a player's games a page of them holds
// (their record's latest, and each page of GET /api/players/{id}/games).
const playerResults = 20

// cursor is where a page of a player's games ends: its last result's
// finish (Unix microseconds) and id, "MICROS.ID"; the next page starts
// after it.
type cursor struct {
	at time.Time
	id int64
}

func (c cursor) String() string { return fmt.Sprintf("%d.%d", c.at.UnixMicro(), c.id) }

// parseCursor reads a cursor that a page gave as its next, or
// server.ErrBadCursor.
func parseCursor(s string) (cursor, error) {
	at, id, ok := strings.Cut(s, ".")
	micros, err1 := strconv.ParseInt(at, 10, 64)
	n, err2 := strconv.ParseInt(id, 10, 64)
	if !ok || err1 != nil || err2 != nil || micros < 0 || n < 0 {
		return cursor{}, server.ErrBadCursor
	}
	return cursor{at: time.UnixMicro(micros).UTC(), id: n}, nil
}

// PlayerGames is a page of the player's games older than the cursor before
// (a record's or a page's next; "" for the latest), or
// room.ErrUnknownPlayer, or server.ErrBadCursor. Three queries: the
// player, the page, the ranks of its ranked dailies.
func (s *Service) PlayerGames(ctx context.Context, id, before string) (server.PlayerGamesResponse, error) {
	var after *cursor
	if before != "" {
		c, err := parseCursor(before)
		if err != nil {
			return server.PlayerGamesResponse{}, err
		}
		after = &c
	}
	if _, err := s.Store.Player(ctx, id); errors.Is(err, store.ErrNotFound) {
		return server.PlayerGamesResponse{}, room.ErrUnknownPlayer
	} else if err != nil {
		return server.PlayerGamesResponse{}, err
	}
	return s.games(ctx, id, after)
}

// games is a page of the player's games, after the cursor when there is
// one: one more result than the page holds is read, to know whether
// another page follows (Next). A ranked daily's rank is its place on the
// day's board, read for the page's boards at once; a race's, its place in
// the room; co-op ranks nobody.
func (s *Service) games(ctx context.Context, id string, after *cursor) (server.PlayerGamesResponse, error) {
	var hist []store.Result
	var err error
	if after == nil {
		hist, err = s.Store.PlayerHistory(ctx, id, playerResults+1)
	} else {
		hist, err = s.Store.PlayerHistoryBefore(ctx, id, after.at, after.id, playerResults+1)
	}
	if err != nil {
		return server.PlayerGamesResponse{}, err
	}
	out := server.PlayerGamesResponse{Results: []server.PlayerResultJSON{}}
	if len(hist) > playerResults {
		hist = hist[:playerResults]
		last := hist[len(hist)-1]
		out.Next = cursor{at: last.FinishedAt, id: last.ID}.String()
	}
	var boards []store.Board
	var onBoard []int // the index in out.Results of each board's result
	for _, r := range hist {
		res := server.PlayerResultJSON{
			Room: r.RoomID, Mode: r.Mode, Level: r.Level, Date: r.Day, ElapsedMS: r.Elapsed.Milliseconds(),
			TimeMS: room.DailyTime(r.Elapsed, r.Mistakes, r.Hints).Milliseconds(), Ranked: r.Day != "",
			FinishedAt: r.FinishedAt.UTC(),
		}
		if r.Review == store.ReviewHeld || r.Review == store.ReviewRemoved {
			res.Review = r.Review
		}
		switch {
		case r.Day != "":
			res.TimeMS = TimeMS(r.Score)
			boards = append(boards, store.Board{Day: r.Day, Level: r.Level})
			onBoard = append(onBoard, len(out.Results))
		case r.Mode == room.ModeRace:
			res.Rank = r.RoomRank
		}
		out.Results = append(out.Results, res)
	}
	ranks, err := s.Store.DailyRanks(ctx, id, boards)
	if err != nil {
		return server.PlayerGamesResponse{}, err
	}
	for i, rank := range ranks {
		out.Results[onBoard[i]].Rank = rank
	}
	return out, nil
}
