package server

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
)

// A connection whose queue is full refuses the frame and closes itself as
// too slow, without blocking the room that sends.
func TestSendOnAFullQueueClosesAsTooSlow(t *testing.T) {
	t.Parallel()
	s := &Server{cfg: Config{SendQueue: 2}}
	s.cfg.defaults()
	// A writer is busy with an earlier write, as when a queue fills up.
	c := &conn{s: s, writing: true}
	assert.True(t, c.Send(room.Frame{Data: []byte("1")}))
	assert.True(t, c.Send(room.Frame{Data: []byte("2")}))
	assert.False(t, c.closing, "closed with room in the queue")
	assert.False(t, c.Send(room.Frame{Data: []byte("3")}))
	assert.True(t, c.closing)
	assert.Equal(t, protocol.CloseTooSlow, c.code)
	assert.False(t, c.drain, "a slow client's backlog is not written")
	assert.Len(t, c.queue.frames, 2, "the refused frame was not queued")
}
