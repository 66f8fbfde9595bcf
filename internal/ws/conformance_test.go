package ws_test

// The transport's conformance to RFC 6455, case by case: framing,
// fragmentation, control frames, close codes, UTF-8 and the handshake.
// Run them with
//
//	go test ./internal/ws -run Conformance -v
//
// A client written here sends the bytes of each case itself (what a
// library would refuse to send) to a server that speaks through the
// transport as the arena server does (confServer), and reads what comes
// back byte by byte. Each case names the RFC's section it checks.

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/ws"
)

// confLimit is the confServer's read limit: the arena server's
// (ReadLimit, 4,096 bytes).
const confLimit = 4096

// confServer is a server that speaks through the transport as the arena
// server does: it upgrades with ws.Accept (origins allowed besides its own
// host) and reads with Conn.Next. It echoes each message in a frame of the
// message's own opcode, answers "big" with a text message of 70,000 bytes
// (a 64-bit length) written corked, and "close" with a close handshake of
// its own (4000, "asked"); the client's close, and a broken rule, it
// answers with a close handshake of the code and reason Next gave, as
// the arena server does (server/conn.go, ended).
func confServer(t *testing.T, origins ...string) *httptest.Server {
	t.Helper()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := ws.Accept(w, r, origins, 5*time.Second, confLimit)
		if err != nil {
			return
		}
		for {
			in := c.Next(false)
			switch in.Kind {
			case ws.InputMessage:
				msg := in.Msg.Bytes()
				switch {
				case in.Op == ws.OpText && string(msg) == "big":
					var buf []byte
					c.Cork(&buf)
					c.WriteText(bytes.Repeat([]byte("b"), 70000))
					_ = c.Uncork()
				case in.Op == ws.OpText && string(msg) == "close":
					ws.DoneWith(in.Msg)
					c.CloseHandshake(4000, "asked")
					return
				default:
					_, _ = c.Write(append(ws.AppendHeader(nil, ws.Fin|in.Op, len(msg), false, [4]byte{}), msg...))
				}
				ws.DoneWith(in.Msg)
			case ws.InputClose, ws.InputBad:
				c.CloseHandshake(in.Code, in.Reason)
				return
			default:
				_ = c.Close()
				return
			}
		}
	}))
	t.Cleanup(hs.Close)
	return hs
}

// peer is a client that writes a WebSocket's bytes itself.
type peer struct {
	t    *testing.T
	nc   net.Conn
	br   *bufio.Reader
	in   []byte // read and not yet parsed
	last []byte // the payload of the server's close frame (closeFrom)
}

// dial opens a WebSocket on hs with a well-formed handshake.
func dial(t *testing.T, hs *httptest.Server) *peer {
	t.Helper()
	nc, err := net.Dial("tcp", hs.Listener.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { nc.Close() })
	require.NoError(t, nc.SetDeadline(time.Now().Add(10*time.Second)))
	_, err = nc.Write([]byte("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"))
	require.NoError(t, err)
	br := bufio.NewReader(nc)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusSwitchingProtocols, resp.StatusCode)
	return &peer{t: t, nc: nc, br: br}
}

func (p *peer) send(frames ...[]byte) {
	p.t.Helper()
	_, err := p.nc.Write(bytes.Join(frames, nil))
	require.NoError(p.t, err)
}

// next is the server's next frame, and the size of its header.
func (p *peer) next() (ws.Frame, int) {
	p.t.Helper()
	for {
		f, size, err := ws.Parse(p.in, 1<<20, false)
		require.NoError(p.t, err, "a server frame is well formed: unmasked, no extension bit, a known opcode")
		if size > 0 {
			f.Payload = bytes.Clone(f.Payload)
			p.in = p.in[size:]
			return f, size - len(f.Payload)
		}
		b := make([]byte, 4096)
		n, err := p.br.Read(b)
		require.NoError(p.t, err, "the server's next frame")
		p.in = append(p.in, b[:n]...)
	}
}

// message is the server's next frame, which must be a final one of op
// holding want (the echo).
func (p *peer) message(op byte, want []byte) {
	p.t.Helper()
	f, _ := p.next()
	require.True(p.t, f.Fin, "one final frame")
	require.Equal(p.t, op, f.Op)
	require.Equal(p.t, want, f.Payload)
}

// closeFrom reads the server's close frame, which must carry code, and
// returns its reason.
func (p *peer) closeFrom(code ws.StatusCode) string {
	p.t.Helper()
	f, _ := p.next()
	require.Equal(p.t, byte(ws.OpClose), f.Op, "the server's close frame")
	got, reason, err := ws.CheckClose(f.Payload)
	require.NoError(p.t, err, "the server's close is well formed")
	assert.Equal(p.t, code, got, "close code (reason %q)", reason)
	assert.LessOrEqual(p.t, len(f.Payload), ws.MaxControlPayload)
	p.last = f.Payload
	return reason
}

// closedWith is the server closing first with code (closeFrom), and
// waiting for the client's answer (section 5.5.1), which the peer sends:
// the server then closes the socket. It returns the close's reason.
func (p *peer) closedWith(code ws.StatusCode) string {
	p.t.Helper()
	reason := p.closeFrom(code)
	p.send(closeFrame(p.last))
	p.ended()
	return reason
}

// refusedWith is the server closing with code for a frame it could not
// read past (one Parse refused: unmasked, a reserved bit or opcode, a
// control frame fragmented or long): with the bad frame in front of
// whatever follows it, the server cannot find the client's close behind
// it, so it closes the socket right after its close frame, without
// waiting for an answer (docs/protocol.md says it waits; for these
// frames it does not, and this test keeps it so). It returns the close's
// reason.
func (p *peer) refusedWith(code ws.StatusCode) string {
	p.t.Helper()
	reason := p.closeFrom(code)
	p.ended()
	return reason
}

// answered is the server answering the client's close with code
// (section 5.5.1): the closing handshake is then over, and the server
// closes the socket at once. It returns the answer's reason.
func (p *peer) answered(code ws.StatusCode) string {
	p.t.Helper()
	reason := p.closeFrom(code)
	p.ended()
	return reason
}

// ended checks that the server has closed the socket, with nothing sent
// after its close frame.
func (p *peer) ended() {
	p.t.Helper()
	require.Empty(p.t, p.in, "nothing after the close frame")
	_, err := p.br.ReadByte()
	require.ErrorIs(p.t, err, io.EOF, "the server closes the socket")
}

// key masks every frame the peer builds.
var key = [4]byte{0x37, 0xFA, 0x21, 0x3D}

// frame is a client's frame: masked, final unless fin is false.
func frame(op byte, payload []byte, fin ...bool) []byte {
	b := ws.AppendMasked(nil, op, payload, key)
	if len(fin) > 0 && !fin[0] {
		b[0] &^= ws.Fin
	}
	return b
}

func text(s string, fin ...bool) []byte { return frame(ws.OpText, []byte(s), fin...) }

// closeFrame is a client's close frame with the payload as given.
func closeFrame(payload []byte) []byte { return frame(ws.OpClose, payload) }

// closePayload is a close frame's payload: code, then reason.
func closePayload(code uint16, reason string) []byte {
	return append(binary.BigEndian.AppendUint16(nil, code), reason...)
}

// TestConformanceFraming: the base framing protocol (section 5.2): the
// three forms of the payload length in both directions, masking (5.3),
// the reserved bits and opcodes, and the read limit.
func TestConformanceFraming(t *testing.T) {
	t.Parallel()
	hs := confServer(t)
	for _, n := range []int{0, 1, 125, 126, 127, 1000, confLimit - 1, confLimit} {
		t.Run(fmt.Sprintf("5.2 a %d-byte message is read and echoed with the shortest length", n), func(t *testing.T) {
			p := dial(t, hs)
			msg := bytes.Repeat([]byte{'a' + byte(n%26)}, n)
			p.send(frame(ws.OpText, msg))
			f, head := p.next()
			assert.Equal(t, msg, f.Payload)
			want := 2
			if n > 125 {
				want = 4 // 126 and a 16-bit length
			}
			assert.Equal(t, want, head, "header bytes")
		})
	}
	t.Run("5.2 a message over 65,535 bytes from the server has a 64-bit length", func(t *testing.T) {
		p := dial(t, hs)
		p.send(text("big"))
		f, head := p.next()
		assert.Equal(t, 10, head, "127 and a 64-bit length")
		assert.Len(t, f.Payload, 70000)
		assert.Equal(t, byte(ws.OpText), f.Op)
	})
	t.Run("5.2 a 64-bit length on a short payload is read (the RFC asks the sender for the shortest form, and sets the reader no rule)", func(t *testing.T) {
		p := dial(t, hs)
		b := []byte{ws.Fin | ws.OpText, 0x80 | 127, 0, 0, 0, 0, 0, 0, 0, 2, key[0], key[1], key[2], key[3], 'h' ^ key[0], 'i' ^ key[1]}
		p.send(b)
		p.message(ws.OpText, []byte("hi"))
	})
	t.Run("5.2 the masking key is applied from each frame's first payload byte", func(t *testing.T) {
		p := dial(t, hs)
		p.send(text("abcdefg", false), frame(ws.OpContinuation, []byte("hijk")))
		p.message(ws.OpText, []byte("abcdefghijk"))
	})
	t.Run("5.1 an unmasked client frame closes with 1002", func(t *testing.T) {
		p := dial(t, hs)
		p.send([]byte{ws.Fin | ws.OpText, 2, '{', '}'})
		assert.Contains(t, p.refusedWith(ws.StatusProtocolError), "masked")
	})
	for _, bit := range []byte{0x40, 0x20, 0x10} {
		t.Run(fmt.Sprintf("5.2 RSV bit %#x with no extension agreed closes with 1002", bit), func(t *testing.T) {
			p := dial(t, hs)
			b := text("x")
			b[0] |= bit
			p.send(b)
			assert.Contains(t, p.refusedWith(ws.StatusProtocolError), "extension bits")
		})
	}
	for _, op := range []byte{0x3, 0x4, 0x5, 0x6, 0x7, 0xB, 0xC, 0xD, 0xE, 0xF} {
		t.Run(fmt.Sprintf("5.2 the reserved opcode %#x closes with 1002", op), func(t *testing.T) {
			p := dial(t, hs)
			p.send(frame(op, []byte("x")))
			assert.Contains(t, p.refusedWith(ws.StatusProtocolError), "opcode")
		})
	}
	t.Run("10.4 a message over the limit closes with 1009", func(t *testing.T) {
		p := dial(t, hs)
		p.send(frame(ws.OpText, bytes.Repeat([]byte("x"), confLimit+1)))
		assert.Contains(t, p.closedWith(ws.StatusTooBig), "4096")
	})
	t.Run("5.2 a 64-bit length with its most significant bit set closes with 1002 at once", func(t *testing.T) {
		p := dial(t, hs)
		start := time.Now()
		p.send([]byte{ws.Fin | ws.OpText, 0x80 | 127, 0x80, 0, 0, 0, 0, 0, 0, 5, key[0], key[1], key[2], key[3]})
		assert.Contains(t, p.refusedWith(ws.StatusProtocolError), "top bit")
		assert.Less(t, time.Since(start), 2*time.Second, "no wait for a close that cannot be found")
	})
	t.Run("10.4 a 64-bit length over the limit closes with 1009 before its payload; the payload is skipped for the close behind it", func(t *testing.T) {
		p := dial(t, hs)
		const n = 70000
		head := ws.AppendHeader(nil, ws.Fin|ws.OpBinary, n, true, key)
		p.send(head)
		f, _ := p.next()
		require.Equal(t, byte(ws.OpClose), f.Op)
		code, _, err := ws.CheckClose(f.Payload)
		require.NoError(t, err)
		assert.Equal(t, ws.StatusTooBig, code)
		p.send(make([]byte, n), closeFrame(f.Payload))
		p.ended()
	})
}

// TestConformanceFragmentation: fragmented messages (section 5.4).
func TestConformanceFragmentation(t *testing.T) {
	t.Parallel()
	hs := confServer(t)
	t.Run("5.4 a text message in three fragments is handed on whole", func(t *testing.T) {
		p := dial(t, hs)
		p.send(text("hello", false), frame(ws.OpContinuation, []byte(" "), false), frame(ws.OpContinuation, []byte("world")))
		p.message(ws.OpText, []byte("hello world"))
	})
	t.Run("5.4 a binary message in fragments stays binary", func(t *testing.T) {
		p := dial(t, hs)
		p.send(frame(ws.OpBinary, []byte{0, 1}, false), frame(ws.OpContinuation, []byte{2, 3}))
		p.message(ws.OpBinary, []byte{0, 1, 2, 3})
	})
	t.Run("5.4 empty fragments are allowed", func(t *testing.T) {
		p := dial(t, hs)
		p.send(text("", false), frame(ws.OpContinuation, []byte("x"), false), frame(ws.OpContinuation, nil))
		p.message(ws.OpText, []byte("x"))
	})
	t.Run("5.4 fragments sent one at a time are joined", func(t *testing.T) {
		p := dial(t, hs)
		for i, part := range []string{"a", "b", "c"} {
			p.send(frame(map[bool]byte{true: ws.OpText, false: ws.OpContinuation}[i == 0], []byte(part), i == 2))
		}
		p.message(ws.OpText, []byte("abc"))
	})
	t.Run("5.4 a ping between fragments is answered at once, and the message is whole", func(t *testing.T) {
		p := dial(t, hs)
		p.send(text("frag", false), frame(ws.OpPing, []byte("in between")), frame(ws.OpContinuation, []byte("ment")))
		p.message(ws.OpPong, []byte("in between"))
		p.message(ws.OpText, []byte("fragment"))
	})
	t.Run("5.4 a pong between fragments is dropped, and the message is whole", func(t *testing.T) {
		p := dial(t, hs)
		p.send(text("frag", false), frame(ws.OpPong, []byte("unasked")), frame(ws.OpContinuation, []byte("ment")))
		p.message(ws.OpText, []byte("fragment"))
	})
	t.Run("5.4 a close between fragments is answered; the message is dropped", func(t *testing.T) {
		p := dial(t, hs)
		p.send(text("frag", false), closeFrame(closePayload(1000, "")))
		p.answered(ws.StatusNormal)
	})
	t.Run("5.4 a continuation with no message begun closes with 1002", func(t *testing.T) {
		p := dial(t, hs)
		p.send(frame(ws.OpContinuation, []byte("x")))
		assert.Contains(t, p.closedWith(ws.StatusProtocolError), "continuation")
	})
	t.Run("5.4 a final continuation with no message begun closes with 1002", func(t *testing.T) {
		p := dial(t, hs)
		p.send(text("done"), frame(ws.OpContinuation, []byte("x")))
		p.message(ws.OpText, []byte("done"))
		p.closedWith(ws.StatusProtocolError)
	})
	for name, next := range map[string][]byte{
		"text":   text("new"),
		"binary": frame(ws.OpBinary, []byte("new")),
	} {
		t.Run("5.4 a new "+name+" frame inside a fragmented message closes with 1002", func(t *testing.T) {
			p := dial(t, hs)
			p.send(text("begun", false), next)
			assert.Contains(t, p.closedWith(ws.StatusProtocolError), "final frame")
		})
	}
	t.Run("5.4 a message in 64 fragments is handed on whole", func(t *testing.T) {
		p := dial(t, hs)
		var b []byte
		for i := range ws.MaxMessageFrames {
			op := byte(ws.OpContinuation)
			if i == 0 {
				op = ws.OpText
			}
			b = append(b, frame(op, []byte{'a' + byte(i%26)}, i == ws.MaxMessageFrames-1)...)
		}
		p.send(b)
		f, _ := p.next()
		assert.Len(t, f.Payload, ws.MaxMessageFrames)
	})
	t.Run("10.4 a 65th fragment closes with 1008", func(t *testing.T) {
		p := dial(t, hs)
		b := text("", false)
		for range ws.MaxMessageFrames {
			b = append(b, frame(ws.OpContinuation, nil, false)...)
		}
		p.send(b)
		assert.Contains(t, p.closedWith(ws.StatusPolicyViolation), "64 frames")
	})
	t.Run("10.4 endless empty fragments close with 1008, and the socket is closed at once", func(t *testing.T) {
		p := dial(t, hs)
		p.send(text("", false))
		flood := bytes.Repeat(frame(ws.OpContinuation, nil, false), 512)
		go func() {
			for {
				if _, err := p.nc.Write(flood); err != nil {
					return
				}
			}
		}()
		start := time.Now()
		assert.Contains(t, p.closeFrom(ws.StatusPolicyViolation), "64 frames")
		_, err := io.Copy(io.Discard, p.br)
		if err != nil {
			require.ErrorIs(t, err, syscall.ECONNRESET, "the socket is closed, or reset for the flood it did not read")
		}
		assert.Less(t, time.Since(start), 5*time.Second)
	})
	t.Run("10.4 fragments over the limit together close with 1009", func(t *testing.T) {
		p := dial(t, hs)
		half := bytes.Repeat([]byte("x"), confLimit/2+1)
		p.send(frame(ws.OpText, half, false), frame(ws.OpContinuation, half))
		p.closedWith(ws.StatusTooBig)
	})
}

// TestConformanceControlFrames: ping, pong and close as control frames
// (section 5.5).
func TestConformanceControlFrames(t *testing.T) {
	t.Parallel()
	hs := confServer(t)
	for _, n := range []int{0, 1, 125} {
		t.Run(fmt.Sprintf("5.5.2 a ping of %d bytes is answered with a pong of its payload", n), func(t *testing.T) {
			p := dial(t, hs)
			payload := bytes.Repeat([]byte{0xFE}, n)
			p.send(frame(ws.OpPing, payload))
			p.message(ws.OpPong, payload)
		})
	}
	t.Run("5.5.3 pings in a row are answered in order", func(t *testing.T) {
		p := dial(t, hs)
		p.send(frame(ws.OpPing, []byte("1")), frame(ws.OpPing, []byte("2")), frame(ws.OpPing, []byte("3")))
		for _, want := range []string{"1", "2", "3"} {
			p.message(ws.OpPong, []byte(want))
		}
	})
	t.Run("pings past their budget close with 1008", func(t *testing.T) {
		// PingBurst at once are answered; a flood past them is cut, since
		// each costs a pong and no message counts it against the rate.
		p := dial(t, hs)
		for i := range ws.PingBurst {
			p.send(frame(ws.OpPing, []byte{byte(i)}))
			p.message(ws.OpPong, []byte{byte(i)})
		}
		flood := make([][]byte, 50)
		for i := range flood {
			flood[i] = frame(ws.OpPing, nil)
		}
		p.send(flood...)
		assert.Contains(t, p.refusedWith(ws.StatusPolicyViolation), "pings faster than one a 1s")
	})
	t.Run("the ping budget refills, one a second", func(t *testing.T) {
		p := dial(t, hs)
		for i := range ws.PingBurst {
			p.send(frame(ws.OpPing, []byte{byte(i)}))
			p.message(ws.OpPong, []byte{byte(i)})
		}
		time.Sleep(ws.PingEvery + ws.PingEvery/10)
		p.send(frame(ws.OpPing, []byte("again")))
		p.message(ws.OpPong, []byte("again"))
		p.send(text("still open"))
		p.message(ws.OpText, []byte("still open"))
	})
	t.Run("5.5.3 an unasked pong is dropped", func(t *testing.T) {
		p := dial(t, hs)
		p.send(frame(ws.OpPong, []byte("unasked")), text("after"))
		p.message(ws.OpText, []byte("after"))
	})
	for _, op := range []byte{ws.OpPing, ws.OpPong, ws.OpClose} {
		t.Run(fmt.Sprintf("5.5 a control frame (%#x) of 126 bytes closes with 1002", op), func(t *testing.T) {
			p := dial(t, hs)
			p.send(frame(op, closePayload(1000, strings.Repeat("x", 124))))
			assert.Contains(t, p.refusedWith(ws.StatusProtocolError), "control frame")
		})
		t.Run(fmt.Sprintf("5.5 a fragmented control frame (%#x) closes with 1002", op), func(t *testing.T) {
			p := dial(t, hs)
			p.send(frame(op, closePayload(1000, ""), false))
			assert.Contains(t, p.refusedWith(ws.StatusProtocolError), "control frame")
		})
	}
}

// TestConformanceClose: the closing handshake (sections 5.5.1 and 7) and
// the status codes a peer may send (7.4).
func TestConformanceClose(t *testing.T) {
	t.Parallel()
	hs := confServer(t)
	for _, code := range []uint16{1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999} {
		t.Run(fmt.Sprintf("7.4.1 the client's close with %d is answered with its code and reason", code), func(t *testing.T) {
			p := dial(t, hs)
			p.send(closeFrame(closePayload(code, "bye")))
			assert.Equal(t, "bye", p.answered(ws.StatusCode(code)))
		})
	}
	t.Run("5.5.1 an empty close is answered with an empty one", func(t *testing.T) {
		p := dial(t, hs)
		p.send(closeFrame(nil))
		f, _ := p.next()
		require.Equal(t, byte(ws.OpClose), f.Op)
		assert.Empty(t, f.Payload)
		p.ended()
	})
	t.Run("5.5.1 a close with the longest reason (123 bytes) is answered whole", func(t *testing.T) {
		p := dial(t, hs)
		reason := strings.Repeat("é", 61) + "x"
		p.send(closeFrame(closePayload(4001, reason)))
		assert.Equal(t, reason, p.answered(4001))
	})
	for _, code := range []uint16{0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535} {
		t.Run(fmt.Sprintf("7.4.2 the client's close with %d, which no peer may send, closes with 1002", code), func(t *testing.T) {
			p := dial(t, hs)
			p.send(closeFrame(closePayload(code, "")))
			assert.Contains(t, p.answered(ws.StatusProtocolError), "close code")
		})
	}
	t.Run("5.5.1 a close of one byte closes with 1002", func(t *testing.T) {
		p := dial(t, hs)
		p.send(closeFrame([]byte{0x03}))
		assert.Contains(t, p.answered(ws.StatusProtocolError), "one byte")
	})
	t.Run("8.1 a close whose reason is not UTF-8 closes with 1007", func(t *testing.T) {
		p := dial(t, hs)
		p.send(closeFrame(append(closePayload(1000, "ok"), 0xFF)))
		assert.Contains(t, p.answered(ws.StatusInvalidData), "UTF-8")
	})
	t.Run("7.1.2 the server's close waits for the client's, dropping the messages before it", func(t *testing.T) {
		p := dial(t, hs)
		p.send(text("close"))
		f, _ := p.next()
		require.Equal(t, byte(ws.OpClose), f.Op)
		code, reason, err := ws.CheckClose(f.Payload)
		require.NoError(t, err)
		assert.Equal(t, ws.StatusCode(4000), code)
		assert.Equal(t, "asked", reason)
		p.send(text("late, not echoed"), closeFrame(closePayload(4000, "")))
		p.ended()
	})
	t.Run("1.4 the server sends nothing after its close frame, and closes the socket", func(t *testing.T) {
		p := dial(t, hs)
		p.send(closeFrame(closePayload(1000, "")), text("after the close"))
		p.answered(ws.StatusNormal)
	})
}

// TestConformanceUTF8: text messages (section 8.1). A text message that
// is not UTF-8 fails the connection with 1007 (section 8.1); the check
// goes fragment by fragment (section 5.6), so the connection fails in the
// fragment that holds the bad bytes, before the message's end, while a
// character cut across fragments is joined whole. A close's reason that
// is not UTF-8 is 1007 too (TestConformanceClose). A binary message is
// not checked.
func TestConformanceUTF8(t *testing.T) {
	t.Parallel()
	hs := confServer(t)
	t.Run("8.1 a text message that is not UTF-8 closes with 1007", func(t *testing.T) {
		p := dial(t, hs)
		p.send(frame(ws.OpText, []byte{'{', 0xFF, 0xFE, '}'}))
		assert.Contains(t, p.closedWith(ws.StatusInvalidData), "UTF-8")
	})
	for name, b := range map[string][]byte{
		"an overlong encoding":         {'/', 0xC0, 0xAF},
		"a lone surrogate's bytes":     {0xED, 0xA0, 0x80},
		"a code point past U+10FFFF":   {0xF4, 0x90, 0x80, 0x80},
		"a continuation byte alone":    {'a', 0x80},
		"a character cut by the end":   {'a', 0xE2, 0x82},
		"a character cut by a new one": {0xE2, 'x'},
	} {
		t.Run("8.1 "+name+" closes with 1007", func(t *testing.T) {
			p := dial(t, hs)
			p.send(frame(ws.OpText, b))
			p.closedWith(ws.StatusInvalidData)
		})
	}
	t.Run("8.1 a fragment that is not UTF-8 closes with 1007 before the message's end; the rest of the message is dropped", func(t *testing.T) {
		p := dial(t, hs)
		p.send(text("fine so far", false), frame(ws.OpContinuation, []byte{'x', 0xFF}, false))
		reason := p.closeFrom(ws.StatusInvalidData)
		assert.Contains(t, reason, "UTF-8")
		p.send(frame(ws.OpContinuation, []byte("the rest")), closeFrame(p.last))
		p.ended()
	})
	t.Run("5.6 a character split across fragments is joined whole", func(t *testing.T) {
		p := dial(t, hs)
		p.send(frame(ws.OpText, []byte{'c', 'a', 'f', 0xC3}, false), frame(ws.OpContinuation, []byte{0xA9}))
		p.message(ws.OpText, []byte("café"))
	})
	t.Run("5.6 a four-byte character split across three fragments is joined whole", func(t *testing.T) {
		p := dial(t, hs)
		emoji := []byte("😀")
		p.send(frame(ws.OpText, emoji[:1], false), frame(ws.OpContinuation, emoji[1:3], false), frame(ws.OpContinuation, emoji[3:]))
		p.message(ws.OpText, emoji)
	})
	t.Run("5.6 a binary message is not checked as text", func(t *testing.T) {
		p := dial(t, hs)
		p.send(frame(ws.OpBinary, []byte{0xFF, 0xC0}))
		p.message(ws.OpBinary, []byte{0xFF, 0xC0})
	})
}

// TestConformanceHandshake: the opening handshake (section 4.2) and its
// refusals, as docs/protocol.md ("GET /ws") lists them: 426 for a request
// that is not an upgrade (or not HTTP/1.1 or later), 400 for another
// version or a bad key, 405 for a method other than GET, 403 for a
// foreign origin. Every refusal's body says why.
func TestConformanceHandshake(t *testing.T) {
	t.Parallel()
	hs := confServer(t, "*.friends.example", "https://*.secure.example")
	good := func(r *http.Request) {
		r.Header.Set("Connection", "Upgrade")
		r.Header.Set("Upgrade", "websocket")
		r.Header.Set("Sec-WebSocket-Version", "13")
		r.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	}
	for name, tt := range map[string]struct {
		method string
		edit   func(r *http.Request)
		status int
		header string // a header the answer sets, and its value
		value  string
		body   string
	}{
		"4.2.2 a good handshake is answered with the key's Sec-WebSocket-Accept": {http.MethodGet, func(*http.Request) {}, http.StatusSwitchingProtocols, "Sec-WebSocket-Accept", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", ""},
		"4.2.1 Connection and Upgrade are tokens, in any case": {http.MethodGet, func(r *http.Request) {
			r.Header.Set("Connection", "keep-alive, UPGRADE")
			r.Header.Set("Upgrade", "WebSocket")
		}, http.StatusSwitchingProtocols, "Upgrade", "websocket", ""},
		"4.2.2 an extension or subprotocol asked for is not agreed": {http.MethodGet, func(r *http.Request) {
			r.Header.Set("Sec-WebSocket-Extensions", "permessage-deflate")
			r.Header.Set("Sec-WebSocket-Protocol", "chat")
		}, http.StatusSwitchingProtocols, "Sec-WebSocket-Accept", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", ""},
		"4.2.1 no Upgrade header: 426":                             {http.MethodGet, func(r *http.Request) { r.Header.Del("Upgrade") }, http.StatusUpgradeRequired, "Upgrade", "websocket", "WebSocket endpoint"},
		"4.2.1 an Upgrade to another protocol: 426":                {http.MethodGet, func(r *http.Request) { r.Header.Set("Upgrade", "h2c") }, http.StatusUpgradeRequired, "Upgrade", "websocket", "WebSocket endpoint"},
		"4.2.1 no Connection: Upgrade: 426":                        {http.MethodGet, func(r *http.Request) { r.Header.Set("Connection", "keep-alive") }, http.StatusUpgradeRequired, "Upgrade", "websocket", "WebSocket endpoint"},
		"4.4 another version: 400, with the version spoken":        {http.MethodGet, func(r *http.Request) { r.Header.Set("Sec-WebSocket-Version", "8") }, http.StatusBadRequest, "Sec-WebSocket-Version", "13", "13"},
		"4.2.1 no version: 400":                                    {http.MethodGet, func(r *http.Request) { r.Header.Del("Sec-WebSocket-Version") }, http.StatusBadRequest, "Sec-WebSocket-Version", "13", "13"},
		"4.2.1 no key: 400":                                        {http.MethodGet, func(r *http.Request) { r.Header.Del("Sec-WebSocket-Key") }, http.StatusBadRequest, "", "", "Sec-WebSocket-Key"},
		"4.2.1 a key not of 16 bytes: 400":                         {http.MethodGet, func(r *http.Request) { r.Header.Set("Sec-WebSocket-Key", "c2hvcnQ=") }, http.StatusBadRequest, "", "", "16 bytes"},
		"4.2.1 a key not in base64: 400":                           {http.MethodGet, func(r *http.Request) { r.Header.Set("Sec-WebSocket-Key", "not base64 at all!!!") }, http.StatusBadRequest, "", "", "16 bytes"},
		"4.2.1 two keys: 400":                                      {http.MethodGet, func(r *http.Request) { r.Header.Add("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==") }, http.StatusBadRequest, "", "", "one Sec-WebSocket-Key"},
		"4.2.1 a POST: 405":                                        {http.MethodPost, func(*http.Request) {}, http.StatusMethodNotAllowed, "", "", "must be a GET"},
		"10.2 a foreign origin: 403":                               {http.MethodGet, func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") }, http.StatusForbidden, "", "", "evil.example"},
		"10.2 an origin that is not a URL: 403":                    {http.MethodGet, func(r *http.Request) { r.Header.Set("Origin", "%zz") }, http.StatusForbidden, "", "", "not a URL"},
		"10.2 an origin a pattern allows":                          {http.MethodGet, func(r *http.Request) { r.Header.Set("Origin", "http://play.friends.example") }, http.StatusSwitchingProtocols, "Sec-WebSocket-Accept", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", ""},
		"10.2 an origin a pattern with a scheme allows":            {http.MethodGet, func(r *http.Request) { r.Header.Set("Origin", "https://a.secure.example") }, http.StatusSwitchingProtocols, "Sec-WebSocket-Accept", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", ""},
		"10.2 an origin of another scheme than its pattern's: 403": {http.MethodGet, func(r *http.Request) { r.Header.Set("Origin", "http://a.secure.example") }, http.StatusForbidden, "", "", "a.secure.example"},
	} {
		t.Run(name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, hs.URL+"/ws", nil)
			require.NoError(t, err)
			good(req)
			tt.edit(req)
			resp, err := http.DefaultTransport.RoundTrip(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			assert.Equal(t, tt.status, resp.StatusCode)
			if tt.header != "" {
				assert.True(t, strings.EqualFold(tt.value, resp.Header.Get(tt.header)), "%s: %q", tt.header, resp.Header.Get(tt.header))
			}
			if tt.status == http.StatusSwitchingProtocols {
				assert.Empty(t, resp.Header.Get("Sec-WebSocket-Extensions"), "no extension is agreed")
				assert.Empty(t, resp.Header.Get("Sec-WebSocket-Protocol"), "no subprotocol is agreed")
				return
			}
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Contains(t, string(body), tt.body)
		})
	}
	t.Run("10.2 the server's own host is always allowed", func(t *testing.T) {
		req, err := http.NewRequest(http.MethodGet, hs.URL+"/ws", nil)
		require.NoError(t, err)
		good(req)
		req.Header.Set("Origin", hs.URL)
		resp, err := http.DefaultTransport.RoundTrip(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		assert.Equal(t, http.StatusSwitchingProtocols, resp.StatusCode)
	})
	t.Run("4.1 an HTTP/1.0 request cannot be upgraded: 426", func(t *testing.T) {
		nc, err := net.Dial("tcp", hs.Listener.Addr().String())
		require.NoError(t, err)
		defer nc.Close()
		require.NoError(t, nc.SetDeadline(time.Now().Add(5*time.Second)))
		_, err = nc.Write([]byte("GET /ws HTTP/1.0\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
			"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"))
		require.NoError(t, err)
		resp, err := http.ReadResponse(bufio.NewReader(nc), nil)
		require.NoError(t, err)
		defer resp.Body.Close()
		assert.Equal(t, http.StatusUpgradeRequired, resp.StatusCode)
		assert.Equal(t, "websocket", resp.Header.Get("Upgrade"))
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		assert.Contains(t, string(body), "HTTP/1.1")
	})
	t.Run("4.2.2 what the client sends right behind its handshake is read", func(t *testing.T) {
		nc, err := net.Dial("tcp", hs.Listener.Addr().String())
		require.NoError(t, err)
		defer nc.Close()
		require.NoError(t, nc.SetDeadline(time.Now().Add(5*time.Second)))
		_, err = nc.Write(append([]byte("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
			"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"), text("early")...))
		require.NoError(t, err)
		br := bufio.NewReader(nc)
		resp, err := http.ReadResponse(br, nil)
		require.NoError(t, err)
		require.Equal(t, http.StatusSwitchingProtocols, resp.StatusCode)
		p := &peer{t: t, nc: nc, br: br}
		p.message(ws.OpText, []byte("early"))
	})
}
