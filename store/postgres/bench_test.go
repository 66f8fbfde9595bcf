package postgres

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"syscall"
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
// commit on as in production: 100 co-op rooms, moves appended as fast as
// the log takes them, each as a room's flush logs it (the move and the
// mover's progress, in one append), timed until the last one is written.
// An op is one move, two events. Beside events/s it reports the rows the
// table gained a second, and the CPU an event took in this process (the
// event log and the driver) and in the server's processes. With
// fenced=true the rooms have an owner and the events its epoch, as on
// several nodes: each batch then checks the rooms' epochs in its
// transaction.
//
//	go test ./store/postgres -run '^$' -bench EventLogThroughput -benchtime 300000x
func BenchmarkEventLogThroughput(b *testing.B) {
	for _, fenced := range []bool{false, true} {
		b.Run(fmt.Sprintf("fenced=%t", fenced), func(b *testing.B) { eventLogThroughput(b, fenced) })
	}
}

// eventLogThroughput is BenchmarkEventLogThroughput, its events fenced
// or not.
func eventLogThroughput(b *testing.B, fenced bool) {
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
	ids := make([]string, rooms)
	for r := range ids {
		ids[r] = fmt.Sprint("room", r)
		rm := store.Room{ID: ids[r], Mode: room.ModeCoop, PuzzleID: pz.ID, HostID: "h", State: store.StateRunning, CreatedAt: t0}
		if fenced {
			rm.Owner = "node-a" // epoch 1
		}
		if err := s.CreateRoom(ctx, rm); err != nil {
			b.Fatal(err)
		}
	}
	var epoch int64
	if fenced {
		epoch = 1
	}
	l := store.NewEventLog(s, store.EventLogOptions{})
	seq := make([]int64, rooms)
	players := []string{"p000", "p001", "p002", "p003"}
	serverCPU := func() time.Duration {
		d, err := durable.CPU()
		if err != nil {
			b.Fatal(err)
		}
		return d
	}
	b.ResetTimer()
	start, cpu0, srv0 := time.Now(), cpuTime(b), serverCPU()
	for i := 0; b.Loop(); i++ {
		r := i % rooms
		player := players[i%4]
		seq[r] += 2
		move := fmt.Appendf(nil, `{"type":"move","seq":%d,"id":"c-%d","player":%q,"cell":%d,"digit":%d}`, seq[r]-1, i, player, i%81, i%9+1)
		progress := fmt.Appendf(nil, `{"type":"progress","seq":%d,"player":%q,"filled":%d,"empty":%d,"hints":0,"moves":%d}`, seq[r], player, i%50, 50-i%50, i)
		l.Append(
			store.Event{RoomID: ids[r], Seq: seq[r] - 1, Type: "move", PlayerID: player, Data: move, At: t0, Epoch: epoch},
			store.Event{RoomID: ids[r], Seq: seq[r], Type: "progress", PlayerID: player, Data: progress, At: t0, Epoch: epoch})
	}
	if err := l.Close(ctx); err != nil {
		b.Fatal(err)
	}
	elapsed, cpu, srv := time.Since(start), cpuTime(b)-cpu0, serverCPU()-srv0
	b.StopTimer()
	st := l.Stats()
	var rows int64
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM room_events`).Scan(&rows); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(st.Written)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(rows)/elapsed.Seconds(), "rows/s")
	b.ReportMetric(float64(st.Written)/float64(st.Batches), "events/batch")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(st.Written), "cpu-ns/event")
	b.ReportMetric(float64(srv.Nanoseconds())/float64(st.Written), "server-cpu-ns/event")
}

// cpuTime is the process's CPU time so far, user and system.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
