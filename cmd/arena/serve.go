package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/sudoku-arena/arena/account"
	"github.com/sudoku-arena/arena/cluster"
	"github.com/sudoku-arena/arena/daily"
	"github.com/sudoku-arena/arena/internal/config"
	"github.com/sudoku-arena/arena/lobby"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/backend"
	"github.com/sudoku-arena/arena/tournament"
	"github.com/sudoku-arena/arena/web"
)

const serveUsage = `Usage: arena serve

Serves Sudoku Arena: the web client, the JSON API, and the WebSocket
protocol (docs/protocol.md). Configuration comes from the environment; every
variable has a default, and bad values stop the start, each named, with exit
code 2:

`

const serveUsageEnd = `
A variable that looks like a mistyped setting is warned about by name. A
PostgreSQL that cannot be reached yet is tried again for DATABASE_WAIT, then
the start stops with exit code 2, as it does for a DATABASE_URL the driver
cannot use.

The schema is migrated at start. SIGINT or SIGTERM shuts down in order: rooms
save their state and close their sockets as going away, HTTP stops, the event
log is flushed, the database closes. Rooms come back at the next start.
`

func runServe(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), serveUsage)
		_ = config.Usage(fs.Output())
		fmt.Fprint(fs.Output(), serveUsageEnd)
	}
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return exitUsage
	}
	cfg, err := config.Load(os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "arena serve: %v\n", err)
		return exitUsage
	}
	logger := newLogger(cfg.Server.LogFormat, stderr)
	for _, w := range config.Misspelled(os.Environ()) {
		logger.Warn(w)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, cfg, logger, backend.Open, nil); err != nil {
		logger.Error("serve", "err", err)
		if storeSetting(err) {
			return exitUsage
		}
		return exitFail
	}
	return exitOK
}

// storeSetting reports whether err is the store's that DATABASE_URL names
// failing as a bad setting would: a URL the driver cannot use, or a
// database it cannot connect to (after DATABASE_WAIT). These exit 2, as a
// bad value does; a store that fails after it connected (a migration) is
// exit 1.
func storeSetting(err error) bool {
	var se *storeError
	return errors.As(err, &se) && (errors.Is(se.err, backend.ErrConnect) || errors.Is(se.err, store.ErrInvalid))
}

// storeError is the failure of the store's open at start, under the name
// of the setting that chose the store.
type storeError struct{ err error }

func (e *storeError) Error() string { return config.DatabaseURL + ": " + e.err.Error() }
func (e *storeError) Unwrap() error { return e.err }

func newLogger(format string, w io.Writer) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

// serve runs the server until ctx ends, then shuts it down in order. It
// opens the store with open (backend.Open, which migrates it), waiting up
// to DATABASE_WAIT for a database that is not up yet, and calls listening,
// when set, with the address it listens on.
func serve(ctx context.Context, all config.Config, logger *slog.Logger, open func(context.Context, backend.Kind) (store.Store, error), listening func(addr string)) error {
	cfg, db := all.Server, all.Store
	// The port first: one in use stops the start before the store opens
	// (and migrates). It is served once the rest is built.
	ln, err := net.Listen("tcp", cfg.ListenAddr)
	if err != nil {
		return fmt.Errorf("LISTEN_ADDR: %w", err)
	}
	defer ln.Close()
	st, err := backend.Wait(ctx, all.StoreWait, logger, func(ctx context.Context) (store.Store, error) { return open(ctx, db) })
	if err != nil {
		return &storeError{err}
	}
	defer st.Close()
	logger.Info("store open", "driver", db.Driver)

	// As one of several nodes, the rooms' writes carry the epoch this
	// node holds, and a refused one stops the room here (package cluster).
	var nd *cluster.Node
	var onFenced func([]string)
	if all.Node.On() {
		cs, ok := st.(store.Cluster)
		if !ok {
			return fmt.Errorf("NODE_ADDR: several nodes need PostgreSQL, not %s", db.Driver)
		}
		nd = cluster.New(all.Node, cfg.PublicURL, cs, logger)
		onFenced = nd.Fenced
	}

	events := store.NewEventLog(st, store.EventLogOptions{MaxPendingBytes: int64(cfg.EventQueueMB) << 20, Logger: logger, OnFenced: onFenced})
	pool := &store.PuzzlePool{Store: st, Make: store.MakePuzzle, Levels: room.Levels, Stock: cfg.PoolStock, Logger: logger}
	stopPool := background(pool.Run)
	defer stopPool()
	// The event retention deletes finished rooms' old events, beside the
	// rest, until shutdown.
	defer background((&store.Retention{Store: st, Keep: cfg.EventRetention, Logger: logger}).Run)()
	// The keeper stores each day's dailies ahead of its first request.
	puzzles := &daily.Puzzles{Store: st}
	defer background(func(ctx context.Context) { puzzles.Keep(ctx, room.WallClock{}, logger) })()

	data := &store.Adapter{Store: st, Pool: pool, Events: events, Logger: logger}
	if nd != nil {
		data.Node, data.Fences = nd.ID(), nd.Fences()
	}
	rcfg := cfg.Rooms
	rcfg.Logger = logger
	hub := tournament.NewHub(ctx, room.WallClock{}, nil, st, logger)
	rooms := room.NewRegistry(rcfg, hub.Results(&daily.Rooms{Adapter: data, Puzzles: puzzles, RankGuests: all.RankGuests}))
	// The node's heartbeat and takeover loop: a draining node claims
	// nothing, and heartbeats until it leaves.
	stopNode := func() {}
	defer func() { stopNode() }()
	// A start that fails after this point, or a server that stops serving,
	// still has the rooms save and the event log flushed before the store
	// closes, as an orderly shutdown does.
	stopped := false
	defer func() {
		if !stopped {
			stopNode()
			stage(logger, "rooms", 10*time.Second, rooms.Shutdown)
			stage(logger, "event log", 10*time.Second, events.Close)
			if nd != nil {
				stage(logger, "leave", 5*time.Second, nd.Leave)
			}
		}
	}()
	if nd != nil {
		// The takeover pass brings rooms back: the dead nodes', and the
		// ones an earlier run of this node left.
		if err := nd.Join(ctx, rooms, data); err != nil {
			return err
		}
		stopNode = background(nd.Run)
	} else if n, err := rooms.Restore(ctx); err != nil {
		return err
	} else if n > 0 {
		logger.Info("rooms restored", "rooms", n)
	}
	srv := server.New(cfg, rooms, data, web.FS(), logger)
	if nd != nil {
		srv.SetNodes(nd.Router())
		nd.Register(srv.Metrics())
	}
	srv.SetDailies(&daily.Service{Store: st, Puzzles: puzzles, RankGuests: all.RankGuests})
	srv.SetReplays(data)
	playNow := lobby.New(lobby.Config{}, room.Levels, srv, st, time.Now, logger)
	srv.SetPlayNow(playNow)
	defer background(playNow.Run)() // matches the queue, rates the rated races (the tournaments' too)
	defer hub.Serve(ctx, srv, rooms, playNow.Track, all.Tournaments, all.Node.Arenas || !all.Node.On())()
	srv.SetBrake(events)
	accounts := account.New(account.Config{PublicURL: cfg.PublicURL, ListenAddr: cfg.ListenAddr, Logger: logger}, st)
	srv.SetAccounts(accounts)
	defer background(accounts.Run)() // sweeps the expired sessions and codes
	srv.AddQueue("events", func() server.QueueStats {
		s := events.Stats()
		return server.QueueStats{Depth: s.Pending, Bytes: s.PendingBytes, OldestAt: s.OldestAt, Full: s.Full, Dropped: s.Dropped}
	})
	stopApart, err := srv.ServeApart() // DEBUG_ADDR's profiles, METRICS_ADDR's metrics
	if err != nil {
		return err
	}
	defer stopApart()
	hs := srv.HTTPServer() // with its timeouts
	logger.Info("listening", "addr", ln.Addr().String())
	if listening != nil {
		listening(ln.Addr().String())
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	select {
	case err := <-served:
		return fmt.Errorf("http: %w", err)
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	if nd != nil {
		stage(logger, "drain", 5*time.Second, nd.Drain)
	}
	srv.CloseConns(false)
	stage(logger, "rooms", 10*time.Second, rooms.Shutdown)
	srv.CloseConns(true)
	stage(logger, "http", 5*time.Second, hs.Shutdown)
	stopPool()
	stage(logger, "event log", 10*time.Second, events.Close)
	if nd != nil {
		// Saved and flushed: the rooms are free for the other nodes.
		stopNode()
		stage(logger, "leave", 5*time.Second, nd.Leave)
	}
	stopped = true
	logger.Info("stopped")
	return nil
}

// background runs f in a goroutine until the returned stop is called,
// which waits for it to return (and may be called again).
func background(f func(context.Context)) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(ctx)
	}()
	return func() { cancel(); <-done }
}

// stage is one stage of a shutdown, with a deadline of its own, so that a
// slow one cannot leave the next with none.
func stage(logger *slog.Logger, name string, d time.Duration, f func(context.Context) error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if err := f(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Error("shutdown: "+name, "err", err)
	}
}
