package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/internal/config"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/backend"
	"github.com/sudoku-arena/arena/store/sqlite"
)

// opens counts the stores serve has opened through openCounted.
var opens atomic.Int64

// openCounted is backend.Open, counted: the one call that migrates the
// store at a start.
func openCounted(ctx context.Context, k backend.Kind) (store.Store, error) {
	opens.Add(1)
	return backend.Open(ctx, k)
}

// startServe runs serve over the SQLite file until the returned stop is
// called, and returns the base URL.
func startServe(t *testing.T, dbPath string) (string, func()) {
	t.Helper()
	return startServeWith(t, dbPath, nil)
}

// startServeWith is startServe with more settings.
func startServeWith(t *testing.T, dbPath string, env map[string]string) (string, func()) {
	t.Helper()
	cfg, err := config.Load(func(name string) string {
		if v, ok := env[name]; ok {
			return v
		}
		switch name {
		case "LISTEN_ADDR":
			return "127.0.0.1:0"
		case "POOL_STOCK":
			return "1"
		case "COUNTDOWN":
			return "10ms"
		case config.DatabaseURL:
			return "sqlite:" + dbPath
		}
		return ""
	})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, cfg, slog.New(slog.DiscardHandler), openCounted, func(a string) { addr <- a })
	}()
	select {
	case a := <-addr:
		return "http://" + a, func() {
			cancel()
			select {
			case err := <-done:
				require.NoError(t, err)
			case <-time.After(20 * time.Second):
				t.Fatal("serve did not stop")
			}
		}
	case err := <-done:
		t.Fatalf("serve stopped at start: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not start")
	}
	return "", nil
}

func TestServeServesAndKeepsRoomsAcrossARestart(t *testing.T) {
	db := filepath.Join(t.TempDir(), "arena.db")
	migrations := opens.Load()
	metricsAddr := arenatest.FreeAddr(t)
	base, stop := startServeWith(t, db, map[string]string{"METRICS_ADDR": metricsAddr})
	assert.Equal(t, int64(1), opens.Load()-migrations, "a start opens the store, and so migrates it, once")

	for path, want := range map[string]string{
		"/livez":   `{"status":"ok"}`,
		"/readyz":  `{"status":"ok","database":"ok","results":"ok","events":"ok"}`,
		"/healthz": `{"status":"ok","database":"ok","results":"ok","events":"ok"}`,
	} {
		resp, err := arenatest.Get(base + path)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, path)
		assert.JSONEq(t, want, string(body), path)
	}
	resp, err := arenatest.Get(base + "/metrics")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "no metrics on the public listener")
	resp, err = arenatest.Get("http://" + metricsAddr + "/metrics")
	require.NoError(t, err)
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "METRICS_ADDR serves them")
	for _, series := range []string{`arena_queue_depth{queue="events"} `, `arena_queue_bytes{queue="events"} `, `arena_queue_oldest_seconds{queue="events"} `, `arena_queue_depth{queue="results"} 0`} {
		assert.Contains(t, string(metrics), series, "the event log's and the results' queues are exported")
	}

	resp, err = arenatest.Post(base+"/api/rooms", "application/json", strings.NewReader(`{"mode":"coop","level":"medium"}`))
	require.NoError(t, err)
	var created server.CreateRoomResponse
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&created))
	resp.Body.Close()
	require.Equal(t, http.StatusCreated, resp.StatusCode)

	resp, err = arenatest.Get(created.URL)
	require.NoError(t, err)
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(page), "Sudoku Arena", "the share link opens the web client")

	stop()

	migrations = opens.Load()
	base, stop = startServe(t, db)
	defer stop()
	assert.Equal(t, int64(1), opens.Load()-migrations, "a start opens the store, and so migrates it, once")
	resp, err = arenatest.Get(base + "/api/rooms/" + created.ID)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "the room came back")
	var snap struct{ ID, Mode, Level, Givens string }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&snap))
	assert.Equal(t, created.ID, snap.ID)
	assert.Equal(t, "medium", snap.Level)
	assert.Len(t, snap.Givens, 81)
}

// A game played through serve over the real embedded store: a player joins
// over a WebSocket, starts, places a digit, and once serve has stopped the
// store holds the room, running, and the move in its event log.
func TestServePlaysAGameOverTheRealStore(t *testing.T) {
	db := filepath.Join(t.TempDir(), "arena.db")
	base, stop := startServe(t, db)
	resp, err := arenatest.Post(base+"/api/rooms", "application/json", strings.NewReader(`{"mode":"race","level":"easy"}`))
	require.NoError(t, err)
	var created server.CreateRoomResponse
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&created))
	resp.Body.Close()
	require.Equal(t, http.StatusCreated, resp.StatusCode)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/ws", nil)
	require.NoError(t, err)
	defer ws.CloseNow()
	ws.SetReadLimit(1 << 20)
	send := func(msg string) { require.NoError(t, ws.Write(ctx, websocket.MessageText, []byte(msg))) }
	// next reads frames until one of the type that holds, decoded into v.
	next := func(typ string, v any, holds func() bool) {
		t.Helper()
		for {
			_, data, err := ws.Read(ctx)
			require.NoError(t, err, "waiting for %s", typ)
			var h protocol.Header
			require.NoError(t, json.Unmarshal(data, &h))
			require.NotEqual(t, protocol.TypeError, h.Type, "%s", data)
			if h.Type == typ {
				require.NoError(t, json.Unmarshal(data, v))
				if holds() {
					return
				}
			}
		}
	}

	send(`{"type":"join","room":"` + created.ID + `","name":"Ann"}`)
	var welcome protocol.Welcome
	next(protocol.TypeWelcome, &welcome, func() bool { return true })
	send(`{"type":"start"}`)
	var state protocol.State
	next(protocol.TypeState, &state, func() bool { return state.Room.Phase == protocol.PhaseRunning })
	givens, err := engine.Parse(state.Room.Givens)
	require.NoError(t, err)
	solved := engine.Solve(givens, 1)
	cell := 0
	for givens[cell] != 0 {
		cell++
	}
	send(fmt.Sprintf(`{"type":"move","cell":%d,"digit":%d}`, cell, solved.Solution[cell]))
	var move protocol.MoveEvent
	next(protocol.TypeMove, &move, func() bool { return move.Player == welcome.You.ID })
	stop()

	st, err := sqlite.Open(context.Background(), db)
	require.NoError(t, err)
	defer st.Close()
	rec, err := st.Room(context.Background(), created.ID)
	require.NoError(t, err)
	assert.Equal(t, store.StateRunning, rec.State)
	assert.Equal(t, welcome.You.ID, rec.HostID)
	events, err := st.Events(context.Background(), created.ID, 0, 0)
	require.NoError(t, err)
	var moves []store.Event
	for _, ev := range events {
		if ev.Type == protocol.TypeMove {
			moves = append(moves, ev)
		}
	}
	require.Len(t, moves, 1)
	assert.Equal(t, welcome.You.ID, moves[0].PlayerID)
	assert.Equal(t, move.Seq, moves[0].Seq)
}

func TestServeRejectsBadConfiguration(t *testing.T) {
	t.Setenv("HINT_PENALTY", "soon")
	t.Setenv("COUNTDOWN", "abc")
	t.Setenv(config.DatabaseURL, "mysql://x")
	var stderr bytes.Buffer
	code := run([]string{"serve"}, nil, io.Discard, &stderr)
	assert.Equal(t, exitUsage, code)
	for _, name := range []string{"HINT_PENALTY", "COUNTDOWN", config.DatabaseURL} {
		assert.Contains(t, stderr.String(), name+"=", "every bad value is named")
	}
}

func TestServeHelpListsTheSettings(t *testing.T) {
	var stderr bytes.Buffer
	code := run([]string{"serve", "-h"}, nil, io.Discard, &stderr)
	assert.Equal(t, exitOK, code)
	for _, s := range config.Settings() {
		def, _ := s.Default()
		assert.Regexp(t, `(?m)^  `+s.Name+` +\Q`+s.Doc+` (default\E:? \Q`+def+`)\E$`, stderr.String())
	}
}

// serve deletes the events of rooms finished longer ago than
// EVENT_RETENTION (30 days by default) and keeps the others.
func TestServeDeletesTheEventsOfLongFinishedRooms(t *testing.T) {
	db := filepath.Join(t.TempDir(), "arena.db")
	ctx := context.Background()
	st, err := sqlite.Open(ctx, db)
	require.NoError(t, err)
	pz, err := st.SavePuzzle(ctx, store.Puzzle{Givens: strings.Repeat(".", 80) + "1", Solution: strings.Repeat("1", 81), Level: "easy", CreatedAt: time.Now()})
	require.NoError(t, err)
	now := time.Now()
	for id, finished := range map[string]time.Time{"gone": now.Add(-31 * 24 * time.Hour), "kept": now.Add(-29 * 24 * time.Hour)} {
		r := store.Room{ID: id, Mode: room.ModeRace, PuzzleID: pz.ID, State: store.StateFinished,
			CreatedAt: finished.Add(-time.Hour), StartedAt: finished.Add(-time.Hour), FinishedAt: finished}
		require.NoError(t, st.CreateRoom(ctx, r))
		require.NoError(t, st.AppendEvents(ctx, []store.Event{{RoomID: id, Seq: 1, Type: "move", At: finished}}))
	}
	require.NoError(t, st.Close())

	_, stop := startServe(t, db)
	defer stop()

	// The retention runs beside the server, from its start.
	st, err = sqlite.Open(ctx, db)
	require.NoError(t, err)
	defer st.Close()
	require.Eventually(t, func() bool {
		gone, err := st.Events(ctx, "gone", 0, 0)
		return err == nil && len(gone) == 0
	}, 10*time.Second, 10*time.Millisecond, "the events of the room finished 31 days ago are deleted")
	kept, err := st.Events(ctx, "kept", 0, 0)
	require.NoError(t, err)
	assert.Len(t, kept, 1, "finished 29 days ago")
}
