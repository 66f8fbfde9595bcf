package store

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var rowsT0 = time.Date(2026, 11, 26, 20, 0, 0, 0, time.UTC)

func ev(room string, seq, epoch int64) Event {
	return Event{RoomID: room, Seq: seq, Type: "move", PlayerID: "p", Epoch: epoch,
		Data: json.RawMessage(fmt.Sprintf(`{"seq":%d}`, seq)), At: rowsT0.Add(time.Duration(seq) * time.Microsecond)}
}

// TestEventRowsPackRuns: a row packs a run of events next to one
// another, of one room and epoch with consecutive seqs, up to PackMax;
// anything else is a row of its own, as it is.
func TestEventRowsPackRuns(t *testing.T) {
	var batch []Event
	batch = append(batch, ev("a", 1, 0), ev("a", 2, 0)) // a flush
	batch = append(batch, ev("b", 1, 0))                // another room between
	batch = append(batch, ev("a", 3, 0))
	batch = append(batch, ev("a", 5, 0), ev("a", 7, 0)) // gaps
	for s := int64(10); s < 10+PackMax+2; s++ {         // longer than a row
		batch = append(batch, ev("c", s, 0))
	}
	batch = append(batch, ev("d", 1, 1), ev("d", 2, 2)) // epochs differ
	batch = append(batch, ev("d", 3, 2), ev("d", 3, 2)) // the same twice

	rows, buf := EventRows(nil, nil, batch)
	type span struct {
		room        string
		first, last int64
	}
	var got []span
	for _, r := range rows {
		got = append(got, span{r.RoomID, r.Seq, r.Last})
	}
	assert.Equal(t, []span{{"a", 1, 2}, {"b", 1, 0}, {"a", 3, 0}, {"a", 5, 0}, {"a", 7, 0},
		{"c", 10, 10 + PackMax - 1}, {"c", 10 + PackMax, 10 + PackMax + 1},
		{"d", 1, 0}, {"d", 2, 3}, {"d", 3, 0}}, got)
	assert.Equal(t, batch[2].Data, json.RawMessage(rows[1].Data), "a row of one event holds its data as it is")
	assert.Equal(t, "move", rows[1].Type)
	assert.Empty(t, rows[0].Type, "a packed row's events carry their own")
	assert.True(t, rows[0].At.Equal(batch[0].At), "a packed row is dated by its first event")
	assert.Equal(t, int64(2), rows[0].Events())
	assert.Equal(t, int64(1), rows[1].Events())
	assert.True(t, json.Valid(rows[0].Data), "a packed row is JSON: %s", rows[0].Data)
	assert.Equal(t, `[{"t":"move","p":"p","n":9,"d":{"seq":1}},{"t":"move","p":"p","dt":1,"n":9,"d":{"seq":2}}]`,
		string(rows[0].Data))

	again, _ := EventRows(nil, buf[:0], batch)
	require.Len(t, again, len(rows), "a batch given again makes the same rows")
	for i := range rows {
		assert.Equal(t, string(rows[i].Data), string(again[i].Data))
	}
}

// read takes the rows apart as a store reads them: those that may hold
// events after after, in order of their first seq.
func read(t *testing.T, rows []EventRow, after int64, limit int) []Event {
	t.Helper()
	p := EventPage{After: after, Limit: limit}
	for _, r := range rows {
		if r.Seq <= after-PackMax || max(r.Last, r.Seq) <= after {
			continue
		}
		require.NoError(t, p.Add(r))
	}
	return p.Events
}

// TestEventPageReadsWhatRowsWrite: the events of packed rows come back
// as they went in, their strings and data byte for byte, after any seq
// (one inside a row included) and up to a limit of events.
func TestEventPageReadsWhatRowsWrite(t *testing.T) {
	in := []Event{
		{RoomID: "r", Seq: 1, Type: `mo"ve`, PlayerID: `p\a`, Data: json.RawMessage(`{"a":"\u00e9\u003c\"x\\","n":1.50}`), At: rowsT0},
		{RoomID: "r", Seq: 2, Type: "tab\tnew\nline\x01", PlayerID: "é", Data: json.RawMessage(" {\"s\":\"a\\nb\u2028\"}\n"), At: rowsT0.Add(time.Second)},
		{RoomID: "r", Seq: 3, Type: "finish", Data: json.RawMessage(`"plain"`), At: time.Time{}},
		{RoomID: "r", Seq: 4, Type: "move", PlayerID: "p", Data: json.RawMessage(`{"k":"]}"}`), At: rowsT0.Add(-time.Hour)},
		{RoomID: "r", Seq: 5, Type: "move", PlayerID: "p", At: rowsT0},
	}
	rows, _ := EventRows(nil, nil, in)
	require.Len(t, rows, 1)
	want := append([]Event(nil), in...)
	want[4].Data = json.RawMessage(`{}`) // as a row of its own stores no data
	for after := range len(in) + 1 {
		for _, limit := range []int{0, 1, 2, 4} {
			got := read(t, rows, int64(after), limit)
			end := len(in)
			if limit > 0 {
				end = min(after+limit, end)
			}
			require.Len(t, got, end-after, "after %d, limit %d", after, limit)
			for i, e := range got {
				w := want[after+i]
				assert.Equal(t, w.Seq, e.Seq)
				assert.Equal(t, "r", e.RoomID)
				assert.Equal(t, w.Type, e.Type)
				assert.Equal(t, w.PlayerID, e.PlayerID)
				assert.Equal(t, string(w.Data), string(e.Data))
				assert.True(t, w.At.Equal(e.At), "seq %d: %s against %s", w.Seq, e.At, w.At)
			}
		}
	}
}

// TestEventPageRespelled: a packed row whose JSON a tool wrote again (white
// space, the keys in another order, no lengths) reads the same; one that
// is not a row of its events is an error, and takes none of them.
func TestEventPageRespelled(t *testing.T) {
	row := EventRow{RoomID: "r", Seq: 7, Last: 8, At: time.UnixMicro(100), Data: []byte(`[ {"d": {"a": 1}, "t": "move", "p": "p", "dt": 5},
		{"dt": -3, "t": "progress", "p": "p\u00e9", "d": [1]} ]`)}
	p := EventPage{}
	require.NoError(t, p.Add(row))
	require.Len(t, p.Events, 2)
	assert.Equal(t, int64(7), p.Events[0].Seq)
	assert.Equal(t, `{"a": 1}`, string(p.Events[0].Data))
	assert.True(t, time.UnixMicro(105).Equal(p.Events[0].At))
	assert.Equal(t, int64(8), p.Events[1].Seq)
	assert.Equal(t, "progress", p.Events[1].Type)
	assert.Equal(t, "pé", p.Events[1].PlayerID)
	assert.True(t, time.UnixMicro(97).Equal(p.Events[1].At))

	for _, bad := range []string{``, `[`, `{}`, `[{"t":"m"}]`, `[{},{},{}]`, `[{"dt":"x"},{}]`,
		`[{"t":"m","p":"p","n":99,"d":{}},{}`} {
		p := EventPage{}
		err := p.Add(EventRow{RoomID: "r", Seq: 7, Last: 8, Data: []byte(bad)})
		assert.ErrorIs(t, err, errPack, "%q", bad)
		assert.Empty(t, p.Events, "%q", bad)
	}
}

// FuzzEventRows: whatever an event's strings and data, a packed row gives
// it back as it went in.
func FuzzEventRows(f *testing.F) {
	f.Add("move", "p_1", []byte(`{"cell":1}`), int64(1), uint8(2), int64(0), 0)
	f.Add("mo\"ve", "é\x00", []byte(`"x"`), int64(-5), uint8(PackMax+1), int64(3), 2)
	f.Add("", "", []byte{}, int64(1<<40), uint8(3), int64(1), 1)
	f.Fuzz(func(t *testing.T, typ, player string, data []byte, first int64, n uint8, after int64, limit int) {
		if n == 0 || first > 1<<50 || first < -(1<<50) {
			return
		}
		var in []Event
		for k := range int64(n) {
			in = append(in, Event{RoomID: "r", Seq: first + k, Type: typ + strings.Repeat("x", int(k%2)), PlayerID: player,
				Data: json.RawMessage(data), At: rowsT0.Add(time.Duration(k) * time.Microsecond)})
		}
		rows, _ := EventRows(nil, nil, in)
		packed := map[int64]bool{}
		for _, r := range rows {
			for s := r.Seq; s <= r.Last; s++ {
				packed[s] = true
			}
		}
		after = first - 1 + max(min(after, int64(n)), 0)
		limit = max(min(limit, int(n)+1), 0)
		got := read(t, rows, after, limit)
		var want []Event
		for _, e := range in {
			if e.Seq > after && (limit == 0 || len(want) < limit) {
				want = append(want, e)
			}
		}
		require.Len(t, got, len(want))
		for i, e := range got {
			w := want[i]
			wantData := string(w.Data)
			if wantData == "" && packed[w.Seq] {
				wantData = "{}"
			}
			if e.Seq != w.Seq || e.Type != w.Type || e.PlayerID != w.PlayerID || string(e.Data) != wantData || !e.At.Equal(w.At) {
				t.Fatalf("seq %d: got %+v, want %+v", w.Seq, e, w)
			}
		}
	})
}

// FuzzEventPage: a packed row's data, whatever it holds, is taken apart
// or refused, never more events than the row's seqs, in order.
func FuzzEventPage(f *testing.F) {
	rows, _ := EventRows(nil, nil, []Event{ev("r", 1, 0), ev("r", 2, 0), ev("r", 3, 0)})
	f.Add(rows[0].Data, int64(1), int64(3), int64(0), 0)
	f.Add([]byte(`[{"t":"m","p":"","n":-1,"d":{}},{}]`), int64(1), int64(2), int64(1), 1)
	f.Fuzz(func(t *testing.T, data []byte, seq, last, after int64, limit int) {
		if last <= seq || last-seq >= PackMax {
			return
		}
		p := EventPage{After: after, Limit: limit}
		if err := p.Add(EventRow{RoomID: "r", Seq: seq, Last: last, Data: data}); err != nil {
			return
		}
		prev := after
		for _, e := range p.Events {
			if e.Seq <= prev || e.Seq < seq || e.Seq > last {
				t.Fatalf("seq %d after %d, in a row of %d..%d", e.Seq, prev, seq, last)
			}
			prev = e.Seq
		}
		if limit > 0 && len(p.Events) > limit {
			t.Fatalf("%d events past the limit %d", len(p.Events), limit)
		}
	})
}

// moves are n moves as a room logs them, a move and the mover's
// progress each, with their sizes, in rooms rooms.
func moves(n, rooms int) []Event {
	at := rowsT0
	var evs []Event
	for i := range n {
		room, player, seq := fmt.Sprintf("g%07d", i%rooms), fmt.Sprintf("p_%07d%05d", i%rooms, i%4), int64(2*(i/rooms)+1)
		evs = append(evs,
			Event{RoomID: room, Seq: seq, Type: "move", PlayerID: player, At: at,
				Data: json.RawMessage(fmt.Sprintf(`{"type":"move","seq":%d,"id":"%d","player":%q,"cell":%d,"digit":%d}`, seq, i, player, i%81, i%9+1))},
			Event{RoomID: room, Seq: seq + 1, Type: "progress", PlayerID: player, At: at,
				Data: json.RawMessage(fmt.Sprintf(`{"type":"progress","seq":%d,"player":%q,"filled":%d,"empty":%d,"hints":0,"moves":%d}`, seq+1, player, i%50, 50-i%50, i))})
	}
	return evs
}

// BenchmarkEventRows packs a batch of 500 moves (1,000 events, a row a
// move), as a store does before it writes them: what packing costs an
// event.
func BenchmarkEventRows(b *testing.B) {
	evs := moves(500, 500)
	var rows []EventRow
	var buf []byte
	for b.Loop() {
		rows, buf = EventRows(rows[:0], buf[:0], evs)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
}

// BenchmarkEventPage takes apart a replay's page of rows (2,000 events,
// a move a row), as a store does when it reads them: what reading a
// packed row costs an event, beside the database's own work.
//
//	go test ./store -run '^$' -bench 'EventRows|EventPage' -benchmem
func BenchmarkEventPage(b *testing.B) {
	evs := moves(1000, 1)
	var rows []EventRow
	for i := 0; i < len(evs); i += 2 { // a move a batch: a row a move
		rows, _ = EventRows(rows, nil, evs[i:i+2])
	}
	for i := range rows {
		rows[i].Data = append([]byte(nil), rows[i].Data...) // as scanned, a row's own
	}
	for b.Loop() {
		p := EventPage{Limit: 2000}
		for _, r := range rows {
			if err := p.Add(r); err != nil {
				b.Fatal(err)
			}
		}
		if len(p.Events) != 2000 {
			b.Fatalf("%d events", len(p.Events))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*2000), "ns/event")
}
