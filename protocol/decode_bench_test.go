package protocol

import "testing"

// BenchmarkDecode measures Decode on the frames a player sends most, the
// read side of a message's path (the room's side is room's
// BenchmarkMessage).
//
//	go test ./protocol -run '^$' -bench Decode -benchmem
func BenchmarkDecode(b *testing.B) {
	for _, bc := range []struct{ name, frame string }{
		{"move", `{"type":"move","id":17,"cell":40,"digit":5}`},
		{"move-string-id", `{"type":"move","id":"m-17","cell":40,"digit":0}`},
		{"note", `{"type":"note","id":18,"cell":3,"kind":"centre","digit":4}`},
		{"cursor", `{"type":"cursor","cell":80}`},
		{"ping", `{"type":"ping","id":19}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			data := []byte(bc.frame)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Decode(data); err != nil {
					b.Fatalf("%s: %v", bc.frame, err)
				}
			}
		})
	}
}
