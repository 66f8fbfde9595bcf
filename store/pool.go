package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
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
type PuzzlePool struct {
	Store  Store
	Make   PuzzleMaker
	Levels []string
	// Stock is the number of puzzles to keep ready per level (default 20).
	Stock int
	// Interval is how often the stock is checked when nothing asks (default
	// 30s); every take also wakes the keeper.
	Interval time.Duration
	Logger   *slog.Logger

	once sync.Once
	wake chan struct{}
}

// init sets the defaults once: Run and every Take call it, from as many
// goroutines.
func (p *PuzzlePool) init() { p.once.Do(p.defaults) }

func (p *PuzzlePool) defaults() {
	if p.Stock <= 0 {
		p.Stock = 20
	}
	if p.Interval <= 0 {
		p.Interval = 30 * time.Second
	}
	if p.Logger == nil {
		p.Logger = slog.New(slog.DiscardHandler)
	}
	if p.wake == nil {
		p.wake = make(chan struct{}, 1)
	}
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

// Refill tops up every level's stock once.
func (p *PuzzlePool) Refill(ctx context.Context) error {
	p.init()
	for _, level := range p.Levels {
		n, err := p.Store.PoolSize(ctx, level)
		if err != nil {
			return fmt.Errorf("puzzle pool: size of %s: %w", level, err)
		}
		for ; n < p.Stock; n++ {
			pz, err := p.make(ctx, level)
			if err != nil {
				return err
			}
			if err := p.Store.AddToPool(ctx, pz.ID); err != nil {
				return fmt.Errorf("puzzle pool: add %s puzzle %d: %w", level, pz.ID, err)
			}
		}
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
	p.Logger.Warn("puzzle pool: stock ran dry, generating on demand", "level", level)
	return p.make(ctx, level)
}
