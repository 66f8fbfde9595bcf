package ws

import (
	"testing"
	"time"
)

// BenchmarkTake is the cost of taking a client's message from the bytes
// the socket brought, as the reader does for every message: parsing,
// unmasking and the checks on it, without the socket. one is a move in
// one frame, the usual case; fragments is a message in three frames.
//
//	go test ./internal/ws -run '^$' -bench Take
func BenchmarkTake(b *testing.B) {
	move := []byte(`{"type":"move","id":"m12","cell":40,"digit":5}`)
	key := [4]byte{4, 3, 2, 1}
	const perFill = 64
	for _, tt := range []struct {
		name  string
		frame []byte
	}{
		{"one", clientFrame(OpText, move, key)},
		{"fragments", append(append(clientFrame(OpText, move[:16], key, false),
			clientFrame(OpContinuation, move[16:32], key, false)...),
			clientFrame(OpContinuation, move[32:], key)...)},
	} {
		b.Run(tt.name, func(b *testing.B) {
			var sent []byte
			for range perFill {
				sent = append(sent, tt.frame...)
			}
			c := &Conn{Conn: discardConn{}, timeout: time.Second, limit: 4096}
			in := &inBuf{b: make([]byte, len(sent))} // never pooled
			b.ReportAllocs()
			b.SetBytes(int64(len(move) * perFill))
			for b.Loop() {
				copy(in.b, sent)
				in.r, in.w = 0, len(sent)
				c.in = in
				for range perFill {
					got := c.take()
					if got.Kind != InputMessage {
						b.Fatalf("took %+v", got)
					}
					DoneWith(got.Msg)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*perFill), "ns/msg")
		})
	}
}
