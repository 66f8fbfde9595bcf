package ws

import (
	"bytes"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A batch the socket takes only in part (TryWrite) leaves a frame cut
// short until its writer sends the rest. A control frame written
// meanwhile from another goroutine (a pong, the keep-alive ping) must wait
// for the rest: written straight to the socket, it would land inside the
// frame under way, and the client would read garbage. The server's socket
// has a small send buffer and the client starts reading only once the
// first write is made, so that it goes out in part.
func TestAControlFrameWaitsForAFrameWrittenInPart(t *testing.T) {
	c, client := newFillPair(t)
	require.NoError(t, c.Conn.(*net.TCPConn).SetWriteBuffer(4096))
	var batch []byte
	const frames = 64
	for i := range frames {
		batch = AppendText(batch, bytes.Repeat([]byte{'a' + byte(i%26)}, 4000))
	}
	n := c.TryWrite(batch)
	require.Positive(t, n, "the socket takes some")
	require.Less(t, n, len(batch), "and not all")
	assert.Zero(t, c.TryWrite(AppendText(nil, []byte("x"))), "nothing goes before the rest")

	// The ping is written while the frame is cut short, before its rest.
	pinged := make(chan error, 1)
	go func() { pinged <- c.Ping() }()
	time.Sleep(50 * time.Millisecond)
	rested := make(chan error, 1)
	go func() { rested <- c.WriteRest(batch[n:]) }()

	require.NoError(t, client.SetReadDeadline(time.Now().Add(5*time.Second)))
	var got []byte
	var texts, pings int
	for texts < frames || pings < 1 {
		f, size, err := Parse(got, 1<<20, false)
		require.NoError(t, err, "a well-formed frame after %d text frames and %d pings", texts, pings)
		if size == 0 {
			p := make([]byte, 64<<10)
			m, err := client.Read(p)
			if err == io.EOF {
				break
			}
			require.NoError(t, err, "after %d text frames and %d pings", texts, pings)
			got = append(got, p[:m]...)
			continue
		}
		switch f.Op {
		case OpText:
			want := bytes.Repeat([]byte{'a' + byte(texts%26)}, 4000)
			require.True(t, bytes.Equal(want, f.Payload), "text frame %d whole", texts)
			texts++
		case OpPing:
			pings++
		default:
			t.Fatalf("a frame of opcode %#x", f.Op)
		}
		got = got[size:]
	}
	assert.Equal(t, frames, texts)
	assert.Equal(t, 1, pings)
	require.NoError(t, <-rested)
	require.NoError(t, <-pinged)
}

// A write that failed may have cut a frame short: every write after it
// fails too, with its error, rather than send bytes the client would read
// as that frame's.
func TestAWriteAfterAFailedOneFails(t *testing.T) {
	c, client := newFillPair(t)
	require.NoError(t, client.Close())
	big := AppendText(nil, bytes.Repeat([]byte("x"), 64<<10))
	var err error
	for i := 0; err == nil; i++ {
		require.Less(t, i, 1000, "the writes to a closed client never failed")
		_, err = c.Write(big)
	}
	_, again := c.Write([]byte{Fin | OpPing, 0})
	assert.ErrorIs(t, again, err)
	assert.ErrorIs(t, c.Ping(), err)
	assert.ErrorIs(t, c.WriteRest(big), err)
	assert.Zero(t, c.TryWrite(big))
}
