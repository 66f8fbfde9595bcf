package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"
)

// player is one simulated player: a socket, whose messages it acts on as
// they come (onMessage), and the moves it plays.
type player struct {
	rm      *roomRun
	idx     int
	remote  bool // connected to a node that does not own the room
	name    string
	id      string
	sock    socket
	running chan struct{} // closed when play starts; givens is then set
	givens  string
	done    chan struct{} // closed when the socket has ended

	// Owned by whatever reads the socket (messages come one at a time).
	joined  chan string // the welcome's player id, or "" and the join refused
	joining bool        // the welcome has not come yet
	started bool

	// cells are the cells this player plays in turn; filled says which
	// of them hold its digit now (a co-op player's cells are its own, so
	// nobody else changes them).
	cells  []int
	filled map[int]bool
	next   int
	moves  int

	mu      sync.Mutex // guards the pending move, shared with the reader
	pending pendingMove
}

// pendingMove is the move written and not yet fully answered.
type pendingMove struct {
	id    string
	at    time.Time
	clash bool
	acked bool
}

// frame is what the load test reads of a server event.
type frame struct {
	Type   string          `json:"type"`
	Seq    int64           `json:"seq"`
	ID     json.RawMessage `json:"id"`
	Player string          `json:"player"`
	Code   string          `json:"code"`
	You    *struct {
		ID string `json:"id"`
	} `json:"you"`
	Room *struct {
		Phase  string `json:"phase"`
		Givens string `json:"givens"`
	} `json:"room"`
}

// join dials the server and joins the room as a new player.
func (rm *roomRun) join(ctx context.Context, idx int, name string) (*player, error) {
	r := rm.r
	node, remote := r.o.nodeOf(rm.owner, idx)
	base := r.o.nodes()[node]
	ws := *base
	ws.Scheme = map[string]string{"http": "ws", "https": "wss"}[ws.Scheme]
	ws.Path = "/ws"
	dctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	p := &player{rm: rm, idx: idx, name: name, remote: remote, running: make(chan struct{}), done: make(chan struct{}),
		joined: make(chan string, 1), joining: true}
	sock, err := r.dialSocket(dctx, &ws, base.Scheme+"://"+base.Host, p)
	if err != nil {
		r.fail(ErrDial)
		return nil, fmt.Errorf("dial %s: %w", ws.String(), err)
	}
	p.sock = sock
	r.opened()
	join, _ := json.Marshal(map[string]string{"type": "join", "room": rm.id, "name": name})
	if err := p.write(dctx, join); err != nil {
		sock.close("join failed")
		r.fail(ErrJoin)
		return nil, err
	}
	select {
	case id := <-p.joined:
		if id == "" {
			sock.close("join refused")
			r.fail(ErrJoin)
			return nil, fmt.Errorf("%s: join refused", name)
		}
		p.id = id
		return p, nil
	case <-dctx.Done():
		sock.close("join timed out")
		r.fail(ErrJoin)
		return nil, fmt.Errorf("%s: join: %w", name, dctx.Err())
	}
}

func (r *run) opened() {
	n := r.open.Add(1)
	for {
		peak := r.peak.Load()
		if n <= peak || r.peak.CompareAndSwap(peak, n) {
			return
		}
	}
}

func (r *run) closed() { r.open.Add(-1) }

// write sends one frame, bounded in time.
func (p *player) write(ctx context.Context, data []byte) error {
	if err := p.sock.write(ctx, data); err != nil {
		return fmt.Errorf("%s: write: %w", p.name, err)
	}
	return nil
}

// parse reads one event.
func parse(data []byte) (frame, error) {
	if f, ok := scanFlat(data); ok {
		return f, nil
	}
	var f frame
	if err := json.Unmarshal(data, &f); err != nil {
		return frame{}, fmt.Errorf("event %q: %w", data, err)
	}
	return f, nil
}

// onMessage acts on one event read at at: until the welcome it waits for
// the join's answer; then it notes when play starts and completes the
// moves' timings. data is the socket's, and only valid during the call.
func (p *player) onMessage(data []byte, at time.Time) {
	r := p.rm.r
	r.events.Add(1)
	f, err := parse(data)
	if err != nil {
		r.fail(ErrEvent)
		r.log.Warn("unreadable event", "player", p.name, "err", err)
		return
	}
	if p.joining {
		switch {
		case f.Type == "error":
			p.joining = false
			r.fail(f.Code)
			p.joined <- ""
		case f.Type == "welcome" && f.You != nil:
			p.joining = false
			p.joined <- f.You.ID
		}
		return
	}
	marker := "move" // the event that reports a move to every member
	if r.o.Mode == "race" {
		marker = "progress"
	}
	switch f.Type {
	case "state":
		if !p.started && f.Room != nil && f.Room.Phase == "running" {
			p.started = true
			p.givens = f.Room.Givens
			close(p.running)
		}
	case "move":
		if f.Player == p.id {
			p.acked()
		}
	case "error":
		if f.Player == "" || f.Player == p.id {
			p.refused(f)
		}
	}
	if f.Type != marker {
		return
	}
	var sent time.Time
	if f.Player == p.id {
		sent = p.answered()
	}
	if d, ok := p.rm.track.read(f.Seq, at, sent); ok {
		r.measured.Add(1)
		r.mu.Lock()
		r.lat.Add(d)
		r.mu.Unlock()
	}
}

// onEnd is the socket's end: unexpected unless the run is closing it.
func (p *player) onEnd(err error) {
	r := p.rm.r
	r.closed()
	if p.joining {
		p.joining = false
		p.joined <- ""
	} else {
		if !r.closing.Load() {
			r.unexpected.Add(1)
			r.fail("close:" + strconv.Itoa(closeCode(err)))
			r.log.Warn("connection ended", "player", p.name, "err", err)
		}
	}
	close(p.done)
}

// acked notes the mover's own move event.
func (p *player) acked() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pending.id != "" && !p.pending.acked {
		p.pending.acked = true
		p.rm.r.acked.Add(1)
	}
}

// answered takes the pending move's time, once its marker event came back.
func (p *player) answered() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	at := p.pending.at
	if p.pending.id == "" || p.pending.clash {
		return time.Time{}
	}
	p.pending = pendingMove{}
	return at
}

// refused counts an error event meant for this player; a conflict
// answering its clashing move is what was meant.
func (p *player) refused(f frame) {
	r := p.rm.r
	p.mu.Lock()
	defer p.mu.Unlock()
	mine := p.pending.id != "" && string(f.ID) == strconv.Quote(p.pending.id)
	if mine && f.Code == "conflict" && p.pending.clash {
		r.clashes.Add(1)
		p.pending = pendingMove{}
		return
	}
	if mine {
		p.pending = pendingMove{}
	}
	r.fail(f.Code)
}

// plan chooses the cells the player plays: in co-op a share of the empty
// cells, its own; in a race every empty cell of its own board, from a
// place of its own.
func (p *player) plan() {
	rm := p.rm
	p.filled = map[int]bool{}
	if rm.r.o.Mode == "coop" {
		for i, c := range rm.empty {
			if i%len(rm.players) == p.idx {
				p.cells = append(p.cells, c)
			}
		}
		return
	}
	p.cells = rm.empty
	if len(p.cells) > 0 {
		p.next = p.idx * len(p.cells) / len(rm.players)
	}
}

// play sends moves at the run's rate until ctx ends: each of its cells in
// turn, filled with the solution's digit on one pass and cleared on the
// next, and now and then a clash in the reserved cell. A move still
// unanswered when the next is due holds it back, up to answerTimeout.
func (p *player) play(ctx context.Context) {
	r := p.rm.r
	if len(p.cells) == 0 && p.rm.clashDigit == 0 {
		return
	}
	interval := time.Duration(float64(time.Second) / r.o.Rate)
	// A random phase, so that the players do not all move at once.
	if !sleepUntil(ctx, time.Now().Add(rand.N(interval))) {
		return
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		p.move(ctx)
		select {
		case <-tick.C:
		case <-ctx.Done():
			return
		}
	}
}

// move sends the player's next move, unless the last one is unanswered.
func (p *player) move(ctx context.Context) {
	r := p.rm.r
	p.mu.Lock()
	if p.pending.id != "" {
		if time.Since(p.pending.at) < answerTimeout {
			p.mu.Unlock()
			return
		}
		r.fail(ErrPending)
		p.pending = pendingMove{}
	}
	p.moves++
	// At random rather than every ClashEvery-th move, so that a short run
	// of few moves a player has its clashes too.
	clash := r.o.ClashEvery > 0 && rand.IntN(r.o.ClashEvery) == 0 && p.rm.clashDigit != 0
	var cell, digit int
	switch {
	case clash || len(p.cells) == 0:
		clash = true
		cell, digit = p.rm.reserved, int(p.rm.clashDigit)
	default:
		cell = p.cells[p.next%len(p.cells)]
		p.next++
		if !p.filled[cell] {
			digit = int(p.rm.solution[cell])
		}
		p.filled[cell] = digit != 0
	}
	id := strconv.Itoa(p.moves)
	p.pending = pendingMove{id: id, at: time.Now(), clash: clash}
	p.mu.Unlock()
	msg := `{"type":"move","id":"` + id + `","cell":` + strconv.Itoa(cell) + `,"digit":` + strconv.Itoa(digit) + `}`
	r.sent.Add(1)
	// Not ctx: a write cut short by the window's end would close the
	// socket (the library does), which is no failure of the server's.
	if err := p.write(context.Background(), []byte(msg)); err != nil && !r.closing.Load() {
		r.fail(ErrWrite)
	}
}
