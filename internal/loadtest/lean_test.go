//go:build linux

package loadtest

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serverFrame is a frame as a server writes it: unmasked.
func serverFrame(fin bool, op byte, payload []byte) []byte {
	b0 := op
	if fin {
		b0 |= 0x80
	}
	b := []byte{b0}
	switch n := len(payload); {
	case n <= 125:
		b = append(b, byte(n))
	case n <= 0xFFFF:
		b = append(b, 126, byte(n>>8), byte(n))
	default:
		b = append(b, 127)
		b = binary.BigEndian.AppendUint64(b, uint64(n))
	}
	return append(b, payload...)
}

// recorder is a leanSocket over one end of a pipe whose messages and end
// are kept; what the socket writes is read from the other end.
func recorder(t *testing.T) (*leanSocket, *[]string, *[]error, net.Conn) {
	t.Helper()
	ours, theirs := net.Pipe()
	t.Cleanup(func() { ours.Close(); theirs.Close() })
	var msgs []string
	var ends []error
	s := &leanSocket{nc: ours,
		onMessage: func(data []byte, _ time.Time) { msgs = append(msgs, string(data)) },
		onEnd:     func(err error) { ends = append(ends, err) }}
	return s, &msgs, &ends, theirs
}

// TestLeanSocketReadsMessagesHoweverTheBytesArrive: a stream of frames
// (short, 16-bit and 64-bit lengths, a message in fragments, an empty
// one) gives the same messages in order whether it arrives at once or cut
// anywhere in two or byte by byte.
func TestLeanSocketReadsMessagesHoweverTheBytesArrive(t *testing.T) {
	big, huge := strings.Repeat("b", 300), strings.Repeat("h", 70_000)
	var stream []byte
	stream = append(stream, serverFrame(true, opText, []byte(`{"type":"move","seq":1}`))...)
	stream = append(stream, serverFrame(true, opText, []byte(big))...)
	stream = append(stream, serverFrame(false, opText, []byte("frag-"))...)
	stream = append(stream, serverFrame(false, opContinuation, []byte("ment-"))...)
	stream = append(stream, serverFrame(true, opContinuation, []byte("ed"))...)
	stream = append(stream, serverFrame(true, opText, nil)...)
	stream = append(stream, serverFrame(true, opText, []byte(huge))...)
	want := []string{`{"type":"move","seq":1}`, big, "frag-ment-ed", "", huge}

	feed := func(cuts ...int) []string {
		s, msgs, ends, _ := recorder(t)
		last := 0
		for _, c := range append(cuts, len(stream)) {
			s.consume(bytes.Clone(stream[last:c]), time.Now())
			last = c
		}
		require.Empty(t, *ends)
		assert.Empty(t, s.pending, "nothing is left over")
		return *msgs
	}
	assert.Equal(t, want, feed())
	for cut := 1; cut < len(stream); cut += 97 {
		require.Equal(t, want, feed(cut), "cut at %d", cut)
	}
	var every []int
	for i := 1; i < 400; i++ {
		every = append(every, i)
	}
	assert.Equal(t, want, feed(every...), "the first 400 bytes one at a time")
}

// TestLeanSocketAnswersPingsAndCloses: a ping gets a masked pong with its
// payload; the server's close frame gets a close back with its code, ends
// the socket, and reports the code.
func TestLeanSocketAnswersPingsAndCloses(t *testing.T) {
	s, msgs, ends, theirs := recorder(t)
	got := make(chan []byte, 2)
	go func() {
		for range 2 {
			b := make([]byte, 64)
			n, err := theirs.Read(b)
			if err != nil {
				return
			}
			got <- b[:n]
		}
	}()
	s.consume(serverFrame(true, opPing, []byte("hi")), time.Now())
	pong := <-got
	require.Len(t, pong, 2+4+2)
	assert.Equal(t, byte(0x80|opPong), pong[0])
	assert.Equal(t, byte(0x80|2), pong[1], "masked, two bytes")
	assert.Equal(t, "hi", string([]byte{pong[6] ^ pong[2], pong[7] ^ pong[3]}))

	s.consume(serverFrame(true, opClose, binary.BigEndian.AppendUint16(nil, 1001)), time.Now())
	closing := <-got
	assert.Equal(t, byte(0x80|opClose), closing[0])
	assert.Equal(t, uint16(1001), binary.BigEndian.Uint16([]byte{closing[6] ^ closing[2], closing[7] ^ closing[3]}))
	require.Len(t, *ends, 1)
	assert.Equal(t, 1001, closeCode((*ends)[0]))
	assert.Empty(t, *msgs)
	_, err := theirs.Read(make([]byte, 1))
	assert.ErrorIs(t, err, io.EOF, "the socket is closed")
}

// TestLeanSocketRefusesBadFrames: a masked frame, reserved bits, an
// unknown opcode, a continuation with nothing begun, and a frame over the
// read limit each end the socket.
func TestLeanSocketRefusesBadFrames(t *testing.T) {
	for name, data := range map[string][]byte{
		"masked":        {0x81, 0x80 | 1, 0, 0, 0, 0, 'x'},
		"reserved bits": {0x80 | 0x40 | opText, 1, 'x'},
		"opcode":        serverFrame(true, 0x3, nil),
		"continuation":  serverFrame(true, opContinuation, []byte("x")),
		"too long":      binary.BigEndian.AppendUint64([]byte{0x81, 127}, maxMessage+1),
	} {
		s, msgs, ends, _ := recorder(t)
		s.consume(data, time.Now())
		assert.Len(t, *ends, 1, name)
		assert.Empty(t, *msgs, name)
		assert.True(t, s.ended, name)
	}
}

// FuzzNextFrame: whatever the bytes, nextFrame does not panic, and a frame
// it splits off is the bytes before its rest.
func FuzzNextFrame(f *testing.F) {
	f.Add(serverFrame(true, opText, []byte(`{"type":"move"}`)))
	f.Add(serverFrame(false, opText, []byte(strings.Repeat("x", 200))))
	f.Add([]byte{0x81, 127, 0, 0, 0, 0, 0, 0, 0, 1, 'x'})
	f.Add([]byte{0x81})
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _, payload, rest, ok, err := nextFrame(data)
		if err != nil || !ok {
			return
		}
		if len(payload)+len(rest) > len(data) || !bytes.HasSuffix(data, rest) {
			t.Fatalf("payload %d and rest %d bytes of %d", len(payload), len(rest), len(data))
		}
		hdr := len(data) - len(rest) - len(payload)
		if hdr != 2 && hdr != 4 && hdr != 10 {
			t.Fatalf("a header of %d bytes", hdr)
		}
	})
}
