package protocol

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/protocol/protocoltest"
)

// FuzzDecode: no frame panics the decoder, a frame it accepts is one the
// rules can take as it is (a known type with its fields in range), and the
// answer it leads to, accepted or refused, is valid UTF-8 JSON whose id the
// server built. Seeds: the list below and testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"type":"join","room":"k3mq8z2a","name":"Ann"}`,
		`{"type":"join","room":"k3mq8z2a","token":"abc","last_seq":12,"as":"player"}`,
		`{"type":"move","id":1,"cell":40,"digit":5}`,
		`{"type":"note","cell":3,"kind":"centre","digit":0}`,
		`{"type":"cursor","cell":80}`,
		`{"type":"colour","id":"k","cell":30,"colour":9}`,
		`{"type":"colour","cell":30,"colour":10}`,
		`{"type":"ping","id":"x"}`,
		`{"type":"move","cell":81,"digit":1}`,
		`{"type":"move","cell":1e3,"digit":1}`,
		`{"type":"join","room":"r","name":"\u202e"}`,
		"{\"type\":\"move\",\"id\":\"xA\xff\",\"cell\":1,\"digit\":2}",
		"{\"type\":\"join\",\"id\":2,\"room\":\"r\",\"name\":\"A\xc3\"}",
		`{"type":"move","id":"m","cell":"4","digit":1}`,
		`{"type":"move","id":-1.5e3,"cell":1e309,"digit":true}`,
		`{"type":5,"id":"\u003c\ud800"}`,
		`[]`, `null`, `{`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		msg, err := Decode(data)
		id := IDOf(msg)
		checkEchoedID(t, id)
		if err != nil {
			if err.Code == "" || err.Message == "" {
				t.Fatalf("error without code or message: %+v", err)
			}
			checkFrame(t, err.Event(0, id))
			return
		}
		if !utf8.Valid(data) {
			t.Fatalf("accepted a frame that is not valid UTF-8: %q", data)
		}
		if chk := msg.Check(); chk != nil {
			t.Fatalf("accepted a message the rules refuse: %v", chk)
		}
		switch msg.Type {
		case TypeMove, TypeNote, TypeCursor, TypeColour:
			if *msg.Cell < 0 || *msg.Cell > 80 {
				t.Fatalf("cell %d accepted", *msg.Cell)
			}
			if msg.Type == TypeColour && (*msg.Colour < 0 || *msg.Colour > MaxColour) {
				t.Fatalf("colour %d accepted", *msg.Colour)
			}
		case TypeJoin:
			if !utf8.ValidString(msg.Name) || utf8.RuneCountInString(msg.Name) > MaxNameRunes {
				t.Fatalf("name %q accepted", msg.Name)
			}
		}
		checkFrame(t, &Pong{Header: Header{Type: TypePong}, ID: id})
	})
}

// checkEchoedID fails unless id is absent or a JSON string or number, valid
// UTF-8, that the server re-encoded: no longer than a string of MaxIDBytes
// escaped characters can become.
func checkEchoedID(t *testing.T, id json.RawMessage) {
	t.Helper()
	if len(id) == 0 {
		return
	}
	if !utf8.Valid(id) || !json.Valid(id) {
		t.Fatalf("id %q would be echoed", id)
	}
	var v any
	if err := json.Unmarshal(id, &v); err != nil {
		t.Fatalf("id %q: %v", id, err)
	}
	switch v.(type) {
	case string, float64:
	default:
		t.Fatalf("id %s is not a string or a number", id)
	}
	if len(id) > 6*MaxIDBytes {
		t.Fatalf("id of %d bytes would be echoed", len(id))
	}
}

// checkFrame fails unless v encodes to what a browser accepts: valid UTF-8
// JSON, an object whose first key is "type".
func checkFrame(t *testing.T, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("the answer does not encode: %v", err)
	}
	if err := protocoltest.ValidFrame(data); err != nil {
		t.Fatalf("%v: %q", err, data)
	}
}

// flatFrames are frames decodeFlat takes, and frames next to them that it
// must leave to decodeFull or decode as decodeFull does.
var flatFrames = []struct {
	frame string
	flat  bool // decodeFlat takes it
}{
	{`{"type":"move","id":17,"cell":40,"digit":5}`, true},
	{` { "type" : "move" , "cell" : 0 , "digit" : 0 , "id" : "m-1" } ` + "\n", true},
	{`{"type":"move","id":-1.5E+3,"cell":-0,"digit":9}`, true},
	{`{"type":"move","id":0.5e-2,"cell":81,"digit":1}`, true},
	{`{"type":"note","id":18,"cell":3,"kind":"centre","digit":4}`, true},
	{`{"type":"note","cell":3,"kind":"corner","digit":0}`, true},
	{`{"type":"cursor","cell":80}`, true},
	{`{"type":"cursor"}`, true},
	{`{"type":"ping","id":"` + strings.Repeat("x", 62) + `"}`, true},
	{`{"type":"ping","id":"` + strings.Repeat("x", 63) + `"}`, false},
	{`{"type":"undo","id":1}`, true},
	{`{"type":"leave"}`, true},
	{`{}`, false},
	{`{"type":"join","room":"r","name":"Ann"}`, false},
	{`{"type":"dance"}`, false},
	{`{"type":"move","cell":1e3,"digit":1}`, false},
	{`{"type":"move","cell":01,"digit":1}`, false},
	{`{"type":"move","cell":4.0,"digit":1}`, false},
	{`{"type":"move","cell":1234567890,"digit":1}`, false},
	{`{"type":"move","cell":null,"digit":1}`, false},
	{`{"type":"move","cell":"4","digit":1}`, false},
	{`{"type":"move","cell":4,"cell":5,"digit":1}`, false},
	{`{"type":"move","Cell":4,"digit":1}`, false},
	{`{"type":"move","room":"r","cell":4,"digit":1}`, false},
	{`{"type":"note","cell":3,"kind":"side","digit":4}`, false},
	{`{"type":"ping","id":"a<b"}`, false},
	{`{"type":"ping","id":"a\"b"}`, false},
	{`{"type":"ping","id":"\u00e9"}`, false},
	{`{"type":"ping","id":01}`, false},
	{`{"type":"ping","id":1.}`, false},
	{`{"type":"ping","id":true}`, false},
	{"{\"type\":\"ping\",\"id\":\"\x7f\"}", false},
	{`{"type":"move","cell":4,"digit":1}x`, false},
	{`{"type":"move","cell":4,"digit":1,}`, false},
	{`{"type":"move" "cell":4}`, false},
	{`{"type":"move","cell":4,"digit":1`, false},
	{"{\"type\":\"move\",\"cell\":4,\"digit\":1}\v", false},
}

// TestDecodeFlat: the frames players send most are decoded without
// encoding/json, into what decodeFull makes of them, and the others are
// left to it.
func TestDecodeFlat(t *testing.T) {
	t.Parallel()
	for _, tc := range flatFrames {
		_, _, ok := decodeFlat([]byte(tc.frame))
		assert.Equal(t, tc.flat, ok, "%s", tc.frame)
		checkFlat(t, []byte(tc.frame))
	}
}

// FuzzDecodeFlat: whatever frame decodeFlat takes, it decodes as
// decodeFull does: the same message, the same refusal.
func FuzzDecodeFlat(f *testing.F) {
	for _, tc := range flatFrames {
		f.Add([]byte(tc.frame))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkFlat(t, data) })
}

// checkFlat fails when decodeFlat takes data and decodes it otherwise than
// decodeFull.
func checkFlat(t *testing.T, data []byte) {
	t.Helper()
	msg, err, ok := decodeFlat(data)
	if !ok {
		return
	}
	full, fullErr := decodeFull(data)
	require.NotNil(t, msg, "%q", data)
	assert.Equal(t, full, msg, "%q", data)
	assert.Equal(t, fullErr, err, "%q", data)
}

// TestDecodeMoveIsOneAllocation: a move's frame is decoded into one
// allocation, the message with what it points to.
func TestDecodeMoveIsOneAllocation(t *testing.T) {
	data := []byte(`{"type":"move","id":"m-17","cell":40,"digit":5}`)
	allocs := testing.AllocsPerRun(50, func() {
		if _, err := Decode(data); err != nil {
			t.Fatal(err)
		}
	})
	assert.Equal(t, 1.0, allocs)
}
