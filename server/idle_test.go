package server_test

import (
	"bytes"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
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

// An idle connection, in a room or not, holds one goroutine: its reader.
// The writer runs only while frames wait, pings run on a timer, and
// net/http's goroutine for the upgrade request has returned.
func TestAnIdleConnectionHoldsOneGoroutine(t *testing.T) {
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
	var n int
	assert.Eventually(t, func() bool {
		n = connGoroutines()
		return n == len(clients)
	}, 5*time.Second, 10*time.Millisecond, "want %d goroutines for %d idle connections", len(clients), len(clients))
	assert.Equal(t, len(clients), n)
	for _, c := range clients[:4] {
		assert.Positive(t, c.ping(), "%s is still served", c.name)
	}
}
