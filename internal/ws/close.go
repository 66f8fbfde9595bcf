package ws

import "time"

// CloseHandshake sends the close frame with code and reason (an empty
// one for StatusNoStatus; a reason too long is cut to fit) and, unless
// the client has sent its own already, waits up to closeWait for it,
// dropping what comes before it; then it closes the socket. The caller
// picks the code: the client's own when answering its close (RFC 6455,
// section 5.5.1), the Code of an InputBad, or an application's. It runs
// on the connection's writer, and reads the socket itself meanwhile.
func (c *Conn) CloseHandshake(code StatusCode, reason string) {
	var frame [2 + MaxControlPayload]byte
	_, err := c.Write(AppendClose(frame[:0], code, reason))
	if err == nil && !c.sawClose() {
		_ = c.Conn.SetReadDeadline(time.Now().Add(closeWait))
		for !c.sawClose() {
			c.rmu.Lock()
			in := c.take()
			c.rmu.Unlock()
			if in.Kind == InputMessage {
				DoneWith(in.Msg)
				continue
			}
			if in.Kind != InputNone {
				break
			}
			if c.raw == nil {
				c.fillConn()
				continue
			}
			if err := c.raw.Read(c.fill); err != nil {
				break
			}
		}
	}
	_ = c.Conn.Close()
}

// sawClose reports whether the client's close frame has been taken.
func (c *Conn) sawClose() bool {
	c.smu.Lock()
	defer c.smu.Unlock()
	return c.closeSeen
}
