package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/sudoku-arena/arena/internal/loadtest"
)

const loadtestUsage = `Usage: arena loadtest [flags]

Plays real games against a running server and measures them: creates
-rooms rooms of -players players, starts them, solves each puzzle from its
givens and plays -rate moves per player per second (correct digits, cleared
again on the next pass, and now and then a clashing one) for -duration
after a -ramp that spreads the rooms' set-up. A move's latency runs from
writing it to the last member of its room reading the event that reports
it (co-op: the move; race: the progress everyone gets). It prints
connections held, rooms, moves sent and acknowledged, events received,
errors by code, unexpected closes, latency p50/p95/p99/max, how many
seconds of the window would miss a 50 ms p99 on their own (and the worst:
a stall shows there, where the quantiles spread it), moves per second,
and the server's RSS per connection (from -pid, or -metrics), and exits 1
when a connection failed unexpectedly; -json adds every second's count.

On Linux, against an http:// server, the sockets are read by one epoll
loop that parses the frames itself, and the moves are sent by two pacing
goroutines: the load generator then takes about half the CPU it took with
a goroutine and a coder/websocket connection a player (-client library,
the way on other systems and over TLS), CPU that is the server's when both
share a machine.

-url may name several nodes of one deployment, comma-separated: rooms are
then created round robin over them (each owned by the node that made it),
and -remote is the share of each room's players that connect to another
node, which relays them to the owner; the report counts those connections.
-pid then takes the nodes' process ids, comma-separated, and the RSS and
CPU are their sums. -url may also be a balancer in front of the nodes
(scripts/loadtest-nodes runs nginx with deploy/nginx.conf): the players
name their room in the WebSocket's URL (/ws?room=ID), as the web client
does. With -metrics naming the nodes' metrics listeners, the report
counts the players the nodes relayed (their arena_relays_total, before
and after), whatever sent them where.

Only a loopback server is loaded unless -allow-remote is given. The server
needs its per-address limits off (ROOMS_PER_ADDR=0 SOCKETS_PER_ADDR=0
PLAYER_RATE=0 CREATE_RATE=0) and a RATE_LIMIT above -rate.

-queue N loads the Play now queue instead: N guests join the casual
queues of the four levels in turn and poll their tickets once a second
until they are matched; it prints the join and poll latencies and the wait
for a match.

Flags:
`

func runLoadtest(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), loadtestUsage)
		fs.PrintDefaults()
	}
	rawURL := fs.String("url", "http://127.0.0.1:8080", "the server's base URL, or several nodes' comma-separated")
	rooms := fs.Int("rooms", 10, "rooms to create")
	players := fs.Int("players", 4, "players per room")
	mode := fs.String("mode", "coop", "coop, race, or arena: -rooms × -players guests play the running tournament")
	rate := fs.Float64("rate", 0.5, "moves per player per second")
	ramp := fs.Duration("ramp", 10*time.Second, "time over which the rooms are set up")
	duration := fs.Duration("duration", 30*time.Second, "the measured window, after the ramp")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	allowRemote := fs.Bool("allow-remote", false, "allow a -url that is not a loopback address")
	pids := fs.String("pid", "", "the server's process id, for its RSS and CPU time (else RSS from -metrics); several nodes' comma-separated")
	metrics := fs.String("metrics", "", "the server's metrics listener (METRICS_ADDR), http://HOST:PORT, for its RSS without -pid; several nodes' comma-separated, for their relays too")
	remote := fs.Float64("remote", 0, "share of each room's players (0 to 1) that connect to a node other than the room's owner")
	procs := fs.Int("procs", 1, "worker processes to spread the connections over (each under its open-file limit)")
	sources := fs.Int("sources", 0, "loopback source addresses per process, from 127.0.0.2 (0: one per 10,000 connections)")
	clash := fs.Int("clash", 20, "one move in this many, at random, clashes with a given (0: none)")
	client := fs.String("client", "", "how the players' sockets are read: epoll (one loop, Linux, http only) or library (a goroutine and coder/websocket a connection); default epoll where it runs")
	worker := fs.Int("worker", -1, "internal: this process is worker N of -procs")
	queue := fs.Int("queue", 0, "queue mode: this many guests wait in the Play now queue at once, each polling its ticket, until all are matched (see docs/performance.md)")
	cpuProfile := fs.String("cpuprofile", "", "write the load generator's CPU profile to this file (a worker of -procs N to FILE.N)")
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return exitUsage
	}
	targets, err := loadtest.CheckTargets(*rawURL, *allowRemote)
	if err != nil {
		fmt.Fprintf(stderr, "arena loadtest: %v\n", err)
		return exitUsage
	}
	pidList, err := loadtest.ParsePIDs(*pids)
	if err != nil {
		fmt.Fprintf(stderr, "arena loadtest: %v\n", err)
		return exitUsage
	}
	metricsURLs, err := loadtest.ParseMetrics(*metrics)
	if err != nil {
		fmt.Fprintf(stderr, "arena loadtest: %v\n", err)
		return exitUsage
	}
	o := loadtest.Options{
		URL: targets[0], Nodes: targets, Remote: *remote, Rooms: *rooms, Players: *players, Mode: *mode, Rate: *rate,
		Ramp: *ramp, Duration: *duration, PIDs: pidList, Metrics: metricsURLs, ClashEvery: *clash,
		Sources: *sources, SourceOffset: max(*worker, 0), Client: *client,
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	if err := o.Validate(); err != nil {
		fmt.Fprintf(stderr, "arena loadtest: %v\n", err)
		return exitUsage
	}
	if *procs < 1 || *procs > 64 || *procs > *rooms {
		fmt.Fprintf(stderr, "arena loadtest: -procs %d: want 1 to 64, and no more than -rooms\n", *procs)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *queue > 0 {
		return loadtest.QueueCommand(ctx, targets[0], *queue, *asJSON, stdout, stderr)
	}

	if *cpuProfile != "" && (*procs == 1 || *worker >= 0) {
		path := *cpuProfile
		if *worker >= 0 {
			path += "." + strconv.Itoa(*worker)
		}
		stopProfile, err := loadtest.StartCPUProfile(path)
		if err != nil {
			fmt.Fprintf(stderr, "arena loadtest: %v\n", err)
			return exitFail
		}
		defer stopProfile()
	}
	var res loadtest.Result
	if *procs > 1 && *worker < 0 {
		res, err = loadtest.RunWorkers(ctx, *procs, *rooms, func(i, share int) []string {
			// Later flags win: the share, the worker's index and JSON.
			return append(append([]string{"loadtest"}, args...), "-rooms", strconv.Itoa(share), "-procs", "1", "-worker", strconv.Itoa(i), "-json")
		}, stderr)
	} else {
		res, err = loadtest.RunLocal(ctx, o)
	}
	if err != nil {
		fmt.Fprintf(stderr, "arena loadtest: %v\n", err)
		return exitFail
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		if err := enc.Encode(res); err != nil {
			fmt.Fprintf(stderr, "arena loadtest: %v\n", err)
			return exitFail
		}
	} else {
		res.Print(stdout)
	}
	if res.Failed() {
		return exitFail
	}
	return exitOK
}
