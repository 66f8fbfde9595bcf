package daily

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
)

// Puzzles makes and finds the puzzles of the day, and keeps them stored
// ahead of their day (Keep). It remembers those it has seen, so that only
// the first request for a day and level reads the store (and, once,
// generates it).
type Puzzles struct {
	Store  store.Store
	mu     sync.Mutex
	known  map[string]store.Puzzle // by day + " " + level
	making sync.Map                // day + " " + level → *sync.Mutex, one maker at a time
}

// Puzzle is the daily of the day and level: the stored one, or, the first
// time it is asked for, the one generated from its seed (room.DailySeed),
// stored and set as the day's. Every node generates the same puzzle, and
// SetDaily keeps whichever was set first, so racing nodes agree.
func (p *Puzzles) Puzzle(ctx context.Context, day, level string) (store.Puzzle, error) {
	key := day + " " + level
	p.mu.Lock()
	pz, ok := p.known[key]
	p.mu.Unlock()
	if ok {
		return pz, nil
	}
	lock, _ := p.making.LoadOrStore(key, &sync.Mutex{})
	lock.(*sync.Mutex).Lock()
	defer lock.(*sync.Mutex).Unlock()
	p.mu.Lock()
	pz, ok = p.known[key]
	p.mu.Unlock()
	if ok {
		return pz, nil
	}
	pz, err := p.load(ctx, day, level)
	if err != nil {
		return store.Puzzle{}, err
	}
	p.mu.Lock()
	if p.known == nil {
		p.known = map[string]store.Puzzle{}
	}
	p.known[key] = pz
	p.mu.Unlock()
	return pz, nil
}

// load reads the day's puzzle from the store, or makes and stores it.
func (p *Puzzles) load(ctx context.Context, day, level string) (store.Puzzle, error) {
	set, err := p.Store.Daily(ctx, day, level)
	if errors.Is(err, store.ErrNotFound) {
		made, merr := store.MakePuzzle(ctx, level, room.DailySeed(day, level))
		if merr != nil {
			return store.Puzzle{}, fmt.Errorf("make the daily %s %s: %w", day, level, merr)
		}
		saved, serr := p.Store.SavePuzzle(ctx, made)
		if serr != nil {
			return store.Puzzle{}, fmt.Errorf("store the daily %s %s: %w", day, level, serr)
		}
		set, err = p.Store.SetDaily(ctx, store.Daily{Day: day, Level: level, PuzzleID: saved.ID})
	}
	if err != nil {
		return store.Puzzle{}, fmt.Errorf("the daily %s %s: %w", day, level, err)
	}
	pz, err := p.Store.Puzzle(ctx, set.PuzzleID)
	if err != nil {
		return store.Puzzle{}, fmt.Errorf("puzzle %d of the daily %s %s: %w", set.PuzzleID, day, level, err)
	}
	return pz, nil
}

// Prepare makes sure the dailies of the day are stored.
func (p *Puzzles) Prepare(ctx context.Context, day string) error {
	var errs []error
	for _, level := range room.Levels {
		if _, err := p.Puzzle(ctx, day, level); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Lead is how long before midnight UTC the keeper makes the next day's
// dailies, so that the first request of a day finds them stored.
const Lead = time.Hour

// Keep prepares today's dailies, then each next day's Lead before its
// midnight UTC, until ctx ends. The clock says what time it is and wakes
// it (a test's clock is advanced instead of waited for).
func (p *Puzzles) Keep(ctx context.Context, clock room.Clock, logger *slog.Logger) {
	for {
		t := clock.Now().UTC()
		for _, day := range []string{t.Format(room.DayLayout), t.Add(Lead).Format(room.DayLayout)} {
			if err := p.Prepare(ctx, day); err != nil && ctx.Err() == nil {
				logger.Error("daily: prepare", "day", day, "err", err)
			}
		}
		midnight := time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, time.UTC)
		next := midnight.Add(-Lead)
		if !next.After(t) {
			next = midnight.Add(time.Minute)
		}
		timer := clock.NewTimer(next)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C():
		}
	}
}
