package room

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
)

// ErrClosed is what a room that has ended answers.
var ErrClosed = errors.New("room: closed")

// Frame is one event, encoded once, on its way to a connection. At is when
// the message that caused it reached the room (or when the room acted on its
// own), for the broadcast-latency measure.
type Frame struct {
	Data []byte
	At   time.Time
	Type string
}

// CloseReason says why the room closes a connection; the server maps it to
// a WebSocket close code.
type CloseReason int

const (
	// CloseReplaced: the same player opened another connection.
	CloseReplaced CloseReason = iota + 1
	// CloseRoomEnded: the room ended (idle, or everyone left).
	CloseRoomEnded
	// CloseGoingAway: the server is shutting down; the room is saved and
	// the client may come back once it is up again.
	CloseGoingAway
	// CloseLeft: the member left the room.
	CloseLeft
	// CloseMoved: another node owns the room now (Registry.Evict); the
	// client reconnects at once with its token, through any node.
	CloseMoved
)

// Conn is a member's connection as the room sees it.
type Conn interface {
	// Send queues a frame and must never block: when the connection's
	// queue is full it returns false and closes itself as too slow.
	Send(Frame) bool
	// Close ends the connection for the reason given.
	Close(CloseReason)
}

// A Holder is a Conn that can hold the frames sent to it: those sent
// between Hold and Release are written together, so that a flush's frames
// for one member cost one write, not one each.
type Holder interface {
	Hold()
	Release()
}

// Room is the goroutine that owns a Game: every command reaches it on a
// channel, so the game needs no lock, and nothing in the loop waits on a
// player or on the database (sends are non-blocking, storage runs in its
// own goroutines and reports back as a command).
type Room struct {
	id    string
	g     *Game
	reg   *Registry
	cmds  chan func(now time.Time)
	done  chan struct{}
	conns map[string]Conn
	// idleSince is when the last member disconnected (or the room was
	// made); the room ends IdleTimeout after it if nobody is back.
	idleSince time.Time
	at        time.Time // when the command being handled arrived
	pending   int       // storage goroutines not yet reported back
	// saving is set while a save is in flight; saveAgain asks for another
	// once it is done. savedSeq is the seq of the last state saved.
	saving, saveAgain bool
	savedSeq          int64
	// dailyKeys are the registry's dailies entries for this room; the
	// registry's lock guards them.
	dailyKeys []dailyKey
	// frames and spans are flushOnce's, kept between flushes so that
	// sending allocates only the frames' bytes and the records.
	frames []Frame
	spans  []span
	// gameID is the store's id of round gameRound, kept so that a flush
	// in a rematch's round does not format it again.
	gameID    string
	gameRound int
	// cancel ends the room's run; moved, set before, makes it end as
	// moved to another node (Registry.Evict).
	cancel context.CancelFunc
	moved  atomic.Bool
}

// saveEvery is how often a room whose state changed is saved besides its
// phase changes. What a crash loses is bounded by the event log instead
// (Restore replays the events after the last save); saving bounds how many
// events there are to replay.
const saveEvery = 30 * time.Second

func (r *Room) log() *slog.Logger { return r.reg.logger }

// ID is the room's id.
func (r *Room) ID() string { return r.id }

// Done is closed when the room has ended.
func (r *Room) Done() <-chan struct{} { return r.done }

// do runs f on the room's goroutine; it waits for room space, not for f.
func (r *Room) do(ctx context.Context, f func(now time.Time)) error {
	select {
	case r.cmds <- f:
		return nil
	case <-r.done:
		return ErrClosed
	case <-ctx.Done():
		return fmt.Errorf("room %s: %w", r.id, ctx.Err())
	}
}

// call runs f on the room's goroutine and waits for it.
func (r *Room) call(ctx context.Context, f func(now time.Time)) error {
	fin := make(chan struct{})
	if err := r.do(ctx, func(now time.Time) { f(now); close(fin) }); err != nil {
		return err
	}
	select {
	case <-fin:
		return nil
	case <-r.done:
		return ErrClosed
	case <-ctx.Done():
		return fmt.Errorf("room %s: %w", r.id, ctx.Err())
	}
}

// Join is a join request: the member's id (the player's, or a spectator's
// made up by the server), their name, and the token to echo in the welcome.
type Join struct {
	ID        string
	Name      string
	Token     string
	Spectator bool
	LastSeq   int64
	// History asks for the room's recent events in a welcome with a
	// snapshot (Game.History).
	History bool
	// Guest says the player has no account: the room shows them as a
	// guest.
	Guest bool
}

// Attach joins a member with its connection. The welcome (and any replayed
// events) are sent on conn before anything else. A refused join returns the
// room's Error.
func (r *Room) Attach(ctx context.Context, j Join, conn Conn) error {
	var day, level, mode string
	if !j.Spectator {
		if err := r.call(ctx, func(time.Time) { day, level, mode = r.g.Day(), r.g.Puzzle().Level, r.g.Mode() }); err != nil {
			return err
		}
	}
	// A player's attempt at a daily (can their finish rank, since when
	// does its clock run) is asked here, beside the room, so that the
	// room never waits on the database. When the store does not answer,
	// the finish is taken for a first one, timed from this round; the
	// store keeps one ranked finish a day and level.
	var attempt Attempt
	if day != "" {
		sctx, cancel := context.WithTimeout(ctx, r.reg.cfg.StoreTimeout)
		var err error
		attempt, err = r.reg.store.DailyAttempt(sctx, day, level, j.ID)
		cancel()
		if err != nil {
			r.log().Warn("room: the player's daily attempt", "room", r.id, "player", j.ID, "err", err)
		}
	}
	var jerr *protocol.Error
	err := r.call(ctx, func(now time.Time) {
		if j.Guest && !j.Spectator {
			r.g.Guest(j.ID)
		}
		if day != "" {
			r.g.Attempt(j.ID, attempt)
			if attempt.Copy != 0 {
				r.g.Copy(engine.NewIsomorph(attempt.Copy))
			}
		}
		w, replay, e := r.g.Join(now, j.ID, j.Name, j.Spectator, j.LastSeq)
		if e != nil {
			jerr = e
			return
		}
		if old, ok := r.conns[j.ID]; ok {
			old.Close(CloseReplaced)
		} else {
			r.reg.stats.members.Add(1)
		}
		r.conns[j.ID] = conn
		w.You.Token = j.Token
		if j.History && w.Room != nil {
			w.History = r.g.History(j.ID)
		}
		conn.Send(r.frame(w))
		for i := range replay {
			conn.Send(r.frame(replay[i].Event))
		}
	})
	if err != nil {
		return err
	}
	if jerr != nil {
		return jerr
	}
	if mode == ModeDaily {
		r.reg.playing(j.ID, day, level, r)
	}
	return nil
}

// Admits says whether newcomer id ("" for one not made yet) may join now
// (see Game.Admits), so that a caller can refuse a join before doing work
// for it, such as storing a new player.
func (r *Room) Admits(ctx context.Context, id string, spectator bool) error {
	var e *protocol.Error
	if err := r.call(ctx, func(time.Time) { e = r.g.Admits(id, spectator) }); err != nil {
		return err
	}
	if e != nil {
		return e
	}
	return nil
}

// Detach is a member's connection ending; it is a no-op when conn is no
// longer the member's (a second tab replaced it).
func (r *Room) Detach(id string, conn Conn) {
	_ = r.do(context.Background(), func(now time.Time) {
		if r.conns[id] != conn {
			return
		}
		r.dropConn(id)
		r.g.Disconnect(now, id)
	})
}

func (r *Room) dropConn(id string) {
	delete(r.conns, id)
	r.reg.stats.members.Add(-1)
	if len(r.conns) == 0 {
		r.idleSince = r.reg.clock.Now()
	}
}

// Message hands a client message from member id's connection to the room.
// at is when it was read. A connection the member no longer holds (a
// second tab replaced it, or it was dropped as too slow) is ignored: its
// last frames must not act for the player.
func (r *Room) Message(ctx context.Context, id string, conn Conn, msg *protocol.Msg, at time.Time) error {
	d, _ := deliveries.Get().(*delivery)
	if d == nil {
		d = new(delivery)
		d.run = d.handle
	}
	d.r, d.id, d.conn, d.msg, d.at = r, id, conn, msg, at
	if err := r.do(ctx, d.run); err != nil {
		d.release()
		return err
	}
	return nil
}

// delivery is a client message on its way to the room's goroutine. They
// are pooled, each with its command made once (run), so that handing the
// room a message allocates nothing.
type delivery struct {
	r    *Room
	id   string
	conn Conn
	msg  *protocol.Msg
	at   time.Time
	run  func(now time.Time)
}

// deliveries are the deliveries not in use. A delivery whose room ended
// before handling it is not put back, and is collected as any garbage.
var deliveries sync.Pool

// release empties d and returns it to the pool.
func (d *delivery) release() {
	*d = delivery{run: d.run}
	deliveries.Put(d)
}

// handle is the delivery's command: the message handled on the room's
// goroutine.
func (d *delivery) handle(now time.Time) {
	r, id, conn, msg, at := d.r, d.id, d.conn, d.msg, d.at
	d.release()
	if r.conns[id] != conn || r.moved.Load() {
		// A room another node owns now takes nothing more, though it
		// still runs until its storage work is back: what it applied
		// would be acknowledged and then refused as fenced. Its
		// connections close with CloseMoved, and the message goes to
		// the new owner once the client resumes there.
		return
	}
	r.at = at
	if msg.Type == protocol.TypeMove {
		r.reg.stats.moves.Add(1)
	}
	e := r.g.Handle(now, id, msg)
	if e != nil && e.Code != protocol.CodeConflict {
		conn.Send(r.frame(e.Event(r.g.Seq(), msg.ID)))
	}
	if _, still := r.g.Member(id); msg.Type == protocol.TypeLeave && !still {
		r.dropConn(id)
		conn.Close(CloseLeft)
	}
}

// Snapshot is the room as an outsider sees it.
func (r *Room) Snapshot(ctx context.Context) (protocol.Snapshot, error) {
	var s protocol.Snapshot
	err := r.call(ctx, func(now time.Time) { s = r.g.Snapshot("", now) })
	return s, err
}

// run is the room's goroutine. Its timers run on the registry's clock: one
// for the game's next deadline or the idle end, one for the periodic save.
func (r *Room) run(ctx context.Context) {
	defer close(r.done)
	clock := r.reg.clock
	start := clock.Now()
	timer := clock.NewTimer(start.Add(time.Hour))
	defer timer.Stop()
	saves := clock.NewTimer(start.Add(saveEvery))
	defer saves.Stop()
	r.flush(ctx) // a restored game may have finishes to store
	for {
		if r.moved.Load() {
			// Evicted: the room ends now, not at whichever turn the
			// select below picks its cancelled context over a command
			// or a timer ready too.
			r.end(ctx, clock.Now(), CloseMoved)
			return
		}
		wake := r.g.Deadline()
		if len(r.conns) == 0 && r.pending == 0 {
			if idleEnd := r.idleSince.Add(r.reg.cfg.IdleTimeout); wake.IsZero() || idleEnd.Before(wake) {
				wake = idleEnd
			}
		}
		if !wake.IsZero() {
			timer.Reset(wake)
		} else {
			timer.Stop()
		}
		select {
		case f := <-r.cmds:
			now := clock.Now()
			r.at = now
			f(now)
		case <-timer.C():
			now := clock.Now()
			r.at = now
			r.g.Tick(now)
			if len(r.conns) == 0 && r.pending == 0 && !now.Before(r.idleSince.Add(r.reg.cfg.IdleTimeout)) {
				r.flush(ctx)
				r.end(ctx, now, CloseRoomEnded)
				return
			}
		case <-saves.C():
			saves.Reset(clock.Now().Add(saveEvery))
			if r.g.Seq() != r.savedSeq {
				r.save(ctx)
			}
		case <-ctx.Done():
			why := CloseGoingAway
			if r.moved.Load() {
				why = CloseMoved
			}
			r.flush(ctx)
			r.end(ctx, clock.Now(), why)
			return
		}
		r.flush(ctx)
	}
}
