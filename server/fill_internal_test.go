package server

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newFillPair is a corkConn over the server end of a real loopback TCP
// connection, set up as Hijack sets it up, and the client end.
func newFillPair(t *testing.T) (*corkConn, net.Conn) {
	t.Helper()
	if !canFill {
		t.Skip("reads go to the socket as they are on this platform")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	client, err := net.Dial("tcp", l.Addr().String())
	require.NoError(t, err)
	nc, err := l.Accept()
	require.NoError(t, err)
	t.Cleanup(func() { client.Close(); nc.Close() })
	raw, err := nc.(syscall.Conn).SyscallConn()
	require.NoError(t, err)
	c := &corkConn{Conn: nc, timeout: time.Second, raw: raw}
	c.fill, c.poll, c.tryWriteFn = c.fillFD, c.pollFD, c.tryWriteFD
	c.br = bufio.NewReaderSize(c, readBufferSize)
	return c, client
}

func (c *corkConn) held() bool {
	c.smu.Lock()
	defer c.smu.Unlock()
	return c.in != nil
}

func TestAwaitInputReadsWhatEndsTheWaitAndHoldsNothingOnceHandedOn(t *testing.T) {
	c, client := newFillPair(t)
	assert.False(t, c.held(), "a new connection holds no buffer")
	done := make(chan struct{})
	go func() { c.awaitInput(); close(done) }()
	select {
	case <-done:
		t.Fatal("awaitInput returned before the client sent anything")
	case <-time.After(50 * time.Millisecond):
	}
	_, err := client.Write([]byte("hello"))
	require.NoError(t, err)
	<-done
	assert.True(t, c.held(), "the bytes that ended the wait are held for Read")
	p := make([]byte, 64)
	n, err := c.br.Read(p)
	require.NoError(t, err)
	assert.Equal(t, "hello", string(p[:n]))
	assert.False(t, c.held(), "the buffer goes back once handed on")
}

func TestReadsKeepTheSocketsOrderAcrossBuffersAndReaders(t *testing.T) {
	c, client := newFillPair(t)
	// A message longer than one buffer, read through br as the library
	// reads it.
	long := strings.Repeat("0123456789", 3*readBufferSize/10+7)
	go func() { _, _ = client.Write([]byte(long)) }()
	c.awaitInput()
	got := make([]byte, len(long))
	_, err := io.ReadFull(c.br, got)
	require.NoError(t, err)
	assert.Equal(t, long, string(got))

	// The reader waits in awaitInput while a close handshake reads on
	// another goroutine: whichever takes the bytes from the socket, the
	// handshake reads them in the order sent.
	waited := make(chan struct{})
	go func() { c.awaitInput(); close(waited) }()
	time.Sleep(20 * time.Millisecond) // the wait has begun
	read := make(chan []byte)
	go func() {
		p := make([]byte, 6)
		assert.NoError(t, c.closeHandshake(func() error {
			_, err := io.ReadFull(c.br, p)
			return err
		}))
		read <- p
	}()
	_, err = client.Write([]byte("abc"))
	require.NoError(t, err)
	time.Sleep(20 * time.Millisecond)
	_, err = client.Write([]byte("def"))
	require.NoError(t, err)
	assert.Equal(t, "abcdef", string(<-read))
	<-waited
}

func TestReadReportsTheEndOfTheSocket(t *testing.T) {
	c, client := newFillPair(t)
	_, err := client.Write([]byte("bye"))
	require.NoError(t, err)
	require.NoError(t, client.Close())
	c.awaitInput()
	all, err := io.ReadAll(c.br)
	require.NoError(t, err, "io.ReadAll ends at io.EOF")
	assert.True(t, bytes.Equal([]byte("bye"), all), "got %q", all)
	c.awaitInput() // returns at once: the end is known
	_, err = c.Read(make([]byte, 8))
	assert.ErrorIs(t, err, io.EOF)
}
