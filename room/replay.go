package room

import (
	"encoding/json"
	"fmt"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
)

// A room's state is saved at its phase changes and every 30 s, while every
// logged event is recorded (Record) within the event log's batch interval.
// Replaying the records after a saved state onto it brings back what a
// crash would otherwise lose since that save: a kill then costs at most
// the events of the batch not yet written.
//
// Replay hands each record, decoded, to evolve: the function that made the
// change when the event happened live (see evolve.go).

// replay applies the records that follow the game's seq, in order, and
// stops at the first gap (an event the log dropped at its bound, or lost):
// a record after a gap would land on a state it did not follow. It
// returns how many it applied.
func (g *Game) replay(records []Record) (int, error) {
	n := 0
	for _, rec := range records {
		if rec.Seq <= g.seq {
			continue
		}
		if rec.Seq != g.seq+1 {
			break
		}
		ev, err := decode(rec)
		if err != nil {
			return n, fmt.Errorf("room: replay %s seq %d (%s): %w", g.id, rec.Seq, rec.Type, err)
		}
		if ev != nil {
			g.evolve(ev, rec.At)
		}
		g.seq = rec.Seq
		n++
	}
	return n, nil
}

// decode is the event a record tells of, for evolve, or nil for one that
// changes nothing: a progress (the move or hint before it made the
// change), an error, and a note or colour outside the board. A move outside it is
// refused.
func decode(rec Record) (protocol.Event, error) {
	var ev protocol.Event
	switch rec.Type {
	case protocol.TypePresence:
		ev = new(protocol.PresenceEvent)
	case protocol.TypeCountdown:
		ev = new(protocol.CountdownEvent)
	case protocol.TypeState:
		ev = new(protocol.State)
	case protocol.TypeMove:
		ev = new(protocol.MoveEvent)
	case protocol.TypeNote:
		ev = new(protocol.NoteEvent)
	case protocol.TypeColour:
		ev = new(protocol.ColourEvent)
	case protocol.TypeHint:
		ev = new(protocol.HintEvent)
	case protocol.TypeFinish:
		ev = new(protocol.FinishEvent)
	case protocol.TypeBerserk:
		ev = new(protocol.BerserkEvent)
	default:
		return nil, nil
	}
	if err := json.Unmarshal(rec.Data, ev); err != nil {
		return nil, err
	}
	switch ev := ev.(type) {
	case *protocol.MoveEvent:
		if ev.Cell < 0 || ev.Cell >= engine.NumCells || ev.Digit < 0 || ev.Digit > 9 {
			return nil, fmt.Errorf("move %d at cell %d out of range", ev.Digit, ev.Cell)
		}
	case *protocol.NoteEvent:
		if ev.Cell < 0 || ev.Cell >= engine.NumCells {
			return nil, nil
		}
	case *protocol.ColourEvent:
		if ev.Cell < 0 || ev.Cell >= engine.NumCells {
			return nil, nil
		}
	}
	return ev, nil
}
