package ws

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clientFrame is a frame as a client sends it: masked with key, final
// unless fin is false.
func clientFrame(op byte, payload []byte, key [4]byte, fin ...bool) []byte {
	b := AppendMasked(nil, op, payload, key)
	if len(fin) > 0 && !fin[0] {
		b[0] &^= Fin
	}
	return b
}

// newFillPair is a Conn over the server end of a real loopback TCP
// connection, set up as accept sets it up, and the client end.
func newFillPair(t *testing.T) (*Conn, net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	client, err := net.Dial("tcp", l.Addr().String())
	require.NoError(t, err)
	nc, err := l.Accept()
	require.NoError(t, err)
	t.Cleanup(func() { client.Close(); nc.Close() })
	return newConn(nc, nil, time.Second, 4096), client
}

func (c *Conn) held() bool {
	c.smu.Lock()
	defer c.smu.Unlock()
	return c.in != nil
}

// await is the next input, as a reader that parks sees it: it waits, as
// the poller's wake would, until there is one.
func await(t *testing.T, c *Conn) Input {
	t.Helper()
	var in Input
	require.Eventually(t, func() bool {
		in = c.Next(true)
		return in.Kind != InputNone
	}, 2*time.Second, time.Millisecond)
	return in
}

// message checks that in is a text message holding want, and gives its
// buffer back.
func message(t *testing.T, in Input, want string) {
	t.Helper()
	require.Equal(t, InputMessage, in.Kind, "%+v", in)
	assert.Equal(t, byte(OpText), in.Op)
	assert.Equal(t, want, in.Msg.String())
	DoneWith(in.Msg)
}

// readFrame reads one server frame from the client's end.
func readFrame(t *testing.T, client net.Conn) Frame {
	t.Helper()
	require.NoError(t, client.SetReadDeadline(time.Now().Add(2*time.Second)))
	var b []byte
	for {
		f, size, err := Parse(b, 1<<20, false)
		require.NoError(t, err)
		if size > 0 {
			require.Len(t, b, size, "one frame, nothing after it")
			return f
		}
		p := make([]byte, 256)
		n, err := client.Read(p)
		require.NoError(t, err)
		b = append(b, p[:n]...)
	}
}

func TestTakeAnswersPingsDropsPongsAndHandsOnTheMessage(t *testing.T) {
	c, client := newFillPair(t)
	assert.False(t, c.held(), "a new connection holds no buffer")
	assert.Equal(t, InputNone, c.Next(true).Kind, "nothing sent, nothing to read")
	key := [4]byte{1, 2, 3, 4}
	sent := append(clientFrame(OpPing, []byte("hello"), key), clientFrame(OpPong, nil, key)...)
	sent = append(sent, clientFrame(OpText, []byte(`{"type":"ping"}`), key)...)
	heard := c.heard.Load()
	_, err := client.Write(sent)
	require.NoError(t, err)
	message(t, await(t, c), `{"type":"ping"}`)
	assert.Greater(t, c.heard.Load(), heard, "the bytes count as heard")
	assert.False(t, c.held(), "the buffer goes back once all is taken")
	pong := readFrame(t, client)
	assert.Equal(t, byte(OpPong), pong.Op)
	assert.Equal(t, "hello", string(pong.Payload), "the ping is answered with its payload, unmasked")
}

// A ping that comes in parts waits for its rest, the reader free to park
// meanwhile, and is answered once whole.
func TestAFrameInPartsWaitsForItsRest(t *testing.T) {
	c, client := newFillPair(t)
	ping := clientFrame(OpPing, []byte("half"), [4]byte{3, 1, 4, 1})
	_, err := client.Write(ping[:4])
	require.NoError(t, err)
	require.Eventually(t, func() bool { return c.Next(true).Kind == InputNone && c.held() }, 2*time.Second, time.Millisecond)
	_, err = client.Write(append(ping[4:], clientFrame(OpText, []byte("x"), [4]byte{1, 1, 1, 1})...))
	require.NoError(t, err)
	message(t, await(t, c), "x")
	pong := readFrame(t, client)
	assert.Equal(t, "half", string(pong.Payload))
}

// A message in fragments, with a ping between them, is handed on whole;
// so is one longer than a buffer, after which no large buffer is held.
func TestLongAndFragmentedMessagesAreHandedOnWhole(t *testing.T) {
	c, client := newFillPair(t)
	key := [4]byte{7, 7, 1, 2}
	sent := clientFrame(OpText, []byte(`{"type":`), key, false)
	sent = append(sent, clientFrame(OpPing, []byte("p"), key)...)
	sent = append(sent, clientFrame(OpContinuation, []byte(`"ping"`), key, false)...)
	sent = append(sent, clientFrame(OpContinuation, []byte(`}`), key)...)
	_, err := client.Write(sent)
	require.NoError(t, err)
	message(t, await(t, c), `{"type":"ping"}`)
	assert.Equal(t, "p", string(readFrame(t, client).Payload))

	long := strings.Repeat("0123456789", 400)
	go func() { _, _ = client.Write(clientFrame(OpText, []byte(long), key)) }()
	message(t, await(t, c), long)
	assert.False(t, c.held())

	bin := clientFrame(OpBinary, []byte{0, 1, 2}, key)
	_, err = client.Write(bin)
	require.NoError(t, err)
	in := await(t, c)
	require.Equal(t, InputMessage, in.Kind)
	assert.Equal(t, byte(OpBinary), in.Op, "a binary message is handed on as binary")
}

func TestTheClientsCloseIsHandedOn(t *testing.T) {
	for name, tt := range map[string]struct {
		payload []byte
		code    StatusCode
		reason  string
	}{
		"with a code and reason": {binary.BigEndian.AppendUint16(nil, 4000), 4000, ""},
		"with a reason":          {append(binary.BigEndian.AppendUint16(nil, 1000), "bye"...), 1000, "bye"},
		"empty":                  {nil, StatusNoStatus, ""},
	} {
		t.Run(name, func(t *testing.T) {
			c, client := newFillPair(t)
			_, err := client.Write(clientFrame(OpClose, tt.payload, [4]byte{1, 2, 3, 4}))
			require.NoError(t, err)
			in := await(t, c)
			assert.Equal(t, Input{Kind: InputClose, Code: tt.code, Reason: tt.reason}, in)
			assert.True(t, c.sawClose())
		})
	}
}

// A frame that breaks the rules is reported with the close code and a
// reason for it: 1009 for a message over the limit, 1007 for text that
// is not UTF-8, 1008 for a message in too many frames, 1002 otherwise.
func TestBrokenRulesAreReportedWithTheirCloseCode(t *testing.T) {
	key := [4]byte{5, 6, 7, 8}
	long := bytes.Repeat([]byte("x"), 3000)
	for name, tt := range map[string]struct {
		sent []byte
		code StatusCode
	}{
		"an unmasked frame":        {[]byte{0x81, 1, 'x'}, StatusProtocolError},
		"an extension bit":         {append([]byte{0xC1}, clientFrame(OpText, []byte("x"), key)[1:]...), StatusProtocolError},
		"an unknown opcode":        {clientFrame(0x3, []byte("x"), key), StatusProtocolError},
		"a ping in fragments":      {clientFrame(OpPing, []byte("x"), key, false), StatusProtocolError},
		"a ping over 125 bytes":    {clientFrame(OpPing, long[:126], key), StatusProtocolError},
		"a continuation first":     {clientFrame(OpContinuation, []byte("x"), key), StatusProtocolError},
		"a message inside another": {append(clientFrame(OpText, []byte("a"), key, false), clientFrame(OpText, []byte("b"), key)...), StatusProtocolError},
		"a close of one byte":      {clientFrame(OpClose, []byte{3}, key), StatusProtocolError},
		"a close with code 1005":   {clientFrame(OpClose, []byte{3, 0xED}, key), StatusProtocolError},
		"a close reason not UTF-8": {clientFrame(OpClose, []byte{3, 0xE8, 0xFF}, key), StatusInvalidData},
		"a text not UTF-8":         {clientFrame(OpText, []byte("{\"a\":\"\xff\"}"), key), StatusInvalidData},
		"a fragment not UTF-8":     {append(clientFrame(OpText, []byte("ok"), key, false), clientFrame(OpContinuation, []byte{0xC0, 0xAF}, key)...), StatusInvalidData},
		"a frame over the limit":   {clientFrame(OpText, bytes.Repeat([]byte("x"), 4097), key), StatusTooBig},
		"fragments over the limit": {append(clientFrame(OpText, long, key, false), clientFrame(OpContinuation, long, key)...), StatusTooBig},
		"a message in 65 frames":   {manyFrames(65, key), StatusPolicyViolation},
	} {
		t.Run(name, func(t *testing.T) {
			c, client := newFillPair(t)
			go func() { _, _ = client.Write(tt.sent) }()
			in := await(t, c)
			assert.Equal(t, InputBad, in.Kind)
			assert.Equal(t, tt.code, in.Code)
			assert.NotEmpty(t, in.Reason)
			assert.LessOrEqual(t, len(in.Reason), MaxCloseReason)
		})
	}
	t.Run("a message in 64 frames", func(t *testing.T) {
		c, client := newFillPair(t)
		go func() { _, _ = client.Write(manyFrames(MaxMessageFrames, key)) }()
		message(t, await(t, c), strings.Repeat("x", MaxMessageFrames))
	})
	t.Run("a message at the limit", func(t *testing.T) {
		c, client := newFillPair(t)
		go func() { _, _ = client.Write(clientFrame(OpText, bytes.Repeat([]byte("y"), 4096), key)) }()
		message(t, await(t, c), strings.Repeat("y", 4096))
	})
}

// manyFrames is a text message of n frames of one byte each, the last
// final.
func manyFrames(n int, key [4]byte) []byte {
	b := clientFrame(OpText, []byte("x"), key, n == 1)
	for i := 1; i < n; i++ {
		b = append(b, clientFrame(OpContinuation, []byte("x"), key, i == n-1)...)
	}
	return b
}

// A reader that waits (next without parking) returns once bytes come,
// and reports the socket's end, after what came before it.
func TestNextWaitsAndReportsTheEnd(t *testing.T) {
	c, client := newFillPair(t)
	got := make(chan Input)
	go func() { got <- c.Next(false) }()
	select {
	case in := <-got:
		t.Fatalf("next returned %+v before the client sent anything", in)
	case <-time.After(50 * time.Millisecond):
	}
	_, err := client.Write(clientFrame(OpText, []byte("a"), [4]byte{}))
	require.NoError(t, err)
	message(t, <-got, "a")
	_, err = client.Write(clientFrame(OpText, []byte("b"), [4]byte{}))
	require.NoError(t, err)
	require.NoError(t, client.Close())
	message(t, c.Next(false), "b")
	assert.Equal(t, InputEnd, c.Next(false).Kind)
	assert.Equal(t, InputEnd, c.Next(true).Kind, "the end is kept")
}

// The close handshake sends the close frame and waits for the client's,
// dropping the messages before it, then closes the socket; it does not
// wait when the client's close came first.
func TestTheCloseHandshake(t *testing.T) {
	c, client := newFillPair(t)
	done := make(chan struct{})
	go func() { c.CloseHandshake(4003, "the room has ended"); close(done) }()
	f := readFrame(t, client)
	require.Equal(t, byte(OpClose), f.Op)
	code, reason, err := CheckClose(f.Payload)
	require.NoError(t, err)
	assert.Equal(t, StatusCode(4003), code)
	assert.Equal(t, "the room has ended", reason)
	select {
	case <-done:
		t.Fatal("the handshake ended before the client's close")
	case <-time.After(50 * time.Millisecond):
	}
	key := [4]byte{9, 9, 9, 9}
	_, err = client.Write(append(clientFrame(OpText, []byte("late"), key), clientFrame(OpClose, []byte{0x0F, 0xA3}, key)...))
	require.NoError(t, err)
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("the client's close did not end the handshake")
	}
	_, err = client.Read(make([]byte, 1))
	assert.ErrorIs(t, err, io.EOF, "the socket is closed")

	c, client = newFillPair(t)
	_, err = client.Write(clientFrame(OpClose, nil, key))
	require.NoError(t, err)
	assert.Equal(t, InputClose, await(t, c).Kind)
	start := time.Now()
	c.CloseHandshake(StatusNoStatus, "")
	assert.Less(t, time.Since(start), time.Second, "no wait for a close that came")
	f = readFrame(t, client)
	assert.Equal(t, byte(OpClose), f.Op)
	assert.Empty(t, f.Payload, "an empty close is answered with an empty one")
}

// discardConn takes every write; reads end at once.
type discardConn struct{ net.Conn }

func (discardConn) Write(p []byte) (int, error)      { return len(p), nil }
func (discardConn) Read([]byte) (int, error)         { return 0, io.EOF }
func (discardConn) SetWriteDeadline(time.Time) error { return nil }
func (discardConn) SetReadDeadline(time.Time) error  { return nil }
func (discardConn) Close() error                     { return nil }

// FuzzTake: whatever the client sent, take ends (at the bytes' end or a
// broken rule) without failing, hands on no message over the limit, and
// a message a client frames is handed on as sent, whatever follows it.
func FuzzTake(f *testing.F) {
	f.Add([]byte{0x89, 0x80, 1, 2, 3, 4}, []byte("hi"), uint8(3))
	f.Add([]byte{0x01, 0x81, 0, 0, 0, 0, 'a', 0x80, 0x81, 0, 0, 0, 0, 'b'}, []byte{}, uint8(0))
	f.Add([]byte{0x81, 0xFE, 0x10, 0x00}, []byte(`{"type":"ping"}`), uint8(200))
	f.Fuzz(func(t *testing.T, sent, payload []byte, parts uint8) {
		const limit = 64
		c := &Conn{Conn: discardConn{}, timeout: time.Second, limit: limit}
		// A message in up to parts+1 fragments, then the bytes.
		var b []byte
		n := max(1, min(int(parts)+1, len(payload)))
		for i := range n {
			op := byte(OpContinuation)
			if i == 0 {
				op = OpText
			}
			frame := clientFrame(op, payload[i*len(payload)/n:(i+1)*len(payload)/n], [4]byte{byte(i), 1, 2, 3}, i == n-1)
			b = append(b, frame...)
		}
		b = append(b, sent...)
		c.in, c.rerr = &inBuf{b: b, w: len(b)}, io.EOF
		first := true
		for range len(b) + 1 {
			in := c.take()
			if first {
				first = false
				if len(payload) > limit || !utf8.Valid(payload) {
					// Whichever the fragments come to first.
					require.Equal(t, InputBad, in.Kind)
					require.Contains(t, []StatusCode{StatusTooBig, StatusInvalidData}, in.Code)
					if len(payload) <= limit {
						require.Equal(t, StatusInvalidData, in.Code)
					}
					if utf8.Valid(payload) {
						require.Equal(t, StatusTooBig, in.Code)
					}
					return
				}
				require.Equal(t, InputMessage, in.Kind, "%+v", in)
				require.Equal(t, string(payload), in.Msg.String())
				DoneWith(in.Msg)
				continue
			}
			switch in.Kind {
			case InputMessage:
				require.LessOrEqual(t, in.Msg.Len(), limit)
				DoneWith(in.Msg)
			case InputNone:
				t.Fatal("none with the end known")
			default:
				return
			}
		}
		t.Fatal("take did not end")
	})
}

// A message refused as too big is skipped as it comes, so that the close
// handshake that follows reads the client's close behind it.
func TestAMessageTooBigIsSkippedForTheClientsClose(t *testing.T) {
	c, client := newFillPair(t)
	key := [4]byte{4, 3, 2, 1}
	big := clientFrame(OpText, bytes.Repeat([]byte("z"), 9000), key)
	go func() { _, _ = client.Write(big[:600]) }()
	in := await(t, c)
	require.Equal(t, InputBad, in.Kind)
	require.Equal(t, StatusTooBig, in.Code)
	done := make(chan struct{})
	go func() { c.CloseHandshake(in.Code, in.Reason); close(done) }()
	assert.Equal(t, byte(OpClose), readFrame(t, client).Op)
	_, err := client.Write(append(big[600:], clientFrame(OpClose, []byte{0x03, 0xF1}, key)...))
	require.NoError(t, err, "the rest of the message is read, not refused")
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("the client's close behind the big message was not read")
	}
	assert.True(t, c.sawClose())
}

// Taking a message from what the socket brought, and giving its buffer
// back once handled, allocates nothing: the buffers are pooled.
func TestTakingAMessageDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	c := &Conn{Conn: discardConn{}, timeout: time.Second, limit: 4096}
	b := clientFrame(OpText, []byte(`{"type":"move","cell":4,"digit":7}`), [4]byte{4, 3, 2, 1})
	in := &inBuf{b: b, w: len(b)} // not the pool's size: never pooled
	allocs := testing.AllocsPerRun(200, func() {
		in.r = 0
		c.in = in
		got := c.take()
		if got.Kind != InputMessage {
			t.Fatalf("took %+v", got)
		}
		DoneWith(got.Msg)
	})
	assert.Zero(t, allocs, "allocations per message taken")
}

// A text message's bytes are checked as UTF-8 fragment by fragment: a
// character cut across fragments, anywhere, is joined whole; bytes that
// cannot be UTF-8 are refused with 1007 in the fragment that holds them,
// before the message's end; a character cut at the message's end is
// refused too. A binary message is not checked.
func TestTextIsCheckedAsUTF8FragmentByFragment(t *testing.T) {
	key := [4]byte{9, 8, 7, 6}
	// frags is msg cut at the given offsets, in fragments.
	frags := func(op byte, msg []byte, cuts ...int) []byte {
		var b []byte
		from := 0
		for i, to := range append(cuts, len(msg)) {
			o := byte(OpContinuation)
			if i == 0 {
				o = op
			}
			b = append(b, clientFrame(o, msg[from:to], key, to == len(msg))...)
			from = to
		}
		return b
	}
	take := func(sent []byte) Input {
		c := &Conn{Conn: discardConn{}, timeout: time.Second, limit: 4096}
		c.in = &inBuf{b: sent, w: len(sent)}
		return c.take()
	}
	good := []byte("é€😀x") // 2, 3 and 4 bytes, then one
	for i := 0; i <= len(good); i++ {
		for j := i; j <= len(good); j++ {
			in := take(frags(OpText, good, i, j))
			require.Equal(t, InputMessage, in.Kind, "cut at %d and %d: %+v", i, j, in)
			require.Equal(t, good, in.Msg.Bytes())
			DoneWith(in.Msg)
		}
	}
	for name, tt := range map[string]struct {
		first []byte // a fragment that is not final: refused without the rest
	}{
		"a byte no character has":         {[]byte("ab\xff")},
		"a continuation byte first":       {[]byte("\x80ab")},
		"an overlong start":               {[]byte("ab\xc0")},
		"an overlong start of three":      {[]byte("ab\xe0\x80")},
		"a surrogate's start":             {[]byte("ab\xed\xa0")},
		"a start past U+10FFFF":           {[]byte("ab\xf4\x90")},
		"a start cut short by ASCII":      {[]byte("a\xe2x")},
		"a start with too many followers": {[]byte("\xc3\xa9\xa9")},
	} {
		t.Run(name, func(t *testing.T) {
			in := take(clientFrame(OpText, tt.first, key, false))
			assert.Equal(t, InputBad, in.Kind, "refused before the message's end")
			assert.Equal(t, StatusInvalidData, in.Code)
		})
	}
	t.Run("a character cut at the message's end", func(t *testing.T) {
		in := take(frags(OpText, []byte("ab\xe2\x82"), 2))
		assert.Equal(t, InputBad, in.Kind)
		assert.Equal(t, StatusInvalidData, in.Code)
	})
	t.Run("a character's start followed by a new character in the next fragment", func(t *testing.T) {
		in := take(frags(OpText, []byte("ab\xe2x"), 3))
		assert.Equal(t, InputBad, in.Kind)
		assert.Equal(t, StatusInvalidData, in.Code)
	})
	t.Run("a binary message is not checked", func(t *testing.T) {
		in := take(frags(OpBinary, []byte{0xff, 0xc0}, 1))
		require.Equal(t, InputMessage, in.Kind)
		assert.Equal(t, []byte{0xff, 0xc0}, in.Msg.Bytes())
		DoneWith(in.Msg)
	})
	t.Run("the rest of a refused message is dropped up to the client's close", func(t *testing.T) {
		sent := frags(OpText, []byte("a\xffbcdef"), 2, 4)
		sent = append(sent, clientFrame(OpClose, []byte{0x03, 0xEF}, key)...)
		c := &Conn{Conn: discardConn{}, timeout: time.Second, limit: 4096}
		c.in = &inBuf{b: sent, w: len(sent)}
		assert.Equal(t, StatusInvalidData, c.take().Code)
		assert.Equal(t, Input{Kind: InputClose, Code: 1007}, c.take(), "the close, behind the message's other fragments")
	})
}

// A message, or a frame, begun has its time from its first byte to its
// last (SetMessageTimeout): one not whole by then is a broken rule, 1008,
// whether the rest trickles in a byte at a time or does not come; a
// reader that waits in the socket's read is let go for it. Each message
// has a time of its own, so that messages that each come in parts, one
// after another, are read for as long as they come.
func TestAMessageBegunHasItsTime(t *testing.T) {
	key := [4]byte{2, 7, 1, 8}
	const limit = 200 * time.Millisecond
	overdue := func(t *testing.T, in Input, start time.Time) {
		t.Helper()
		assert.Equal(t, InputBad, in.Kind, "%+v", in)
		assert.Equal(t, StatusPolicyViolation, in.Code)
		assert.Contains(t, in.Reason, "not whole")
		took := time.Since(start)
		assert.GreaterOrEqual(t, took, limit)
		assert.Less(t, took, limit+time.Second)
	}
	t.Run("a frame in part, the rest never sent, with the reader waiting", func(t *testing.T) {
		c, client := newFillPair(t)
		c.SetMessageTimeout(limit)
		start := time.Now()
		_, err := client.Write(clientFrame(OpText, []byte(`{"type":"ping"}`), key)[:5])
		require.NoError(t, err)
		overdue(t, c.Next(false), start)
		assert.Equal(t, InputBad, c.Next(false).Kind, "and it stays so")
	})
	t.Run("a frame a byte at a time", func(t *testing.T) {
		c, client := newFillPair(t)
		c.SetMessageTimeout(limit)
		frame := clientFrame(OpText, bytes.Repeat([]byte("x"), 100), key)
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			for _, b := range frame {
				select {
				case <-stop:
					return
				case <-time.After(10 * time.Millisecond):
				}
				if _, err := client.Write([]byte{b}); err != nil {
					return
				}
			}
		}()
		start := time.Now()
		overdue(t, c.Next(false), start)
	})
	t.Run("a message whose last fragment does not come", func(t *testing.T) {
		c, client := newFillPair(t)
		c.SetMessageTimeout(limit)
		start := time.Now()
		_, err := client.Write(clientFrame(OpText, []byte(`{"type":`), key, false))
		require.NoError(t, err)
		overdue(t, c.Next(false), start)
	})
	t.Run("a reader that parks finds it once woken", func(t *testing.T) {
		c, client := newFillPair(t)
		c.SetMessageTimeout(limit)
		start := time.Now()
		_, err := client.Write(clientFrame(OpText, []byte("x"), key)[:3])
		require.NoError(t, err)
		require.Eventually(t, func() bool { return c.Next(true).Kind == InputNone && c.held() }, time.Second, time.Millisecond)
		var in Input
		require.Eventually(t, func() bool { in = c.Next(true); return in.Kind != InputNone }, 2*time.Second, 10*time.Millisecond)
		overdue(t, in, start)
	})
	t.Run("messages in parts, each within its time, for longer than it", func(t *testing.T) {
		c, client := newFillPair(t)
		c.SetMessageTimeout(limit)
		go func() {
			for i := range 6 {
				frame := clientFrame(OpText, fmt.Appendf(nil, "message %d", i), key)
				if _, err := client.Write(frame[:4]); err != nil {
					return
				}
				time.Sleep(limit / 2)
				if _, err := client.Write(frame[4:]); err != nil {
					return
				}
			}
		}()
		for i := range 6 {
			message(t, c.Next(false), fmt.Sprintf("message %d", i))
		}
	})
}
