package server

import (
	"testing"
	"unicode/utf8"

	"github.com/sudoku-arena/arena/room"
)

// FuzzDecode: no frame panics the decoder, and a frame it accepts is one
// the rules can take as it is: a known type with its fields in range.
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
		`[]`, `null`, `{`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		msg, err := decode(data)
		if err != nil {
			if err.Code == "" || err.Message == "" {
				t.Fatalf("error without code or message: %+v", err)
			}
			if msg != nil && len(msg.ID) > maxIDBytes {
				t.Fatalf("an over-long id would be echoed: %d bytes", len(msg.ID))
			}
			return
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
		if len(msg.ID) > maxIDBytes {
			t.Fatalf("id of %d bytes accepted", len(msg.ID))
		}
	})
}
