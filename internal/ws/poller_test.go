package ws

import (
	"bytes"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newTestPoller is a poller closed when the test ends; the test is
// skipped where none is built.
func newTestPoller(t *testing.T) *Poller {
	t.Helper()
	p, err := NewPoller(nil)
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skip("no read poller here")
	}
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// parkingReader reads its connection as a server's reader does: until
// it parks, or its reading ends (then it leaves the poller). It hands on
// what it read.
type parkingReader struct {
	c   *Conn
	got chan Input
}

func (r *parkingReader) ReadOn() {
	for {
		in := r.c.Next(r.c.Parks())
		switch in.Kind {
		case InputNone:
			if r.c.Park() {
				return
			}
		case InputMessage:
			r.got <- Input{Kind: InputMessage, Op: in.Op, Reason: in.Msg.String()}
			DoneWith(in.Msg)
		default:
			r.c.Leave()
			r.got <- in
			return
		}
	}
}

// pollerGoroutines counts the goroutines of the package's pollers: their
// waits on the set and their idle readers.
func pollerGoroutines() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for g := range bytes.SplitSeq(buf, []byte("\n\n")) {
		if bytes.Contains(g, []byte("internal/ws.(*Poller).run")) || bytes.Contains(g, []byte("internal/ws.(*Poller).reader")) {
			n++
		}
	}
	return n
}

// A connection in a poller has no goroutine while its socket has nothing
// to read: its reader parks, and the poller gives it one again when bytes
// come, and when the socket ends.
func TestAParkedConnectionIsReadAgainWhenBytesCome(t *testing.T) {
	p := newTestPoller(t)
	c, client := newFillPair(t)
	r := &parkingReader{c: c, got: make(chan Input, 4)}
	require.True(t, p.Add(c, r))
	assert.True(t, c.Parks())
	r.ReadOn() // parks at once: nothing was sent
	for _, msg := range []string{"one", "two"} {
		_, err := client.Write(clientFrame(OpText, []byte(msg), [4]byte{1, 2, 3, 4}))
		require.NoError(t, err)
		select {
		case in := <-r.got:
			assert.Equal(t, msg, in.Reason)
		case <-time.After(5 * time.Second):
			t.Fatalf("the parked connection was not read again for %q", msg)
		}
	}
	require.NoError(t, client.Close())
	select {
	case in := <-r.got:
		assert.Equal(t, InputEnd, in.Kind)
	case <-time.After(5 * time.Second):
		t.Fatal("the socket's end did not wake the parked connection")
	}
}

// Each poller is its own: Close ends its goroutines (its wait and its
// idle readers) and no other poller's, and a closed poller adds nothing.
func TestClosingAPollerEndsItsGoroutines(t *testing.T) {
	// The pollers of the tests before have ended (their idle readers
	// leave as they see the close).
	require.Eventually(t, func() bool { return pollerGoroutines() == 0 }, 5*time.Second, time.Millisecond)
	p, other := newTestPoller(t), newTestPoller(t)
	c, client := newFillPair(t)
	r := &parkingReader{c: c, got: make(chan Input, 4)}
	require.True(t, p.Add(c, r))
	r.ReadOn()
	_, err := client.Write(clientFrame(OpText, []byte("hi"), [4]byte{}))
	require.NoError(t, err)
	<-r.got // read by one of p's readers, which then waits for more
	require.Eventually(t, func() bool { return pollerGoroutines() == 3 }, 5*time.Second, time.Millisecond,
		"two waits and an idle reader: %d goroutines", pollerGoroutines())

	require.NoError(t, p.Close())
	require.Eventually(t, func() bool { return pollerGoroutines() == 1 }, 5*time.Second, time.Millisecond,
		"the other poller's wait is left: %d goroutines", pollerGoroutines())
	require.NoError(t, p.Close(), "again")
	c2, _ := newFillPair(t)
	assert.False(t, p.Add(c2, r), "a closed poller adds nothing")
	assert.False(t, c2.Parks())

	c3, client3 := newFillPair(t)
	r3 := &parkingReader{c: c3, got: make(chan Input, 4)}
	require.True(t, other.Add(c3, r3), "the other poller works on")
	r3.ReadOn()
	_, err = client3.Write(clientFrame(OpText, []byte("still"), [4]byte{}))
	require.NoError(t, err)
	select {
	case in := <-r3.got:
		assert.Equal(t, "still", in.Reason)
	case <-time.After(5 * time.Second):
		t.Fatal("the other poller stopped with the first")
	}

	var none *Poller
	assert.False(t, none.Add(c2, r))
	assert.NoError(t, none.Close())
}
