package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"sync"
	"time"
)

// PuzzleMaker makes one new puzzle of a level from a seed (the engine's
// generator, wired in by the caller: store does not know the engine).
type PuzzleMaker func(ctx context.Context, level string, seed uint64) (Puzzle, error)

// PuzzlePool keeps a stock of ready puzzles of each level in the store and
// refills it in the background, so that creating a room never waits on the
// generator. Several servers may share one store: the pool's take is safe
// under concurrency, and each keeper only tops the stock up.
//
// The stock follows demand: at least Stock a level, and during a burst of
// rooms (a class, a tournament, a load test) as many as the level's takes
// of the last Lead, up to MaxStock, so that the rest of the burst, and the
// next one, is dealt from stock. What a burst leaves over stays for later:
// a puzzle never goes stale. When a level's stock has run dry a take makes
// its puzzle on the spot (under a millisecond for most levels), and the
// pool says so once, not once a room.
type PuzzlePool struct {
	Store  Store
	Make   PuzzleMaker
	Levels []string
	// Stock is the number of puzzles kept ready per level however quiet
	// the server (default 20).
	Stock int
	// MaxStock bounds what a burst raises a level's stock to (default
	// 1000, never under Stock).
	MaxStock int
	// Lead is how much of the recent demand is kept ready (default 2s):
	// a level taken 200 times a second is stocked with 400.
	Lead time.Duration
	// Batch is how many puzzles the keeper makes before it pools them in
	// one write (default 16).
	Batch int
	// Interval is how often the stock is checked when nothing asks (default
	// 30s); every take also wakes the keeper.
	Interval time.Duration
	Logger   *slog.Logger
	// Now is the clock the demand is measured by (default time.Now).
	Now func() time.Time

	once sync.Once
	wake chan struct{}

	mu     sync.Mutex
	levels map[string]*demand
}

// demand is what the pool knows of one level's takes.
type demand struct {
	// recent counts the takes, each weighing less as it ages (by e every
	// Lead), so that under a steady rate it tends to the takes of one
	// Lead.
	recent float64
	at     time.Time // when recent was last brought up to date
	// dry is set from a take that found the stock empty until the keeper
	// refills the level; onDemand counts the puzzles made on the spot
	// meanwhile.
	dry      bool
	onDemand int
}

// init sets the defaults once: Run and every Take call it, from as many
// goroutines.
func (p *PuzzlePool) init() { p.once.Do(p.defaults) }

func (p *PuzzlePool) defaults() {
	if p.Stock <= 0 {
		p.Stock = 20
	}
	if p.MaxStock <= 0 {
		p.MaxStock = 1000
	}
	p.MaxStock = max(p.MaxStock, p.Stock)
	if p.Lead <= 0 {
		p.Lead = 2 * time.Second
	}
	if p.Batch <= 0 {
		p.Batch = 16
	}
	if p.Interval <= 0 {
		p.Interval = 30 * time.Second
	}
	if p.Logger == nil {
		p.Logger = slog.New(slog.DiscardHandler)
	}
	if p.Now == nil {
		p.Now = time.Now
	}
	if p.wake == nil {
		p.wake = make(chan struct{}, 1)
	}
	p.levels = make(map[string]*demand)
}

// level is the demand of a level, brought up to now; p.mu is held.
func (p *PuzzlePool) level(name string, now time.Time) *demand {
	d := p.levels[name]
	if d == nil {
		d = &demand{at: now}
		p.levels[name] = d
	}
	if dt := now.Sub(d.at); dt > 0 {
		d.recent *= math.Exp(-float64(dt) / float64(p.Lead))
		d.at = now
	}
	return d
}

// Target is how many puzzles of the level the keeper aims to keep ready
// now: Stock, or the level's recent takes, up to MaxStock.
func (p *PuzzlePool) Target(level string) int {
	p.init()
	p.mu.Lock()
	defer p.mu.Unlock()
	recent := p.level(level, p.Now()).recent
	return min(p.MaxStock, max(p.Stock, int(math.Ceil(recent))))
}

// Run refills the stock until ctx ends.
func (p *PuzzlePool) Run(ctx context.Context) {
	p.init()
	t := time.NewTicker(p.Interval)
	defer t.Stop()
	for {
		if err := p.Refill(ctx); err != nil && ctx.Err() == nil {
			p.Logger.Error("puzzle pool: refill", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-p.wake:
		}
	}
}

// Refill tops up every level's stock to its target, a batch at a time,
// the level that lacks the most first, until none lacks any.
func (p *PuzzlePool) Refill(ctx context.Context) error {
	p.init()
	for {
		level, lack, err := p.neediest(ctx)
		if err != nil || lack == 0 {
			return err
		}
		if err := p.fill(ctx, level, min(lack, p.Batch)); err != nil {
			return err
		}
	}
}

// neediest is the level whose stock lacks the most puzzles of its
// target, and how many (0: none lacks any).
func (p *PuzzlePool) neediest(ctx context.Context) (string, int, error) {
	best, most := "", 0
	for _, level := range p.Levels {
		n, err := p.Store.PoolSize(ctx, level)
		if err != nil {
			return "", 0, fmt.Errorf("puzzle pool: size of %s: %w", level, err)
		}
		if lack := p.Target(level) - n; lack > most {
			best, most = level, lack
		}
	}
	return best, most, nil
}

// fill makes n puzzles of the level and pools them in one write.
func (p *PuzzlePool) fill(ctx context.Context, level string, n int) error {
	ids := make([]int64, 0, n)
	for range n {
		pz, err := p.make(ctx, level)
		if err != nil {
			return err
		}
		ids = append(ids, pz.ID)
	}
	if err := p.Store.AddToPool(ctx, ids...); err != nil {
		return fmt.Errorf("puzzle pool: add %d %s puzzles: %w", len(ids), level, err)
	}
	p.mu.Lock()
	d := p.level(level, p.Now())
	wasDry, made := d.dry, d.onDemand
	d.dry, d.onDemand = false, 0
	p.mu.Unlock()
	if wasDry {
		p.Logger.Info("puzzle pool: stock refilled", "level", level, "made_on_demand", made)
	}
	return nil
}

func (p *PuzzlePool) make(ctx context.Context, level string) (Puzzle, error) {
	pz, err := p.Make(ctx, level, rand.Uint64())
	if err != nil {
		return Puzzle{}, fmt.Errorf("puzzle pool: make %s puzzle: %w", level, err)
	}
	saved, err := p.Store.SavePuzzle(ctx, pz)
	if err != nil {
		return Puzzle{}, fmt.Errorf("puzzle pool: save %s puzzle: %w", level, err)
	}
	return saved, nil
}

// Take hands out a ready puzzle of the level and wakes the keeper to
// replace it. When the stock has run dry it makes one on the spot, so a
// take only fails when the store or the generator does.
func (p *PuzzlePool) Take(ctx context.Context, level string) (Puzzle, error) {
	p.init()
	p.mu.Lock()
	p.level(level, p.Now()).recent++
	p.mu.Unlock()
	defer func() {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}()
	pz, err := p.Store.TakeFromPool(ctx, level)
	if err == nil {
		return pz, nil
	}
	if !errors.Is(err, ErrNotFound) {
		return Puzzle{}, fmt.Errorf("puzzle pool: take %s: %w", level, err)
	}
	p.mu.Lock()
	d := p.level(level, p.Now())
	first := !d.dry
	d.dry = true
	d.onDemand++
	p.mu.Unlock()
	if first {
		p.Logger.Warn("puzzle pool: stock ran dry, generating on demand until it is refilled", "level", level)
	}
	return p.make(ctx, level)
}
