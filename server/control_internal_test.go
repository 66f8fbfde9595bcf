package server

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clientFrame is a final frame as a client sends it: masked with key.
func clientFrame(op byte, payload []byte, key [4]byte) []byte {
	b := []byte{0x80 | op}
	switch n := len(payload); {
	case n <= 125:
		b = append(b, 0x80|byte(n))
	default:
		b = append(b, 0x80|126, byte(n>>8), byte(n))
	}
	b = append(b, key[:]...)
	for i, x := range payload {
		b = append(b, x^key[i%4])
	}
	return b
}

// waitReady waits until c has bytes for the reader, as the poller's wake
// would.
func waitReady(t *testing.T, c *corkConn) {
	t.Helper()
	require.Eventually(t, c.inputReady, 2*time.Second, time.Millisecond)
}

func TestTakeControlAnswersPingsDropsPongsAndLeavesTheRest(t *testing.T) {
	c, client := newFillPair(t)
	key := [4]byte{1, 2, 3, 4}
	text := clientFrame(0x1, []byte(`{"type":"ping"}`), key)
	sent := append(clientFrame(opPing, []byte("hello"), key), clientFrame(opPong, nil, key)...)
	sent = append(sent, text...)
	_, err := client.Write(sent)
	require.NoError(t, err)
	waitReady(t, c)
	heard := c.heard.Load()
	assert.Equal(t, inputForLibrary, c.takeControl(), "the text frame is left for the library")
	assert.Greater(t, c.heard.Load(), heard, "the bytes count as heard")
	left, err := c.br.Peek(c.br.Buffered())
	require.NoError(t, err)
	assert.Equal(t, text, left, "the text frame is left whole, and nothing else")

	require.NoError(t, client.SetReadDeadline(time.Now().Add(2*time.Second)))
	pong := make([]byte, 7)
	_, err = io.ReadFull(client, pong)
	require.NoError(t, err)
	assert.Equal(t, append([]byte{0x80 | opPong, 5}, "hello"...), pong, "the ping is answered with its payload, unmasked")
}

func TestTakeControlTakesAWholeBufferOfPongs(t *testing.T) {
	c, client := newFillPair(t)
	var sent []byte
	for i := range 3 {
		sent = append(sent, clientFrame(opPong, []byte{byte(i)}, [4]byte{9, 8, 7, byte(i)})...)
	}
	_, err := client.Write(sent)
	require.NoError(t, err)
	waitReady(t, c)
	assert.Equal(t, inputTaken, c.takeControl(), "nothing is left for the library")
	assert.Zero(t, c.br.Buffered())
	assert.False(t, c.held(), "no buffer is held")
	assert.False(t, c.inputReady(), "the socket has nothing more")
}

func TestTakeControlLeavesWhatIsNotAWholeClientPingOrPong(t *testing.T) {
	key := [4]byte{5, 6, 7, 8}
	for name, b := range map[string][]byte{
		"an unmasked ping":      {0x80 | opPing, 0},
		"a ping not final":      {opPing, 0x80, 1, 2, 3, 4},
		"a ping with RSV1":      {0xC0 | opPing, 0x80, 1, 2, 3, 4},
		"a ping over 125 bytes": clientFrame(opPing, bytes.Repeat([]byte("x"), 126), key),
		"a close":               clientFrame(0x8, []byte{3, 232}, key),
		"a binary frame":        clientFrame(0x2, []byte("x"), key),
	} {
		t.Run(name, func(t *testing.T) {
			c, client := newFillPair(t)
			_, err := client.Write(b)
			require.NoError(t, err)
			waitReady(t, c)
			assert.Equal(t, inputForLibrary, c.takeControl())
			assert.Positive(t, c.br.Buffered(), "left in front of the library's reader")
			got, _ := c.br.Peek(c.br.Buffered())
			assert.Equal(t, b[:len(got)], got)
		})
	}
}

// Pings and pongs past one buffer's worth (readBufferSize) are all taken,
// across the reads they take, and what follows them is the library's.
func TestNextInputTakesPongsPastOneBuffer(t *testing.T) {
	c, client := newFillPair(t)
	var sent []byte
	for i := range 60 {
		sent = append(sent, clientFrame(opPong, []byte{1, 2, 3, byte(i)}, [4]byte{7, 7, 7, byte(i)})...)
	}
	text := clientFrame(0x1, []byte(`{"type":"ping"}`), [4]byte{1, 2, 3, 4})
	_, err := client.Write(append(sent, text...))
	require.NoError(t, err)
	require.Eventually(t, c.nextInput, 2*time.Second, time.Millisecond)
	left, err := c.br.Peek(c.br.Buffered())
	require.NoError(t, err)
	assert.Equal(t, text, left, "the text frame is next, whole")
}

// A connection whose client sent nothing but pongs, more than one buffer
// of them, has nothing left to read once they are taken: the socket too
// is read dry, so that the reader may park without bytes left behind.
// The pongs are 8 bytes, so that the first read's 512 end with a whole
// one: all that was read is taken, and the rest is still in the socket.
func TestNextInputReadsPongsDry(t *testing.T) {
	c, client := newFillPair(t)
	var sent []byte
	for i := range 125 {
		sent = append(sent, clientFrame(opPong, []byte{9, byte(i)}, [4]byte{5, 5, 5, byte(i)})...)
	}
	_, err := client.Write(sent)
	require.NoError(t, err)
	waitReady(t, c)
	require.Eventually(t, func() bool {
		return !c.nextInput() && c.br.Buffered() == 0 && c.heldLen() == 0
	}, 2*time.Second, time.Millisecond, "all 1,000 bytes are taken")
	assert.False(t, c.inputReady(), "the socket has nothing more")
}

// A ping that comes in parts waits for its rest in front of the reader,
// which may park meanwhile, and is answered once whole.
func TestNextInputWaitsForTheRestOfAPing(t *testing.T) {
	c, client := newFillPair(t)
	ping := clientFrame(opPing, []byte("half"), [4]byte{3, 1, 4, 1})
	_, err := client.Write(ping[:4])
	require.NoError(t, err)
	waitReady(t, c)
	assert.False(t, c.nextInput(), "nothing for the library yet")
	assert.Equal(t, 4, c.br.Buffered(), "the part waits in front")
	text := clientFrame(0x1, []byte("x"), [4]byte{1, 1, 1, 1})
	_, err = client.Write(append(ping[4:], text...))
	require.NoError(t, err)
	require.Eventually(t, c.nextInput, 2*time.Second, time.Millisecond)
	left, err := c.br.Peek(c.br.Buffered())
	require.NoError(t, err)
	assert.Equal(t, text, left)
	require.NoError(t, client.SetReadDeadline(time.Now().Add(2*time.Second)))
	pong := make([]byte, 6)
	_, err = io.ReadFull(client, pong)
	require.NoError(t, err)
	assert.Equal(t, append([]byte{0x80 | opPong, 4}, "half"...), pong)
}

// FuzzControlFrame: whatever the bytes, controlFrame finds a frame only
// when they begin with a whole, final, masked ping or pong of at most 125
// bytes, and a frame a client builds is found whole, whatever follows.
func FuzzControlFrame(f *testing.F) {
	f.Add([]byte{0x89, 0x80, 1, 2, 3, 4}, byte(opPing), []byte("hi"))
	f.Add([]byte{0x8A, 0x82, 1, 2, 3, 4, 5, 6}, byte(opPong), []byte{})
	f.Add([]byte{0x81, 0x85}, byte(0x1), []byte("hello"))
	f.Fuzz(func(t *testing.T, b []byte, op byte, payload []byte) {
		gotOp, got, _, size := controlFrame(b)
		if size > 0 && controlPrefix(b[:size-1]) != (size > 1) {
			t.Fatalf("a whole frame's first %d bytes are not its start", size-1)
		}
		if size == 0 && controlPrefix(b) {
			n := 6 + int(b[min(1, len(b)-1)]&0x7F)
			if len(b) > 1 && len(b) >= n {
				t.Fatalf("a start of %d bytes of a %d-byte frame", len(b), n)
			}
		}
		if size > 0 {
			if size > len(b) || size != 6+len(got) || len(got) > maxControlPayload {
				t.Fatalf("size %d, payload %d, of %d bytes", size, len(got), len(b))
			}
			if gotOp != opPing && gotOp != opPong || b[0]&0x70 != 0 || b[0]&0x80 == 0 || b[1]&0x80 == 0 {
				t.Fatalf("took % x", b[:2])
			}
		}
		op &= 0x0F
		key := [4]byte{byte(len(b)), 1, op, 2}
		frame := clientFrame(op, payload, key)
		gotOp, got, gotKey, size := controlFrame(append(frame, b...))
		want := (op == opPing || op == opPong) && len(payload) <= maxControlPayload
		if want != (size > 0) {
			t.Fatalf("op %x, %d bytes: size %d", op, len(payload), size)
		}
		if !want {
			return
		}
		if size != len(frame) || gotOp != op || gotKey != key {
			t.Fatalf("size %d of %d, op %x of %x, key % x of % x", size, len(frame), gotOp, op, gotKey, key)
		}
		for i := range got {
			if got[i]^key[i%4] != payload[i] {
				t.Fatalf("payload byte %d", i)
			}
		}
	})
}
