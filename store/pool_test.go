package store_test

import (
	"context"
	"fmt"
	"log/slog"
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

// openPoolStore opens a fresh SQLite store, closed when the test ends.
func openPoolStore(t *testing.T) store.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "p.db"))
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

func TestPuzzlePool(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openPoolStore(t)
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
		return err == nil && n >= 5
	}, 10*time.Second, 10*time.Millisecond, "the keeper refills after takes")
	cancel()
	wg.Wait()
}

// A fresh pool's first takes may come at once, with its keeper starting:
// under the race detector this checks that the defaults are set once.
func TestPuzzlePoolFirstTakesAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openPoolStore(t)
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

// pooling counts the writes that put puzzles in the pool.
type pooling struct {
	store.Store
	adds atomic.Int64
}

func (p *pooling) AddToPool(ctx context.Context, ids ...int64) error {
	p.adds.Add(1)
	return p.Store.AddToPool(ctx, ids...)
}

// records keeps the messages logged at each level.
type records struct {
	mu   sync.Mutex
	msgs map[slog.Level][]string
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	msg := rec.Message
	rec.Attrs(func(a slog.Attr) bool { msg += " " + a.String(); return true })
	r.msgs[rec.Level] = append(r.msgs[rec.Level], msg)
	return nil
}
func (r *records) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *records) WithGroup(string) slog.Handler      { return r }

// TestPuzzlePoolFollowsDemand: a burst of takes raises the level's target
// to the takes of the last Lead (up to MaxStock), the keeper fills it in
// batches of one write each, and the target falls back to Stock once the
// burst is over. A stock that ran dry is said once, not once a take.
func TestPuzzlePoolFollowsDemand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openPoolStore(t)
	var c counter
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	logs := &records{msgs: map[slog.Level][]string{}}
	st := &pooling{Store: s}
	p := &store.PuzzlePool{Store: st, Make: c.make, Levels: []string{"easy", "hard"}, Stock: 4, MaxStock: 50,
		Lead: 2 * time.Second, Batch: 8, Interval: time.Hour, Logger: slog.New(logs), Now: func() time.Time { return now }}

	// The stock is empty: every take makes its puzzle, and says so once.
	for range 30 {
		_, err := p.Take(ctx, "easy")
		require.NoError(t, err)
	}
	assert.Len(t, logs.msgs[slog.LevelWarn], 1, "one warning for the dry spell")
	assert.Equal(t, int64(30), c.n.Load())
	assert.Equal(t, 30, p.Target("easy"), "the burst's takes")
	assert.Equal(t, 4, p.Target("hard"), "a level nobody took from keeps Stock")

	require.NoError(t, p.Refill(ctx))
	n, err := s.PoolSize(ctx, "easy")
	require.NoError(t, err)
	assert.Equal(t, 30, n)
	assert.Equal(t, int64(4+1), st.adds.Load(), "30 easy puzzles in writes of 8, 4 hard ones in one")
	assert.Equal(t, []string{"puzzle pool: stock refilled level=easy made_on_demand=30"}, logs.msgs[slog.LevelInfo])

	// Taken from stock now: no puzzle made, no warning.
	for range 100 {
		_, err := p.Take(ctx, "easy")
		require.NoError(t, err)
	}
	assert.Equal(t, int64(30+34+70), c.n.Load(), "30 from stock, 70 made on the spot")
	assert.Len(t, logs.msgs[slog.LevelWarn], 2, "one warning for the second dry spell")
	assert.Equal(t, 50, p.Target("easy"), "MaxStock bounds a burst's stock")

	// A burst fades: one Lead later its 130 takes count for 130/e, five
	// Leads later for under one.
	now = now.Add(2 * time.Second)
	assert.Equal(t, 48, p.Target("easy"))
	now = now.Add(8 * time.Second)
	assert.Equal(t, 4, p.Target("easy"))
}
