package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/sqlite"
)

// BenchmarkReplay measures GET /api/rooms/{id}/replay of a finished
// 16-player co-op round of 30 s with about 2.5 MB of events (18,000 moves
// and progress events, as bots playing flat out log them), stored in the
// embedded store and read through store.Adapter, as serve wires it.
//
//	go test ./server -run '^$' -bench Replay -benchtime 20x -count 1
//
// Each op reads the whole replay, as a client does (following the answer's
// next cursor, when it has one): "one" is one client, "parallel-10" ten at
// once, on a server that has served nothing yet (its cache, if any, is
// empty); "warm" is one client on a server that has served the round
// before. B/op is what the whole process allocated (server and client),
// replay-MB/op what the client read, and peak-heap-MB the most the heap
// held above where it stood when the op began.
func BenchmarkReplay(b *testing.B) {
	rb := newReplayBench(b)
	b.Run("one", func(b *testing.B) { rb.run(b, 1, true) })
	b.Run("parallel-10", func(b *testing.B) { rb.run(b, 10, true) })
	b.Run("warm", func(b *testing.B) { rb.run(b, 1, false) })
}

// replayBenchEvents is how many events the benchmark's round logs.
const replayBenchEvents = 18000

type replayBench struct {
	rooms   *room.Registry
	players *players
	replays server.Replays
	id      string
}

func newReplayBench(b *testing.B) *replayBench {
	b.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "arena.db"))
	if err != nil {
		b.Fatal(err)
	}
	events := store.NewEventLog(db, store.EventLogOptions{Interval: 5 * time.Millisecond})
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = events.Close(ctx)
		_ = db.Close()
	})
	g, err := engine.Generate(engine.GenerateOptions{Level: engine.LevelEasy, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	pz, err := db.SavePuzzle(ctx, store.Puzzle{Givens: g.Givens.String(), Solution: g.Solution.String(), Level: "easy", CreatedAt: time.Now()})
	if err != nil {
		b.Fatal(err)
	}
	const id = "b3nchr9p"
	start := time.Now().Add(-time.Hour).UTC().Truncate(time.Millisecond)
	saved := room.Saved{ID: id, Mode: room.ModeCoop, Round: 1, Phase: protocol.PhaseFinished,
		Puzzle:  room.SavedPuzzle{ID: pz.ID, Level: "easy", Givens: pz.Givens, Solution: pz.Solution},
		Created: start, StartedAt: start, FinishedAt: start.Add(30 * time.Second), SavedAt: start.Add(31 * time.Second),
		Ended: true, Final: true}
	settings, err := json.Marshal(saved)
	if err != nil {
		b.Fatal(err)
	}
	if err := db.CreateRoom(ctx, store.Room{ID: id, Mode: room.ModeCoop, PuzzleID: pz.ID, State: store.StateFinished,
		CreatedAt: start, StartedAt: start, FinishedAt: saved.FinishedAt, Settings: settings}); err != nil {
		b.Fatal(err)
	}
	if err := db.AppendEvents(ctx, replayBenchLog(b, id, g, start)); err != nil {
		b.Fatal(err)
	}
	rb := &replayBench{
		rooms:   room.NewRegistry(room.RegistryConfig{}, newKept().rooms),
		players: newPlayers(),
		replays: &store.Adapter{Store: db, Events: events},
		id:      id,
	}
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = rb.rooms.Shutdown(ctx)
	})
	return rb
}

// replayBenchLog is the round's events: 16 players join, play starts,
// they place and clear digits on the shared board (each move followed by
// the mover's progress) for 30 s, and the team finishes.
func replayBenchLog(b *testing.B, id string, g engine.Generated, start time.Time) []store.Event {
	b.Helper()
	var out []store.Event
	seq := int64(0)
	add := func(at time.Time, player string, ev protocol.Event) {
		seq++
		ev.Head().Seq = seq
		data, err := json.Marshal(ev)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, store.Event{RoomID: id, Seq: seq, Type: ev.Head().Type, PlayerID: player, Data: data, At: at})
	}
	ids := make([]string, 16)
	var seats []protocol.PlayerView
	for i := range ids {
		ids[i] = fmt.Sprintf("p_bench%07d", i)
		add(start.Add(-time.Minute), ids[i], &protocol.PresenceEvent{Header: protocol.Header{Type: protocol.TypePresence},
			Player: ids[i], Name: fmt.Sprintf("Player %d", i), Role: protocol.RolePlayer, Status: protocol.PresenceJoined, Host: ids[0]})
		seats = append(seats, protocol.PlayerView{ID: ids[i], Name: fmt.Sprintf("Player %d", i), Connected: true})
	}
	add(start, "", &protocol.State{Header: protocol.Header{Type: protocol.TypeState},
		Room: protocol.Snapshot{ID: id, Mode: room.ModeCoop, Level: "easy", Phase: protocol.PhaseRunning, Round: 1,
			Host: ids[0], Givens: g.Givens.String(), StartedAt: &start, Players: seats}})
	var empty []int
	for c, v := range g.Givens {
		if v == 0 {
			empty = append(empty, c)
		}
	}
	moves := (replayBenchEvents - len(ids) - 3) / 2
	for i := range moves {
		at := start.Add(time.Duration(i) * 30 * time.Second / time.Duration(moves))
		p := ids[i%len(ids)]
		cell := empty[(i/2)%len(empty)]
		digit := int(g.Solution[cell])
		if i%2 == 1 {
			digit = 0
		}
		add(at, p, &protocol.MoveEvent{Header: protocol.Header{Type: protocol.TypeMove}, Player: p, Cell: cell, Digit: digit})
		add(at, p, &protocol.ProgressEvent{Header: protocol.Header{Type: protocol.TypeProgress}, Player: p,
			Progress: protocol.Progress{Filled: i % 40, Empty: len(empty), Moves: i / len(ids)}})
	}
	end := start.Add(30 * time.Second)
	add(end, "", &protocol.FinishEvent{Header: protocol.Header{Type: protocol.TypeFinish}, ElapsedMS: 30000, Score: 1900})
	add(end, "", &protocol.State{Header: protocol.Header{Type: protocol.TypeState},
		Room: protocol.Snapshot{ID: id, Mode: room.ModeCoop, Level: "easy", Phase: protocol.PhaseFinished, Round: 1,
			Host: ids[0], Givens: g.Givens.String(), StartedAt: &start, FinishedAt: &end, Players: seats}})
	return out
}

// server is a fresh server over the bench's round, serving on loopback.
func (rb *replayBench) server(b *testing.B) *httptest.Server {
	srv := server.New(server.Config{}, rb.rooms, rb.players, nil, slog.New(slog.DiscardHandler))
	srv.SetReplays(rb.replays)
	return httptest.NewServer(srv.Handler())
}

// fetch reads the whole replay: every page, when it comes in pages.
func (rb *replayBench) fetch(b *testing.B, hc *http.Client, base string) int64 {
	var read int64
	after := int64(0)
	for {
		url := base + "/api/rooms/" + rb.id + "/replay"
		if after > 0 {
			url += fmt.Sprintf("?after=%d", after)
		}
		resp, err := hc.Get(url)
		if err != nil {
			b.Error(err)
			return read
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Errorf("GET %s: %d %v: %.200s", url, resp.StatusCode, err, body)
			return read
		}
		read += int64(len(body))
		var page struct {
			Next int64 `json:"next"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			b.Error(err)
			return read
		}
		if page.Next == 0 {
			return read
		}
		after = page.Next
	}
}

// run reads the whole replay with clients at once each op, on a fresh
// server each op when cold.
func (rb *replayBench) run(b *testing.B, clients int, cold bool) {
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}, Timeout: arenatest.HTTPTimeout}
	defer hc.CloseIdleConnections()
	hs := rb.server(b)
	defer func() { hs.Close() }()
	rb.fetch(b, hc, hs.URL) // warms the connections (and the cache)
	var read atomic.Int64
	var peak uint64
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	heap := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		if cold {
			hs.Close()
			hc.CloseIdleConnections()
			hs = rb.server(b)
		}
		runtime.GC()
		base := heap()
		done := make(chan struct{})
		var sampler sync.WaitGroup
		sampler.Go(func() {
			for {
				if h := heap(); h > base && h-base > peak {
					peak = h - base
				}
				select {
				case <-done:
					return
				case <-time.After(200 * time.Microsecond):
				}
			}
		})
		b.StartTimer()
		var wg sync.WaitGroup
		for range clients {
			wg.Go(func() { read.Add(rb.fetch(b, hc, hs.URL)) })
		}
		wg.Wait()
		b.StopTimer()
		close(done)
		sampler.Wait()
		b.StartTimer()
	}
	b.ReportMetric(float64(read.Load())/float64(b.N)/1e6, "replay-MB/op")
	b.ReportMetric(float64(peak)/1e6, "peak-heap-MB")
}
