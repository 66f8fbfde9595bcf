package arenatest

import (
	"errors"
	"io"
	"net"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// echoTarget is a TCP server that echoes what each connection sends and
// tells the test what reached it: every chunk, and every end.
type echoTarget struct {
	ln       net.Listener
	accepted atomic.Int64
	got      chan string // what reached it, a read at a time
	ends     chan struct{}
}

func startEchoTarget(t *testing.T) *echoTarget {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	e := &echoTarget{ln: ln, got: make(chan string, 64), ends: make(chan struct{}, 64)}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			e.accepted.Add(1)
			go func() {
				defer c.Close()
				buf := make([]byte, 1024)
				for {
					n, err := c.Read(buf)
					if n > 0 {
						e.got <- string(buf[:n])
						if _, err := c.Write(buf[:n]); err != nil {
							return
						}
					}
					if err != nil {
						e.ends <- struct{}{}
						return
					}
				}
			}()
		}
	}()
	return e
}

// nothingFor checks that ch delivers nothing for d.
func nothingFor[T any](t *testing.T, ch <-chan T, d time.Duration, what string) {
	t.Helper()
	select {
	case v := <-ch:
		t.Fatalf("%s during the cut: %v", what, v)
	case <-time.After(d):
	}
}

func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: nothing within 5s", what)
		var zero T
		return zero
	}
}

// echo writes s on c and reads it back.
func echo(t *testing.T, c net.Conn, s string) {
	t.Helper()
	_, err := c.Write([]byte(s))
	require.NoError(t, err)
	readBack(t, c, s)
}

func readBack(t *testing.T, c net.Conn, s string) {
	t.Helper()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
	buf := make([]byte, len(s))
	_, err := io.ReadFull(c, buf)
	require.NoError(t, err)
	assert.Equal(t, s, string(buf))
}

func dialProxy(t *testing.T, p *TCPProxy) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", p.Addr(), 2*time.Second)
	require.NoError(t, err, "the proxy accepts, cut or not")
	t.Cleanup(func() { c.Close() })
	return c
}

// TestTCPProxyCutAndHeal: the proxy forwards both ways; a cut forwards
// nothing, either way, and resets nothing: a write is taken, a read
// waits, a new connection is accepted but does not reach the target;
// healed, what waited is delivered (late, as after a partition) on the
// same connections, and the new one reaches the target.
func TestTCPProxyCutAndHeal(t *testing.T) {
	target := startEchoTarget(t)
	p := StartTCPProxy(t, target.ln.Addr().String())
	c1 := dialProxy(t, p)
	echo(t, c1, "before")
	assert.Equal(t, "before", receive(t, target.got, "the target"))

	p.Cut()
	_, err := c1.Write([]byte("during"))
	require.NoError(t, err, "a write into the cut is taken, as TCP takes it")
	c2 := dialProxy(t, p)
	_, err = c2.Write([]byte("opened in the cut"))
	require.NoError(t, err)
	nothingFor(t, target.got, 300*time.Millisecond, "data reached the target")
	assert.Equal(t, int64(1), target.accepted.Load(), "the connection opened in the cut has not reached the target")
	require.NoError(t, c1.SetReadDeadline(time.Now().Add(200*time.Millisecond)))
	_, err = c1.Read(make([]byte, 16))
	assert.True(t, errors.Is(err, os.ErrDeadlineExceeded), "silence, not a reset or an end: %v", err)

	p.Heal()
	readBack(t, c1, "during")
	readBack(t, c2, "opened in the cut")
	assert.Equal(t, int64(2), target.accepted.Load())
	echo(t, c1, "after")
}

// TestTCPProxyEndWaitsForTheHeal: a client that closes its connection
// during a cut is seen to close by the target only once healed, as its
// FIN would be.
func TestTCPProxyEndWaitsForTheHeal(t *testing.T) {
	target := startEchoTarget(t)
	p := StartTCPProxy(t, target.ln.Addr().String())
	c := dialProxy(t, p)
	echo(t, c, "hello")
	<-target.got

	p.Cut()
	_, err := c.Write([]byte("last words"))
	require.NoError(t, err)
	require.NoError(t, c.Close())
	nothingFor(t, target.ends, 300*time.Millisecond, "the end reached the target")
	p.Heal()
	assert.Equal(t, "last words", receive(t, target.got, "what was sent before the close"))
	receive(t, target.ends, "the end, once healed")
}

// TestTCPProxyClose closes every connection, cut or not, and the port.
func TestTCPProxyClose(t *testing.T) {
	target := startEchoTarget(t)
	p := StartTCPProxy(t, target.ln.Addr().String())
	c1 := dialProxy(t, p)
	echo(t, c1, "x")
	p.Cut()
	c2 := dialProxy(t, p)
	p.Close()
	for _, c := range []net.Conn{c1, c2} {
		require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
		_, err := c.Read(make([]byte, 16))
		assert.False(t, errors.Is(err, os.ErrDeadlineExceeded), "closed, not left hanging: %v", err)
		assert.Error(t, err)
	}
	_, err := net.DialTimeout("tcp", p.Addr(), time.Second)
	assert.Error(t, err, "nothing listens once closed")
	p.Close() // twice is fine
}

// TestTCPProxyVia points a database URL at the proxy, the rest kept.
func TestTCPProxyVia(t *testing.T) {
	p := StartTCPProxy(t, "127.0.0.1:5432")
	u, err := p.Via("postgres://arena@127.0.0.1:5432/arena_test_1?sslmode=disable")
	require.NoError(t, err)
	assert.Equal(t, "postgres://arena@"+p.Addr()+"/arena_test_1?sslmode=disable", u)
	_, err = p.Via("sqlite:/tmp/a.db")
	assert.Error(t, err, "no host to replace")
}
