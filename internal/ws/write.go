package ws

import (
	"fmt"
	"time"
)

// pingFrame is the server's keep-alive ping: final, unmasked, empty.
var pingFrame = []byte{Fin | OpPing, 0}

// Ping writes a keep-alive ping, whose answer take counts as heard
// (Heard).
func (c *Conn) Ping() error {
	_, err := c.Write(pingFrame)
	return err
}

// Write gathers p while corked and writes it through otherwise; while
// the rest of a write TryWrite made in part is owed (WriteRest), it
// waits for it first, so that p never lands inside a frame cut short.
func (c *Conn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.owed {
		c.restDone.Wait()
	}
	if c.buf != nil {
		*c.buf = append(*c.buf, p...)
		return len(p), nil
	}
	return c.writeLocked(p)
}

// writeLocked writes p to the socket, c.mu held. A write that failed may
// have left a frame cut short: every write after it fails too, rather
// than send bytes the client would read as that frame's.
func (c *Conn) writeLocked(p []byte) (int, error) {
	if c.werr != nil {
		return 0, c.werr
	}
	if err := c.Conn.SetWriteDeadline(time.Now().Add(c.timeout)); err != nil {
		c.werr = fmt.Errorf("socket: write deadline: %w", err)
		return 0, c.werr
	}
	n, err := c.Conn.Write(p)
	if err != nil {
		c.werr = err
	}
	return n, err
}

// TryWrite writes what it can of p to the socket without waiting: for
// the socket to take it, for a write in progress on another goroutine, or
// for a batch being gathered. It returns how much it wrote: 0 also when
// the socket has failed, which the writer's own write then finds out.
// It sets no deadline, since it cannot block.
//
// When the socket takes only part of p, the rest is owed: the caller
// sends it with WriteRest, before anything else it writes, and the
// writes of other goroutines meanwhile (a pong, a ping, a close) wait for
// it. p must stay as it is until then.
func (c *Conn) TryWrite(p []byte) int {
	if c.raw == nil || len(p) == 0 || !c.mu.TryLock() {
		return 0
	}
	defer c.mu.Unlock()
	if c.buf != nil || c.owed || c.werr != nil {
		return 0
	}
	c.wbuf, c.wrote = p, 0
	_ = c.raw.Write(c.tryWriteFn)
	c.wbuf = nil
	if c.wrote > 0 && c.wrote < len(p) {
		c.owed = true
		if c.restDone.L == nil {
			c.restDone.L = &c.mu
		}
	}
	return c.wrote
}

// WriteRest writes rest, what TryWrite left unwritten of its bytes (all
// of them when it wrote none), and lets the writes that waited for it go,
// whether it succeeded or not (a failed one fails those too).
func (c *Conn) WriteRest(rest []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var err error
	if len(rest) > 0 {
		_, err = c.writeLocked(rest)
	}
	if c.owed {
		c.owed = false
		c.restDone.Broadcast()
	}
	return err
}

// tryWriteFD is TryWrite's write of c.wbuf to the socket fd, c.mu held.
func (c *Conn) tryWriteFD(fd uintptr) bool {
	c.wrote, _ = writeNonblock(fd, c.wbuf)
	return true
}

// WriteText gathers a text message of p in the batch, between Cork and
// Uncork, framed as a server frames it (one final frame, unmasked). What
// is written meanwhile (a pong, a ping, a close) reaches Write whole, one
// frame a call, so frames never interleave. The writer corks only once
// it has written what it owed (WriteRest).
func (c *Conn) WriteText(p []byte) {
	c.mu.Lock()
	*c.buf = AppendText(*c.buf, p)
	c.mu.Unlock()
}

// Cork gathers the writes that follow in *buf, until Uncork.
func (c *Conn) Cork(buf *[]byte) {
	c.mu.Lock()
	c.buf = buf
	c.mu.Unlock()
}

// Uncork sends what was gathered since Cork in one write and ends the
// batch.
func (c *Conn) Uncork() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	buf := c.buf
	c.buf = nil
	if buf == nil || len(*buf) == 0 {
		return nil
	}
	_, err := c.writeLocked(*buf)
	return err
}
