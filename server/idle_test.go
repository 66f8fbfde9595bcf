package server_test

import (
	"bytes"
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/server"
)

// connGoroutines counts the goroutines that serve WebSockets: the
// connections' own and net/http's still in the upgrade's handler.
func connGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for g := range bytes.SplitSeq(buf, []byte("\n\n")) {
		if bytes.Contains(g, []byte("arena/server.(*conn)")) || bytes.Contains(g, []byte("arena/server.(*Server).serveWS")) {
			count++
		}
	}
	return count
}

// An idle connection, in a room or not, holds no goroutine: its reader
// parks once nothing is left to read (its socket waits in the server's
// poller), the writer runs only while frames wait, pings run on a timer,
// and net/http's goroutine for the upgrade request has returned. A
// message starts a reader again, which parks again once it is handled.
func TestAnIdleConnectionHoldsNoGoroutine(t *testing.T) {
	e := newEnv(t)
	id := e.createRoom("coop", "easy")
	var clients []*client
	for _, name := range []string{"Ann", "Bob", "Cid", "Dee"} {
		c := e.dial(name)
		c.join(id)
		clients = append(clients, c)
	}
	for range 8 {
		clients = append(clients, e.dial("idle"))
	}
	parked := func() bool { return connGoroutines() == 0 }
	require.Eventually(t, parked, 5*time.Second, 10*time.Millisecond, "%d goroutines for %d idle connections", connGoroutines(), len(clients))
	for _, c := range clients[:4] {
		assert.Positive(t, c.ping(), "%s is still served", c.name)
	}
	for _, c := range clients[4:] {
		c.send(map[string]string{"type": "ping"})
		assert.Equal(t, protocol.CodeNotJoined, c.awaitError(protocol.CodeNotJoined).Code, "an idle one is answered too")
	}
	require.Eventually(t, parked, 5*time.Second, 10*time.Millisecond, "%d goroutines once the pings are answered", connGoroutines())
	for _, c := range clients[:4] {
		assert.Positive(t, c.ping(), "%s is served again", c.name)
	}
}

// readOn reads c's socket in the background until it fails, as a browser
// does (which is what answers the server's pings), and sends how it
// ended.
func readOn(c *client) <-chan error {
	done := make(chan error, 1)
	go func() {
		for {
			if _, _, err := c.ws.Read(context.Background()); err != nil {
				done <- err
				return
			}
		}
	}()
	return done
}

// A connection that answers the server's keep-alive pings stays, and
// parks between them: the pong is taken by the server's own reading, not
// left to the WebSocket library, which would wait in its read for a data
// frame to follow.
func TestAConnectionAnsweringPingsStaysAndParks(t *testing.T) {
	clk := server.NewFakeClock(time.Now())
	// The clients ping the server at every step of the clock: pings as a
	// tool, not a flood, so their budget is raised.
	e := newEnv(t, server.WithFakeClock(clk), func(c *server.Config) {
		c.PingInterval, c.PingTimeout, c.PingBurst = 60*time.Millisecond, 40*time.Millisecond, 1<<20
	})
	id := e.createRoom("coop", "easy")
	var clients []*client
	var ended []<-chan error
	for _, name := range []string{"Ann", "Bob", "Cid"} {
		c := e.dial(name)
		c.join(id)
		clients = append(clients, c)
		ended = append(ended, readOn(c))
	}
	// Five pings or more each: the clock moves in steps shorter than the
	// ping timeout, and after each every client pings the server and has
	// its pong, so that what it sent before (its pong to the server's
	// ping) has been read before the clock moves again.
	for range 25 {
		clk.Advance(20 * time.Millisecond)
		for _, c := range clients {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			require.NoError(t, c.ws.Ping(ctx), "%s is still served", c.name)
			cancel()
		}
	}
	for i, done := range ended {
		select {
		case err := <-done:
			t.Fatalf("client %d was closed: %v", i, err)
		default:
		}
	}
	assert.Equal(t, 3, e.rooms.Stats().Members)
	require.Eventually(t, func() bool { return connGoroutines() == 0 }, 5*time.Second, 5*time.Millisecond,
		"%d goroutines for 3 connections between pings", connGoroutines())
}

// A parked connection whose client goes away without a close frame (a
// reset, a closed tab) is woken by its socket's end: it leaves its room
// and its socket is counted no more.
func TestAParkedConnectionEndsWhenItsClientGoes(t *testing.T) {
	e := newEnv(t)
	id := e.createRoom("coop", "easy")
	a, b := e.dial("Ann"), e.dial("Bob")
	a.join(id)
	b.join(id)
	require.Eventually(t, func() bool { return connGoroutines() == 0 }, 5*time.Second, 10*time.Millisecond)
	require.NoError(t, b.ws.CloseNow())
	require.Eventually(t, func() bool { return e.rooms.Stats().Members == 1 }, 5*time.Second, 10*time.Millisecond,
		"the gone player is away")
	require.Eventually(t, func() bool { return strings.Contains(e.metrics(), "arena_websockets_open 1\n") }, 5*time.Second, 10*time.Millisecond,
		"one socket is left open")
	assert.Positive(t, a.ping(), "the other is still served")
}

// Parked connections that the server closes (a shutdown here) get their
// close frame and end: none is left open or counted.
func TestParkedConnectionsEndWhenTheServerClosesThem(t *testing.T) {
	e := newEnv(t)
	id := e.createRoom("coop", "easy")
	var clients []*client
	for _, name := range []string{"Ann", "Bob", "idle"} {
		c := e.dial(name)
		if name != "idle" {
			c.join(id)
		}
		clients = append(clients, c)
	}
	require.Eventually(t, func() bool { return connGoroutines() == 0 }, 5*time.Second, 10*time.Millisecond)
	e.srv.CloseConns(true)
	for _, c := range clients {
		code, _ := c.closeStatus()
		assert.Equal(t, protocol.CloseGoingAway, code, c.name)
	}
	require.Eventually(t, func() bool { return strings.Contains(e.metrics(), "arena_websockets_open 0\n") }, 5*time.Second, 10*time.Millisecond,
		"every socket is closed and forgotten")
	assert.Zero(t, connGoroutines())
}
