package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/sudoku-arena/arena/protocol"
)

// The chaos players' pace: a move a tick; a refused move is sent again
// after refusedPause; a move unanswered for stallAfter, or a board the
// player thinks complete with no finish for resyncAfter, gives the socket
// up (a paused node answers nothing; a board seen through a resumed
// replay may be out of step with a new owner's). A patient player waits
// patientStall instead, longer than any fault: a client without the web
// client's heartbeat, or a hidden tab's, which stays on a node that
// stalls and goes on there when it wakes.
const (
	chaosTick    = 250 * time.Millisecond
	refusedPause = 300 * time.Millisecond
	stallAfter   = 4 * time.Second
	patientStall = 60 * time.Second
	resyncAfter  = 30 * time.Second
	joinTry      = 5 * time.Second
)

// chaosAck is a move the server acknowledged: the mover read it back
// with a seq (live, or in the replay of a resumed welcome).
type chaosAck struct {
	room, player, id string
	cell, digit      int
	seq              int64
	at               time.Time // when the client read it
}

// chaosFinish is a finish a player was told of: a racer's (player, rank)
// or, in co-op, the team's (player "").
type chaosFinish struct {
	room, player string
	rank         int
	heardBy      string
	at           time.Time
}

// chaosRecord is what the players were told, for comparison with what
// the database holds afterwards, and how play went.
type chaosRecord struct {
	mu         sync.Mutex
	acks       []chaosAck
	finishes   []chaosFinish
	tally      map[string]int    // refused moves and joins by code, sockets ended by close code
	samples    map[string]string // a join's error for each kind in tally
	reconnects int
	stalls     int
	resyncs    int
	noops      int // echoes of a move that changed nothing (no seq): no acknowledgement
}

func newChaosRecord() *chaosRecord {
	return &chaosRecord{tally: map[string]int{}, samples: map[string]string{}}
}

func (r *chaosRecord) ack(a chaosAck) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.acks = append(r.acks, a)
}

func (r *chaosRecord) finish(f chaosFinish) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finishes = append(r.finishes, f)
}

func (r *chaosRecord) count(what *int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	*what++
}

func (r *chaosRecord) note(what string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tally[what]++
}

func (r *chaosRecord) sample(what string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.samples[what]; !ok {
		r.samples[what] = err.Error()
	}
}

// roomAcks are the acknowledgements of room id, in the order the
// clients read them.
func (r *chaosRecord) roomAcks(id string) []chaosAck {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []chaosAck
	for _, a := range r.acks {
		if a.room == id {
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].at.Before(out[j].at) })
	return out
}

// chaosPlayer plays one seat of a room through faults: it moves a tick
// at a time at the pace its schedule sets, sends a refused move again a
// moment later, and when its socket ends (or stalls) comes back with its
// token and last_seq through the balancer, at once or, after a close
// with 1001, when its hint says (as the web client does). It records every move
// acknowledged to it and every finish it is told of.
type chaosPlayer struct {
	rec      *chaosRecord
	r        *liveRoom
	name, id string
	token    string
	cells    []int
	board    map[int]int // its cells' digits as last told
	lastSeq  int64
	acked    map[string]bool // its move ids acknowledged
	n        int             // moves sent, for their ids
	start    time.Time       // the schedule's start
	due      time.Duration   // when every cell should hold its digit
	lb       endpoint
	first    *wsPlayer     // the socket it joined on
	stall    time.Duration // how long a move may go unanswered
	done     bool          // told it finished (race), or the team did (co-op)
	over     bool          // its moves are refused as finished: it waits to be told
	resync   bool          // the next rejoin asks for a snapshot
	after    time.Duration // how long the next rejoin waits first
}

func newChaosPlayer(rec *chaosRecord, r *liveRoom, i int, lb endpoint, start time.Time, due, stall time.Duration) *chaosPlayer {
	p := r.players[i]
	cp := &chaosPlayer{rec: rec, r: r, name: p.name, id: p.id, token: p.token, cells: r.cellsOf(i), first: p, stall: stall,
		board: map[int]int{}, lastSeq: p.lastSeq, acked: map[string]bool{}, start: start, due: due, lb: lb}
	for _, cell := range cp.cells {
		cp.board[cell] = 0
	}
	return cp
}

// run plays until the player is done or ctx ends, starting on the
// socket of ws (joined and running).
func (cp *chaosPlayer) run(ctx context.Context, ws *wsPlayer) {
	for ctx.Err() == nil && !cp.done {
		cp.play(ctx, ws)
		ws.close()
		if cp.done || ctx.Err() != nil {
			return
		}
		wait := cp.after
		cp.after = 0
		if ws = cp.rejoin(ctx, wait); ws == nil {
			return
		}
	}
	ws.close()
}

// rejoin comes back through the balancer with the token and last_seq
// (none after a resync: a snapshot), again and again until a welcome or
// the end of ctx: first after wait, then a moment after each failure, or
// as long as a close's hint says. As the web client, it names the room
// in the URL (nginx's hash) on every other try only: the node the room
// hashes to may be the one that stalls.
func (cp *chaosPlayer) rejoin(ctx context.Context, wait time.Duration) *wsPlayer {
	cp.rec.count(&cp.rec.reconnects)
	sleepCtx(ctx, wait)
	for try := 0; ctx.Err() == nil; try++ {
		last := cp.lastSeq
		if cp.resync {
			last = 0
		}
		tctx, cancel := context.WithTimeout(ctx, joinTry)
		via := cp.lb
		if try%2 == 1 {
			via = unhinted{cp.lb} // as the web client, every other try
		}
		ws, err := dialPlayer(tctx, via, cp.r.id, cp.name, cp.token, last)
		cancel()
		if err == nil {
			cp.resync = false
			cp.welcomed(ws)
			return ws
		}
		what := "join refused " + refusalCode(err)
		cp.rec.note(what)
		cp.rec.sample(what, err)
		sleepCtx(ctx, retryHint(err, refusedPause))
	}
	return nil
}

var secondsInReason = regexp.MustCompile(`(\d+)\s*s\b`)

// retryHint is how long a client waits before it joins again after err:
// a close with 1001 ("server restarting: reconnect in 5s") as long as its
// reason says and up to 1.5 s more, as the web client does (net.js);
// after any other error, otherwise.
func retryHint(err error, otherwise time.Duration) time.Duration {
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.StatusGoingAway {
		return otherwise
	}
	s := 5
	if m := secondsInReason.FindStringSubmatch(ce.Reason); m != nil {
		s, _ = strconv.Atoi(m[1])
	}
	return time.Duration(s)*time.Second + time.Duration(rand.IntN(1500))*time.Millisecond
}

var (
	codeInError   = regexp.MustCompile(`"code":"([a-z_]+)"`)
	statusInError = regexp.MustCompile(`status code 101 but got (\d+)`)
	closeInError  = regexp.MustCompile(`received close frame: status = (\w+)`)
)

// refusalCode is what ended a join that brought no welcome: the error
// code of a refusal, the HTTP status of a refused upgrade (nginx's 502
// when it counts every node failed), the close code of a socket closed
// before the welcome, or "failed" (a timeout, a reset).
func refusalCode(err error) string {
	text := err.Error()
	if m := codeInError.FindStringSubmatch(text); m != nil {
		return m[1]
	}
	if m := statusInError.FindStringSubmatch(text); m != nil {
		return "http " + m[1]
	}
	if m := closeInError.FindStringSubmatch(text); m != nil {
		return "closed " + m[1]
	}
	return "failed"
}

// transient reports whether a refusal's code says to send the message
// again in a moment: nothing was done.
func transient(code string) bool {
	switch code {
	case protocol.CodeRetry, protocol.CodeOverloaded, protocol.CodeUnavailable, protocol.CodeRateLimited:
		return true
	}
	return false
}

// welcomed takes what a welcome says: a snapshot's board and whether the
// player (or the team) has finished; a resumed welcome's replay follows
// as events.
func (cp *chaosPlayer) welcomed(ws *wsPlayer) {
	cp.lastSeq = max(cp.lastSeq, ws.lastSeq)
	s := ws.welcome.Room
	if s == nil {
		return
	}
	cp.lastSeq = ws.welcome.Seq
	for _, cell := range cp.cells {
		if cell < len(s.Board) && s.Board[cell] >= '1' && s.Board[cell] <= '9' {
			cp.board[cell] = int(s.Board[cell] - '0')
		} else {
			cp.board[cell] = 0
		}
	}
	if s.Phase == protocol.PhaseFinished {
		cp.done = true
	}
	for _, pv := range s.Players {
		if pv.ID == cp.id && pv.Rank > 0 {
			cp.done = true
		}
	}
}

// pending is a move sent and not yet answered.
type pending struct {
	id          string
	cell, digit int
	sent        time.Time
	refused     bool // refused for now (retry, overloaded, unavailable): sent again at resend
	resend      time.Time
}

// inbound is a frame read from the socket, or the error that ended it.
type inbound struct {
	data []byte
	err  error
}

// play moves on ws until its socket ends, stalls, or the player is done.
func (cp *chaosPlayer) play(ctx context.Context, ws *wsPlayer) {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	frames := make(chan inbound, 64)
	go func() {
		for {
			_, data, err := ws.conn.Read(rctx)
			select {
			case frames <- inbound{data, err}:
			case <-rctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	tick := time.NewTicker(chaosTick + time.Duration(rand.IntN(20))*time.Millisecond)
	defer tick.Stop()
	var wait *pending
	idleSince := time.Now()
	for !cp.done {
		select {
		case <-ctx.Done():
			return
		case in := <-frames:
			if in.err != nil {
				cp.rec.note("socket closed " + closedWith(in.err))
				cp.after = retryHint(in.err, 0)
				return
			}
			if cp.handle(in.data, &wait) {
				idleSince = time.Now()
			}
		case now := <-tick.C:
			switch {
			case wait != nil && !wait.refused && now.Sub(wait.sent) > cp.stall:
				cp.rec.count(&cp.rec.stalls)
				return
			case wait != nil && wait.refused && now.After(wait.resend):
				if cp.send(ctx, ws, wait) != nil {
					return
				}
			case wait == nil:
				next := cp.next(now)
				if next == nil {
					if now.Sub(idleSince) > resyncAfter {
						cp.rec.count(&cp.rec.resyncs)
						cp.resync = true
						return
					}
					continue
				}
				wait = next
				if cp.send(ctx, ws, wait) != nil {
					return
				}
			}
		}
	}
}

// send sends the move under a fresh id.
func (cp *chaosPlayer) send(ctx context.Context, ws *wsPlayer, m *pending) error {
	cp.n++
	m.id, m.sent, m.refused = fmt.Sprintf("%s-%d", cp.name, cp.n), time.Now(), false
	return ws.send(ctx, map[string]any{"type": "move", "id": m.id, "cell": m.cell, "digit": m.digit})
}

// next is the move the schedule asks for now, or nil: a digit placed
// while more cells are empty than the schedule allows, otherwise a placed
// digit cleared, so that the player keeps moving until its due time and
// then fills the rest; nil once every cell holds its digit.
func (cp *chaosPlayer) next(now time.Time) *pending {
	var empty, placed []int
	for _, cell := range cp.cells {
		if cp.board[cell] == int(cp.r.solution[cell]) {
			placed = append(placed, cell)
		} else {
			empty = append(empty, cell)
		}
	}
	if cp.over || len(empty) == 0 {
		return nil // done: the finish is told once stored
	}
	left := 1 - float64(now.Sub(cp.start))/float64(cp.due)
	allowed := int(float64(len(cp.cells)) * max(left, 0))
	switch {
	case len(empty) > allowed:
		return &pending{cell: empty[0], digit: int(cp.r.solution[empty[0]])}
	case len(empty) <= allowed && len(placed) > 0:
		return &pending{cell: placed[len(placed)-1], digit: 0}
	}
	return nil
}

// serverFrame is what play reads of a frame.
type serverFrame struct {
	Type   string          `json:"type"`
	Seq    int64           `json:"seq"`
	ID     json.RawMessage `json:"id"`
	Player string          `json:"player"`
	Cell   int             `json:"cell"`
	Digit  int             `json:"digit"`
	Code   string          `json:"code"`
	Rank   int             `json:"rank"`
	Room   *struct {
		Phase string `json:"phase"`
	} `json:"room"`
}

// handle takes one frame and reports whether it moved the player's game
// on (an answer to its move, a finish).
func (cp *chaosPlayer) handle(data []byte, wait **pending) bool {
	var f serverFrame
	if err := json.Unmarshal(data, &f); err != nil {
		return false
	}
	cp.lastSeq = max(cp.lastSeq, f.Seq)
	var id string
	_ = json.Unmarshal(f.ID, &id)
	mine := *wait != nil && id == (*wait).id
	switch f.Type {
	case protocol.TypeMove:
		if f.Player != cp.id {
			return false
		}
		if _, ok := cp.board[f.Cell]; ok {
			cp.board[f.Cell] = f.Digit
		}
		switch {
		case f.Seq == 0:
			cp.rec.count(&cp.rec.noops)
		case strings.HasPrefix(id, cp.name+"-") && !cp.acked[id]:
			cp.acked[id] = true
			cp.rec.ack(chaosAck{room: cp.r.id, player: cp.id, id: id, cell: f.Cell, digit: f.Digit, seq: f.Seq, at: time.Now()})
		}
		if mine {
			*wait = nil
		}
		return mine
	case protocol.TypeError:
		if !mine {
			return false
		}
		cp.rec.note("move refused " + f.Code)
		switch {
		case transient(f.Code):
			(*wait).refused, (*wait).resend = true, time.Now().Add(refusedPause)
		case f.Code == protocol.CodeFinished:
			cp.over = true
			*wait = nil
		default:
			*wait = nil
		}
		return true
	case protocol.TypeFinish:
		cp.rec.finish(chaosFinish{room: cp.r.id, player: f.Player, rank: f.Rank, heardBy: cp.id, at: time.Now()})
		if f.Player == "" || f.Player == cp.id {
			cp.done = true
		}
		return true
	case protocol.TypeState:
		if f.Room != nil && f.Room.Phase == protocol.PhaseFinished {
			cp.done = true
		}
	}
	return false
}

func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// closedWith is the close code of a socket's end, for the record.
func closedWith(err error) string {
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		return fmt.Sprint(int(ce.Code))
	}
	return "no close frame"
}
