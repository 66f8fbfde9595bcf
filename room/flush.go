package room

import (
	"bytes"
	"context"
	"sync"

	"github.com/sudoku-arena/arena/protocol"
)

// flush sends the game's queued outputs and starts its effects.
func (r *Room) flush(ctx context.Context) {
	// Sending can drop a slow member, which queues their presence event:
	// go round until nothing is left.
	for r.flushOnce(ctx) {
	}
}

// flushOnce sends what the game has queued and reports whether there was
// anything.
func (r *Room) flushOnce(ctx context.Context) bool {
	out, effects := r.g.Drain()
	logged := r.g.DrainRecords()
	if len(out) == 0 && len(effects) == 0 && len(logged) == 0 {
		r.g.reuse(out, logged)
		return false
	}
	frames, records := r.encode(out, logged)
	// Several outputs are held at the connections that can hold them and
	// go out together: each member's in one write.
	hold := len(out) > 1
	if hold {
		r.holdConns(Holder.Hold)
	}
	for i := range out {
		o, f := &out[i], frames[i]
		if o.To != "" {
			if c, ok := r.conns[o.To]; ok {
				r.send(o.To, c, f)
			}
			continue
		}
		for id, c := range r.conns {
			if id != o.Skip {
				r.send(id, c, f)
			}
		}
	}
	if hold {
		r.holdConns(Holder.Release)
	}
	clear(frames)
	if len(records) > 0 {
		r.reg.store.RecordEvents(r.roundID(), records)
	}
	r.g.reuse(out, logged)
	for _, e := range effects {
		r.effect(ctx, e)
	}
	return true
}

// holdConns calls Hold or Release on every connection that is a Holder.
func (r *Room) holdConns(f func(Holder)) {
	for _, c := range r.conns {
		if h, ok := c.(Holder); ok {
			f(h)
		}
	}
}

// roundID is the game's GameID, formatted once a round.
func (r *Room) roundID() string {
	if round := r.g.Round(); round != r.gameRound || r.gameID == "" {
		r.gameID, r.gameRound = r.g.GameID(), round
	}
	return r.gameID
}

// encode is the frames of the outputs, in order, and the records of the
// logged events, whose bytes are all copied out in one piece. What is
// stored is each event in full, never a member's view of it: enough to
// rebuild the room (Rebuild) after a crash. An event stored as it was sent
// (its view is the event in full) is encoded once.
func (r *Room) encode(out []Output, logged []Logged) ([]Frame, []Record) {
	buf := encodeBuffers.Get().(*[]byte)
	b, spans := (*buf)[:0], r.spans[:0]
	for i := range out {
		start := len(b)
		b = protocol.AppendEvent(b, out[i].Event)
		spans = append(spans, span{start, len(b)})
	}
	for _, l := range logged {
		sent := -1
		for i := range out {
			if out[i].Logged && out[i].Event == l.Event {
				sent = i
				break
			}
		}
		if sent >= 0 {
			spans = append(spans, spans[sent])
			continue
		}
		start := len(b)
		b = protocol.AppendEvent(b, l.Event)
		spans = append(spans, span{start, len(b)})
	}
	data := bytes.Clone(b)
	*buf = b
	encodeBuffers.Put(buf)
	r.spans = spans

	frames := r.frames[:0]
	for i := range out {
		sp := spans[i]
		frames = append(frames, Frame{Data: data[sp.start:sp.end:sp.end], At: r.at, Type: out[i].Event.Head().Type})
	}
	r.frames = frames
	var records []Record
	if len(logged) > 0 {
		records = make([]Record, len(logged))
		for i, l := range logged {
			sp := spans[len(out)+i]
			records[i] = record(l, data[sp.start:sp.end:sp.end])
		}
	}
	return frames, records
}

func (r *Room) send(id string, c Conn, f Frame) {
	if c.Send(f) {
		return
	}
	// The connection closed itself as too slow; the player keeps their
	// place for the reconnect window like any dropped player.
	r.reg.stats.dropped.Add(1)
	r.dropConn(id)
	r.g.Disconnect(r.reg.clock.Now(), id)
}

// record is a logged event as the store keeps it, data its encoding: dated
// as the game took it, so that a replay's evolve takes it at that time.
func record(l Logged, data []byte) Record {
	h := l.Event.Head()
	return Record{Seq: h.Seq, Type: h.Type, Player: playerOf(l.Event), Data: data, At: l.At}
}

func playerOf(ev protocol.Event) string {
	switch e := ev.(type) {
	case *protocol.MoveEvent:
		return e.Player
	case *protocol.NoteEvent:
		return e.Player
	case *protocol.ColourEvent:
		return e.Player
	case *protocol.HintEvent:
		return e.Player
	case *protocol.ProgressEvent:
		return e.Player
	case *protocol.PresenceEvent:
		return e.Player
	case *protocol.FinishEvent:
		return e.Player
	case *protocol.ErrorEvent:
		return e.Player
	}
	return ""
}

// frame is ev encoded as a frame of its own (a welcome, a replayed event,
// an error answering one member).
func (r *Room) frame(ev protocol.Event) Frame {
	buf := encodeBuffers.Get().(*[]byte)
	*buf = protocol.AppendEvent((*buf)[:0], ev)
	data := bytes.Clone(*buf)
	encodeBuffers.Put(buf)
	return Frame{Data: data, At: r.at, Type: ev.Head().Type}
}

// encodeBuffers are the buffers events are encoded in before their bytes
// are copied out, shared by the rooms rather than one kept by each.
var encodeBuffers = sync.Pool{New: func() any { return new([]byte) }}

// span is where one encoded event lies in a flush's bytes.
type span struct{ start, end int }
