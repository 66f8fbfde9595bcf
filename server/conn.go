package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sudoku-arena/arena/internal/ws"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
)

// conn is one WebSocket: a reader that decodes, limits and forwards
// messages, which runs only while the socket has bytes to read (on Linux:
// it parks otherwise, in the server's ws.Poller), and a writer goroutine
// that runs only while frames wait, so that an idle connection holds no
// goroutine and no queue. The socket's frames are the transport's
// (ws.Conn).
type conn struct {
	s    *Server
	sock *ws.Conn

	mu sync.Mutex
	// queue is the frames waiting to be written, at most SendQueue; nil
	// when none wait.
	queue *batch
	// writing is set while a writer goroutine runs, and for good once
	// the socket is closed.
	writing bool
	// partial is a batch framed in its buf and written in part, up to
	// partialSent, by flushLocked: the writer sends the rest first
	// (ws.Conn.WriteRest), and the socket's other writes (a pong, the
	// keep-alive ping) wait for it, so that none cuts a frame.
	partial     *batch
	partialSent int
	// held is set between the room's Hold and Release: frames are queued
	// and the writer starts at the release, so that what one flush of
	// the room sends (a move and the progress it makes, say) goes out in
	// one write.
	held bool
	// closing is set once, by closeWith, with code, reason and drain.
	closing bool
	code    protocol.CloseCode
	reason  string
	drain   bool
	// timer is the join timeout until the connection joins a room, then
	// the keep-alive pings (tick); nil once the connection ends. One
	// timer on the server's clock, not a goroutine, so that an idle
	// connection holds none.
	timer Timer
	// done is closed once the socket is.
	done chan struct{}

	// joined is set once the connection is in a room.
	joined atomic.Bool
	// addr is the client's address as the per-address limits count it.
	addr string
	// fromNode is set on a connection another node relays (relay.go).
	fromNode bool
	// session is the secret of the session cookie the upgrade carried
	// (accounts.go), "" for none: a join without a token plays as its
	// player, looked up at the join.
	session string

	// pinged is set while a keep-alive ping waits for its answer, and
	// pingHeard is the socket's count of reads when it went (tick).
	pinged    bool
	pingHeard uint32

	// Owned by the reader goroutine.
	room    *room.Room
	id      string
	tokens  float64
	last    time.Time
	refused int
}

func newConn(s *Server, sock *ws.Conn) *conn {
	return &conn{
		s: s, sock: sock,
		done:   make(chan struct{}),
		tokens: float64(s.cfg.RateBurst),
		last:   s.clock.Now(),
	}
}

// Send queues a frame without blocking; a full queue closes the connection
// as too slow (the client may resume with its token and last seq).
func (c *conn) Send(f room.Frame) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.queue != nil && len(c.queue.frames) >= c.s.cfg.SendQueue {
		c.closeLocked(protocol.CloseTooSlow, "too slow: the send queue is full; reconnect with your token and last_seq", false)
		return false
	}
	if c.queue == nil {
		c.queue = getBatch()
	}
	c.queue.frames = append(c.queue.frames, f)
	if !c.held {
		c.flushLocked()
	}
	return true
}

// Hold makes the frames sent until Release wait for it (room.Holder).
func (c *conn) Hold() {
	c.mu.Lock()
	c.held = true
	c.mu.Unlock()
}

// Release starts writing what was sent since Hold (room.Holder).
func (c *conn) Release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.held = false
	if c.queue != nil {
		c.flushLocked()
	}
}

// flushLocked writes the queued frames now, on the sender's goroutine (a
// room's, mostly), when the socket takes them without waiting, which it
// does unless the client has stopped reading. What it does not take is a
// writer goroutine's to finish, as it is when a writer runs already or the
// connection is closing. Starting a goroutine for every batch cost the
// start, and the batch waited for that goroutine to be scheduled: on a
// busy machine that wait was most of a move's way to its last member.
// c.mu is held; it is let go while the socket is written.
func (c *conn) flushLocked() {
	if c.writing || c.closing {
		c.startWriterLocked()
		return
	}
	b := c.queue
	c.queue, c.writing = nil, true
	c.mu.Unlock()
	for _, f := range b.frames {
		b.buf = ws.AppendText(b.buf, f.Data)
	}
	n := c.sock.TryWrite(b.buf)
	whole := n == len(b.buf)
	if whole {
		c.observe(b.frames)
		putBatch(b)
	}
	c.mu.Lock()
	if !whole {
		c.partial, c.partialSent = b, n
		go c.write()
		return
	}
	c.writing = false
	if c.closing || c.queue != nil && !c.held {
		c.startWriterLocked()
	}
}

// Close is the room closing the connection.
func (c *conn) Close(why room.CloseReason) {
	switch why {
	case room.CloseReplaced:
		c.closeWith(protocol.CloseReplaced, "replaced: this player connected again elsewhere", true)
	case room.CloseRoomEnded:
		c.closeWith(protocol.CloseRoomEnded, "the room has ended", true)
	case room.CloseGoingAway:
		c.closeWith(protocol.CloseGoingAway, fmt.Sprintf("server restarting: reconnect in %ds with your token", int(c.s.cfg.RetryAfter/time.Second)), true)
	case room.CloseLeft:
		c.closeWith(protocol.CloseNormal, "you left the room", true)
	case room.CloseMoved:
		c.closeWith(protocol.CloseMoved, "the room moved: reconnect with your token", true)
	}
}

// closeWith makes the writer close the socket with code, after writing what
// is queued when drain is set. The first call sets the code.
func (c *conn) closeWith(code protocol.CloseCode, reason string, drain bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closeLocked(code, reason, drain)
}

func (c *conn) closeLocked(code protocol.CloseCode, reason string, drain bool) {
	if c.closing {
		return
	}
	c.closing, c.code, c.reason, c.drain = true, code, reason, drain
	c.startWriterLocked()
}

// startWriterLocked starts a writer unless one runs (or the socket is
// closed).
func (c *conn) startWriterLocked() {
	if !c.writing {
		c.writing = true
		go c.write()
	}
}

// serve reads the connection until it parks or ends.
func (c *conn) serve() {
	c.mu.Lock()
	c.timer = c.s.clock.AfterFunc(c.s.cfg.JoinTimeout, c.tick)
	c.mu.Unlock()
	c.ReadOn()
}

// ReadOn reads the connection until it parks or ends (ws.Reader: the
// server's poller calls it again once the parked socket has bytes). The
// reads' context is never cancelled: closing the socket is what ends
// them.
func (c *conn) ReadOn() {
	if c.read(context.Background()) {
		return
	}
	c.end()
}

// end is the connection's reading over: it leaves its room and waits for
// the writer to close the socket.
func (c *conn) end() {
	c.sock.Leave()
	c.mu.Lock()
	c.timer.Stop()
	c.timer = nil
	c.mu.Unlock()
	if c.room != nil {
		c.room.Detach(c.id, c)
	}
	// The writer closes the socket with the code set first (the reader may
	// have stopped because of it), or a plain normal closure.
	c.closeWith(protocol.CloseNormal, "", false)
	<-c.done
	c.s.dropConn(c)
}

// write is the writer: it writes the queued frames, a batch at a time,
// and returns when none are left, or closes the socket once closeWith
// has asked for it.
func (c *conn) write() {
	for {
		c.mu.Lock()
		if p := c.partial; p != nil {
			// The rest of a batch goes first, even before a close: a
			// frame cut short would garble the stream.
			sent := c.partialSent
			c.partial, c.partialSent = nil, 0
			c.mu.Unlock()
			// The socket's other writes (a pong, the keep-alive ping)
			// wait for this one (ws.Conn.WriteRest).
			err := c.sock.WriteRest(p.buf[sent:])
			if err == nil {
				c.observe(p.frames)
			}
			putBatch(p)
			if err != nil {
				c.writeFailed()
				return
			}
			continue
		}
		b := c.queue
		// A close wins over queued frames: a client closed as too slow
		// gets its close frame after the batch being written, not after
		// its whole backlog.
		if c.closing && !c.drain {
			b = nil
		}
		// A room is still sending: Release restarts the writer.
		if c.held && !c.closing {
			b = nil
		}
		if b == nil {
			closing := c.closing
			if !closing {
				c.writing = false
			}
			c.mu.Unlock()
			if closing {
				c.finish()
			}
			return
		}
		c.queue = nil
		c.mu.Unlock()
		err := c.writeBatch(b)
		putBatch(b)
		if err != nil {
			c.writeFailed()
			return
		}
	}
}

// writeFailed ends a connection whose socket would not take a write.
func (c *conn) writeFailed() {
	_ = c.sock.Close()
	close(c.done)
	c.sock.Wake() // a parked reader finds the socket closed
}

// finish closes the socket with the code closeWith set; the frames
// queued before a draining close have been written.
func (c *conn) finish() {
	if c.code == protocol.CloseTooSlow {
		c.s.metrics.slowClosed.Inc()
	}
	// The close handshake waits for the client's close frame, for up to
	// closeWait, unless it has come already.
	c.sock.CloseHandshake(ws.StatusCode(c.code), c.reason)
	close(c.done)
	c.sock.Wake() // a parked reader finds the socket closed
}

// writeBatch writes b's frames with one write to the socket, and records
// how long each took from its event.
func (c *conn) writeBatch(b *batch) error {
	c.sock.Cork(&b.buf)
	for _, f := range b.frames {
		c.sock.WriteText(f.Data)
	}
	if err := c.sock.Uncork(); err != nil {
		return fmt.Errorf("websocket: write: %w", err)
	}
	c.observe(b.frames)
	return nil
}

// observe records how long each frame took from its event to its write.
func (c *conn) observe(frames []room.Frame) {
	now := c.s.clock.Now()
	for _, f := range frames {
		if !f.At.IsZero() {
			c.s.metrics.latency.Observe(now.Sub(f.At).Seconds())
		}
	}
}

// read reads and handles the client's messages until the connection
// ends (false) or, for one that parks, until nothing is left to read
// (true: the poller starts another reader when there is).
func (c *conn) read(ctx context.Context) bool {
	for {
		in := c.sock.Next(c.sock.Parks())
		switch in.Kind {
		case ws.InputNone:
			if c.sock.Park() {
				return true
			}
		case ws.InputMessage:
			more := c.handle(ctx, in.Op, in.Msg.Bytes())
			ws.DoneWith(in.Msg)
			if !more {
				return false
			}
		default:
			c.ended(in)
			return false
		}
	}
}

// ended closes the connection for how its reading ended (in): with the
// code of the client's close, which is answered with its code and reason
// as RFC 6455 asks; with the code the transport gives a rule the client
// broke (1002, 1007, 1009: ws.Input.Code); or, the socket gone, plainly.
func (c *conn) ended(in ws.Input) {
	if in.Kind == ws.InputClose || in.Kind == ws.InputBad {
		c.closeWith(protocol.CloseCode(in.Code), in.Reason, false)
	}
}

// handle acts on one message the client sent, and reports whether the
// connection reads on.
func (c *conn) handle(ctx context.Context, op byte, data []byte) bool {
	at := c.s.clock.Now()
	if !c.allow(at) {
		return c.refuse(op, data)
	}
	c.refused = 0
	if op != ws.OpText {
		c.reply(protocol.Errorf(protocol.CodeBadJSON, "frames are JSON text, not binary"), nil)
		return true
	}
	msg, rerr := protocol.Decode(data)
	if rerr != nil {
		c.reply(rerr, protocol.IDOf(msg))
		return true
	}
	c.s.metrics.message(msg.Type)
	if msg.Type == protocol.TypeJoin && c.room == nil {
		if addr, err := c.s.owner(ctx, msg.Room, c.fromNode); err != nil || addr != "" {
			if err != nil {
				c.Close(room.CloseGoingAway)
			} else {
				c.relay(ctx, addr, data)
			}
			return false
		}
		if jerr := c.join(ctx, msg); jerr != nil {
			c.reply(jerr, msg.ID)
		} else {
			c.rearm(c.s.cfg.PingInterval) // the join timeout is over
		}
		return true
	}
	if c.room == nil {
		c.reply(protocol.Errorf(protocol.CodeNotJoined, "join a room first: {\"type\":\"join\",\"room\":ID,\"name\":NAME}"), msg.ID)
		return true
	}
	if changesGame(msg.Type) {
		if perr := c.s.refusal(); perr != nil {
			c.reply(perr, msg.ID)
			return true
		}
	}
	if err := c.room.Message(ctx, c.id, c, msg, at); err != nil {
		c.closeWith(protocol.CloseRoomEnded, "the room has ended", true)
		return false
	}
	return true
}

// tick is the connection's timer going off. Before the connection has
// joined a room it is the join timeout, which closes it with
// CloseJoinTimeout. After, it pings the client every PingInterval, and
// closes it with CloseIdle when nothing has come from it, the ping's
// answer included, within PingTimeout: a peer that vanished without a
// close (a laptop shut, a network gone) is then away at once, with its
// reconnect window running, rather than holding its place and socket
// until TCP gives up. Browsers answer pings by themselves. The ping is
// written here, and its answer is taken by the reader (ws.Conn.Next),
// which counts it as heard.
func (c *conn) tick() {
	if !c.joined.Load() {
		c.closeWith(protocol.CloseJoinTimeout, "no room joined in time", true)
		return
	}
	c.mu.Lock()
	pinged, heard, closing := c.pinged, c.pingHeard, c.closing
	c.mu.Unlock()
	if closing {
		return // no ping after the close frame
	}
	if pinged {
		if c.sock.Heard() == heard {
			c.closeWith(protocol.CloseIdle, "no answer to ping: reconnect with your token", false)
			return
		}
		c.mu.Lock()
		c.pinged = false
		c.mu.Unlock()
		c.rearm(max(c.s.cfg.PingInterval-c.s.cfg.PingTimeout, 0))
		return
	}
	heard = c.sock.Heard()
	if err := c.sock.Ping(); err != nil {
		c.closeWith(protocol.CloseIdle, "no answer to ping: reconnect with your token", false)
		return
	}
	c.mu.Lock()
	c.pinged, c.pingHeard = true, heard
	c.mu.Unlock()
	c.rearm(c.s.cfg.PingTimeout)
}

// rearm sets the timer to go off after d, unless the connection is
// ending.
func (c *conn) rearm(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timer != nil && !c.closing {
		c.timer.Reset(d)
	}
}

// allow takes a token from the connection's bucket.
func (c *conn) allow(now time.Time) bool {
	c.tokens += now.Sub(c.last).Seconds() * c.s.cfg.RateLimit
	c.last = now
	if burst := float64(c.s.cfg.RateBurst); c.tokens > burst {
		c.tokens = burst
	}
	if c.tokens < 1 {
		return false
	}
	c.tokens--
	return true
}

// refuse answers a message over the rate limit with rate_limited, naming
// it by its id when it has a valid one, and reports whether the connection
// stays open. RateBurst refusals in a row are each answered; the next one
// closes the connection with 4004 once the answers queued before it are
// written, so a client sees every refusal and then why it was closed.
func (c *conn) refuse(op byte, data []byte) bool {
	c.refused++
	if c.refused > c.s.cfg.RateBurst {
		c.closeWith(protocol.CloseRateLimited, "rate limited: too many messages", true)
		return false
	}
	var id json.RawMessage
	if op == ws.OpText {
		msg, _ := protocol.Decode(data)
		id = protocol.IDOf(msg)
	}
	c.reply(protocol.Errorf(protocol.CodeRateLimited, "too many messages: at most %g a second", c.s.cfg.RateLimit), id)
	return true
}

// reply answers this client alone with an error found before any room saw
// the message (its shape, the rate limit, a join that failed): such errors
// carry seq 0. Errors from a room's rules come from the room, with its seq.
func (c *conn) reply(e *protocol.Error, id json.RawMessage) {
	data, err := json.Marshal(e.Event(0, id))
	if err != nil {
		return
	}
	c.Send(room.Frame{Data: data, Type: protocol.TypeError})
}

// join looks up or creates the player and attaches the connection to the
// room.
func (c *conn) join(ctx context.Context, msg *protocol.Msg) *protocol.Error {
	rm, err := c.s.rooms.Get(msg.Room)
	if err != nil {
		return protocol.Errorf(protocol.CodeRoomNotFound, "no live room has the id %q", msg.Room)
	}
	j := room.Join{Name: msg.Name, LastSeq: msg.LastSeq, History: msg.History, Spectator: msg.As == protocol.RoleSpectator}
	// A resume (last_seq) is let in while the brake is on or the lease
	// is not held: the player is in the room already, and coming back
	// stores one event.
	if j.LastSeq == 0 {
		if perr := c.s.refusal(); perr != nil {
			return perr
		}
	}
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var sp *SessionPlayer
	if !j.Spectator && msg.Token == "" && c.session != "" {
		var perr *protocol.Error
		if sp, perr = c.sessionPlayer(sctx); perr != nil {
			return perr
		}
	}
	switch {
	case j.Spectator:
		j.ID = newMemberID("s_")
		if j.Name == "" {
			j.Name = "Spectator"
		}
	case msg.Token != "":
		id, name, guest, err := c.s.playerByToken(sctx, HashToken(msg.Token))
		if errors.Is(err, room.ErrUnknownPlayer) {
			return protocol.Errorf(protocol.CodeBadToken, "the token is not a player's: join without it to play as someone new")
		}
		if err != nil {
			c.s.log.Error("join: player by token", "err", err)
			return protocol.Errorf(protocol.CodeUnavailable, "the server cannot check tokens just now: try again")
		}
		j.ID, j.Token, j.Guest = id, msg.Token, guest
		c.s.known.remember(HashToken(msg.Token), identity{id: id, name: name, room: rm.ID(), guest: guest}, c.s.rooms)
		// An account plays under its handle.
		if j.Name == "" || !guest {
			j.Name = name
		}
	case sp != nil:
		// The session's player; the welcome carries no token, since the
		// cookie is the identity (and page scripts never see a secret).
		// An account plays under its handle.
		j.ID, j.Guest = sp.ID, sp.Guest
		if j.Name == "" || !sp.Guest {
			j.Name = sp.Name
		}
	default:
		if j.Name == "" {
			return protocol.Errorf(protocol.CodeBadName, "a name is needed to join as a player")
		}
		// Ask first, so that a refused join stores no player.
		if err := rm.Admits(ctx, "", false); err != nil {
			return joinError(err, msg.Room)
		}
		if !c.s.newPlayers.allow(c.addr, c.s.clock.Now()) {
			return protocol.Errorf(protocol.CodeRateLimited, "too many new players from this address: join with your token, or wait a minute")
		}
		j.ID, j.Token, j.Guest = newMemberID("p_"), newToken(), true
		if err := c.s.players.CreatePlayer(sctx, j.ID, j.Name, HashToken(j.Token)); err != nil {
			c.s.log.Error("join: create player", "err", err)
			return protocol.Errorf(protocol.CodeUnavailable, "the server cannot add players just now: try again")
		}
		c.s.known.remember(HashToken(j.Token), identity{id: j.ID, name: j.Name, room: rm.ID(), guest: true}, c.s.rooms)
	}
	if err := rm.Attach(ctx, j, c); err != nil {
		return joinError(err, msg.Room)
	}
	c.room, c.id = rm, j.ID
	c.joined.Store(true)
	return nil
}

// joinError is a join's refusal for the client: the room's own error, or
// that the room has ended.
func joinError(err error, roomID string) *protocol.Error {
	var re *protocol.Error
	if errors.As(err, &re) {
		return re
	}
	return protocol.Errorf(protocol.CodeRoomNotFound, "the room %q has ended", roomID)
}
