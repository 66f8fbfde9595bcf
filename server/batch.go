package server

import (
	"sync"

	"github.com/sudoku-arena/arena/room"
)

// maxPooledCork is the largest batch buffer kept for the next batch, so
// that one burst does not pin a large buffer in the pool.
const maxPooledCork = 64 << 10

// batch is a connection's queued frames and the buffer they are written
// through (ws.Conn.Cork); batches are pooled, so an idle connection holds
// none and a busy one allocates nothing per frame.
type batch struct {
	frames []room.Frame
	buf    []byte
}

var batches = sync.Pool{New: func() any { return new(batch) }}

func getBatch() *batch { return batches.Get().(*batch) }

// putBatch returns b to the pool, dropping the frames it still points to
// so that their data can be collected.
func putBatch(b *batch) {
	clear(b.frames)
	b.frames = b.frames[:0]
	if cap(b.buf) > maxPooledCork {
		b.buf = nil
	}
	b.buf = b.buf[:0]
	batches.Put(b)
}
