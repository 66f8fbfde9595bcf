package daily_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sudoku-arena/arena/daily"
	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/pgtest"
	"github.com/sudoku-arena/arena/store/postgres"
	"github.com/sudoku-arena/arena/store/sqlite"
)

// BenchmarkPlayerRecord measures a player's record (GET /api/players/{id}
// without the HTTP) of a player with 50 results, all ranked dailies, each
// on a board of 100 (the 20 latest shown), on each store: its time and
// how many queries it asks the store.
//
//	go test ./daily -run '^$' -bench PlayerRecord -benchtime 200x
func BenchmarkPlayerRecord(b *testing.B) {
	ctx := context.Background()
	lite, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "arena.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer lite.Close()
	pg, err := pgtest.Start(ctx, pgtest.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer pg.Stop()
	pgs, err := postgres.Open(ctx, pg.NewDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	defer pgs.Close()
	for _, tc := range []struct {
		name string
		st   store.Store
	}{{"sqlite", lite}, {"postgres", pgs}} {
		seedRecords(b, tc.st, 50, 100)
		b.Run(tc.name, func(b *testing.B) {
			counted := &countingStore{Store: tc.st}
			svc := &daily.Service{Store: counted}
			today := noon.AddDate(0, 0, 1).Format("2006-01-02")
			if _, err := svc.PlayerRecord(ctx, "p000", today); err != nil {
				b.Fatal(err)
			}
			counted.n.Store(0)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				rec, err := svc.PlayerRecord(ctx, "p000", today)
				if err != nil || len(rec.Results) != 20 || rec.Results[0].Rank == 0 {
					b.Fatalf("%v: %d results, the first ranked %d", err, len(rec.Results), rec.Results[0].Rank)
				}
			}
			b.ReportMetric(float64(counted.n.Load())/float64(b.N), "queries/op")
		})
	}
}

// seedRecords stores days of easy dailies, each with players ranked
// results (players p000 and up, p000 in the middle of each board).
func seedRecords(b *testing.B, st store.Store, days, players int) {
	b.Helper()
	ctx := context.Background()
	g, err := engine.Generate(engine.GenerateOptions{Level: engine.LevelEasy, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	pz, err := st.SavePuzzle(ctx, store.Puzzle{Givens: g.Givens.String(), Solution: g.Solution.String(), Level: "easy", CreatedAt: noon})
	if err != nil {
		b.Fatal(err)
	}
	for p := range players {
		id := fmt.Sprintf("p%03d", p)
		if err := st.CreatePlayer(ctx, store.Player{ID: id, Name: id, TokenHash: []byte(id), CreatedAt: noon, LastSeen: noon}); err != nil {
			b.Fatal(err)
		}
	}
	for d := range days {
		day := noon.AddDate(0, 0, d-days+1)
		for p := range players {
			id := fmt.Sprintf("p%03d", p)
			gameID := fmt.Sprintf("d%03d-%s", d, id)
			if err := st.CreateRoom(ctx, store.Room{ID: gameID, Mode: "daily", PuzzleID: pz.ID, State: store.StateFinished, CreatedAt: day}); err != nil {
				b.Fatal(err)
			}
			// p000 is half way down each board.
			elapsed := time.Duration((p+players/2)%players+60) * time.Second
			if err := st.SaveResults(ctx, []store.Result{{
				RoomID: gameID, PlayerID: id, PuzzleID: pz.ID, Mode: "daily", Level: "easy", Elapsed: elapsed,
				Score: daily.Score(elapsed), FinishedAt: day.Add(time.Duration(p) * time.Second), Day: day.Format("2006-01-02"),
				PlayedDay: day.Format("2006-01-02"), AllTime: true,
			}}); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// countingStore counts the queries a player's record asks.
type countingStore struct {
	store.Store
	n atomic.Int64
}

func (c *countingStore) Player(ctx context.Context, id string) (store.Player, error) {
	c.n.Add(1)
	return c.Store.Player(ctx, id)
}

func (c *countingStore) PlayerStreak(ctx context.Context, id, today string) (store.Streak, error) {
	c.n.Add(1)
	return c.Store.PlayerStreak(ctx, id, today)
}

func (c *countingStore) PlayerHistory(ctx context.Context, id string, limit int) ([]store.Result, error) {
	c.n.Add(1)
	return c.Store.PlayerHistory(ctx, id, limit)
}

func (c *countingStore) PlayerTallies(ctx context.Context, id string) ([]store.Tally, error) {
	c.n.Add(1)
	return c.Store.PlayerTallies(ctx, id)
}

func (c *countingStore) PlayerBest(ctx context.Context, id string) ([]store.Result, error) {
	c.n.Add(1)
	return c.Store.PlayerBest(ctx, id)
}

func (c *countingStore) DailyAround(ctx context.Context, day, level, id string, n int) ([]store.Entry, error) {
	c.n.Add(1)
	return c.Store.DailyAround(ctx, day, level, id, n)
}

func (c *countingStore) DailyRanks(ctx context.Context, id string, boards []store.Board) ([]int, error) {
	c.n.Add(1)
	return c.Store.DailyRanks(ctx, id, boards)
}
