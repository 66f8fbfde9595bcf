package ws

import (
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A connection whose client sent nothing but pongs, more than one buffer
// of them, has nothing left to read once they are taken: the socket too
// is read dry, so that the reader may park without bytes left behind.
// The pongs are 8 bytes, so that the first read's 512 end with a whole
// one: all that was read is taken, and the rest is still in the socket.
func TestPongsPastOneBufferAreReadDry(t *testing.T) {
	c, client := newFillPair(t)
	var sent []byte
	for i := range 125 {
		sent = append(sent, clientFrame(OpPong, []byte{9, byte(i)}, [4]byte{5, 5, 5, byte(i)})...)
	}
	_, err := client.Write(sent)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return c.Next(true).Kind == InputNone && !c.held() && c.heard.Load() > 1 },
		2*time.Second, time.Millisecond, "all 1,000 bytes are taken, in two reads at least")
	var b [1]byte
	n, err := syscall.Read(fdOf(t, c), b[:])
	assert.Equal(t, -1, n, "the socket has nothing more")
	assert.ErrorIs(t, err, syscall.EAGAIN)
}

// fdOf is c's socket's descriptor.
func fdOf(t *testing.T, c *Conn) int {
	var fd int
	require.NoError(t, c.raw.Control(func(f uintptr) { fd = int(f) }))
	return fd
}
