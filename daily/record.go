package daily

import (
	"context"
	"errors"
	"time"

	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store"
)

// statsOf sums a player's tallies into their record's stats: each mode
// (all of them, zero where none), and each level with a timed finish.
func statsOf(ts []store.Tally) server.PlayerStats {
	st := server.PlayerStats{Modes: map[string]server.ModeStats{}, Levels: map[string]server.LevelStats{}}
	won := 0
	st.Modes[room.ModeRace] = server.ModeStats{Won: &won}
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
