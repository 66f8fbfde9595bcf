package ws

// Reader reads a connection once its socket has bytes: ReadOn reads
// until the connection parks (Conn.Park reports true) or its reading ends
// (then it calls Conn.Leave).
type Reader interface {
	ReadOn()
}

// Where a parking reader stands (Conn.rstate).
const (
	readRunning int32 = iota // a goroutine reads the connection
	readParked               // none does: the poller starts one when bytes come
	readWoken                // one does, and bytes came since it last looked
	readDone                 // the reading has ended
)

// Parks reports whether the connection is in a poller: its reader may
// park (Next with park set, then Park).
func (c *Conn) Parks() bool { return c.poller != nil }

// Park ends the reader's goroutine when nothing is left to read, and
// reports whether it did; false: bytes came meanwhile, to read now.
func (c *Conn) Park() bool {
	if c.rstate.CompareAndSwap(readRunning, readParked) {
		return true
	}
	c.rstate.Store(readRunning) // it was readWoken
	return false
}

// Wake is the poller saying the socket has bytes (or has failed), or the
// writer saying it has closed the socket: a parked connection gets a
// reader again, and a reading one looks once more before it parks.
func (c *Conn) Wake() {
	for {
		switch c.rstate.Load() {
		case readParked:
			if c.rstate.CompareAndSwap(readParked, readRunning) {
				c.poller.resume(c)
				return
			}
		case readRunning:
			if c.rstate.CompareAndSwap(readRunning, readWoken) {
				return
			}
		default:
			return
		}
	}
}

// Leave takes the socket out of its poller for good, once its reading
// has ended: no reader is started for it again.
func (c *Conn) Leave() {
	if c.poller == nil {
		return
	}
	c.rstate.Store(readDone)
	c.poller.remove(c)
}

// resume gives c, woken, a reader: an idle one when there is one.
func (p *Poller) resume(c *Conn) {
	select {
	case p.idle <- c:
	default:
		go p.reader(c)
	}
}

// reader reads c until it parks or ends, then waits for another woken
// connection, unless enough readers wait already or the poller is
// closed.
func (p *Poller) reader(c *Conn) {
	for {
		c.reader.ReadOn()
		if p.idleCount.Add(1) > maxIdleReaders {
			p.idleCount.Add(-1)
			return
		}
		select {
		case c = <-p.idle:
			p.idleCount.Add(-1)
		case <-p.done:
			p.idleCount.Add(-1)
			return
		}
	}
}
