package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/ws"
	"github.com/sudoku-arena/arena/room"
)

// benchFrame is the size of a move's event as a room sends it.
var benchFrame = bytes.Repeat([]byte("x"), 180)

// drain reads the client's end until it fails, counting the messages,
// without allocating per message.
func drain(ws *websocket.Conn, got *atomic.Int64) {
	buf := make([]byte, 64<<10)
	for {
		_, r, err := ws.Reader(context.Background())
		if err != nil {
			return
		}
		for {
			_, err := r.Read(buf)
			if err == io.EOF {
				break
			}
			if err != nil {
				return
			}
		}
		got.Add(1)
	}
}

// sendBatch queues n copies of f on a held pair and writes them as the
// writer does, on the caller's goroutine.
func (p *wsPair) sendBatch(tb testing.TB, f room.Frame, n int) {
	for range n {
		p.c.Send(f)
	}
	p.c.mu.Lock()
	b := p.c.queue
	p.c.queue = nil
	p.c.mu.Unlock()
	if err := p.c.writeBatch(b); err != nil {
		tb.Fatal(err)
	}
	putBatch(b)
}

// BenchmarkConnWrite is the cost of one frame on its way to the client's
// socket, through a real TCP connection: frames/s and allocations per
// frame. send goes from Send through the writer, which batches what
// waits; batch=N writes batches of N frames; unbatched writes each frame
// with a write of its own and a context timeout, as connections did
// before batches.
func BenchmarkConnWrite(b *testing.B) {
	b.Run("send", func(b *testing.B) {
		p := newWSPair(b, false)
		var got atomic.Int64
		go drain(p.client, &got)
		limit := int64(p.c.s.cfg.SendQueue / 2)
		f := room.Frame{Data: benchFrame}
		b.ReportAllocs()
		start := time.Now()
		var sent int64
		for b.Loop() {
			for sent-got.Load() >= limit {
				runtime.Gosched()
			}
			if !p.c.Send(f) {
				b.Fatal("closed as too slow")
			}
			sent++
		}
		for got.Load() < sent {
			runtime.Gosched()
		}
		b.ReportMetric(float64(sent)/time.Since(start).Seconds(), "frames/s")
	})
	for _, n := range []int{1, 16} {
		b.Run(fmt.Sprintf("batch=%d", n), func(b *testing.B) {
			p := newWSPair(b, false)
			var got atomic.Int64
			go drain(p.client, &got)
			p.hold()
			f := room.Frame{Data: benchFrame}
			b.ReportAllocs()
			start := time.Now()
			var sent int64
			for b.Loop() {
				p.sendBatch(b, f, n)
				sent += int64(n)
			}
			b.ReportMetric(float64(sent)/time.Since(start).Seconds(), "frames/s")
		})
	}
	b.Run("unbatched", func(b *testing.B) {
		p := newWSPair(b, false)
		var got atomic.Int64
		go drain(p.client, &got)
		b.ReportAllocs()
		start := time.Now()
		var sent int64
		frame := ws.AppendText(nil, benchFrame)
		for b.Loop() {
			if _, err := p.c.sock.Write(frame); err != nil {
				b.Fatal(err)
			}
			sent++
		}
		b.ReportMetric(float64(sent)/time.Since(start).Seconds(), "frames/s")
	})
}

// Writing a batch, from Send to the socket, allocates nothing per frame.
func TestWritingABatchDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	p := newWSPair(t, false)
	var got atomic.Int64
	go drain(p.client, &got)
	f := room.Frame{Data: benchFrame, At: time.Now()}
	p.hold()
	allocs := testing.AllocsPerRun(200, func() { p.sendBatch(t, f, 16) })
	assert.Zero(t, allocs, "allocations per batch of 16 frames")
	require.Eventually(t, func() bool { return got.Load() == 201*16 }, 5*time.Second, time.Millisecond)
}
