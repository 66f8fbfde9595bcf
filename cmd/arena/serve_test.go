package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/config"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store"
)

// startServe runs serve over the SQLite file until the returned stop is
// called, and returns the base URL.
func startServe(t *testing.T, dbPath string) (string, func()) {
	t.Helper()
	cfg, err := config.Load(func(name string) string {
		switch name {
		case "LISTEN_ADDR":
			return "127.0.0.1:0"
		case "POOL_STOCK":
			return "1"
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
		done <- serve(ctx, cfg.Server, cfg.Store, slog.New(slog.DiscardHandler), func(a string) { addr <- a })
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
	migrations := store.MigrateRuns()
	base, stop := startServe(t, db)
	assert.Equal(t, int64(1), store.MigrateRuns()-migrations, "a start migrates once")

	resp, err := http.Get(base + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	resp, err = http.Post(base+"/api/rooms", "application/json", strings.NewReader(`{"mode":"coop","level":"medium"}`))
	require.NoError(t, err)
	var created server.CreateRoomResponse
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&created))
	resp.Body.Close()
	require.Equal(t, http.StatusCreated, resp.StatusCode)

	resp, err = http.Get(created.URL)
	require.NoError(t, err)
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(page), "Sudoku Arena", "the share link opens the web client")

	stop()

	migrations = store.MigrateRuns()
	base, stop = startServe(t, db)
	defer stop()
	assert.Equal(t, int64(1), store.MigrateRuns()-migrations, "a start migrates once")
	resp, err = http.Get(base + "/api/rooms/" + created.ID)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "the room came back")
	var snap struct{ ID, Mode, Level, Givens string }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&snap))
	assert.Equal(t, created.ID, snap.ID)
	assert.Equal(t, "medium", snap.Level)
	assert.Len(t, snap.Givens, 81)
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
