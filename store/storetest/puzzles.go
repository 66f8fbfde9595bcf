package storetest

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/store"
)

func testPuzzles(t *testing.T, s store.Store) {
	ctx := context.Background()
	p := mkPuzzle(t, s, 1, "easy")
	require.NotZero(t, p.ID)
	got, err := s.Puzzle(ctx, p.ID)
	require.NoError(t, err)
	assert.Equal(t, p.Givens, got.Givens)
	assert.Equal(t, p.Solution, got.Solution)
	assert.Equal(t, "easy", got.Level)
	assert.Equal(t, 101, got.Score)
	assert.Equal(t, map[string]int{"naked-single": 1}, got.Techniques)
	assert.Equal(t, uint64(1)<<40, got.Seed)
	assert.Equal(t, engine.SERating(71), got.SE, "the SE rating comes back")

	// Seeds use all 64 bits.
	big := store.Puzzle{Givens: "1" + fmt.Sprintf("%080d", 7), Solution: fmt.Sprintf("%081d", 7),
		Level: "hard", Seed: ^uint64(0) - 5, CreatedAt: t0}
	saved, err := s.SavePuzzle(ctx, big)
	require.NoError(t, err)
	got, err = s.Puzzle(ctx, saved.ID)
	require.NoError(t, err)
	assert.Equal(t, ^uint64(0)-5, got.Seed)
	assert.Zero(t, got.SE, "a puzzle saved unrated stays so")

	// Stored once: the same givens return the stored puzzle, unchanged.
	again, err := s.SavePuzzle(ctx, store.Puzzle{Givens: p.Givens, Solution: p.Solution, Level: "hard", Score: 999, CreatedAt: t0})
	require.NoError(t, err)
	assert.Equal(t, p.ID, again.ID)
	assert.Equal(t, "easy", again.Level)
	_, err = s.Puzzle(ctx, 987654)
	assert.ErrorIs(t, err, store.ErrNotFound)
}

func testPoolConcurrent(t *testing.T, s store.Store) {
	ctx := context.Background()
	const n = 40
	var ids []int64
	for i := 0; i < n; i++ {
		ids = append(ids, mkPuzzle(t, s, 1000+i, "medium").ID)
	}
	other := mkPuzzle(t, s, 5000, "hard")
	require.NoError(t, s.AddToPool(ctx, ids...))
	require.NoError(t, s.AddToPool(ctx, other.ID))
	require.NoError(t, s.AddToPool(ctx, ids[:5]...), "adding again is a no-op")
	size, err := s.PoolSize(ctx, "medium")
	require.NoError(t, err)
	assert.Equal(t, n, size)

	// Eight takers race for more puzzles than there are.
	var mu sync.Mutex
	var taken []int64
	empties := 0
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < n/8+2; k++ {
				p, err := s.TakeFromPool(ctx, "medium")
				mu.Lock()
				if err == nil {
					assert.Equal(t, "medium", p.Level)
					assert.Equal(t, engine.SERating(70+1000+slices.Index(ids, p.ID)), p.SE, "a pooled puzzle keeps its SE rating")
					taken = append(taken, p.ID)
				} else {
					assert.ErrorIs(t, err, store.ErrNotFound)
					empties++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	sort.Slice(taken, func(i, j int) bool { return taken[i] < taken[j] })
	assert.Equal(t, ids, taken, "every pooled puzzle handed out exactly once")
	assert.Equal(t, 16, empties)
	size, err = s.PoolSize(ctx, "medium")
	require.NoError(t, err)
	assert.Zero(t, size)
	require.NoError(t, s.AddToPool(ctx, ids...))
	size, err = s.PoolSize(ctx, "medium")
	require.NoError(t, err)
	assert.Zero(t, size, "a puzzle handed out never re-enters the pool")
	size, err = s.PoolSize(ctx, "hard")
	require.NoError(t, err)
	assert.Equal(t, 1, size, "other levels untouched")
	assert.ErrorIs(t, s.AddToPool(ctx, 424242), store.ErrNotFound)
}

func testDaily(t *testing.T, s store.Store) {
	ctx := context.Background()
	a, b := mkPuzzle(t, s, 5, "easy"), mkPuzzle(t, s, 6, "easy")
	d, err := s.SetDaily(ctx, store.Daily{Day: "2026-11-21", Level: "easy", PuzzleID: a.ID})
	require.NoError(t, err)
	assert.Equal(t, a.ID, d.PuzzleID)
	d, err = s.SetDaily(ctx, store.Daily{Day: "2026-11-21", Level: "easy", PuzzleID: b.ID})
	require.NoError(t, err)
	assert.Equal(t, a.ID, d.PuzzleID, "the first puzzle set for the day stays")
	got, err := s.Daily(ctx, "2026-11-21", "easy")
	require.NoError(t, err)
	assert.Equal(t, a.ID, got.PuzzleID)
	_, err = s.Daily(ctx, "2026-11-22", "easy")
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.SetDaily(ctx, store.Daily{Day: "21/11/2026", Level: "easy", PuzzleID: a.ID})
	assert.ErrorIs(t, err, store.ErrInvalid)
}
