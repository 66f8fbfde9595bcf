package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/sqlite"
)

// BenchmarkBroadcast measures move → broadcast latency inside one process:
// a real server over loopback, real WebSocket clients, co-op rooms of four
// players, where every move is broadcast to all four. One move's latency
// runs from just before its sender writes the frame to the moment the last
// of the room's four players has read the resulting move event, on the
// benchmark process's monotonic clock.
//
//	go test ./server -run '^$' -bench Broadcast -benchtime 2000x -count 1
//
// room=4 is one room with one move in flight: the latency of an idle
// server. rooms=1000 is 1,000 rooms (4,000 sockets, and as many again for
// the client ends) with broadcastInFlight moves in flight at once, each in a
// different room, taken round-robin over all the rooms and written by
// several sender goroutines: the server under steady concurrent load. On two
// cores that saturates it, so its latency is mostly queueing (about
// broadcastInFlight / moves/s). rooms=1000-serial is the same 1,000 rooms
// with one move in flight, taken round-robin: what the open sockets and idle
// rooms cost a move when the server is otherwise idle.
//
// Moves alternate between placing a non-conflicting digit on one empty cell
// and clearing it, so a room never finishes and no move is refused.
//
// Reported: p50-µs and p99-µs (the last of the four recipients),
// p50-each-µs and p99-each-µs (every recipient's own latency) and moves/s
// (including the drain of the last moves in flight). Setup runs once per
// sub-benchmark, outside the timer. 4,000 players need about 8,000 file
// descriptors; Go raises the soft limit to the hard one at start-up, so
// `ulimit -Hn` must be above that.
func BenchmarkBroadcast(b *testing.B) {
	b.Run("room=4", func(b *testing.B) { benchBroadcast(b, 1, 1) })
	b.Run("rooms=1000", func(b *testing.B) { benchBroadcast(b, 1000, broadcastInFlight) })
	b.Run("rooms=1000-serial", func(b *testing.B) { benchBroadcast(b, 1000, 1) })
}

// broadcastInFlight is how many moves the rooms=1000 case keeps in flight.
const broadcastInFlight = 100

const benchPlayers = 4

func benchBroadcast(b *testing.B, rooms, inFlight int) {
	k := newKept()
	evlog := newBenchEventLog(b, k)
	e := newEnvOn(b, k, func(c *server.Config) {
		// The bucket would throttle a client that moves every few
		// hundred microseconds; the send queue keeps its default.
		c.RateLimit, c.RateBurst = 1e6, 1e6
	})
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: arenatest.HTTPTimeout}
	defer hc.CloseIdleConnections()

	bench := &broadcastBench{
		idle:   make(chan *benchRoom, rooms),
		slots:  make(chan struct{}, inFlight),
		failed: make(chan struct{}),
		start:  time.Now(),
	}
	rs := make([]*benchRoom, rooms)
	var wg sync.WaitGroup
	work := make(chan int)
	var setupErr error
	var errOnce sync.Once
	for range min(rooms, 16) {
		wg.Go(func() {
			for i := range work {
				r, err := bench.setupRoom(e, evlog, hc, i)
				if err != nil {
					errOnce.Do(func() { setupErr = err })
					continue
				}
				rs[i] = r
			}
		})
	}
	for i := range rooms {
		work <- i
	}
	close(work)
	wg.Wait()
	// Close the client ends before the server shuts down (cleanups run
	// last in, first out), so that its close handshakes are answered.
	b.Cleanup(func() { bench.close(rs) })
	if setupErr != nil {
		b.Fatalf("setup: %v", setupErr)
	}

	readCtx, stopReading := context.WithCancel(context.Background())
	bench.stopReading = stopReading
	for _, r := range rs {
		for i, c := range r.clients {
			bench.readers.Go(func() { bench.read(readCtx, r, i, c) })
		}
		bench.idle <- r
	}

	// A watchdog: no move completing for 10s while some are in flight is
	// a lost broadcast.
	watchDone := make(chan struct{})
	stopWatch := sync.OnceFunc(func() { close(watchDone) })
	defer stopWatch()
	go bench.watch(watchDone)

	sends := make(chan *benchRoom)
	var senders sync.WaitGroup
	for range min(inFlight, 4) {
		senders.Go(func() {
			for r := range sends {
				if err := r.sendMove(bench.now()); err != nil {
					bench.fail(err)
				}
			}
		})
	}
	began := time.Now()
	n := 0
	for b.Loop() {
		select {
		case bench.slots <- struct{}{}:
		case <-bench.failed:
			close(sends)
			senders.Wait()
			b.Fatal(bench.failure())
		}
		sends <- <-bench.idle
		n++
	}
	close(sends)
	senders.Wait()
	// Wait for the moves still in flight.
	for range inFlight {
		select {
		case bench.slots <- struct{}{}:
		case <-bench.failed:
			b.Fatal(bench.failure())
		}
	}
	elapsed := time.Since(began)
	stopWatch()

	if st := e.rooms.Stats(); st.Dropped != 0 {
		b.Fatalf("%d players dropped as too slow", st.Dropped)
	}
	bench.mu.Lock()
	last, each := bench.last, bench.each
	bench.mu.Unlock()
	if len(last) != n {
		b.Fatalf("%d moves sent, %d completed", n, len(last))
	}
	b.ReportMetric(percentile(last, 50), "p50-µs")
	b.ReportMetric(percentile(last, 99), "p99-µs")
	b.ReportMetric(percentile(each, 50), "p50-each-µs")
	b.ReportMetric(percentile(each, 99), "p99-each-µs")
	b.ReportMetric(float64(n)/elapsed.Seconds(), "moves/s")
}

// broadcastBench is one sub-benchmark's rooms and measurements.
type broadcastBench struct {
	// idle are the rooms with no move in flight, in the order their
	// last move completed; slots holds a token per move in flight.
	idle   chan *benchRoom
	slots  chan struct{}
	start  time.Time
	done   atomic.Int64 // moves completed
	failed chan struct{}

	failOnce    sync.Once
	failErr     error
	stopReading context.CancelFunc
	readers     sync.WaitGroup
	closed      atomic.Bool

	mu         sync.Mutex
	last, each []time.Duration
}

// now is nanoseconds on the monotonic clock since the benchmark began.
func (bb *broadcastBench) now() int64 { return int64(time.Since(bb.start)) }

func (bb *broadcastBench) fail(err error) {
	bb.failOnce.Do(func() {
		bb.failErr = err
		close(bb.failed)
	})
}

func (bb *broadcastBench) failure() error {
	<-bb.failed
	return bb.failErr
}

func (bb *broadcastBench) watch(done <-chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	seen, stuck := bb.done.Load(), 0
	for {
		select {
		case <-done:
			return
		case <-bb.failed:
			return
		case <-t.C:
		}
		n := bb.done.Load()
		if n != seen || len(bb.slots) == 0 {
			seen, stuck = n, 0
			continue
		}
		if stuck++; stuck >= 10 {
			bb.fail(fmt.Errorf("no move completed for %ds with %d in flight (%d done)", stuck, len(bb.slots), n))
			return
		}
	}
}

// benchEventLog takes the rooms' events, as serve's storage does, to an
// event log over the embedded store that writes a batch every 5 ms: those
// writes share the cores with the rooms and shape the latency's tail
// (docs/performance.md, "The parts, one by one", "Rooms"). The events
// refer to their room, so each room is recorded in the store (addRoom)
// before its first event.
type benchEventLog struct {
	db     store.Store
	puzzle int64 // the one puzzle every recorded room refers to
}

// newBenchEventLog opens the embedded store and sends k's rooms' events to
// its event log, which is flushed and closed after the server has stopped.
func newBenchEventLog(b *testing.B, k *kept) *benchEventLog {
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
		if err := events.Close(ctx); err != nil {
			b.Errorf("event log: %v", err)
		}
		if st := events.Stats(); st.Written == 0 || st.Retries != 0 {
			b.Errorf("event log: %d events written, %d batches retried", st.Written, st.Retries)
		}
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
	k.rooms.Forward = func(gameID string, records []room.Record) {
		evs := make([]store.Event, len(records))
		for i, r := range records {
			evs[i] = store.Event{RoomID: gameID, Seq: r.Seq, Type: r.Type, PlayerID: r.Player, Data: r.Data, At: r.At}
		}
		events.Append(evs...)
	}
	return &benchEventLog{db: db, puzzle: pz.ID}
}

// addRoom records the room in the store, so that its events can be.
func (l *benchEventLog) addRoom(ctx context.Context, id string) error {
	return l.db.CreateRoom(ctx, store.Room{ID: id, Mode: room.ModeCoop, PuzzleID: l.puzzle, State: store.StateWaiting, CreatedAt: time.Now()})
}

// benchRoom is a co-op room with four connected players and the one move
// it may have in flight.
type benchRoom struct {
	id      string
	clients [benchPlayers]*websocket.Conn
	cell    int
	digit   uint8
	// moves is how many moves were sent; only the sender of the room's
	// current move touches it (rooms pass between senders on channels).
	moves int64

	// moveID is the id of the move in flight, sent when it was written
	// (ns since the benchmark began), arrived when each player read it.
	moveID  atomic.Int64
	sent    atomic.Int64
	arrived [benchPlayers]atomic.Int64
	got     atomic.Int32
}

// sendMove writes the room's next move from its next player in turn:
// odd moves place the digit, even ones clear it.
func (r *benchRoom) sendMove(now int64) error {
	r.moves++
	digit := r.digit
	if r.moves%2 == 0 {
		digit = 0
	}
	r.got.Store(0)
	r.moveID.Store(r.moves)
	r.sent.Store(now)
	data := fmt.Appendf(nil, `{"type":"move","id":%d,"cell":%d,"digit":%d}`, r.moves, r.cell, digit)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.clients[r.moves%benchPlayers].Write(ctx, websocket.MessageText, data); err != nil {
		return fmt.Errorf("room %s: write move %d: %w", r.id, r.moves, err)
	}
	return nil
}

// read is player i's reader: it reads every frame as it comes, so the
// server never finds it slow, and timestamps the move events.
func (bb *broadcastBench) read(ctx context.Context, r *benchRoom, i int, ws *websocket.Conn) {
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			if ctx.Err() == nil && !bb.closed.Load() {
				bb.fail(fmt.Errorf("room %s player %d: read: %w", r.id, i, err))
			}
			return
		}
		at := bb.now()
		var f struct {
			Type string          `json:"type"`
			ID   json.RawMessage `json:"id"`
			Code string          `json:"code"`
		}
		if err := json.Unmarshal(data, &f); err != nil {
			bb.fail(fmt.Errorf("room %s player %d: bad frame %s: %w", r.id, i, data, err))
			return
		}
		switch f.Type {
		case protocol.TypeError:
			bb.fail(fmt.Errorf("room %s player %d: %s", r.id, i, data))
			return
		case protocol.TypeMove:
		default:
			continue
		}
		id, err := strconv.ParseInt(string(f.ID), 10, 64)
		if err != nil || id != r.moveID.Load() {
			bb.fail(fmt.Errorf("room %s player %d: move %s while move %d is in flight", r.id, i, data, r.moveID.Load()))
			return
		}
		r.arrived[i].Store(at)
		if r.got.Add(1) == benchPlayers {
			bb.complete(r)
		}
	}
}

// complete records the room's move once all four players have it and
// frees the room for its next move.
func (bb *broadcastBench) complete(r *benchRoom) {
	sent := r.sent.Load()
	var each [benchPlayers]time.Duration
	var last time.Duration
	for i := range r.arrived {
		each[i] = time.Duration(r.arrived[i].Load() - sent)
		last = max(last, each[i])
	}
	bb.mu.Lock()
	bb.last = append(bb.last, last)
	bb.each = append(bb.each, each[:]...)
	bb.mu.Unlock()
	bb.done.Add(1)
	bb.idle <- r
	<-bb.slots
}

// setupRoom creates co-op room i, joins four players, starts it and picks
// the cell and digit its moves use.
func (bb *broadcastBench) setupRoom(e *env, evlog *benchEventLog, hc *http.Client, i int) (*benchRoom, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := hc.Post(e.http.URL+"/api/rooms", "application/json", strings.NewReader(`{"mode":"coop","level":"easy"}`))
	if err != nil {
		return nil, fmt.Errorf("room %d: create: %w", i, err)
	}
	var created server.CreateRoomResponse
	err = json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusCreated {
		return nil, fmt.Errorf("room %d: create: status %d, %v", i, resp.StatusCode, err)
	}
	if err := evlog.addRoom(ctx, created.ID); err != nil {
		return nil, fmt.Errorf("room %s: %w", created.ID, err)
	}
	r := &benchRoom{id: created.ID}
	url := e.wsURL()
	for p := range r.clients {
		ws, _, err := websocket.Dial(ctx, url, nil)
		if err != nil {
			bb.closeRoom(r)
			return nil, fmt.Errorf("room %s: dial player %d: %w", r.id, p, err)
		}
		ws.SetReadLimit(1 << 20)
		r.clients[p] = ws
		join := fmt.Appendf(nil, `{"type":"join","room":%q,"name":"P%d"}`, r.id, p)
		if err := ws.Write(ctx, websocket.MessageText, join); err != nil {
			bb.closeRoom(r)
			return nil, fmt.Errorf("room %s: join player %d: %w", r.id, p, err)
		}
		if _, err := readUntil[protocol.Welcome](ctx, ws, protocol.TypeWelcome, nil); err != nil {
			bb.closeRoom(r)
			return nil, fmt.Errorf("room %s: join player %d: %w", r.id, p, err)
		}
	}
	if err := r.clients[0].Write(ctx, websocket.MessageText, []byte(`{"type":"start"}`)); err != nil {
		bb.closeRoom(r)
		return nil, fmt.Errorf("room %s: start: %w", r.id, err)
	}
	running := func(s *protocol.State) bool { return s.Room.Phase == protocol.PhaseRunning }
	var givens engine.Grid
	for p, ws := range r.clients {
		st, err := readUntil(ctx, ws, protocol.TypeState, running)
		if err != nil {
			bb.closeRoom(r)
			return nil, fmt.Errorf("room %s: player %d: waiting for play: %w", r.id, p, err)
		}
		if givens, err = engine.Parse(st.Room.Givens); err != nil {
			bb.closeRoom(r)
			return nil, fmt.Errorf("room %s: givens: %w", r.id, err)
		}
	}
	// The board only ever holds the givens and this one cell, so a digit
	// no given conflicts with never conflicts.
	r.cell = -1
	for cell, v := range givens {
		if v != 0 {
			continue
		}
		for d := uint8(1); d <= 9 && r.cell < 0; d++ {
			if givens.Conflicts(cell, d).Empty() {
				r.cell, r.digit = cell, d
			}
		}
		break
	}
	if r.cell < 0 {
		bb.closeRoom(r)
		return nil, fmt.Errorf("room %s: no empty cell takes a digit", r.id)
	}
	return r, nil
}

// readUntil reads frames until one of the type for which match (if any)
// holds.
func readUntil[T any](ctx context.Context, ws *websocket.Conn, typ string, match func(*T) bool) (*T, error) {
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			return nil, err
		}
		var h protocol.Header
		if err := json.Unmarshal(data, &h); err != nil {
			return nil, fmt.Errorf("bad frame %s: %w", data, err)
		}
		if h.Type == protocol.TypeError {
			return nil, errors.New(string(data))
		}
		if h.Type != typ {
			continue
		}
		v := new(T)
		if err := json.Unmarshal(data, v); err != nil {
			return nil, err
		}
		if match == nil || match(v) {
			return v, nil
		}
	}
}

func (bb *broadcastBench) closeRoom(r *benchRoom) {
	for _, ws := range r.clients {
		if ws != nil {
			_ = ws.CloseNow()
		}
	}
}

// close stops the readers and closes every client.
func (bb *broadcastBench) close(rs []*benchRoom) {
	bb.closed.Store(true)
	if bb.stopReading != nil {
		bb.stopReading()
	}
	for _, r := range rs {
		if r != nil {
			bb.closeRoom(r)
		}
	}
	bb.readers.Wait()
}

// percentile is the p-th percentile of ds in microseconds (nearest rank).
func percentile(ds []time.Duration, p float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	k := int(float64(len(s))*p/100+0.999999) - 1
	k = min(max(k, 0), len(s)-1)
	return float64(s[k]) / float64(time.Microsecond)
}
