package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sudoku-arena/arena/daily"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/pgtest"
	"github.com/sudoku-arena/arena/store/postgres"
)

// BenchmarkDailyLeaderboardHTTP loads 1,000,000 ranked results for one day
// and level into PostgreSQL, then measures GET
// /api/daily/{date}/{level}/leaderboard?limit=100&around=me through the real
// server on loopback, with the bearer token of a random player: the top 100
// plus the rows around the caller, as a browser asks for them. It reports
// p50 and p99 of the whole request.
//
//	go test ./cmd/arena -run '^$' -bench DailyLeaderboardHTTP -benchtime 3000x
func BenchmarkDailyLeaderboardHTTP(b *testing.B) {
	ctx := context.Background()
	const rows = 1_000_000
	pg, err := pgtest.Start(ctx, pgtest.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer pg.Stop()
	url := pg.NewDatabase(b)
	st, err := postgres.Open(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	start := time.Now()
	if err := loadDailyResults(ctx, st, url, dailyDay, rows); err != nil {
		b.Fatal(err)
	}
	b.Logf("loaded %d results in %v", rows, time.Since(start).Round(time.Millisecond))

	puzzles := &daily.Puzzles{Store: st}
	data := &daily.Rooms{Adapter: &store.Adapter{Store: st}, Puzzles: puzzles}
	dailies := &daily.Service{Store: st, Puzzles: puzzles}
	rooms := room.NewRegistry(room.RegistryConfig{}, data)
	defer func() { _ = rooms.Shutdown(ctx) }()
	srv := server.New(server.Config{}, rooms, data, nil, nil)
	srv.SetDailies(dailies)
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	client := hs.Client()
	target := hs.URL + "/api/daily/" + dailyDay + "/medium/leaderboard?limit=100&around=me"

	rng := rand.New(rand.NewPCG(1, 1))
	var lat []time.Duration
	b.ResetTimer()
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodGet, target, nil)
		req.Header.Set("Authorization", "Bearer "+benchToken(rng.IntN(rows)))
		t := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		lat = append(lat, time.Since(t))
		if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"around":[`) {
			b.Fatalf("GET: %d %v %.200s", resp.StatusCode, err, body)
		}
	}
	b.StopTimer()
	b.ReportMetric(pctMs(lat, 50), "p50-ms")
	b.ReportMetric(pctMs(lat, 99), "p99-ms")

	// The parts, one by one, for where the time goes.
	parts := map[string][]time.Duration{}
	timed := func(name string, f func() error) {
		t := time.Now()
		if err := f(); err != nil {
			b.Fatal(name, err)
		}
		parts[name] = append(parts[name], time.Since(t))
	}
	for range 500 {
		i := rng.IntN(rows)
		timed("token", func() error { _, _, _, err := data.PlayerByToken(ctx, server.HashToken(benchToken(i))); return err })
		timed("count", func() error { _, err := dailies.DailyCount(ctx, dailyDay, "medium"); return err })
		timed("top", func() error { _, err := dailies.DailyTop(ctx, dailyDay, "medium", 100); return err })
		timed("around", func() error {
			_, err := dailies.DailyAround(ctx, dailyDay, "medium", fmt.Sprintf("p%07d", i), 5)
			return err
		})
	}
	for name, d := range parts {
		b.ReportMetric(pctMs(d, 50), name+"-p50-ms")
		b.ReportMetric(pctMs(d, 99), name+"-p99-ms")
	}
}

// pctMs is the p-th percentile of the durations, in milliseconds.
func pctMs(d []time.Duration, p int) float64 {
	d = slices.Clone(d)
	slices.Sort(d)
	return float64(d[max((len(d)*p+99)/100-1, 0)].Microseconds()) / 1000
}

// benchToken is the bearer token of benchmark player i.
func benchToken(i int) string { return fmt.Sprintf("token-%07d", i) }

// loadDailyResults writes n players, each with a token, and their ranked
// results on the day's medium daily with COPY, with times spread over an
// hour and penalties as real finishes have them; the leaderboard's counts
// are built once at the end, as migrations 000002, 000006 and 000007 build them.
func loadDailyResults(ctx context.Context, st *postgres.Store, url, day string, n int) error {
	t0, err := time.Parse(room.DayLayout, day)
	if err != nil {
		return err
	}
	pz, err := (&daily.Puzzles{Store: st}).Puzzle(ctx, day, "medium")
	if err != nil {
		return err
	}
	gameID := "daily-" + day
	if err := st.CreateRoom(ctx, store.Room{ID: gameID, Mode: room.ModeDaily, PuzzleID: pz.ID, State: store.StateFinished, CreatedAt: t0}); err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "ALTER TABLE results DISABLE TRIGGER count_daily_result"); err != nil {
		return err
	}
	_, err = conn.CopyFrom(ctx, pgx.Identifier{"players"}, []string{"id", "name", "token_hash", "created_at", "last_seen"},
		pgx.CopyFromSlice(n, func(i int) ([]any, error) {
			id := fmt.Sprintf("p%07d", i)
			return []any{id, "Player " + id, server.HashToken(benchToken(i)), t0, t0}, nil
		}))
	if err != nil {
		return fmt.Errorf("copy players: %w", err)
	}
	rng := rand.New(rand.NewPCG(2, 2))
	_, err = conn.CopyFrom(ctx, pgx.Identifier{"results"},
		[]string{"room_id", "player_id", "puzzle_id", "mode", "level", "elapsed_ms", "mistakes", "hints", "score", "finished_at", "day"},
		pgx.CopyFromSlice(n, func(i int) ([]any, error) {
			elapsed := time.Duration(120_000+rng.IntN(3_600_000)) * time.Millisecond
			mistakes, hints := rng.IntN(4), rng.IntN(2)
			fin := t0.Add(time.Duration(rng.IntN(86_400_000)) * time.Millisecond)
			score := daily.Score(room.DailyTime(elapsed, mistakes, hints))
			return []any{gameID, fmt.Sprintf("p%07d", i), pz.ID, "daily", "medium", elapsed.Milliseconds(), mistakes, hints, score, fin, t0}, nil
		}))
	if err != nil {
		return fmt.Errorf("copy results: %w", err)
	}
	for _, q := range []string{
		"ALTER TABLE results ENABLE TRIGGER count_daily_result",
		`INSERT INTO leaderboard_scores (day, level, score, n)
		 SELECT day, level, score, count(*) FROM results WHERE day IS NOT NULL GROUP BY day, level, score`,
		`INSERT INTO leaderboard_blocks (day, level, block, n)
		 SELECT day, level, score >> 8, count(*) FROM results WHERE day IS NOT NULL GROUP BY day, level, score >> 8`,
		`INSERT INTO leaderboard_spans (day, level, span, n)
		 SELECT day, level, score >> 16, count(*) FROM results WHERE day IS NOT NULL GROUP BY day, level, score >> 16`,
		`INSERT INTO leaderboard_totals (day, level, n)
		 SELECT day, level, count(*) FROM results WHERE day IS NOT NULL GROUP BY day, level`,
		"VACUUM ANALYZE",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("%.40s: %w", q, err)
		}
	}
	return nil
}
