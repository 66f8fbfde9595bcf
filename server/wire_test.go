package server_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/ws"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/server"
)

// wire is a client that writes a WebSocket's bytes itself, to send what
// a library would not: an unmasked frame, a close of its own making,
// text that is not UTF-8, a frame in parts.
type wire struct {
	t  *testing.T
	nc net.Conn
	br *bufio.Reader
	in []byte // read and not yet parsed
}

// wireKey masks the frames a wire client builds.
var wireKey = [4]byte{1, 2, 3, 4}

func dialWire(t *testing.T, e *env) *wire {
	t.Helper()
	nc, err := net.Dial("tcp", strings.TrimPrefix(e.http.URL, "http://"))
	require.NoError(t, err)
	t.Cleanup(func() { nc.Close() })
	require.NoError(t, nc.SetDeadline(time.Now().Add(5*time.Second)))
	_, err = nc.Write([]byte("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"))
	require.NoError(t, err)
	br := bufio.NewReader(nc)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusSwitchingProtocols, resp.StatusCode)
	return &wire{t: t, nc: nc, br: br}
}

func (w *wire) send(b []byte) {
	w.t.Helper()
	_, err := w.nc.Write(b)
	require.NoError(w.t, err)
}

// wireFrame is a client's frame of op holding p, masked; final unless fin
// is false.
func wireFrame(op byte, p []byte, fin ...bool) []byte {
	b := ws.AppendMasked(nil, op, p, wireKey)
	if len(fin) > 0 && !fin[0] {
		b[0] &^= ws.Fin
	}
	return b
}

// text sends a text message of s in one frame.
func (w *wire) text(s string) { w.send(wireFrame(ws.OpText, []byte(s))) }

// next is the server's next frame, its payload copied; every frame the
// server sends must be well formed.
func (w *wire) next() ws.Frame {
	w.t.Helper()
	for {
		f, size, err := ws.Parse(w.in, 1<<20, false)
		require.NoError(w.t, err, "a server frame is well formed")
		if size > 0 {
			f.Payload = bytes.Clone(f.Payload)
			w.in = w.in[size:]
			return f
		}
		p := make([]byte, 4096)
		n, err := w.br.Read(p)
		require.NoError(w.t, err, "the server's next frame")
		w.in = append(w.in, p[:n]...)
	}
}

// await reads frames until a text one of the event type typ, and returns
// it.
func (w *wire) await(typ string) []byte {
	w.t.Helper()
	for {
		f := w.next()
		if f.Op != ws.OpText {
			continue
		}
		var ev struct{ Type string }
		require.NoError(w.t, json.Unmarshal(f.Payload, &ev))
		if ev.Type == typ {
			return f.Payload
		}
	}
}

// join joins the room as a new player named name.
func (w *wire) join(roomID, name string) {
	w.t.Helper()
	w.text(`{"type":"join","room":"` + roomID + `","name":"` + name + `"}`)
	w.await(protocol.TypeWelcome)
}

// closeFrame reads frames until the server's close, and returns its code
// and reason.
func (w *wire) closeFrame() (int, string) {
	w.t.Helper()
	for {
		f := w.next()
		if f.Op == ws.OpClose {
			code, reason, err := ws.CheckClose(f.Payload)
			require.NoError(w.t, err)
			return int(code), reason
		}
	}
}

// ended checks that the server closes the socket, within d: the socket's
// end, or a reset when the server closed it with bytes it had not read.
func (w *wire) ended(d time.Duration) {
	w.t.Helper()
	require.NoError(w.t, w.nc.SetReadDeadline(time.Now().Add(d)))
	for {
		_, err := w.br.ReadByte()
		if err != nil {
			if !errors.Is(err, syscall.ECONNRESET) {
				require.ErrorIs(w.t, err, io.EOF, "the server closes the socket")
			}
			return
		}
	}
}

// A frame that breaks RFC 6455 closes the connection with 1002 and a
// reason; a client's close is answered with its code and reason; a
// message over the limit closes with 1009 (docs/protocol.md, "Close
// codes").
func TestTheWireIsKeptToRFC6455(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := wireKey

	w := dialWire(t, e)
	w.send([]byte{0x81, 2, '{', '}'}) // unmasked
	code, reason := w.closeFrame()
	assert.Equal(t, int(protocol.CloseProtocolError), code)
	assert.Contains(t, reason, "masked")

	// A 64-bit length with its top bit set is a broken frame, not a big
	// one: 1002, and the socket closed at once.
	w = dialWire(t, e)
	start := time.Now()
	w.send([]byte{0x81, 0x80 | 127, 0x80, 0, 0, 0, 0, 0, 0, 5, key[0], key[1], key[2], key[3]})
	code, reason = w.closeFrame()
	assert.Equal(t, int(protocol.CloseProtocolError), code)
	assert.Contains(t, reason, "top bit")
	_, err := w.br.ReadByte()
	assert.ErrorIs(t, err, io.EOF, "the socket is closed")
	assert.Less(t, time.Since(start), 2*time.Second, "at once, not after the close handshake's wait")

	w = dialWire(t, e)
	w.send(ws.AppendMasked(nil, ws.OpClose, append(binary.BigEndian.AppendUint16(nil, 4000), "bye"...), key))
	code, reason = w.closeFrame()
	assert.Equal(t, 4000, code, "the client's close is answered with its code")
	assert.Equal(t, "bye", reason)

	w = dialWire(t, e)
	w.send(ws.AppendMasked(nil, ws.OpText, []byte(strings.Repeat("x", 4097)), key))
	code, _ = w.closeFrame()
	assert.Equal(t, int(protocol.CloseTooBig), code)
	w.send(ws.AppendMasked(nil, ws.OpClose, binary.BigEndian.AppendUint16(nil, 1000), key))
	require.NoError(t, w.nc.SetReadDeadline(time.Now().Add(time.Second)))
	_, err = w.br.ReadByte()
	assert.ErrorIs(t, err, io.EOF, "the socket is closed after the client's close")
}

// A text message that is not UTF-8 fails the connection with 1007 (RFC
// 6455, section 8.1; docs/protocol.md, "Close codes"), wherever the bad
// bytes are (a name, an id, a key, a room), joined or not; so does a
// fragment that holds them, before the message's end, and a close whose
// reason is not UTF-8. Nothing reaches the room.
func TestTextThatIsNotUTF8ClosesWith1007(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.createRoom("coop", "easy")
	for _, tc := range []struct {
		name, frame string
		joined      bool
	}{
		{"a name cut short", "{\"type\":\"join\",\"id\":3,\"room\":\"" + id + "\",\"name\":\"An\xc3\"}", false},
		{"a name with a byte no character has", "{\"type\":\"join\",\"room\":\"" + id + "\",\"name\":\"\xffAnn\"}", false},
		{"a room", "{\"type\":\"join\",\"id\":\"j\",\"room\":\"" + id + "\xff\",\"name\":\"Ann\"}", false},
		{"an id", "{\"type\":\"move\",\"id\":\"xA\xff\",\"cell\":3,\"digit\":1}", true},
		{"a string cut short", "{\"type\":\"note\",\"id\":\"n\",\"cell\":3,\"kind\":\"corner\xe2\x82\",\"digit\":1}", true},
		{"a key", "{\"type\":\"ping\",\"\xff\":1,\"id\":7}", true},
		{"an overlong encoding", "{\"type\":\"ping\",\"id\":8,\"x\":\"\xc0\xaf\"}", true},
		{"a lone surrogate's bytes", "{\"type\":\"ping\",\"id\":9,\"x\":\"\xed\xa0\x80\"}", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := dialWire(t, e)
			if tc.joined {
				w.join(id, "Ann")
			}
			w.text(tc.frame)
			code, reason := w.closeFrame()
			assert.Equal(t, int(protocol.CloseInvalidData), code)
			assert.Contains(t, reason, "UTF-8")
			w.send(wireFrame(ws.OpClose, binary.BigEndian.AppendUint16(nil, uint16(code))))
			w.ended(time.Second)
		})
	}
	t.Run("a fragment, before the message's end", func(t *testing.T) {
		w := dialWire(t, e)
		w.join(id, "Ann")
		w.send(append(wireFrame(ws.OpText, []byte(`{"type":"ping","x":"`), false), wireFrame(ws.OpContinuation, []byte{'a', 0xFF}, false)...))
		code, _ := w.closeFrame()
		assert.Equal(t, int(protocol.CloseInvalidData), code)
		// The rest of the message is dropped; the client's close behind
		// it ends the handshake.
		w.send(append(wireFrame(ws.OpContinuation, []byte(`"}`)), wireFrame(ws.OpClose, binary.BigEndian.AppendUint16(nil, 1007))...))
		w.ended(time.Second)
	})
	t.Run("a character cut across fragments is whole", func(t *testing.T) {
		w := dialWire(t, e)
		msg := []byte(`{"type":"ping","id":"café"}`)
		cut := bytes.IndexByte(msg, 0xC3) + 1
		w.send(append(wireFrame(ws.OpText, msg[:cut], false), wireFrame(ws.OpContinuation, msg[cut:])...))
		assert.Contains(t, string(w.await(protocol.TypeError)), `"id":"café"`, "not joined, and the id is echoed whole")
	})
	t.Run("a close whose reason is not UTF-8", func(t *testing.T) {
		w := dialWire(t, e)
		w.send(wireFrame(ws.OpClose, append(binary.BigEndian.AppendUint16(nil, 1000), 0xFF)))
		code, _ := w.closeFrame()
		assert.Equal(t, int(protocol.CloseInvalidData), code)
		w.ended(time.Second)
	})
}

// A message that never ends, a text frame and then empty continuation
// frames without end, is no message: neither the size limit nor the rate
// limit would ever see it. Its 65th frame closes the connection with
// 1008 (docs/protocol.md, "Limits"), and the socket is cut at once: the
// flood stops, and the server answers another client promptly while it
// runs.
func TestAFloodOfEmptyFragmentsIsCut(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.createRoom("coop", "easy")
	b := e.dial("Bob")
	b.join(id)
	w := dialWire(t, e)
	w.join(id, "Ann")

	w.send(wireFrame(ws.OpText, []byte(`{"type":"ping"`), false))
	flood := bytes.Repeat(wireFrame(ws.OpContinuation, nil, false), 1024)
	stopped := make(chan error, 1)
	go func() {
		for {
			if _, err := w.nc.Write(flood); err != nil {
				stopped <- err
				return
			}
		}
	}()
	start := time.Now()
	for range 3 {
		t0 := time.Now()
		b.ping()
		assert.Less(t, time.Since(t0), time.Second, "a ping's answer to another client while the flood runs")
	}
	code, reason := w.closeFrame()
	assert.Equal(t, int(protocol.ClosePolicyViolation), code)
	assert.Contains(t, reason, "64 frames")
	select {
	case err := <-stopped: // the socket is gone: written to, it is reset
		assert.NotErrorIs(t, err, os.ErrDeadlineExceeded, "the writes stopped for the socket's end, not the client's deadline")
	case <-time.After(5 * time.Second):
		t.Fatal("the flood was not cut within 5 s")
	}
	assert.Less(t, time.Since(start), 5*time.Second)
}

// A message begun has MessageTimeout (10 s; 300 ms here) from its first
// byte to its last: a client that sends a frame a byte at a time, or
// stops in the middle of a message, is closed with 1008 when it passes
// (docs/protocol.md, "Limits"), whether its reader waits in a socket or
// is parked; one that sends each message in parts, each in time, is read
// on.
func TestAMessageBegunMustComeWholeInTime(t *testing.T) {
	t.Parallel()
	const limit = 300 * time.Millisecond
	e := newEnv(t, func(c *server.Config) { c.MessageTimeout = limit })
	id := e.createRoom("coop", "easy")
	overdue := func(t *testing.T, w *wire, start time.Time) {
		t.Helper()
		code, reason := w.closeFrame()
		took := time.Since(start)
		assert.Equal(t, int(protocol.ClosePolicyViolation), code)
		assert.Contains(t, reason, "not whole")
		assert.GreaterOrEqual(t, took, limit)
		assert.Less(t, took, limit+2*time.Second)
		w.ended(time.Second)
	}
	t.Run("a frame a byte at a time", func(t *testing.T) {
		t.Parallel()
		w := dialWire(t, e)
		w.join(id, "Ann")
		frame := wireFrame(ws.OpText, []byte(`{"type":"ping","id":"a byte at a time"}`))
		start := time.Now()
		go func() {
			for _, b := range frame {
				if _, err := w.nc.Write([]byte{b}); err != nil {
					return
				}
				time.Sleep(limit / 10)
			}
		}()
		overdue(t, w, start)
	})
	t.Run("a message whose last fragment does not come", func(t *testing.T) {
		t.Parallel()
		w := dialWire(t, e)
		w.join(id, "Bob")
		start := time.Now()
		w.send(wireFrame(ws.OpText, []byte(`{"type":"ping",`), false))
		overdue(t, w, start)
	})
	t.Run("a frame cut short before the join", func(t *testing.T) {
		t.Parallel()
		w := dialWire(t, e)
		start := time.Now()
		w.send(wireFrame(ws.OpText, []byte(`{"type":"join"}`))[:4])
		overdue(t, w, start)
	})
	t.Run("messages in parts, each in time, for longer than it", func(t *testing.T) {
		t.Parallel()
		w := dialWire(t, e)
		w.join(id, "Cy")
		for i := range 4 {
			frame := wireFrame(ws.OpText, fmt.Appendf(nil, `{"type":"ping","id":%d}`, i))
			w.send(frame[:7])
			time.Sleep(limit / 2)
			w.send(frame[7:])
			assert.Contains(t, string(w.await(protocol.TypePong)), fmt.Sprintf(`"id":%d`, i))
		}
	})
}
