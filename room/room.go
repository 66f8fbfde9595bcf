package room

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sudoku-arena/arena/internal/backoff"
)

// ErrClosed is what a room that has ended answers.
var ErrClosed = errors.New("room: closed")

// ErrRefused is what a Store wraps when it refuses a write for good (not
// because the database is away), so that the room stops retrying it.
var ErrRefused = errors.New("room: refused by the store")

// Retry bounds of a finish whose write failed: the wait doubles from the
// first to the last, each drawn from its upper half.
const (
	resultRetryMin = 250 * time.Millisecond
	resultRetryMax = 10 * time.Second
)

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

// Store is what rooms need kept. cmd wires it to the store package; tests
// use an in-memory one.
type Store interface {
	// NewGame takes a fresh puzzle of the level and records a game with it
	// (gameID is the room's id, or "ROOM.N" for round N).
	NewGame(ctx context.Context, roomID, gameID, mode, level string) (Puzzle, error)
	// DailyGame records a game with the daily puzzle of the day
	// (YYYY-MM-DD, UTC) and level, the same for every caller.
	DailyGame(ctx context.Context, roomID, gameID, mode, level, day string) (Puzzle, error)
	// OwnGame stores a puzzle a player gave (its Level the grade's; ID
	// unset) and records a game with it, returning it with its stored ID.
	OwnGame(ctx context.Context, roomID, gameID, mode string, pz Puzzle) (Puzzle, error)
	// DailyPlayed reports whether the player has a ranked finish of the
	// day's daily of the level, so that another attempt is unranked.
	DailyPlayed(ctx context.Context, day, level, playerID string) (bool, error)
	// SaveResults stores one finish (a racer's result, or all of a team's)
	// in one transaction: all of it or none. Saving a finish again once it
	// is stored must change nothing, for it is retried after any error.
	// An error that retrying cannot cure (the database refuses the values)
	// wraps ErrRefused.
	SaveResults(ctx context.Context, rs []Result) error
	// SaveRoom stores the room's state, from which Restore rebuilds it.
	SaveRoom(ctx context.Context, s *Saved) error
	// LoadRooms lists the saved rooms that had not finished.
	LoadRooms(ctx context.Context) ([]*Saved, error)
	// RecordEvents queues logged events for storage; it must not block.
	RecordEvents(gameID string, events []Record)
	// LoadEvents reads back the recorded events of a game with a seq
	// after the one given, in order, for Restore to replay onto the
	// game's saved state.
	LoadEvents(ctx context.Context, gameID string, afterSeq int64) ([]Record, error)
}

// Record is a logged event for the store: the event in full, as the room
// knows it rather than as any member sees it (a racer's mistakes are in
// it), so that replaying the records after a saved state rebuilds the
// room. Records are the server's own and never go to a client.
type Record struct {
	Seq    int64
	Type   string
	Player string
	Data   json.RawMessage
	At     time.Time
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
	// Whether a player of a daily has a ranked finish of it already is
	// asked here, beside the room, so that the room never waits on the
	// database. When the store does not answer, the finish is taken for
	// a first one; the store keeps one ranked finish a day and level.
	played := false
	if day != "" {
		sctx, cancel := context.WithTimeout(ctx, r.reg.cfg.StoreTimeout)
		var err error
		played, err = r.reg.store.DailyPlayed(sctx, day, level, j.ID)
		cancel()
		if err != nil {
			r.log().Warn("room: whether the daily was played", "room", r.id, "player", j.ID, "err", err)
		}
	}
	var jerr *Error
	err := r.call(ctx, func(now time.Time) {
		if played {
			r.g.Attempted(j.ID)
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

// Admits says whether a newcomer may join now (see Game.Admits), so that a
// caller can refuse a join before doing work for it, such as storing a
// new player.
func (r *Room) Admits(ctx context.Context, spectator bool) error {
	var e *Error
	if err := r.call(ctx, func(time.Time) { e = r.g.Admits(spectator) }); err != nil {
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
func (r *Room) Message(ctx context.Context, id string, conn Conn, msg *Msg, at time.Time) error {
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
	msg  *Msg
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
	if r.conns[id] != conn {
		return
	}
	r.at = at
	if msg.Type == TypeMove {
		r.reg.stats.moves.Add(1)
	}
	e := r.g.Handle(now, id, msg)
	if e != nil && e.Code != CodeConflict {
		conn.Send(r.frame(e.Event(r.g.Seq(), msg.ID)))
	}
	if _, still := r.g.Member(id); msg.Type == TypeLeave && !still {
		r.dropConn(id)
		conn.Close(CloseLeft)
	}
}

// Snapshot is the room as an outsider sees it.
func (r *Room) Snapshot(ctx context.Context) (Snapshot, error) {
	var s Snapshot
	err := r.call(ctx, func(now time.Time) { s = r.g.Snapshot("", now) })
	return s, err
}

// frame is ev encoded as a frame of its own (a welcome, a replayed event,
// an error answering one member).
func (r *Room) frame(ev Event) Frame {
	buf := encodeBuffers.Get().(*[]byte)
	*buf = appendEvent((*buf)[:0], ev)
	data := bytes.Clone(*buf)
	encodeBuffers.Put(buf)
	return Frame{Data: data, At: r.at, Type: ev.header().Type}
}

// encodeBuffers are the buffers events are encoded in before their bytes
// are copied out, shared by the rooms rather than one kept by each.
var encodeBuffers = sync.Pool{New: func() any { return new([]byte) }}

// span is where one encoded event lies in a flush's bytes.
type span struct{ start, end int }

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

// flush sends the game's queued outputs and starts its effects.
func (r *Room) flush(ctx context.Context) {
	// Sending can drop a slow member, which queues their presence event:
	// go round until nothing is left.
	for r.flushOnce(ctx) {
	}
}

// flushOnce sends what the game has queued and reports whether there was
// anything.
func (r *Room) flushOnce(ctx context.Context) bool {
	out, effects := r.g.Drain()
	logged := r.g.DrainRecords()
	if len(out) == 0 && len(effects) == 0 && len(logged) == 0 {
		r.g.reuse(out, logged)
		return false
	}
	frames, records := r.encode(out, logged)
	// Several outputs are held at the connections that can hold them and
	// go out together: each member's in one write.
	hold := len(out) > 1
	if hold {
		r.holdConns(Holder.Hold)
	}
	for i := range out {
		o, f := &out[i], frames[i]
		if o.To != "" {
			if c, ok := r.conns[o.To]; ok {
				r.send(o.To, c, f)
			}
			continue
		}
		for id, c := range r.conns {
			if id != o.Skip {
				r.send(id, c, f)
			}
		}
	}
	if hold {
		r.holdConns(Holder.Release)
	}
	clear(frames)
	if len(records) > 0 {
		r.reg.store.RecordEvents(r.roundID(), records)
	}
	r.g.reuse(out, logged)
	for _, e := range effects {
		r.effect(ctx, e)
	}
	return true
}

// holdConns calls Hold or Release on every connection that is a Holder.
func (r *Room) holdConns(f func(Holder)) {
	for _, c := range r.conns {
		if h, ok := c.(Holder); ok {
			f(h)
		}
	}
}

// roundID is the game's GameID, formatted once a round.
func (r *Room) roundID() string {
	if round := r.g.Round(); round != r.gameRound || r.gameID == "" {
		r.gameID, r.gameRound = r.g.GameID(), round
	}
	return r.gameID
}

// encode is the frames of the outputs, in order, and the records of the
// logged events, whose bytes are all copied out in one piece. What is
// stored is each event in full, never a member's view of it: enough to
// rebuild the room (Rebuild) after a crash. An event stored as it was sent
// (its view is the event in full) is encoded once.
func (r *Room) encode(out []Output, logged []Logged) ([]Frame, []Record) {
	buf := encodeBuffers.Get().(*[]byte)
	b, spans := (*buf)[:0], r.spans[:0]
	for i := range out {
		start := len(b)
		b = appendEvent(b, out[i].Event)
		spans = append(spans, span{start, len(b)})
	}
	for _, l := range logged {
		sent := -1
		for i := range out {
			if out[i].Logged && out[i].Event == l.Event {
				sent = i
				break
			}
		}
		if sent >= 0 {
			spans = append(spans, spans[sent])
			continue
		}
		start := len(b)
		b = appendEvent(b, l.Event)
		spans = append(spans, span{start, len(b)})
	}
	data := bytes.Clone(b)
	*buf = b
	encodeBuffers.Put(buf)
	r.spans = spans

	frames := r.frames[:0]
	for i := range out {
		sp := spans[i]
		frames = append(frames, Frame{Data: data[sp.start:sp.end:sp.end], At: r.at, Type: out[i].Event.header().Type})
	}
	r.frames = frames
	var records []Record
	if len(logged) > 0 {
		records = make([]Record, len(logged))
		for i, l := range logged {
			sp := spans[len(out)+i]
			records[i] = record(l, data[sp.start:sp.end:sp.end])
		}
	}
	return frames, records
}

func (r *Room) send(id string, c Conn, f Frame) {
	if c.Send(f) {
		return
	}
	// The connection closed itself as too slow; the player keeps their
	// place for the reconnect window like any dropped player.
	r.reg.stats.dropped.Add(1)
	r.dropConn(id)
	r.g.Disconnect(r.reg.clock.Now(), id)
}

// record is a logged event as the store keeps it, data its encoding: dated
// as the game took it, so that a replay's evolve takes it at that time.
func record(l Logged, data []byte) Record {
	h := l.Event.header()
	return Record{Seq: h.Seq, Type: h.Type, Player: playerOf(l.Event), Data: data, At: l.At}
}

func playerOf(ev Event) string {
	switch e := ev.(type) {
	case *MoveEvent:
		return e.Player
	case *NoteEvent:
		return e.Player
	case *HintEvent:
		return e.Player
	case *ProgressEvent:
		return e.Player
	case *PresenceEvent:
		return e.Player
	case *FinishEvent:
		return e.Player
	case *ErrorEvent:
		return e.Player
	}
	return ""
}

// effect starts the storage work the game asked for.
func (r *Room) effect(ctx context.Context, e Effect) {
	st := r.reg.store
	switch {
	case len(e.Results) > 0:
		r.saveResults(ctx, e.Results)
	case e.NewRound > 0:
		round, mode, pz, own := e.NewRound, r.g.Mode(), r.g.Puzzle(), r.g.Own()
		r.beside(ctx, func(sctx context.Context) func(time.Time) {
			var err error
			if own {
				// A rematch on a player's own puzzle plays it again.
				pz, err = st.OwnGame(sctx, r.id, GameID(r.id, round), mode, pz)
			} else {
				pz, err = st.NewGame(sctx, r.id, GameID(r.id, round), mode, pz.Level)
			}
			return func(now time.Time) {
				if err != nil {
					r.log().Error("room: new round", "room", r.id, "round", round, "err", err)
					r.g.RematchFailed(now)
					return
				}
				r.g.Rematch(now, round, pz)
			}
		})
	case e.Save:
		r.save(ctx)
	}
}

// saveResults stores a finish beside the room, and tells the game once it
// is stored (Game.ResultsSaved announces it then, never before). While the
// database is away the write is tried again after a back-off, capped and
// jittered, on the registry's clock, for as long as it takes: the finish
// waits in the registry's backlog, the room keeps playing, and the room
// does not end while it waits. Once the registry shuts down one last try
// is made; a finish that still fails then is logged with every field, as
// the last place it is kept. A finish the store refuses for good is
// logged and announced, since retrying cannot store it and the game must
// go on.
func (r *Room) saveResults(ctx context.Context, rs []Result) {
	st, clock, stop := r.reg.store, r.reg.clock, r.reg.ctx.Done()
	waiting := r.reg.backlog.add(len(rs), clock.Now())
	r.beside(ctx, func(context.Context) func(time.Time) {
		defer r.reg.backlog.remove(waiting)
		wait := backoff.Backoff{Min: resultRetryMin, Max: resultRetryMax}
		for {
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.reg.cfg.StoreTimeout)
			err := st.SaveResults(sctx, rs)
			cancel()
			switch {
			case err == nil:
				if wait.Fails() > 0 {
					r.log().Info("room: finish stored after retries", "room", r.id, "game", rs[0].GameID, "results", len(rs), "failures", wait.Fails())
				}
			case errors.Is(err, ErrRefused):
				r.log().Error("room: finish refused by the store, announced unstored", "room", r.id, "err", err, "results", rs)
			default:
				select {
				case <-stop:
					r.log().Error("room: finish not stored at shutdown", "room", r.id, "err", err, "results", rs)
					return func(now time.Time) {}
				default:
				}
				d := wait.Next()
				r.log().Warn("room: finish not stored, retrying", "room", r.id, "game", rs[0].GameID, "results", len(rs), "failures", wait.Fails(), "backoff", d, "err", err)
				t := clock.NewTimer(clock.Now().Add(d))
				select {
				case <-t.C():
				case <-stop:
				}
				t.Stop()
				continue
			}
			return func(now time.Time) {
				r.g.ResultsSaved(now, rs)
				// A state saved while the finish waited says so
				// (Saved.Unstored); save again, so that a restart does
				// not store and announce it twice.
				r.save(ctx)
			}
		}
	})
}

// save stores the room's state beside the room. One save is in flight at a
// time, and a save asked for meanwhile follows it with the newest state, so
// an older state never lands last.
func (r *Room) save(ctx context.Context) {
	if r.saving {
		r.saveAgain = true
		return
	}
	r.saving = true
	s := r.g.Save(r.reg.clock.Now())
	r.savedSeq = s.Seq
	r.beside(ctx, func(sctx context.Context) func(time.Time) {
		if err := r.reg.store.SaveRoom(sctx, s); err != nil {
			r.log().Error("room: save", "room", r.id, "err", err)
		}
		return func(time.Time) {
			r.saving = false
			if r.saveAgain {
				r.saveAgain = false
				r.save(ctx)
			}
		}
	})
}

// beside runs storage work in a goroutine of its own, bounded by the store
// timeout and not cut short by the room's end, and hands what the work
// returns back to the room as a command.
func (r *Room) beside(ctx context.Context, work func(context.Context) func(now time.Time)) {
	r.pending++
	timeout := r.reg.cfg.StoreTimeout
	go func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		done := work(sctx)
		cancel()
		r.back(done)
	}()
}

// back reports a storage goroutine's outcome to the room. The room waits
// for its storage work before it ends, so this always has a taker.
func (r *Room) back(f func(now time.Time)) {
	r.cmds <- func(now time.Time) {
		r.pending--
		f(now)
	}
}

// end saves the room, closes its connections and leaves the registry. It
// first lets its storage goroutines report back, so no result is lost.
func (r *Room) end(ctx context.Context, now time.Time, why CloseReason) {
	for r.pending > 0 {
		f := <-r.cmds
		r.at = r.reg.clock.Now()
		f(r.at)
		r.flush(ctx)
	}
	if why != CloseMoved { // a moved room's state is its new owner's to save
		s := r.g.Save(now)
		s.Final = true
		if why == CloseRoomEnded {
			s.Ended = true
			s.Abandoned = s.Phase != PhaseFinished
		}
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.reg.cfg.StoreTimeout)
		if err := r.reg.store.SaveRoom(sctx, s); err != nil {
			r.log().Error("room: save at end", "room", r.id, "err", err)
		}
		cancel()
	}
	for id, c := range r.conns {
		c.Close(why)
		r.dropConn(id)
	}
	r.reg.remove(r)
}
