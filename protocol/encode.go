package protocol

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"
)

// AppendEvent appends ev's JSON to b: the very bytes encoding/json writes
// for it. The events sent for every move, note, cursor and ping (move,
// progress, note, cursor, pong, error) are written by hand, since through
// reflection encoding them was most of what a move cost the room in time
// and garbage; the rest, and the rare values the hand-written ones leave
// alone (an id that is not compact, a time outside RFC 3339), go through
// encoding/json. A test holds the two to the same bytes.
func AppendEvent(b []byte, ev Event) []byte {
	n := len(b)
	ok := false
	switch e := ev.(type) {
	case *MoveEvent:
		b, ok = appendMove(b, e)
	case *ProgressEvent:
		b, ok = appendProgress(b, e), true
	case *NoteEvent:
		b, ok = appendNote(b, e)
	case *CursorEvent:
		b, ok = appendCursor(b, e), true
	case *Pong:
		b, ok = appendPong(b, e)
	case *ErrorEvent:
		b, ok = appendError(b, e)
	}
	if ok {
		return b
	}
	data, err := json.Marshal(ev)
	if err != nil {
		// Events are plain structs; this cannot happen.
		panic(fmt.Sprintf("protocol: encode %T: %v", ev, err))
	}
	return append(b[:n], data...)
}

func appendMove(b []byte, e *MoveEvent) ([]byte, bool) {
	b, ok := appendHeaderID(b, &e.Header, e.ID)
	if !ok {
		return b, false
	}
	b = append(b, `,"player":`...)
	b = appendString(b, e.Player)
	b = appendInt(b, `,"cell":`, e.Cell)
	b = appendInt(b, `,"digit":`, e.Digit)
	if e.Undo {
		b = append(b, `,"undo":true`...)
	}
	if e.Redo {
		b = append(b, `,"redo":true`...)
	}
	b = appendInts(b, `,"cleared":`, e.Cleared)
	return append(b, '}'), true
}

func appendProgress(b []byte, e *ProgressEvent) []byte {
	b = appendHeader(b, &e.Header)
	b = append(b, `,"player":`...)
	b = appendString(b, e.Player)
	b = appendInt(b, `,"filled":`, e.Filled)
	b = appendInt(b, `,"empty":`, e.Empty)
	if e.Mistakes != nil {
		b = appendInt(b, `,"mistakes":`, *e.Mistakes)
	}
	b = appendInt(b, `,"hints":`, e.Hints)
	b = appendInt(b, `,"moves":`, e.Moves)
	return append(b, '}')
}

func appendNote(b []byte, e *NoteEvent) ([]byte, bool) {
	b, ok := appendHeaderID(b, &e.Header, e.ID)
	if !ok {
		return b, false
	}
	b = append(b, `,"player":`...)
	b = appendString(b, e.Player)
	b = appendInt(b, `,"cell":`, e.Cell)
	b = appendInts(b, `,"corner":`, e.Corner)
	b = appendInts(b, `,"centre":`, e.Centre)
	return append(b, '}'), true
}

func appendCursor(b []byte, e *CursorEvent) []byte {
	b = appendHeader(b, &e.Header)
	b = append(b, `,"player":`...)
	b = appendString(b, e.Player)
	b = appendInt(b, `,"cell":`, e.Cell)
	return append(b, '}')
}

func appendPong(b []byte, e *Pong) ([]byte, bool) {
	b, ok := appendHeaderID(b, &e.Header, e.ID)
	if !ok {
		return b, false
	}
	b = append(b, `,"now":`...)
	if b, ok = appendTime(b, e.Now); !ok {
		return b, false
	}
	return append(b, '}'), true
}

func appendError(b []byte, e *ErrorEvent) ([]byte, bool) {
	b, ok := appendHeaderID(b, &e.Header, e.ID)
	if !ok {
		return b, false
	}
	b = append(b, `,"code":`...)
	b = appendString(b, e.Code)
	b = append(b, `,"message":`...)
	b = appendString(b, e.Message)
	if e.Player != "" {
		b = append(b, `,"player":`...)
		b = appendString(b, e.Player)
	}
	if e.Cell != nil {
		b = appendInt(b, `,"cell":`, *e.Cell)
	}
	b = appendInts(b, `,"cells":`, e.Cells)
	if e.Digit != 0 {
		b = appendInt(b, `,"digit":`, e.Digit)
	}
	return append(b, '}'), true
}

// appendHeader opens the event's object with its type and seq.
func appendHeader(b []byte, h *Header) []byte {
	b = append(b, `{"type":`...)
	b = appendString(b, h.Type)
	b = append(b, `,"seq":`...)
	return strconv.AppendInt(b, h.Seq, 10)
}

// appendHeaderID is appendHeader, then the message's id when there is one
// (omitempty). It reports false for an id it leaves to encoding/json.
func appendHeaderID(b []byte, h *Header, id json.RawMessage) ([]byte, bool) {
	b = appendHeader(b, h)
	if len(id) == 0 {
		return b, true
	}
	if !compactID(id) {
		return b, false
	}
	b = append(b, `,"id":`...)
	return append(b, id...), true
}

// compactID reports whether encoding/json writes id as it is: valid JSON
// with no white space to drop and nothing it escapes (<, >, & and the line
// and paragraph separators, whose UTF-8 starts with 0xE2). The server's
// ids (see checkID) always are.
func compactID(id json.RawMessage) bool {
	for _, c := range id {
		switch c {
		case ' ', '\t', '\r', '\n', '<', '>', '&', 0xE2:
			return false
		}
	}
	return json.Valid(id)
}

// appendInt appends key and then n.
func appendInt(b []byte, key string, n int) []byte {
	b = append(b, key...)
	return strconv.AppendInt(b, int64(n), 10)
}

// appendInts appends key and then ns as an array, or nothing for an empty
// ns (omitempty).
func appendInts(b []byte, key string, ns []int) []byte {
	if len(ns) == 0 {
		return b
	}
	b = append(b, key...)
	for i, n := range ns {
		if i == 0 {
			b = append(b, '[')
		} else {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return append(b, ']')
}

// appendTime appends t as time.Time's MarshalJSON writes it; false for a
// time it refuses (a year outside 0 to 9999).
func appendTime(b []byte, t time.Time) ([]byte, bool) {
	b = append(b, '"')
	b, err := t.AppendText(b)
	if err != nil {
		return b, false
	}
	return append(b, '"'), true
}

// htmlSafe are the ASCII bytes encoding/json writes in a string as they
// are: the printable ones but for the quote, the backslash, and <, > and &,
// which it escapes so that JSON can sit inside HTML.
var htmlSafe = func() (safe [utf8.RuneSelf]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		safe[c] = true
	}
	for _, c := range `"\<>&` {
		safe[c] = false
	}
	return safe
}()

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string as encoding/json writes it:
// with HTML's characters escaped, invalid UTF-8 as U+FFFD, and the line
// and paragraph separators escaped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if htmlSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
