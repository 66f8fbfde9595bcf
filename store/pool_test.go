package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/sqlite"
)

// counter makes distinct fake puzzles and counts them.
type counter struct{ n atomic.Int64 }

func (c *counter) make(_ context.Context, level string, _ uint64) (store.Puzzle, error) {
	i := c.n.Add(1)
	return store.Puzzle{Givens: fmt.Sprintf("%081d", i), Solution: fmt.Sprintf("%081d", i), Level: level, CreatedAt: time.Now()}, nil
}

func TestPuzzlePool(t *testing.T) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "p.db"))
	require.NoError(t, err)
	defer s.Close()
	var c counter
	p := &store.PuzzlePool{Store: s, Make: c.make, Levels: []string{"easy", "hard"}, Stock: 5, Interval: time.Hour}
	require.NoError(t, p.Refill(ctx))
	for _, l := range p.Levels {
		n, err := s.PoolSize(ctx, l)
		require.NoError(t, err)
		assert.Equal(t, 5, n, l)
	}
	assert.Equal(t, int64(10), c.n.Load())
	require.NoError(t, p.Refill(ctx))
	assert.Equal(t, int64(10), c.n.Load(), "a full stock is left alone")

	// The keeper runs in the background; takes drain the stock and then
	// fall back to making puzzles on the spot, never the same one twice.
	runCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); p.Run(runCtx) }()
	seen := map[int64]bool{}
	for i := 0; i < 30; i++ {
		pz, err := p.Take(ctx, "easy")
		require.NoError(t, err)
		assert.Equal(t, "easy", pz.Level)
		assert.False(t, seen[pz.ID], "puzzle %d handed out twice", pz.ID)
		seen[pz.ID] = true
	}
	require.Eventually(t, func() bool {
		n, err := s.PoolSize(ctx, "easy")
		return err == nil && n == 5
	}, 10*time.Second, 10*time.Millisecond, "the keeper refills after takes")
	cancel()
	wg.Wait()
}

// A fresh pool's first takes may come at once, with its keeper starting:
// under the race detector this checks that the defaults are set once.
func TestPuzzlePoolFirstTakesAtOnce(t *testing.T) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "p.db"))
	require.NoError(t, err)
	defer s.Close()
	var c counter
	p := &store.PuzzlePool{Store: s, Make: c.make, Levels: []string{"easy"}}
	runCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { p.Run(runCtx) })
	var takes sync.WaitGroup
	for range 4 {
		takes.Go(func() {
			_, err := p.Take(ctx, "easy")
			assert.NoError(t, err)
		})
	}
	takes.Wait()
	cancel()
	wg.Wait()
}
