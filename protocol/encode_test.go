package protocol

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAppendEventMatchesEncodingJSON: over many random values, each event
// AppendEvent writes by hand comes out as the very bytes encoding/json
// writes, appended after what the buffer held.
func TestAppendEventMatchesEncodingJSON(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		ev := randomEvent(rnd)
		checkEncoding(t, ev, "value %d", i)
	}
}

// FuzzAppendEvent: AppendEvent writes what encoding/json writes for each
// hand-encoded event built from the fuzzer's string, id, numbers and time.
func FuzzAppendEvent(f *testing.F) {
	f.Add("p_a", []byte(`17`), 40, int64(1772366400123456789), true)
	f.Add("Ann <&> \u2028\xff\"\\\n\x01\x7f é", []byte(`"m<1>"`), -3, int64(-62135596800), false)
	f.Add("", []byte(`{"a": [1, 2]}`), 0, int64(253402300800), true)
	f.Add("x", []byte(`"\u00e9\ud800"`), 1<<40, int64(0), false)
	f.Add("x", []byte(`1e400`), 7, int64(1), true)
	f.Add("x", []byte(`"unterminated`), 7, int64(1), true)
	f.Fuzz(func(t *testing.T, s string, id []byte, n int, unix int64, flag bool) {
		at := time.Unix(0, unix).In(time.FixedZone("z", n%(26*3600)))
		ints := []int{n, -n, n / 3}
		if flag {
			ints = nil
		}
		cell := n
		var mistakes *int
		if flag {
			mistakes = &cell
		}
		h := Header{Type: s, Seq: int64(n)}
		for _, ev := range []Event{
			&MoveEvent{Header: h, ID: id, Player: s, Cell: n, Digit: -n, Undo: flag, Redo: !flag, Cleared: ints},
			&ProgressEvent{Header: h, Player: s, Progress: Progress{Filled: n, Empty: n + 1, Mistakes: mistakes, Hints: -n, Moves: 3}},
			&NoteEvent{Header: h, ID: id, Player: s, CellNotes: CellNotes{Cell: n, Corner: ints, Centre: []int{}}},
			&CursorEvent{Header: h, Player: s, Cell: n},
			&Pong{Header: h, ID: id, Now: at},
			&ErrorEvent{Header: h, ID: id, Code: s, Message: s + s, Player: s, Cell: mistakes, Cells: ints, Digit: -n},
		} {
			checkEncoding(t, ev, "%#v", ev)
		}
	})
}

// checkEncoding fails unless AppendEvent appends to a buffer what
// encoding/json writes for ev, or panics where encoding/json fails.
func checkEncoding(t *testing.T, ev Event, msgAndArgs ...any) {
	t.Helper()
	want, err := json.Marshal(ev)
	prefix := []byte("held")
	if err != nil {
		assert.Panics(t, func() { AppendEvent(prefix, ev) }, msgAndArgs...)
		return
	}
	got := AppendEvent(prefix, ev)
	require.Equal(t, "held"+string(want), string(got), msgAndArgs...)
}

// randomEvent is one of the hand-encoded events with random fields.
func randomEvent(rnd *rand.Rand) Event {
	h := Header{Type: randomString(rnd), Seq: rnd.Int64N(1<<40) - 1<<20}
	id := randomID(rnd)
	switch rnd.IntN(6) {
	case 0:
		return &MoveEvent{Header: h, ID: id, Player: randomString(rnd), Cell: randomInt(rnd), Digit: randomInt(rnd),
			Undo: rnd.IntN(2) == 0, Redo: rnd.IntN(2) == 0, Cleared: randomInts(rnd)}
	case 1:
		return &ProgressEvent{Header: h, Player: randomString(rnd), Progress: Progress{Filled: randomInt(rnd), Empty: randomInt(rnd),
			Mistakes: randomIntPtr(rnd), Hints: randomInt(rnd), Moves: randomInt(rnd)}}
	case 2:
		return &NoteEvent{Header: h, ID: id, Player: randomString(rnd),
			CellNotes: CellNotes{Cell: randomInt(rnd), Corner: randomInts(rnd), Centre: randomInts(rnd)}}
	case 3:
		return &CursorEvent{Header: h, Player: randomString(rnd), Cell: randomInt(rnd)}
	case 4:
		return &Pong{Header: h, ID: id, Now: randomTime(rnd)}
	}
	return &ErrorEvent{Header: h, ID: id, Code: randomString(rnd), Message: randomString(rnd), Player: randomString(rnd),
		Cell: randomIntPtr(rnd), Cells: randomInts(rnd), Digit: randomInt(rnd)}
}

// pieces are what random strings are made of: every ASCII byte, what
// encoding/json escapes, multi-byte characters and invalid UTF-8.
var pieces = func() []string {
	ps := []string{"é", "日本", "🙂", "\u2028", "\u2029", "\u202f", "\ufffd", "\xff", "\xc3", "\xe2\x80", "\xed\xa0\x80", "p_a", "Ann"}
	for c := range 128 {
		ps = append(ps, string(rune(c)))
	}
	return ps
}()

func randomString(rnd *rand.Rand) string {
	if rnd.IntN(4) == 0 {
		return ""
	}
	var sb strings.Builder
	for range rnd.IntN(12) {
		sb.WriteString(pieces[rnd.IntN(len(pieces))])
	}
	return sb.String()
}

func randomInt(rnd *rand.Rand) int {
	switch rnd.IntN(3) {
	case 0:
		return rnd.IntN(100)
	case 1:
		return int(rnd.Int64()) // any int, negative ones included
	}
	return -rnd.IntN(100)
}

func randomIntPtr(rnd *rand.Rand) *int {
	if rnd.IntN(2) == 0 {
		return nil
	}
	n := randomInt(rnd)
	return &n
}

func randomInts(rnd *rand.Rand) []int {
	switch rnd.IntN(4) {
	case 0:
		return nil
	case 1:
		return []int{}
	}
	ns := make([]int, 1+rnd.IntN(8))
	for i := range ns {
		ns[i] = randomInt(rnd)
	}
	return ns
}

// randomID is an id as the server makes them (a string re-encoded, a
// number), or one it would not: with white space, HTML's characters, or
// not JSON at all.
func randomID(rnd *rand.Rand) json.RawMessage {
	switch rnd.IntN(6) {
	case 0:
		return nil
	case 1:
		data, err := json.Marshal(randomString(rnd))
		if err != nil {
			panic(err)
		}
		return data
	case 2:
		return json.RawMessage([]string{"17", "-1.5e3", "0", "123456789012345678901234567890"}[rnd.IntN(4)])
	case 3:
		return json.RawMessage([]string{`"a<b>&c"`, `"\u2028"`, "\"\u2028\"", `{ "a" : [1, 2] }`, `[1,"x"]`, `true`, `null`}[rnd.IntN(7)])
	case 4:
		return json.RawMessage([]string{`"open`, `01`, `{`, "\"\xff\""}[rnd.IntN(4)])
	}
	return json.RawMessage(`"` + strings.Repeat("x", rnd.IntN(60)) + `"`)
}

// randomTime is a time in a random zone, now and then outside the years
// RFC 3339 can write (encoding/json refuses those).
func randomTime(rnd *rand.Rand) time.Time {
	var t time.Time
	switch rnd.IntN(5) {
	case 0:
		t = time.Unix(rnd.Int64N(1<<40)-1<<39, rnd.Int64N(1e9))
	case 1:
		t = time.Unix(rnd.Int64N(4e9), 0)
	default:
		t = time.Date(2026, 3, 1, 12, 0, 0, rnd.IntN(1e9), time.UTC)
	}
	switch rnd.IntN(4) {
	case 0:
		return t.UTC()
	case 1:
		return t.In(time.FixedZone("odd", rnd.IntN(2*24*3600)-24*3600))
	case 2:
		return t.Local()
	}
	return t
}

// TestAppendEventAllocatesNothing: the hand-encoded events are written
// into a buffer with room for them without allocating.
func TestAppendEventAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool (encoding/json's scanners) drops items at random under the race detector")
	}
	cell, mistakes := 40, 2
	id := json.RawMessage(`"m-17"`)
	h := Header{Type: TypeMove, Seq: 1234}
	for _, ev := range []Event{
		&MoveEvent{Header: h, ID: id, Player: "p_a", Cell: 40, Digit: 5, Cleared: []int{3, 4}},
		&ProgressEvent{Header: h, Player: "p_a", Progress: Progress{Filled: 3, Empty: 50, Mistakes: &mistakes, Moves: 4}},
		&NoteEvent{Header: h, ID: id, Player: "p_a", CellNotes: CellNotes{Cell: 3, Corner: []int{1, 2}}},
		&CursorEvent{Header: h, Player: "p_a", Cell: 3},
		&Pong{Header: h, ID: id, Now: time.Date(2026, 3, 1, 12, 0, 0, 5, time.UTC)},
		&ErrorEvent{Header: h, ID: id, Code: CodeConflict, Message: "5 at r5c5 conflicts with r5c1", Player: "p_a", Cell: &cell, Cells: []int{36}, Digit: 5},
	} {
		buf := make([]byte, 0, 512)
		allocs := testing.AllocsPerRun(50, func() { buf = AppendEvent(buf[:0], ev) })
		assert.Zero(t, allocs, "%T", ev)
	}
}
