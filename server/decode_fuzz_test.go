package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/sudoku-arena/arena/room"
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
		msg, err := decode(data)
		id := idOf(msg)
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
		case room.TypeMove, room.TypeNote, room.TypeCursor:
			if *msg.Cell < 0 || *msg.Cell > 80 {
				t.Fatalf("cell %d accepted", *msg.Cell)
			}
		case room.TypeJoin:
			if !utf8.ValidString(msg.Name) || utf8.RuneCountInString(msg.Name) > maxNameRunes {
				t.Fatalf("name %q accepted", msg.Name)
			}
		}
		checkFrame(t, &room.Pong{Header: room.Header{Type: room.TypePong}, ID: id})
	})
}

// checkEchoedID fails unless id is absent or a JSON string or number, valid
// UTF-8, that the server re-encoded: no longer than a string of maxIDBytes
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
	if len(id) > 6*maxIDBytes {
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
	if err := validFrame(data); err != nil {
		t.Fatalf("%v: %q", err, data)
	}
}

// errFirstKey is validFrame's answer for an object that does not start with
// "type".
var errFirstKey = errors.New(`the frame's first key is not "type"`)

// validFrame reports why data is not a frame the server may send: valid
// UTF-8, one JSON object, "type" its first key.
func validFrame(data []byte) error {
	if !utf8.Valid(data) {
		return errNotUTF8
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return errNotObject
	}
	if tok, err := dec.Token(); err != nil || tok != "type" {
		return errFirstKey
	}
	if !json.Valid(data) {
		return errNotObject
	}
	return nil
}
