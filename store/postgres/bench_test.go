package postgres

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/pgtest"
)

// BenchmarkDailyLeaderboard loads 1,000,000 results for one day and level,
// then measures one leaderboard read as a player sees it: the top 100 plus
// the 10 rows either side of a random player. It reports p50 and p99.
//
//	go test ./store/postgres -run '^$' -bench DailyLeaderboard -benchtime 2000x
func BenchmarkDailyLeaderboard(b *testing.B) {
	ctx := context.Background()
	const rows = 1_000_000
	s, err := Open(ctx, server.NewDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	day := loadLeaderboard(b, s, rows)
	b.Logf("loaded %d results in %v", rows, time.Since(start).Round(time.Millisecond))

	rng := rand.New(rand.NewPCG(1, 1))
	var lat, topLat, aroundLat []time.Duration
	b.ResetTimer()
	for b.Loop() {
		player := fmt.Sprintf("p%07d", rng.IntN(rows))
		t := time.Now()
		top, err := s.DailyTop(ctx, day, "medium", 100)
		if err != nil || len(top) != 100 {
			b.Fatalf("top: %d rows, %v", len(top), err)
		}
		t1 := time.Now()
		around, err := s.DailyAround(ctx, day, "medium", player, 10)
		if err != nil || len(around) == 0 {
			b.Fatalf("around %s: %d rows, %v", player, len(around), err)
		}
		t2 := time.Now()
		lat, topLat, aroundLat = append(lat, t2.Sub(t)), append(topLat, t1.Sub(t)), append(aroundLat, t2.Sub(t1))
	}
	b.StopTimer()
	b.ReportMetric(pctMs(lat, 50), "p50-ms")
	b.ReportMetric(pctMs(lat, 99), "p99-ms")
	b.ReportMetric(pctMs(topLat, 50), "top-p50-ms")
	b.ReportMetric(pctMs(aroundLat, 50), "around-p50-ms")
}

// pctMs is the p-th percentile of the durations, in milliseconds.
func pctMs(d []time.Duration, p int) float64 {
	d = slices.Clone(d)
	slices.Sort(d)
	return float64(d[max((len(d)*p+99)/100-1, 0)].Microseconds()) / 1000
}

// loadLeaderboard writes n players and their daily results with COPY and
// returns the day. Scores cluster around 5,000 as real ones do, so many tie
// and the tie-breaks are exercised.
func loadLeaderboard(tb testing.TB, s *Store, n int) string {
	tb.Helper()
	ctx := context.Background()
	const day = "2026-11-21"
	t0 := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	pz, err := s.SavePuzzle(ctx, store.Puzzle{Givens: "1" + strings.Repeat(".", 80), Solution: strings.Repeat("1", 81), Level: "medium", CreatedAt: t0})
	if err != nil {
		tb.Fatal(err)
	}
	roomID := "daily-" + day + "-medium"
	if err := s.CreateRoom(ctx, store.Room{ID: roomID, Mode: room.ModeDaily, PuzzleID: pz.ID, HostID: "system", State: store.StateRunning, CreatedAt: t0}); err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(2, 2))
	// A bulk load: the per-row count trigger is off during COPY and the
	// counts are built once at the end, as migration 000002 builds them.
	if _, err := s.pool.Exec(ctx, "ALTER TABLE results DISABLE TRIGGER count_daily_result"); err != nil {
		tb.Fatal(err)
	}
	_, err = s.pool.CopyFrom(ctx, pgx.Identifier{"players"}, []string{"id", "name", "token_hash", "created_at", "last_seen"},
		pgx.CopyFromFunc(func() func() ([]any, error) {
			i := 0
			return func() ([]any, error) {
				if i == n {
					return nil, nil
				}
				id := fmt.Sprintf("p%07d", i)
				i++
				return []any{id, "Player " + id, []byte(id), t0, t0}, nil
			}
		}()))
	if err != nil {
		tb.Fatal(err)
	}
	_, err = s.pool.CopyFrom(ctx, pgx.Identifier{"results"},
		[]string{"room_id", "player_id", "puzzle_id", "mode", "level", "elapsed_ms", "mistakes", "hints", "score", "finished_at", "day"},
		pgx.CopyFromFunc(func() func() ([]any, error) {
			i := 0
			dayDate := t0
			return func() ([]any, error) {
				if i == n {
					return nil, nil
				}
				id := fmt.Sprintf("p%07d", i)
				i++
				elapsed := int64(120_000 + rng.IntN(3_600_000))
				score := max(0, 10_000-int(elapsed/1000)+rng.IntN(200)-100)
				fin := t0.Add(time.Duration(rng.IntN(86_400_000)) * time.Millisecond)
				return []any{roomID, id, pz.ID, "daily", "medium", elapsed, rng.IntN(5), rng.IntN(3), score, fin, dayDate}, nil
			}
		}()))
	if err != nil {
		tb.Fatal(err)
	}
	for _, q := range []string{
		"ALTER TABLE results ENABLE TRIGGER count_daily_result",
		`INSERT INTO leaderboard_scores (day, level, score, n)
		 SELECT day, level, score, count(*) FROM results WHERE day IS NOT NULL GROUP BY day, level, score`,
		`INSERT INTO leaderboard_blocks (day, level, block, n)
		 SELECT day, level, score >> 8, count(*) FROM results WHERE day IS NOT NULL GROUP BY day, level, score >> 8`,
		`INSERT INTO leaderboard_spans (day, level, span, n)
		 SELECT day, level, score >> 16, count(*) FROM results WHERE day IS NOT NULL GROUP BY day, level, score >> 16`,
		"VACUUM ANALYZE",
	} {
		if _, err := s.pool.Exec(ctx, q); err != nil {
			tb.Fatal(err)
		}
	}
	return day
}

// BenchmarkEventLogThroughput measures how many room events per second the
// batching event log gets into PostgreSQL, with fsync and synchronous
// commit on as in production: 100 rooms, events appended as fast as the
// log takes them, timed until the last one is written.
//
//	go test ./store/postgres -run '^$' -bench EventLogThroughput -benchtime 200000x
func BenchmarkEventLogThroughput(b *testing.B) {
	ctx := context.Background()
	durable, err := pgtest.Start(ctx, pgtest.Options{Durable: true})
	if err != nil {
		b.Fatal(err)
	}
	defer durable.Stop()
	s, err := Open(ctx, durable.NewDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	t0 := time.Now()
	pz, err := s.SavePuzzle(ctx, store.Puzzle{Givens: "1" + strings.Repeat(".", 80), Solution: strings.Repeat("1", 81), Level: "easy", CreatedAt: t0})
	if err != nil {
		b.Fatal(err)
	}
	const rooms = 100
	for r := 0; r < rooms; r++ {
		if err := s.CreateRoom(ctx, store.Room{ID: fmt.Sprint("room", r), Mode: room.ModeRace, PuzzleID: pz.ID, HostID: "h", State: store.StateRunning, CreatedAt: t0}); err != nil {
			b.Fatal(err)
		}
	}
	data := []byte(`{"cell":40,"digit":7,"id":"c-123"}`)
	l := store.NewEventLog(s, store.EventLogOptions{})
	seq := make([]int64, rooms)
	b.ResetTimer()
	start := time.Now()
	for i := 0; b.Loop(); i++ {
		r := i % rooms
		seq[r]++
		l.Append(store.Event{RoomID: fmt.Sprint("room", r), Seq: seq[r], Type: "move", PlayerID: "p1", Data: data, At: t0})
	}
	if err := l.Close(ctx); err != nil {
		b.Fatal(err)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	st := l.Stats()
	b.ReportMetric(float64(st.Written)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(st.Written)/float64(st.Batches), "events/batch")
}
