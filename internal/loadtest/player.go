package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sudoku-arena/arena/protocol"
)

// player is one simulated player: a socket, the reader that always runs on
// it, and the moves it plays.
type player struct {
	rm      *roomRun
	idx     int
	remote  bool // connected to a node that does not own the room
	name    string
	link    link
	welcome chan frame    // the answer to the join: welcome or error
	running chan struct{} // closed when play starts; givens is then set
	givens  string
	done    chan struct{} // closed when the reader ends
	leaving atomic.Bool   // the load test closes the socket itself

	// The reader's: the player's id once welcomed, and whether play began.
	id      string
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

// join dials the server and joins the room as a new player; the socket's
// reader runs from the dial on.
func (rm *roomRun) join(ctx context.Context, idx int, name string) (*player, error) {
	r := rm.r
	node, remote := r.o.nodeOf(rm.owner, idx)
	base := r.o.nodes()[node]
	ws := *base
	ws.Scheme = map[string]string{"http": "ws", "https": "wss"}[ws.Scheme]
	ws.Path = "/ws"
	// The room's hint, as the web client gives it: a balancer that routes
	// by room sends the socket to the node that runs it.
	ws.RawQuery = url.Values{"room": {rm.id}}.Encode()
	dctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	p := &player{rm: rm, idx: idx, name: name, remote: remote,
		welcome: make(chan frame, 1), running: make(chan struct{}), done: make(chan struct{})}
	r.opened()
	l, err := r.dial(dctx, &ws, base.Scheme+"://"+base.Host, p)
	if err != nil {
		r.closed()
		r.fail(ErrDial)
		return nil, err
	}
	p.link = l
	join, _ := json.Marshal(protocol.Msg{Type: protocol.TypeJoin, Room: rm.id, Name: name})
	if err := p.write(dctx, join); err != nil {
		p.drop()
		r.fail(ErrJoin)
		return nil, err
	}
	select {
	case f := <-p.welcome:
		if f.Type == protocol.TypeError {
			p.drop()
			r.fail(ErrJoin)
			r.fail(f.Code)
			return nil, fmt.Errorf("%s: join refused: %s", name, f.Code)
		}
		return p, nil
	case <-p.done:
		r.fail(ErrJoin)
		return nil, fmt.Errorf("%s: join: the connection ended", name)
	case <-dctx.Done():
		p.drop()
		r.fail(ErrJoin)
		return nil, fmt.Errorf("%s: join: %w", name, dctx.Err())
	}
}

// drop closes the player's socket at once, as the load test's own doing.
func (p *player) drop() {
	p.leaving.Store(true)
	p.link.closeNow()
}

// leave closes the player's socket as a player leaving would.
func (p *player) leave(reason string) {
	p.leaving.Store(true)
	p.link.close(reason)
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
	if err := p.link.send(ctx, data); err != nil {
		return fmt.Errorf("%s: write: %w", p.name, err)
	}
	return nil
}

// receive reads one event, read at at.
func (p *player) receive(data []byte, at time.Time) error {
	p.rm.r.events.Add(1)
	f, ok := scanFlat(data)
	if !ok {
		if err := json.Unmarshal(data, &f); err != nil {
			return fmt.Errorf("%s: event %q: %w", p.name, data, err)
		}
	}
	p.handle(f, at)
	return nil
}

// handle acts on one event: it takes the answer to the join, notes when
// play starts, and completes the moves' timings.
func (p *player) handle(f frame, at time.Time) {
	r := p.rm.r
	if p.id == "" {
		if (f.Type == protocol.TypeWelcome && f.You != nil && f.You.ID != "") || f.Type == protocol.TypeError {
			if f.Type == protocol.TypeWelcome {
				p.id = f.You.ID
			}
			select {
			case p.welcome <- f:
			default:
			}
		}
		return
	}
	marker := protocol.TypeMove // the event that reports a move to every member
	if r.o.Mode == "race" {
		marker = protocol.TypeProgress
	}
	switch f.Type {
	case protocol.TypeState:
		if !p.started && f.Room != nil && f.Room.Phase == protocol.PhaseRunning {
			p.started = true
			p.givens = f.Room.Givens
			close(p.running)
		}
	case protocol.TypeMove:
		if f.Player == p.id {
			p.acked()
		}
	case protocol.TypeError:
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
		r.measure(at, d)
		r.mu.Unlock()
	}
}

// ended notes the socket's end: unexpected unless the load test is over
// or closed it itself (a join that failed is counted as that).
func (p *player) ended(err error, code int) {
	r := p.rm.r
	defer close(p.done)
	defer r.closed()
	if p.id == "" || r.closing.Load() || p.leaving.Load() {
		return
	}
	r.unexpected.Add(1)
	r.fail("close:" + strconv.Itoa(code))
	r.log.Warn("connection ended", "player", p.name, "err", err)
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
	msg := `{"type":"` + protocol.TypeMove + `","id":"` + id + `","cell":` + strconv.Itoa(cell) + `,"digit":` + strconv.Itoa(digit) + `}`
	r.sent.Add(1)
	// Not ctx: a write cut short by the window's end would close the
	// socket (the library does), which is no failure of the server's.
	if err := p.write(context.Background(), []byte(msg)); err != nil && !r.closing.Load() {
		r.fail(ErrWrite)
	}
}
