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

	"github.com/sudoku-arena/arena/internal/config"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/backend"
	"github.com/sudoku-arena/arena/web"
)

const serveUsage = `Usage: arena serve

Serves Sudoku Arena: the web client, the JSON API, and the WebSocket
protocol (docs/protocol.md). Configuration comes from the environment; every
variable has a default, and bad values stop the start, each named, with exit
code 2:

`

const serveUsageEnd = `
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, cfg, logger, nil); err != nil {
		logger.Error("serve", "err", err)
		return exitFail
	}
	return exitOK
}

func newLogger(format string, w io.Writer) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

// serve runs the server until ctx ends, then shuts it down in order. It
// calls listening, when set, with the address it listens on.
func serve(ctx context.Context, all config.Config, logger *slog.Logger, listening func(addr string)) error {
	cfg, db := all.Server, all.Store
	st, err := backend.Open(ctx, db) // and migrates, once
	if err != nil {
		return err
	}
	defer st.Close()
	logger.Info("store open", "driver", db.Driver)

	// As one of several nodes, the rooms' writes carry the epoch this
	// node holds, and a refused one stops the room here (node.go).
	var nd *clusterNode
	var fs *fences
	onFenced := func([]string) {}
	if all.Node.On() {
		cluster, ok := st.(store.Cluster)
		if !ok {
			return fmt.Errorf("NODE_ADDR: several nodes need PostgreSQL, not %s", db.Driver)
		}
		fs = newFences()
		nd = newClusterNode(all.Node, cfg.PublicURL, cluster, fs, logger)
		onFenced = func(rooms []string) {
			for _, r := range rooms {
				nd.onFenced(r)
			}
		}
	}

	events := store.NewEventLog(st, store.EventLogOptions{MaxPendingBytes: int64(cfg.EventQueueMB) << 20, Logger: logger, OnFenced: onFenced})
	poolCtx, stopPool := context.WithCancel(context.Background())
	pool := &store.PuzzlePool{Store: st, Make: makePuzzle, Levels: room.Levels, Stock: cfg.PoolStock, Logger: logger}
	poolDone := make(chan struct{})
	go func() {
		defer close(poolDone)
		pool.Run(poolCtx)
	}()
	defer func() { stopPool(); <-poolDone }()

	// The event retention deletes finished rooms' old events, beside the
	// rest, until shutdown.
	retention := &store.Retention{Store: st, Keep: cfg.EventRetention, Logger: logger}
	retentionCtx, stopRetention := context.WithCancel(context.Background())
	retentionDone := make(chan struct{})
	go func() {
		defer close(retentionDone)
		retention.Run(retentionCtx)
	}()
	defer func() { stopRetention(); <-retentionDone }()

	// The keeper stores each day's dailies ahead of its first request.
	daily := &dailies{store: st}
	keeperCtx, stopKeeper := context.WithCancel(context.Background())
	keeperDone := make(chan struct{})
	go func() {
		defer close(keeperDone)
		daily.keep(keeperCtx, time.Now, logger)
	}()
	defer func() { stopKeeper(); <-keeperDone }()

	data := &storage{store: st, daily: daily, pool: pool, events: events, logger: logger, fences: fs}
	if nd != nil {
		data.node = nd.cfg.ID
	}
	rcfg := cfg.Rooms
	rcfg.Logger = logger
	// Each stage has its own deadline, so a slow one cannot leave the next
	// with none.
	stage := func(name string, d time.Duration, f func(context.Context) error) {
		sctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		if err := f(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("shutdown: "+name, "err", err)
		}
	}
	rooms := room.NewRegistry(rcfg, data)
	// The node's heartbeat and takeover loop: a draining node claims
	// nothing, and heartbeats until it leaves.
	nodeCtx, stopNode := context.WithCancel(context.Background())
	nodeDone := make(chan struct{})
	close(nodeDone)
	stopNodeLoop := func() { stopNode(); <-nodeDone }
	defer stopNodeLoop()
	// A start that fails after this point, or a server that stops serving,
	// still has the rooms save and the event log flushed before the store
	// closes, as an orderly shutdown does.
	stopped := false
	defer func() {
		if !stopped {
			stopNodeLoop()
			stage("rooms", 10*time.Second, rooms.Shutdown)
			stage("event log", 10*time.Second, events.Close)
			if nd != nil {
				stage("leave", 5*time.Second, nd.leave)
			}
		}
	}()
	if nd != nil {
		// The takeover pass brings rooms back: the dead nodes', and the
		// ones an earlier run of this node left.
		nd.rooms, nd.data = rooms, data
		if err := nd.join(ctx); err != nil {
			return err
		}
		nodeDone = make(chan struct{})
		go func() {
			defer close(nodeDone)
			nd.run(nodeCtx)
		}()
	} else {
		n, err := rooms.Restore(ctx)
		if err != nil {
			return err
		}
		if n > 0 {
			logger.Info("rooms restored", "rooms", n)
		}
	}
	srv := server.New(cfg, rooms, data, web.FS(), logger)
	if nd != nil {
		srv.SetNodes(nd)
		nd.register(srv.Metrics())
	}
	srv.SetDailies(data)
	srv.SetReplays(data)
	srv.AddQueue("events", func() server.QueueStats {
		s := events.Stats()
		return server.QueueStats{Depth: s.Pending, Bytes: s.PendingBytes, OldestAt: s.OldestAt, Full: s.Full, Dropped: s.Dropped}
	})
	if cfg.DebugAddr != "" {
		_, stopDebug, err := debugServer(cfg.DebugAddr, logger)
		if err != nil {
			return err
		}
		defer stopDebug()
	}
	hs := srv.HTTPServer() // with its timeouts
	ln, err := net.Listen("tcp", cfg.ListenAddr)
	if err != nil {
		return fmt.Errorf("LISTEN_ADDR: %w", err)
	}
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
		stage("drain", 5*time.Second, nd.drain)
	}
	srv.CloseConns(false)
	stage("rooms", 10*time.Second, rooms.Shutdown)
	srv.CloseConns(true)
	stage("http", 5*time.Second, hs.Shutdown)
	stopPool()
	<-poolDone
	stage("event log", 10*time.Second, events.Close)
	if nd != nil {
		// Saved and flushed: the rooms are free for the other nodes.
		stopNodeLoop()
		stage("leave", 5*time.Second, nd.leave)
	}
	stopped = true
	logger.Info("stopped")
	return nil
}
