package protocol

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
	"unicode/utf8"

	jsonexp "github.com/go-json-experiment/json"
	jsontextexp "github.com/go-json-experiment/json/jsontext"
	jsonexpv1 "github.com/go-json-experiment/json/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The codec benchmarks weigh the hand codec (Decode, AppendEvent) against
// generic ones on the hot messages and events:
//
//	go test ./protocol -run '^$' -bench Codec -benchmem -count 5
//	GOEXPERIMENT=jsonv2 go test ./protocol -run '^$' -bench 'Codec.*/(hand|stdv2)' -benchmem -count 5
//
// The second adds Go's encoding/json/v2 (codec_stdv2_bench_test.go); under
// that experiment encoding/json itself runs on v2, so the json rows of
// the two runs differ. TestCodecsAgree holds every codec to the hand
// codec's output on the benchmarked values.

// codecFrames are the client frames of the hot path.
var codecFrames = []struct{ name, frame string }{
	{"move", `{"type":"move","id":17,"cell":40,"digit":5}`},
	{"note", `{"type":"note","id":"n-18","cell":3,"kind":"centre","digit":4}`},
	{"cursor", `{"type":"cursor","cell":80}`},
	{"ping", `{"type":"ping","id":19}`},
}

// codecEvents are the server events of the hot path: a co-op move, the
// mover's progress, a cursor, a pong.
func codecEvents() []struct {
	name string
	ev   Event
} {
	mistakes := 1
	return []struct {
		name string
		ev   Event
	}{
		{"move", &MoveEvent{Header: Header{Type: TypeMove, Seq: 1234}, ID: json.RawMessage(`17`),
			Player: "p_k3mq8z2a", Cell: 40, Digit: 5, Cleared: []int{36, 44}}},
		{"progress", &ProgressEvent{Header: Header{Type: TypeProgress, Seq: 1235}, Player: "p_k3mq8z2a",
			Progress: Progress{Filled: 23, Empty: 51, Mistakes: &mistakes, Hints: 1, Moves: 30}}},
		{"cursor", &CursorEvent{Header: Header{Type: TypeCursor, Seq: 1235}, Player: "p_k3mq8z2a", Cell: 41}},
		{"pong", &Pong{Header: Header{Type: TypePong, Seq: 1235}, ID: json.RawMessage(`19`),
			Now: time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC)}},
	}
}

// codecDecoder decodes one frame into a new message as Decode does, with
// the checks Decode makes.
type codecDecoder struct {
	name   string
	decode func([]byte) (*Msg, error)
}

// codecEncoder is one way to encode events; new makes one encoder, with
// the buffers it reuses from event to event, as a connection would.
type codecEncoder struct {
	name string
	new  func() func(Event) []byte
}

var codecDecoders = []codecDecoder{
	{"hand", func(data []byte) (*Msg, error) { return asError(Decode(data)) }},
	// json-full is Decode's own path for frames the hand scanner leaves
	// (a join, an escape): a first pass for the id, then the message.
	{"json-full", func(data []byte) (*Msg, error) { return asError(decodeFull(data)) }},
	// json is the least encoding/json can do: one Unmarshal, the UTF-8
	// it would let through refused, then the same checks.
	{"json", func(data []byte) (*Msg, error) {
		if !utf8.Valid(data) {
			return nil, ErrNotUTF8
		}
		var msg Msg
		if err := json.Unmarshal(data, &msg); err != nil {
			return nil, badJSON(err)
		}
		return asError(checkedMsg(&msg))
	}},
	// jsonexp is github.com/go-json-experiment/json, which refuses
	// invalid UTF-8 itself.
	{"jsonexp", func(data []byte) (*Msg, error) {
		var msg Msg
		if err := jsonexp.Unmarshal(data, &msg); err != nil {
			return nil, err
		}
		return asError(checkedMsg(&msg))
	}},
}

// jsonexpV1Bytes are the options under which go-json-experiment writes
// what encoding/json writes for an event: HTML's characters and the line
// separators escaped, and omitempty dropping false and 0 too. Invalid
// UTF-8 (which the server's own strings never hold) is let through rather
// than refused, but comes out as a raw U+FFFD where encoding/json writes
// \ufffd: the same JSON, not the same bytes.
var jsonexpV1Bytes = jsonexp.JoinOptions(jsontextexp.EscapeForHTML(true), jsontextexp.EscapeForJS(true),
	jsontextexp.AllowInvalidUTF8(true), jsonexpv1.OmitEmptyWithLegacySemantics(true))

var codecEncoders = []codecEncoder{
	{"hand", func() func(Event) []byte {
		buf := make([]byte, 0, 512)
		return func(ev Event) []byte {
			buf = AppendEvent(buf[:0], ev)
			return buf
		}
	}},
	// json-marshal is AppendEvent's own path for the other events.
	{"json-marshal", func() func(Event) []byte {
		buf := make([]byte, 0, 512)
		return func(ev Event) []byte {
			data, err := json.Marshal(ev)
			if err != nil {
				panic(err)
			}
			buf = append(buf[:0], data...)
			return buf
		}
	}},
	// json-encoder writes into a reused buffer; Encode ends each value
	// with a newline, which is left out.
	{"json-encoder", func() func(Event) []byte {
		var buf bytes.Buffer
		buf.Grow(512)
		enc := json.NewEncoder(&buf)
		return func(ev Event) []byte {
			buf.Reset()
			if err := enc.Encode(ev); err != nil {
				panic(err)
			}
			return buf.Bytes()[:buf.Len()-1]
		}
	}},
	{"jsonexp", func() func(Event) []byte {
		var buf bytes.Buffer
		buf.Grow(512)
		return func(ev Event) []byte {
			buf.Reset()
			if err := jsonexp.MarshalWrite(&buf, ev, jsonexpV1Bytes); err != nil {
				panic(err)
			}
			return buf.Bytes()
		}
	}},
}

// asError turns Decode's *Error into an error, nil staying nil.
func asError(msg *Msg, err *Error) (*Msg, error) {
	if err != nil {
		return msg, err
	}
	return msg, nil
}

// checkedMsg makes the checks Decode makes of a message a generic codec
// decoded: the id re-encoded by checkID's rule, the room's length, the
// message's shape and a join's limits.
func checkedMsg(msg *Msg) (*Msg, *Error) {
	id, err := echoID(msg.ID)
	if err != nil {
		return &Msg{}, err
	}
	msg.ID = id
	if msg.Room != "" && len(msg.Room) > MaxRoomLen {
		return msg, Errorf(CodeBadField, "room is longer than %d characters", MaxRoomLen)
	}
	if err := msg.Check(); err != nil {
		return msg, err
	}
	if msg.Type == TypeJoin {
		return msg, checkJoin(msg)
	}
	return msg, nil
}

// echoID is checkID(raw) for an id a JSON decoder has already read as
// one valid value, without checkID's round trip where it would give raw
// back: a number, or a string of printable ASCII with no escape and none
// of <, > and &.
func echoID(raw json.RawMessage) (json.RawMessage, *Error) {
	if len(raw) == 0 || len(raw) > MaxIDBytes {
		return checkID(raw)
	}
	switch c := raw[0]; {
	case c == '-' || c >= '0' && c <= '9':
		return raw, nil
	case c == '"':
		for _, c := range raw[1 : len(raw)-1] {
			if c < ' ' || c > '~' || c == '\\' || c == '"' || c == '<' || c == '>' || c == '&' {
				return checkID(raw)
			}
		}
		return raw, nil
	}
	return checkID(raw)
}

// BenchmarkCodecDecode decodes each hot frame into a new message, with
// Decode's checks, through each codec.
func BenchmarkCodecDecode(b *testing.B) {
	for _, fc := range codecFrames {
		for _, d := range codecDecoders {
			b.Run(fc.name+"/"+d.name, func(b *testing.B) {
				data := []byte(fc.frame)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := d.decode(data); err != nil {
						b.Fatalf("%s: %v", fc.frame, err)
					}
				}
			})
		}
	}
}

// BenchmarkCodecEncode encodes each hot event into a reused buffer through
// each codec.
func BenchmarkCodecEncode(b *testing.B) {
	for _, ec := range codecEvents() {
		for _, e := range codecEncoders {
			b.Run(ec.name+"/"+e.name, func(b *testing.B) {
				encode := e.new()
				b.ReportAllocs()
				for b.Loop() {
					encode(ec.ev)
				}
			})
		}
	}
}

// TestCodecsAgree: on the benchmarked values every codec gives what the
// hand codec gives: the same message, accepted, from each frame, and the
// same bytes for each event.
func TestCodecsAgree(t *testing.T) {
	t.Parallel()
	for _, fc := range codecFrames {
		want, err := Decode([]byte(fc.frame))
		require.Nil(t, err, fc.frame)
		for _, d := range codecDecoders {
			got, err := d.decode([]byte(fc.frame))
			require.NoError(t, err, "%s: %s", d.name, fc.frame)
			assert.Equal(t, want, got, "%s: %s", d.name, fc.frame)
		}
	}
	for _, ec := range codecEvents() {
		want := AppendEvent(nil, ec.ev)
		for _, e := range codecEncoders {
			assert.Equal(t, string(want), string(e.new()(ec.ev)), "%s: %s", e.name, ec.name)
		}
	}
}
