package server

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sudoku-arena/arena/room"
)

// A connection whose queue is full refuses the frame and closes itself as
// too slow, without blocking the room that sends.
func TestSendOnAFullQueueClosesAsTooSlow(t *testing.T) {
	s := &Server{cfg: Config{SendQueue: 2}}
	s.cfg.defaults()
	c := &conn{s: s, send: make(chan room.Frame, s.cfg.SendQueue), quit: make(chan struct{})}
	assert.True(t, c.Send(room.Frame{Data: []byte("1")}))
	assert.True(t, c.Send(room.Frame{Data: []byte("2")}))
	select {
	case <-c.quit:
		t.Fatal("closed with room in the queue")
	default:
	}
	assert.False(t, c.Send(room.Frame{Data: []byte("3")}))
	<-c.quit
	assert.Equal(t, CloseTooSlow, c.code)
	assert.False(t, c.drain, "a slow client's backlog is not written")
	assert.Len(t, c.send, 2, "the refused frame was not queued")
}
