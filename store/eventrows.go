package store

// The rows of the event table. A row holds one event, or a run of a
// room's events with consecutive seqs (what a room's flush logs: a move
// and the mover's progress), packed: each row costs the database a
// B-tree insert into the table and one into its key, whatever its size,
// and those were the event log's ceiling.

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"
)

// PackMax is the most events one row of the event table holds. Events
// reads a row that begins up to PackMax-1 seqs before the first event it
// wants, so a larger value makes that read longer; a room's flush logs two
// or three events.
const PackMax = 16

// EventRow is a row of the event table: one event (Last 0) or the events
// Seq..Last of a room, packed into Data (EventRows' format).
type EventRow struct {
	RoomID   string
	Seq      int64 // the event's seq, or the first packed one's
	Last     int64 // the last packed event's seq; 0 for a row of one event
	Type     string
	PlayerID string
	Data     []byte // the event's data, or the events packed
	At       time.Time
}

// Events is how many events the row holds.
func (r *EventRow) Events() int64 {
	if r.Last == 0 {
		return 1
	}
	return r.Last - r.Seq + 1
}

// EventRows appends the rows a batch of events is stored as to rows, and
// the packed rows' data to buf, and returns both (for the caller to use
// again once the rows are written). A run of events next to one another
// in the batch, of one room and epoch with each seq one past the one
// before, goes in one row, up to PackMax; any other event in a row of
// its own, as it is (one whose type or player is not UTF-8 text too, or
// whose seq is not above 0). A batch given again (a retry) makes the
// same rows.
//
// A packed row's data is a JSON array of its events in order, the k-th
// (from 0) being seq Seq+k: {"t":TYPE,"p":PLAYER,"dt":DT,"n":LEN,"d":DATA},
// DT the microseconds from the row's at (its first event's) to the
// event's (left out when 0, as it mostly is: a flush's events share
// their time), DATA the event's data as given (LEN bytes of it, "{}" for
// none). The reader skips DATA by its length rather than parsing it; the
// whole is JSON, which PostgreSQL's json column takes and a down
// migration can take apart in SQL. The keys are short because a pack is
// most of what the table stores: with them a move's two events take
// about as many bytes in one row as they did in two.
func EventRows(rows []EventRow, buf []byte, events []Event) ([]EventRow, []byte) {
	for i := 0; i < len(events); {
		e := &events[i]
		j := i + 1
		for j < len(events) && j-i < PackMax && e.Seq > 0 && packable(e) {
			n := &events[j]
			if n.RoomID != e.RoomID || n.Epoch != e.Epoch || n.Seq != events[j-1].Seq+1 || !packable(n) {
				break
			}
			j++
		}
		if j == i+1 {
			rows = append(rows, EventRow{RoomID: e.RoomID, Seq: e.Seq, Type: e.Type, PlayerID: e.PlayerID, Data: e.Data, At: e.At})
			i = j
			continue
		}
		start, at := len(buf), e.At.UnixMicro()
		buf = append(buf, '[')
		for k := i; k < j; k++ {
			if k > i {
				buf = append(buf, ',')
			}
			buf = appendPacked(buf, &events[k], at)
		}
		buf = append(buf, ']')
		rows = append(rows, EventRow{RoomID: e.RoomID, Seq: e.Seq, Last: events[j-1].Seq, Data: buf[start:len(buf):len(buf)], At: e.At})
		i = j
	}
	return rows, buf
}

// packable reports whether an event's type and player can be packed: a
// JSON string holds only UTF-8 text.
func packable(e *Event) bool {
	return (plainASCII(e.Type) || utf8.ValidString(e.Type)) && (plainASCII(e.PlayerID) || utf8.ValidString(e.PlayerID))
}

// appendPacked appends one event of a packed row whose at is at.
func appendPacked(b []byte, e *Event, at int64) []byte {
	data := []byte(e.Data)
	if len(data) == 0 {
		data = emptyData
	}
	b = append(b, `{"t":`...)
	b = appendJSONString(b, e.Type)
	b = append(b, `,"p":`...)
	b = appendJSONString(b, e.PlayerID)
	if dt := e.At.UnixMicro() - at; dt != 0 {
		b = append(b, `,"dt":`...)
		b = strconv.AppendInt(b, dt, 10)
	}
	b = append(b, `,"n":`...)
	b = strconv.AppendInt(b, int64(len(data)), 10)
	b = append(b, `,"d":`...)
	b = append(b, data...)
	return append(b, '}')
}

var emptyData = []byte("{}")

// appendJSONString appends s as a JSON string: as it is when it is
// printable ASCII without a quote or a backslash (an event's type and a
// player's id always are), else through encoding/json.
func appendJSONString(b []byte, s string) []byte {
	if plainASCII(s) {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}

func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// EventPage gathers what Events returns from the table's rows, read in
// the order of their first seq: each event after After once, from the
// first row that holds it, up to Limit of them (0: all). Both stores read
// with it, so that a packed row is taken apart the same way on each.
type EventPage struct {
	// After is the seq of the last event taken, afterSeq to begin with.
	After int64
	Limit int
	// Events are the events taken, in order.
	Events []Event
	// strs are the types and players of the packed events read, which
	// the next ones with the same share rather than each a copy: a page
	// has a few of each.
	strs map[string]string
}

// Full reports whether the page holds Limit events.
func (p *EventPage) Full() bool { return p.Limit > 0 && len(p.Events) >= p.Limit }

// Want is how many rows at most a read for the rest of the page needs
// (each holds at least one event): 0 for no limit.
func (p *EventPage) Want() int {
	if p.Limit <= 0 {
		return 0
	}
	return p.Limit - len(p.Events)
}

// Add takes the events of a row read, up to the page's limit; data is the
// row's data, which the events' data point into.
func (p *EventPage) Add(r EventRow) error {
	if r.Last == 0 {
		if r.Seq > p.After && !p.Full() {
			p.Events = append(p.Events, Event{RoomID: r.RoomID, Seq: r.Seq, Type: r.Type, PlayerID: r.PlayerID, Data: r.Data, At: r.At})
			p.After = r.Seq
		}
		return nil
	}
	if r.Last <= p.After || p.Full() {
		return nil
	}
	if err := p.unpack(r); err != nil {
		return fmt.Errorf("events of %s from seq %d to %d: %w", r.RoomID, r.Seq, r.Last, err)
	}
	return nil
}

// errPack is a packed row that is not as EventRows writes it.
var errPack = errors.New("packed events: not as written")

// unpack takes the events of a packed row after p.After, up to the limit.
// It reads the layout EventRows writes; anything else goes through
// encoding/json (unpackJSON).
func (p *EventPage) unpack(r EventRow) error {
	b, n, after := r.Data, len(p.Events), p.After
	fallback := func() error {
		clear(p.Events[n:])
		p.Events, p.After = p.Events[:n], after
		return p.unpackJSON(r)
	}
	if len(b) < 2 || b[0] != '[' {
		return fallback()
	}
	i, at := 1, r.At.UnixMicro()
	for seq := r.Seq; seq <= r.Last; seq++ {
		e, next, ok := p.readPacked(r.RoomID, b, i, at)
		if !ok || next >= len(b) {
			return fallback()
		}
		e.Seq = seq
		switch {
		case seq < r.Last && b[next] == ',':
			next++
		case seq == r.Last && next == len(b)-1 && b[next] == ']':
		default:
			return fallback()
		}
		i = next
		p.take(e)
	}
	return nil
}

// take adds e to the page unless it is not after p.After or the page is
// full.
func (p *EventPage) take(e Event) {
	if e.Seq <= p.After || p.Full() {
		return
	}
	if p.Events == nil && p.Limit > 0 {
		p.Events = make([]Event, 0, min(p.Limit, 4096))
	}
	p.Events = append(p.Events, e)
	p.After = e.Seq
}

// readPacked reads one event of a packed row whose at is at, from b[i:],
// and returns it (but its seq) and where it ends.
func (p *EventPage) readPacked(room string, b []byte, i int, at int64) (Event, int, bool) {
	e := Event{RoomID: room}
	var ok bool
	var dt, n int64
	if i, ok = expect(b, i, `{"t":`); !ok {
		return e, 0, false
	}
	if e.Type, i, ok = p.readString(b, i); !ok {
		return e, 0, false
	}
	if i, ok = expect(b, i, `,"p":`); !ok {
		return e, 0, false
	}
	if e.PlayerID, i, ok = p.readString(b, i); !ok {
		return e, 0, false
	}
	if i, ok = expect(b, i, `,"dt":`); ok {
		if dt, i, ok = readInt(b, i); !ok {
			return e, 0, false
		}
	}
	e.At = time.UnixMicro(at + dt).UTC()
	if i, ok = expect(b, i, `,"n":`); !ok {
		return e, 0, false
	}
	if n, i, ok = readInt(b, i); !ok || n < 0 {
		return e, 0, false
	}
	if i, ok = expect(b, i, `,"d":`); !ok || int64(len(b)-i) <= n {
		return e, 0, false
	}
	end := i + int(n)
	if b[end] != '}' {
		return e, 0, false
	}
	e.Data = json.RawMessage(b[i:end:end])
	return e, end + 1, true
}

func expect(b []byte, i int, s string) (int, bool) {
	if len(b)-i < len(s) || string(b[i:i+len(s)]) != s {
		return i, false
	}
	return i + len(s), true
}

// readInt reads a decimal integer, perhaps negative.
func readInt(b []byte, i int) (int64, int, bool) {
	j := i
	if j < len(b) && b[j] == '-' {
		j++
	}
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	v, err := strconv.ParseInt(string(b[i:j]), 10, 64)
	return v, j, err == nil
}

// readString reads a JSON string; one without escapes that the page has
// read before comes back as it was then, without a copy.
func (p *EventPage) readString(b []byte, i int) (string, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return "", i, false
	}
	escaped := false
	j := i + 1
	for ; j < len(b) && b[j] != '"'; j++ {
		if b[j] == '\\' {
			escaped = true
			j++
		}
	}
	if j >= len(b) {
		return "", i, false
	}
	if !escaped {
		raw := b[i+1 : j]
		if s, ok := p.strs[string(raw)]; ok {
			return s, j + 1, true
		}
		if p.strs == nil {
			p.strs = make(map[string]string)
		}
		s := string(raw)
		if len(p.strs) < 64 {
			p.strs[s] = s
		}
		return s, j + 1, true
	}
	var s string
	if err := json.Unmarshal(b[i:j+1], &s); err != nil {
		return "", i, false
	}
	return s, j + 1, true
}

// packedJSON is an event of a packed row, as encoding/json reads it.
type packedJSON struct {
	Type   string          `json:"t"`
	Player string          `json:"p"`
	DT     int64           `json:"dt"`
	Data   json.RawMessage `json:"d"`
}

// unpackJSON reads a packed row through encoding/json: one whose JSON is
// another spelling of what EventRows writes (a tool that rewrote it).
func (p *EventPage) unpackJSON(r EventRow) error {
	var evs []packedJSON
	if err := json.Unmarshal(r.Data, &evs); err != nil {
		return fmt.Errorf("%w: %w", errPack, err)
	}
	if int64(len(evs)) != r.Events() {
		return fmt.Errorf("%w: %d events", errPack, len(evs))
	}
	at := r.At.UnixMicro()
	for k, e := range evs {
		p.take(Event{RoomID: r.RoomID, Seq: r.Seq + int64(k), Type: e.Type, PlayerID: e.Player, Data: e.Data, At: time.UnixMicro(at + e.DT).UTC()})
	}
	return nil
}
