package server

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/sudoku-arena/arena/protocol"
)

// reasonOwnerStalled is the close reason of a relayed socket whose room's
// node stopped answering.
const reasonOwnerStalled = "the room's server stopped answering: reconnect with your token"

// ownerWatch checks the node a socket is relayed to. A node that stalls
// (a paused process, one swapping, one whose database calls hold every
// goroutine) keeps its sockets open and sends nothing: the relayed player
// would wait on it with no sign, while its own pings to the relaying node
// are answered. So when nothing has come from the owner for
// RelayPingEvery, the relaying node pings it; no pong within
// RelayPingWait, and the client is closed with CloseMoved, which it
// resumes on at once, through the balancer, on whichever node holds the
// room by then. An owner busy with play sends frames, and is not pinged.
// RelayPingEvery stays above a node's budget of a client's pings (one a
// second after a burst: ws.PingEvery), which the relaying node is to the
// owner.
type ownerWatch struct {
	c     *conn
	up    *websocket.Conn
	addr  string
	heard atomic.Int64 // when a frame last came from the owner, UnixNano on the server's clock
	done  atomic.Bool
	timer Timer
}

// watchOwner starts checking up, the relayed socket to the owner at addr,
// for c; stop ends it.
func (c *conn) watchOwner(up *websocket.Conn, addr string) *ownerWatch {
	w := &ownerWatch{c: c, up: up, addr: addr}
	w.heardNow()
	w.timer = c.s.clock.AfterFunc(c.s.cfg.RelayPingEvery, w.check)
	return w
}

// heardNow notes a frame from the owner.
func (w *ownerWatch) heardNow() { w.heard.Store(w.c.s.clock.Now().UnixNano()) }

// stop ends the watch, once either side of the relay has ended (a ping
// under way then fails, and is no sign of a stall); it may be called
// again.
func (w *ownerWatch) stop() {
	w.done.Store(true)
	w.timer.Stop()
}

// check pings a quiet owner and closes the client when it does not
// answer; it runs on the watch's timer, and sets it again.
func (w *ownerWatch) check() {
	if w.done.Load() {
		return
	}
	cfg := w.c.s.cfg
	quiet := w.c.s.clock.Now().Sub(time.Unix(0, w.heard.Load()))
	if quiet >= cfg.RelayPingEvery {
		ctx, cancel := context.WithTimeout(context.Background(), cfg.RelayPingWait)
		err := w.up.Ping(ctx)
		cancel()
		if w.done.Load() {
			return
		}
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return // the socket is gone: its reader ends the relay
		}
		if err != nil {
			w.c.s.relays.stalled.Inc()
			w.c.s.log.Warn("relay: the room's node stopped answering; client closed to come back", "node", w.addr, "err", err)
			w.c.closeWith(protocol.CloseMoved, reasonOwnerStalled, true)
			w.up.CloseNow()
			return
		}
		quiet = 0
	}
	w.timer.Reset(cfg.RelayPingEvery - quiet)
}
