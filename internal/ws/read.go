package ws

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"
)

// Kind is what Next found in what the client sent (Input.Kind).
type Kind int

// What Next found.
const (
	InputNone    Kind = iota // no whole message: more bytes are needed
	InputMessage             // a message: Op and Msg
	InputClose               // the client's close frame: Code and Reason
	InputEnd                 // the socket's reading ended, or its writing failed
	InputBad                 // the client broke the protocol: the Code and Reason to close with
)

// Input is what Next found in what the client sent.
type Input struct {
	Kind Kind
	// Op is a message's opcode: OpText or OpBinary.
	Op byte
	// Msg is a message's payload, for the taker to give back once done
	// with it (DoneWith).
	Msg *bytes.Buffer
	// Code and Reason are those of the client's close (InputClose), or
	// those to close with for a broken rule (InputBad): StatusTooBig for
	// a message over the limit, StatusInvalidData for text (or a close's
	// reason) that is not UTF-8, StatusPolicyViolation for a message in
	// more than MaxMessageFrames frames or not whole in its time
	// (SetMessageTimeout), StatusProtocolError for any other.
	Code   StatusCode
	Reason string
}

// bad is a broken rule's input: the close code and reason it gets.
func bad(code StatusCode, reason string) Input {
	return Input{Kind: InputBad, Code: code, Reason: reason}
}

// broken is the input of a frame Parse refused: 1002, with why.
func broken(err error) Input {
	return bad(StatusProtocolError, strings.TrimPrefix(err.Error(), "websocket: "))
}

// tooBig is the input of a message over the limit: 1009.
func (c *Conn) tooBig() Input {
	return bad(StatusTooBig, fmt.Sprintf("a message over %d bytes", c.limit))
}

// notUTF8 is the input of a text message that is not UTF-8: 1007. The
// rest of a message in fragments is dropped as it comes (c.dropping), so
// that the close handshake finds the client's close behind it.
func (c *Conn) notUTF8(fin bool) Input {
	c.dropFrag()
	c.dropping = !fin
	return bad(StatusInvalidData, "a text message not in UTF-8")
}

// dropFrag gives back the buffer of a message in fragments refused
// before its end.
func (c *Conn) dropFrag() {
	if c.frag != nil {
		DoneWith(c.frag)
		c.frag = nil
	}
}

// checkText checks the text of a message in fragments that came since
// the last check, and reports whether it is UTF-8 so far: every character
// whole and valid, but for one cut at the end of a fragment (fin not
// set), which must be a valid character's start. c.checked is how far
// the message is checked, to the end of its last whole character. ascii
// says the fragment just written, of n bytes, is all ASCII: with no
// character cut before it, it needs no look.
func (c *Conn) checkText(n int, ascii, fin bool) bool {
	p := c.frag.Bytes()[c.checked:]
	if ascii && len(p) == n {
		c.checked += n
		return true
	}
	n = len(p)
	if !fin {
		// A character cut at the end: at most 3 bytes, which FullRune
		// says are the start of a valid one (an invalid start counts as
		// whole, and Valid refuses it).
		for i := n - 1; i >= 0 && i >= n-(utf8.UTFMax-1); i-- {
			if utf8.RuneStart(p[i]) {
				if !utf8.FullRune(p[i:]) {
					n = i
				}
				break
			}
		}
	}
	c.checked += n
	return utf8.Valid(p[:n])
}

// take takes the frames at the front of what the client sent, answering
// pings and dropping pongs, up to a message, the client's close, the
// socket's end or a broken rule, and says which; InputNone when no whole
// frame is left. A message is copied out of the socket's buffer, which
// goes back to the pool once empty. A message or frame begun and not
// whole by its time (SetMessageTimeout) is a broken rule. c.rmu is held.
func (c *Conn) take() Input {
	c.smu.Lock()
	defer c.smu.Unlock()
	if c.overdueLocked() {
		return bad(StatusPolicyViolation, fmt.Sprintf("a message not whole %s after its first byte", c.msgTimeout))
	}
	in := c.takeFrames()
	if in.Kind == InputNone || !c.partDue.IsZero() {
		c.timePart(in.Kind) // a message whole, with no clock running, needs none
	}
	return in
}

// takeFrames is take's work, c.smu held.
func (c *Conn) takeFrames() Input {
	defer c.dropEmpty()
	for {
		if in := c.in; in != nil && c.skip > 0 {
			n := min(c.skip, in.w-in.r)
			in.r += n
			c.skip -= n
		}
		c.dropEmpty()
		in := c.in
		if in == nil {
			if c.rerr != nil {
				return Input{Kind: InputEnd}
			}
			return Input{Kind: InputNone}
		}
		f, size, err := Parse(in.b[in.r:in.w], c.limit, true)
		switch {
		case errors.Is(err, ErrTooBig):
			c.skip, _ = Size(in.b[in.r:in.w], true)
			return c.tooBig()
		case err != nil:
			return broken(err)
		case size == 0:
			if c.rerr != nil {
				return Input{Kind: InputEnd} // the socket ended inside a frame
			}
			if in.w == len(in.b) {
				in.reserve(1, c.limit)
			}
			return Input{Kind: InputNone}
		}
		in.r += size
		ascii := unmask(f.Payload, f.Key)
		switch f.Op {
		case OpPing:
			if !c.pingAllowed(time.Now()) {
				return bad(StatusPolicyViolation, fmt.Sprintf("pings faster than one a %s", c.pingEvery))
			}
			// The answer: a pong with the ping's payload.
			var frame [2 + MaxControlPayload]byte
			pong := append(AppendHeader(frame[:0], Fin|OpPong, len(f.Payload), false, [4]byte{}), f.Payload...)
			if _, err := c.Write(pong); err != nil {
				return Input{Kind: InputEnd}
			}
		case OpClose:
			c.closeSeen = true
			code, reason, err := CheckClose(f.Payload)
			if errors.Is(err, ErrNotUTF8) {
				return bad(StatusInvalidData, "a close reason not in UTF-8")
			}
			if err != nil {
				return broken(err)
			}
			return Input{Kind: InputClose, Code: code, Reason: reason}
		case OpText, OpBinary:
			if c.frag != nil || c.dropping {
				return bad(StatusProtocolError, "a new message before the last one's final frame")
			}
			if f.Fin {
				// A message in one frame, the usual case: its text is
				// checked whole.
				if f.Op == OpText && !ascii && !utf8.Valid(f.Payload) {
					return c.notUTF8(true)
				}
				buf := readBuffers.Get().(*bytes.Buffer)
				buf.Write(f.Payload)
				return Input{Kind: InputMessage, Op: f.Op, Msg: buf}
			}
			buf := readBuffers.Get().(*bytes.Buffer)
			buf.Write(f.Payload)
			c.frag, c.fragOp, c.checked, c.frames = buf, f.Op, 0, 1
			if f.Op == OpText && !c.checkText(len(f.Payload), ascii, false) {
				return c.notUTF8(false)
			}
		case OpContinuation:
			if c.frag == nil && !c.dropping {
				return bad(StatusProtocolError, "a continuation frame with no message begun")
			}
			// Frames that hold little or nothing cost a parse each and
			// make no message: the rate limit, which counts messages,
			// would never see them.
			if c.frames++; c.frames > MaxMessageFrames {
				c.dropFrag()
				c.dropping = false
				return bad(StatusPolicyViolation, fmt.Sprintf("a message in more than %d frames", MaxMessageFrames))
			}
			if c.dropping {
				c.dropping = !f.Fin
				continue
			}
			if c.frag.Len()+len(f.Payload) > c.limit {
				c.dropFrag()
				return c.tooBig()
			}
			c.frag.Write(f.Payload)
			// Each fragment's text is checked as it comes, so that bytes
			// that are not UTF-8 fail the connection at once.
			if c.fragOp == OpText && !c.checkText(len(f.Payload), ascii, f.Fin) {
				return c.notUTF8(f.Fin)
			}
			if f.Fin {
				buf := c.frag
				c.frag = nil
				return Input{Kind: InputMessage, Op: c.fragOp, Msg: buf}
			}
		}
		// A pong (the answer to the keep-alive ping) needs nothing.
	}
}

// timePart starts the clock on what is left begun once take has taken
// all it could (kind InputNone): a frame in part, or a message of which
// frames are missing, has c.msgTimeout from now to come whole; the
// timer (partExpired) wakes the reader then. A message handed on, or
// nothing left begun, stops it: what follows a message has a time of its
// own. c.smu is held.
func (c *Conn) timePart(kind Kind) {
	begun := c.in != nil || c.frag != nil || c.dropping
	if kind == InputNone && begun {
		if c.partDue.IsZero() && c.msgTimeout > 0 {
			c.partDue = time.Now().Add(c.msgTimeout)
			if c.partTimer == nil {
				c.partTimer = time.AfterFunc(c.msgTimeout, c.partExpired)
			} else {
				c.partTimer.Reset(c.msgTimeout)
			}
		}
		return
	}
	if !c.partDue.IsZero() {
		c.partDue = time.Time{}
		c.partTimer.Stop()
	}
}

// partExpired is the timer of a part begun going off: unless it has come
// whole meanwhile, the reader is made to look (take then reports it).
// A parked reader is woken; one that waits in the socket's read is let
// go by a read deadline that has passed, which Next tells from the
// socket's end by the part being overdue.
func (c *Conn) partExpired() {
	c.smu.Lock()
	defer c.smu.Unlock()
	if !c.overdueLocked() {
		return // come whole, or begun again later
	}
	_ = c.Conn.SetReadDeadline(time.Now())
	if c.poller != nil {
		c.Wake()
	}
}

// overdue reports whether a part begun has not come whole by its time.
func (c *Conn) overdue() bool {
	c.smu.Lock()
	defer c.smu.Unlock()
	return c.overdueLocked()
}

func (c *Conn) overdueLocked() bool {
	return !c.partDue.IsZero() && !time.Now().Before(c.partDue)
}

// dropEmpty gives back the socket's buffer once all it holds is taken.
// c.smu is held.
func (c *Conn) dropEmpty() {
	if in := c.in; in != nil && in.r == in.w {
		c.in = nil
		putInBuf(in)
	}
}

// readBuffers hold the messages being read: a message is done with once
// handled (what the taker keeps of it, it copies), so the buffer goes
// back for the next, on this connection or another, rather than a new
// one being allocated for every message. maxPooledRead is the largest
// kept, so that one large message does not pin its buffer in the pool.
var readBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledRead = 4 << 10

// DoneWith gives back a message's buffer (Input.Msg) once it has been
// handled.
func DoneWith(buf *bytes.Buffer) {
	buf.Reset()
	if buf.Cap() <= maxPooledRead {
		readBuffers.Put(buf)
	}
}

// Next is the next thing the client sent, waiting for the socket to
// bring it; when park is set, InputNone once the socket has nothing more
// without waiting: the reader may then park (Park). The wait is in a
// shallow frame, so that the garbage collector can shrink a waiting
// reader's stack.
func (c *Conn) Next(park bool) Input {
	for {
		c.rmu.Lock()
		in := c.take()
		c.rmu.Unlock()
		if in.Kind != InputNone {
			return in
		}
		if c.raw == nil {
			c.fillConn()
			continue
		}
		if park {
			heard := c.heard.Load()
			if err := c.raw.Read(c.poll); err != nil {
				if c.overdue() {
					continue // take says so
				}
				return Input{Kind: InputEnd}
			}
			if c.heard.Load() == heard && !c.ended() {
				return in
			}
			continue
		}
		if err := c.raw.Read(c.fill); err != nil {
			if c.overdue() {
				continue // the deadline partExpired set: take says so
			}
			return Input{Kind: InputEnd}
		}
	}
}

// ended reports whether the socket's reading has ended (fill found out).
func (c *Conn) ended() bool {
	c.smu.Lock()
	defer c.smu.Unlock()
	return c.rerr != nil
}

// pollFD is fillFD without the wait: RawConn.Read returns whatever it
// found.
func (c *Conn) pollFD(fd uintptr) bool {
	c.fillFD(fd)
	return true
}

// fillFD reads what the socket fd holds into c.in, behind what is held
// already, and reports whether it read something or found the socket's
// end; false asks RawConn.Read to wait until the socket has more.
func (c *Conn) fillFD(fd uintptr) bool {
	c.smu.Lock()
	defer c.smu.Unlock()
	if c.rerr != nil {
		return true
	}
	in := c.in
	if in == nil {
		in = inBufs.Get().(*inBuf)
	} else if in.w == len(in.b) {
		return true // full: take makes room first
	}
	n, err := readNonblock(fd, in.b[in.w:])
	if errors.Is(err, syscall.EAGAIN) {
		if c.in == nil {
			putInBuf(in)
		}
		return false
	}
	if err != nil {
		err = os.NewSyscallError("read", err)
	}
	c.got(in, n, err)
	return true
}

// got keeps n bytes read into in's free space, and how the reading ended:
// err, or the socket's end when nothing came. c.smu is held.
func (c *Conn) got(in *inBuf, n int, err error) {
	switch {
	case err != nil:
		c.rerr = err
	case n == 0:
		c.rerr = io.EOF
	}
	if n > 0 {
		in.w += n
		c.in = in
		c.heard.Add(1)
	} else if c.in == nil {
		putInBuf(in)
	}
}

// fillConn is fill where the socket's descriptor cannot be read directly:
// a read of the socket as it is, which waits for bytes.
func (c *Conn) fillConn() {
	c.fmu.Lock()
	defer c.fmu.Unlock()
	var b [readBufferSize]byte
	n, err := c.Conn.Read(b[:])
	c.smu.Lock()
	defer c.smu.Unlock()
	if c.rerr != nil || n == 0 && err == nil {
		return
	}
	in := c.in
	if in == nil {
		in = inBufs.Get().(*inBuf)
	}
	in.reserve(n, c.limit)
	copy(in.b[in.w:], b[:n])
	c.got(in, n, err)
}

// pingAllowed spends one of the ping budget (SetPingBudget) and reports
// whether there was one to spend.
func (c *Conn) pingAllowed(now time.Time) bool {
	if c.pingAt.IsZero() {
		c.pings = c.pingBurst
	} else {
		c.pings = min(c.pingBurst, c.pings+float64(now.Sub(c.pingAt))/float64(c.pingEvery))
	}
	c.pingAt = now
	if c.pings < 1 {
		return false
	}
	c.pings--
	return true
}
