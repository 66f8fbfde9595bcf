// Package loadtest is the logic of `arena loadtest`: a load generator that
// plays real games against a running server over its public API, as many
// players as asked, and measures what a player would feel.
//
// It creates rooms (POST /api/rooms), joins players over WebSockets, has
// each room's host start it, solves each puzzle itself from the givens
// (the server never sends the solution), and then has every player send
// moves at a steady rate: correct digits, the same cells cleared again on
// the next pass, and one move in ClashEvery a digit that clashes with a
// given, which the server refuses as a conflict. One empty cell is never
// filled, so a room keeps playing for as long as the run lasts.
//
// A move's latency runs from writing it to the moment the last member of
// the room has read the event that reports it: in co-op, the move event,
// which goes to everyone; in a race, the progress event that everyone gets
// (the mover has read its own move event, sent to it alone, before its
// progress). Clashing moves are counted, not timed.
//
// A room's creation is timed too, from its first POST to the answer that
// made it (retries included): what a player opening a room waits for.
//
// Every loop is bounded in count and time: the run ends after its ramp
// and duration (plus a bounded set-up and shutdown), whatever the server
// does.
package loadtest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
)

// Options is one run's shape.
type Options struct {
	// URL is the server's base, already checked by CheckTarget.
	URL *url.URL
	// Nodes, when set, are several servers' bases (URL among them) that
	// share one database: rooms are made round robin over them (see
	// CheckTargets).
	Nodes []*url.URL
	// Remote is the share of each room's players (0 to 1) that connect to
	// a node other than the one that made and owns the room.
	Remote float64
	// Rooms is how many rooms to make, Players how many join each.
	Rooms, Players int
	// Mode is "coop" or "race", or ModeArena (RunArena).
	Mode string
	// Rate is moves per player per second.
	Rate float64
	// Ramp spreads the rooms' set-up over this long; Duration is the
	// measured window that follows.
	Ramp, Duration time.Duration
	// Sources is how many loopback source addresses to spread the sockets
	// over (127.0.0.2 onwards), SourceOffset which block of them this
	// process takes (a worker's index). 0 lets the system choose.
	Sources, SourceOffset int
	// PIDs are the servers' processes, for their RSS and CPU (summed);
	// without them the RSS is read from Metrics, the servers' metrics
	// listeners (METRICS_ADDR: each URL a /metrics), if any.
	PIDs    []int
	Metrics []*url.URL
	// ClashEvery makes one move in this many, at random, a clashing one;
	// 0 never.
	ClashEvery int
	// Client is how the players' sockets are read: ClientEpoll or
	// ClientLibrary; "" is the first where it can run (Linux, http).
	Client string
	// Logger gets progress and failures; nil is silent.
	Logger *slog.Logger
}

// client is the client the run's players use.
func (o *Options) client() string {
	if o.Client != "" {
		return o.Client
	}
	if epollSupported && o.plain() {
		return ClientEpoll
	}
	return ClientLibrary
}

// plain reports whether every target is reached without TLS.
func (o *Options) plain() bool {
	for _, u := range o.nodes() {
		if u.Scheme != "http" {
			return false
		}
	}
	return true
}

// Bounds on what one run may ask for.
const (
	MaxRooms       = 100_000
	MaxPlayers     = 16
	MaxDuration    = time.Hour
	setupTimeout   = 60 * time.Second // past the ramp, for the last rooms to be playing
	answerTimeout  = 10 * time.Second // a move unanswered this long counts as lost
	writeTimeout   = 5 * time.Second
	setupParallel  = 64 // rooms being set up at once
	createAttempts = 5
)

// Validate checks the options' bounds.
func (o *Options) Validate() error {
	switch {
	case o.URL == nil:
		return errors.New("no -url")
	case o.Rooms < 1 || o.Rooms > MaxRooms:
		return fmt.Errorf("-rooms %d: want 1 to %d", o.Rooms, MaxRooms)
	case o.Players < 1 || o.Players > MaxPlayers:
		return fmt.Errorf("-players %d: want 1 to %d", o.Players, MaxPlayers)
	case o.Mode != "coop" && o.Mode != "race" && o.Mode != ModeArena:
		return fmt.Errorf("-mode %q: want coop, race or arena", o.Mode)
	case o.Rate <= 0 || o.Rate > 10:
		return fmt.Errorf("-rate %g: want more than 0 and at most 10 moves a second", o.Rate)
	case o.Duration <= 0 || o.Duration > MaxDuration:
		return fmt.Errorf("-duration %s: want more than 0 and at most %s", o.Duration, MaxDuration)
	case o.Ramp < 0 || o.Ramp > MaxDuration:
		return fmt.Errorf("-ramp %s: want 0 to %s", o.Ramp, MaxDuration)
	case o.Client != "" && o.Client != ClientEpoll && o.Client != ClientLibrary:
		return fmt.Errorf("-client %q: want %s or %s", o.Client, ClientEpoll, ClientLibrary)
	case o.Client == ClientEpoll && !epollSupported:
		return fmt.Errorf("-client %s: Linux only", ClientEpoll)
	case o.Client == ClientEpoll && !o.plain():
		return fmt.Errorf("-client %s: http:// targets only (no TLS)", ClientEpoll)
	}
	return o.validateNodes()
}

// run is one run's shared state.
type run struct {
	o       Options
	log     *slog.Logger
	http    *http.Client
	sources []source     // one per source address
	loops   []*loop      // the epoll client's, when the players use it
	nconn   atomic.Int64 // sockets dialled, to pick a source address
	open    atomic.Int64
	peak    atomic.Int64
	closing atomic.Bool
	window  struct {
		start, end time.Time
	}

	sent, acked, clashes, measured, events, unexpected atomic.Int64

	// windowStart is the window's start in Unix nanoseconds, 0 before:
	// readers note the moves in the window's seconds from then on.
	windowStart atomic.Int64

	mu      sync.Mutex // guards errors, lat, seconds and create
	errors  map[string]int64
	lat     Histogram
	seconds []Second
	create  Histogram
}

// measure counts a move's latency d, its last member having read it at
// at; r.mu is held.
func (r *run) measure(at time.Time, d time.Duration) {
	r.lat.Add(d)
	if start := r.windowStart.Load(); start != 0 && at.UnixNano() >= start {
		if k := (at.UnixNano() - start) / int64(time.Second); k < int64(len(r.seconds)) {
			r.seconds[k].add(d)
		}
	}
}

func (r *run) fail(code string) {
	r.mu.Lock()
	r.errors[code]++
	r.mu.Unlock()
}

// Run plays the load o describes and returns what it measured. It returns
// an error only when the run could not be made at all; failures of single
// connections are counted in the result.
func Run(ctx context.Context, o Options) (Result, error) {
	if err := o.Validate(); err != nil {
		return Result{}, err
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	system := sourceFrom(nil) // the system's choice of source address
	r := &run{o: o, log: log, http: system.http, errors: map[string]int64{}}
	for _, ip := range sourceIPs(o.URL, o.Sources, o.SourceOffset) {
		r.sources = append(r.sources, sourceFrom(ip))
	}
	if len(r.sources) == 0 {
		r.sources = []source{system}
	}
	if o.client() == ClientEpoll {
		l, err := newLoop(log)
		if err != nil {
			return Result{}, err
		}
		r.loops = []*loop{l}
	}
	defer r.stopLoops()

	relays0, relaysKnown := r.relays(ctx)
	// Set the rooms up, spread over the ramp, at most setupParallel at once.
	setupCtx, cancelSetup := context.WithTimeout(ctx, o.Ramp+setupTimeout)
	defer cancelSetup()
	began := time.Now()
	rooms := make([]*roomRun, o.Rooms)
	sem := make(chan struct{}, setupParallel)
	var wg sync.WaitGroup
	for i := range rooms {
		at := began.Add(time.Duration(int64(o.Ramp) * int64(i) / int64(o.Rooms)))
		if !sleepUntil(setupCtx, at) {
			break
		}
		select {
		case sem <- struct{}{}:
		case <-setupCtx.Done():
		}
		if setupCtx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			rm, err := r.setupRoom(setupCtx, i)
			if err != nil {
				log.Warn("room set-up failed", "room", i, "err", err)
				return
			}
			rooms[i] = rm
		}()
	}
	wg.Wait()
	var ready []*roomRun
	for _, rm := range rooms {
		if rm != nil {
			ready = append(ready, rm)
		}
	}
	log.Info("rooms playing", "rooms", len(ready), "asked", o.Rooms, "connections", r.open.Load(), "setup", time.Since(began).Round(time.Millisecond))

	// The measured window: every player plays until its end.
	r.window.start = time.Now()
	r.window.end = r.window.start.Add(o.Duration)
	r.mu.Lock()
	r.seconds = make([]Second, (o.Duration+time.Second-1)/time.Second)
	r.mu.Unlock()
	r.windowStart.Store(r.window.start.UnixNano())
	var cpu0 time.Duration
	if len(o.PIDs) > 0 {
		var err error
		if cpu0, err = serverCPU(o.PIDs); err != nil {
			log.Warn("server CPU", "err", err)
		}
	}
	playCtx, cancelPlay := context.WithDeadline(ctx, r.window.end)
	defer cancelPlay()
	for _, shard := range r.schedule(ready) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.pace(playCtx, shard)
		}()
	}
	wg.Wait()
	res := Result{Mode: o.Mode, Workers: 1, Rooms: len(ready), Window: time.Since(r.window.start),
		Nodes: len(o.nodes()), RemoteConnections: remoteConnections(ready)}
	// Answers to the last moves are still on their way: give them a moment
	// before the count.
	sleepUntil(ctx, time.Now().Add(min(answerTimeout, time.Second)))
	res.Connections = int(r.open.Load())
	res.PeakConnections = int(r.peak.Load())
	if len(o.PIDs) > 0 {
		if cpu1, err := serverCPU(o.PIDs); err == nil && cpu0 > 0 {
			res.ServerCPU = cpu1 - cpu0
		}
	}
	rss, err := r.serverRSS(ctx)
	if err != nil {
		log.Warn("server RSS", "err", err)
	}
	res.ServerRSS = rss
	for _, rm := range ready {
		res.Players += len(rm.players)
	}
	if relays1, ok := r.relays(ctx); ok && relaysKnown {
		res.Relayed, res.RelayedKnown = relays1-relays0, true
	}

	// Close every socket as a player leaving would, and wait (bounded) for
	// the readers to end.
	r.closing.Store(true)
	for _, rm := range ready {
		for _, p := range rm.players {
			p.leave("load test over")
		}
	}
	for _, rm := range ready {
		for _, p := range rm.players {
			select {
			case <-p.done:
			case <-time.After(5 * time.Second):
			}
		}
	}

	res.MovesSent, res.MovesAcked, res.Clashes = r.sent.Load(), r.acked.Load(), r.clashes.Load()
	res.Measured, res.Events, res.UnexpectedCloses = r.measured.Load(), r.events.Load(), r.unexpected.Load()
	r.mu.Lock()
	res.Errors, res.Latency, res.Create, res.Seconds = r.errors, r.lat, r.create, r.seconds
	r.mu.Unlock()
	return res, nil
}

// turn is a player's place in a pacer's schedule: it moves at phase into
// each interval.
type turn struct {
	p     *player
	phase time.Duration
}

// schedule gives each player that has moves to play a random phase (so
// that the players do not all move at once), and shares them among the
// pacers, each shard in the order of its moves.
func (r *run) schedule(rooms []*roomRun) [][]turn {
	interval := time.Duration(float64(time.Second) / r.o.Rate)
	shards := make([][]turn, pacers)
	k := 0
	for _, rm := range rooms {
		for _, p := range rm.players {
			if len(p.cells) == 0 && rm.clashDigit == 0 {
				continue
			}
			shards[k%pacers] = append(shards[k%pacers], turn{p: p, phase: rand.N(interval)})
			k++
		}
	}
	for _, s := range shards {
		slices.SortFunc(s, func(a, b turn) int { return cmp.Compare(a.phase, b.phase) })
	}
	return shards
}

// pacers send the moves: each a share of the players, one after another
// in the order they are due. A goroutine and a ticker a player cost the
// load generator a timer and a wake for every move, CPU that is the
// server's on a shared machine.
const pacers = 2

// pace sends the moves of turns, each player's at the run's rate, until
// ctx ends: every move due is sent, and the pacer sleeps until the next,
// at least paceSleep, so that moves due close together go out together
// (each is timed from its own write).
func (r *run) pace(ctx context.Context, turns []turn) {
	if len(turns) == 0 {
		return
	}
	const paceSleep = 2 * time.Millisecond
	interval := time.Duration(float64(time.Second) / r.o.Rate)
	start := time.Now()
	for round := time.Duration(0); ; round++ {
		for _, t := range turns {
			due := start.Add(round*interval + t.phase)
			if now := time.Now(); due.After(now) && !sleepUntil(ctx, maxTime(due, now.Add(paceSleep))) {
				return
			}
			if ctx.Err() != nil {
				return
			}
			t.p.move(ctx)
		}
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// sleepUntil waits until t or the context's end, and says whether t came.
func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// roomRun is one room of the run and its players.
type roomRun struct {
	r       *run
	id      string
	owner   int // the node that made the room (Options.nodes)
	players []*player
	track   tracker
	// The puzzle: its solution, the cell never filled and a digit that
	// clashes there with a given (0 when none does).
	solution   engine.Grid
	reserved   int
	clashDigit uint8
	empty      []int // the puzzle's empty cells, the reserved one left out
}

// setupRoom creates room i, joins its players, starts it and solves its
// puzzle. On failure it closes what it opened.
func (r *run) setupRoom(ctx context.Context, i int) (rm *roomRun, err error) {
	owner := r.o.creator(i)
	id, err := r.createRoom(ctx, r.o.nodes()[owner])
	if err != nil {
		r.fail(ErrCreate)
		return nil, err
	}
	rm = &roomRun{r: r, id: id, owner: owner}
	rm.track.entries = map[int64]*entry{}
	rm.track.members = r.o.Players
	defer func() {
		if err != nil {
			for _, p := range rm.players {
				p.leave("set-up failed")
			}
		}
	}()
	for k := range r.o.Players {
		p, err := rm.join(ctx, k, fmt.Sprintf("L%d-%d", i, k))
		if err != nil {
			return rm, err
		}
		rm.players = append(rm.players, p)
	}
	if err := rm.players[0].write(ctx, []byte(`{"type":"`+protocol.TypeStart+`"}`)); err != nil {
		r.fail(ErrStart)
		return rm, err
	}
	var givens string
	for _, p := range rm.players {
		select {
		case <-p.running:
			givens = p.givens
		case <-p.done:
			r.fail(ErrStart)
			return rm, fmt.Errorf("room %s: %s closed before play", id, p.name)
		case <-ctx.Done():
			r.fail(ErrStart)
			return rm, fmt.Errorf("room %s: waiting for play: %w", id, ctx.Err())
		}
	}
	if err := rm.solve(givens); err != nil {
		r.fail(ErrStart)
		return rm, err
	}
	for _, p := range rm.players {
		p.plan()
	}
	return rm, nil
}

// createRoom makes a room on the server at base, trying again (a bounded
// number of times) while the server answers that it is busy, and counts
// how long the room took to make, retries included.
func (r *run) createRoom(ctx context.Context, base *url.URL) (string, error) {
	began := time.Now()
	id, err := r.tryCreateRoom(ctx, base)
	if err == nil {
		d := time.Since(began)
		r.mu.Lock()
		r.create.Add(d)
		r.mu.Unlock()
	}
	return id, err
}

// tryCreateRoom posts the room to base until the server makes it, refuses
// it for good, or the attempts run out.
func (r *run) tryCreateRoom(ctx context.Context, base *url.URL) (string, error) {
	body := []byte(`{"mode":"` + r.o.Mode + `"}`)
	var last error
	for attempt := range createAttempts {
		if attempt > 0 && !sleepUntil(ctx, time.Now().Add(time.Duration(attempt)*time.Second)) {
			break
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, base.JoinPath("/api/rooms").String(), bytes.NewReader(body))
		if err != nil {
			return "", fmt.Errorf("create room: %w", err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := r.http.Do(req)
		if err != nil {
			last = fmt.Errorf("create room: %w", err)
			continue
		}
		data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		if err != nil {
			last = fmt.Errorf("create room: %w", err)
			continue
		}
		if resp.StatusCode != http.StatusCreated {
			last = fmt.Errorf("create room: %s: %s", resp.Status, bytes.TrimSpace(data))
			if resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusTooManyRequests {
				continue
			}
			break
		}
		var created struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(data, &created); err != nil || created.ID == "" {
			return "", fmt.Errorf("create room: answer %q: %v", data, err)
		}
		return created.ID, nil
	}
	if last == nil {
		last = fmt.Errorf("create room: %w", ctx.Err())
	}
	return "", last
}

// solve finds the puzzle's solution and chooses the reserved cell and the
// clashing digit.
func (rm *roomRun) solve(givens string) error {
	g, err := engine.Parse(givens)
	if err != nil {
		return fmt.Errorf("room %s: givens: %w", rm.id, err)
	}
	res := engine.Solve(g, 1)
	if res.Count == 0 {
		return fmt.Errorf("room %s: the puzzle has no solution", rm.id)
	}
	rm.solution, rm.reserved = res.Solution, -1
	for c := range engine.NumCells {
		if g[c] != 0 {
			continue
		}
		if rm.reserved < 0 {
			rm.reserved = c
			continue
		}
		rm.empty = append(rm.empty, c)
	}
	if rm.reserved < 0 {
		return fmt.Errorf("room %s: the puzzle has no empty cell", rm.id)
	}
	for c := range engine.NumCells {
		if g[c] != 0 && peers(c, rm.reserved) {
			rm.clashDigit = g[c]
			break
		}
	}
	return nil
}

// peers says whether two different cells share a row, a column or a box.
func peers(a, b int) bool {
	if a == b {
		return false
	}
	ra, ca, rb, cb := a/9, a%9, b/9, b%9
	return ra == rb || ca == cb || (ra/3 == rb/3 && ca/3 == cb/3)
}

// tracker times a room's moves: an entry for each event that reports a
// move (by its seq), completed when every member has read it and the mover
// has said when it was sent.
type tracker struct {
	mu      sync.Mutex
	members int
	entries map[int64]*entry
}

type entry struct {
	sent  time.Time
	reads int
	last  time.Time
}

// read notes that one member read the event seq at t, and sent, when not
// zero, that it reports a move written at sent. It returns the move's
// latency once complete.
func (t *tracker) read(seq int64, at, sent time.Time) (time.Duration, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.entries[seq]
	if e == nil {
		e = &entry{}
		t.entries[seq] = e
	}
	e.reads++
	if at.After(e.last) {
		e.last = at
	}
	if !sent.IsZero() {
		e.sent = sent
	}
	if e.reads < t.members || e.sent.IsZero() {
		return 0, false
	}
	delete(t.entries, seq)
	return e.last.Sub(e.sent), true
}

// dial opens a WebSocket to u from the next source address, through the
// run's client, as a page of origin; rc gets what it reads.
func (r *run) dial(ctx context.Context, u *url.URL, origin string, rc receiver) (link, error) {
	n := int(r.nconn.Add(1))
	src := r.sources[n%len(r.sources)]
	if len(r.loops) > 0 {
		return dialEpoll(ctx, r.loops[n%len(r.loops)], src.dialer, u, origin, rc)
	}
	return dialLibrary(ctx, u, origin, src.http, rc)
}

// stopLoops ends the epoll client's loops, and any socket still in them.
func (r *run) stopLoops() {
	for _, l := range r.loops {
		l.stop()
	}
	r.loops = nil
}
