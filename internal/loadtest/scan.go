package loadtest

import (
	"bytes"

	"github.com/sudoku-arena/arena/protocol"
)

// scanFlat reads the frames a load test receives most, moves and
// progress (every member gets each), without encoding/json: at 8,000
// moves a second those are some 60,000 frames a second, and decoding them
// through reflection took a quarter of the load generator's time, time it
// takes from the server it measures on a shared machine. It accepts only
// a flat object that starts with its type (what the server writes) whose
// values are numbers, strings without escapes, booleans, null or arrays
// of numbers, and reports false for anything else, which read then gives
// to encoding/json: the result is the same either way (FuzzScanFlat).
func scanFlat(data []byte) (frame, bool) {
	var f frame
	rest, ok := bytes.CutPrefix(data, []byte(`{"type":"`))
	if !ok {
		return f, false
	}
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return f, false
	}
	switch string(rest[:end]) {
	case protocol.TypeMove:
		f.Type = protocol.TypeMove
	case protocol.TypeProgress:
		f.Type = protocol.TypeProgress
	default:
		return f, false
	}
	rest = rest[end+1:]
	var seenSeq, seenPlayer, seenID bool
	for len(rest) > 0 && rest[0] == ',' {
		key, value, after, ok := scanMember(rest[1:])
		if !ok {
			return frame{}, false
		}
		switch {
		case string(key) == "seq" && !seenSeq:
			n, ok := parseInt(value)
			if !ok {
				return frame{}, false
			}
			f.Seq, seenSeq = n, true
		case string(key) == "id" && !seenID:
			// The mover's message id, which every member's move event
			// carries: kept as it was written, as json.RawMessage is.
			f.ID, seenID = bytes.Clone(value), true
		case string(key) == "player" && !seenPlayer:
			if value[0] != '"' {
				return frame{}, false
			}
			f.Player, seenPlayer = string(value[1:len(value)-1]), true
		case frameField(key):
			// Another of frame's fields, a second of these, or one
			// spelled otherwise (encoding/json matches names without
			// regard to case): left to encoding/json.
			return frame{}, false
		}
		rest = after
	}
	if string(rest) != "}" {
		return frame{}, false
	}
	return f, true
}

// frameField reports whether key names one of frame's fields, as
// encoding/json matches them: without regard to case.
func frameField(key []byte) bool {
	for _, name := range [...]string{"type", "seq", "id", "player", "code", "you", "room"} {
		if bytes.EqualFold(key, []byte(name)) {
			return true
		}
	}
	return false
}

// scanMember reads `"key":value` at the start of b and returns the key,
// the value's bytes and what follows; ok is false for anything scanFlat
// leaves to encoding/json.
func scanMember(b []byte) (key, value, rest []byte, ok bool) {
	n := valueLen(b)
	if n == 0 || b[0] != '"' {
		return nil, nil, nil, false
	}
	key, b = b[1:n-1], b[n:]
	if len(b) == 0 || b[0] != ':' {
		return nil, nil, nil, false
	}
	b = b[1:]
	if n = valueLen(b); n == 0 {
		return nil, nil, nil, false
	}
	return key, b[:n], b[n:], true
}

// valueLen is the length of the simple JSON value at the start of b, or 0
// when it is not one scanFlat reads.
func valueLen(b []byte) int {
	switch {
	case len(b) == 0:
		return 0
	case b[0] == '"':
		end := bytes.IndexByte(b[1:], '"')
		if end < 0 || !plain(b[1:1+end]) {
			return 0
		}
		return end + 2
	case b[0] == '[':
		end := bytes.IndexByte(b, ']')
		if end < 0 {
			return 0
		}
		if end == 1 {
			return 2
		}
		for _, n := range bytes.Split(b[1:end], []byte{','}) {
			if len(n) == 0 || numberLen(n) != len(n) {
				return 0
			}
		}
		return end + 1
	case bytes.HasPrefix(b, []byte("true")):
		return 4
	case bytes.HasPrefix(b, []byte("false")):
		return 5
	case bytes.HasPrefix(b, []byte("null")):
		return 4
	}
	return numberLen(b)
}

// numberLen is the length of the integer at the start of b (JSON's
// grammar: an optional minus, then 0 or a digit string not starting with
// 0), or 0 for none; scanFlat leaves fractions and exponents to
// encoding/json.
func numberLen(b []byte) int {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	start := i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i == start || (b[start] == '0' && i > start+1) {
		return 0
	}
	return i
}

// parseInt reads the integer numberLen found, reporting false for one
// that does not fit an int64.
func parseInt(b []byte) (int64, bool) {
	if numberLen(b) != len(b) || len(b) > 19 {
		return 0, false
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	var n uint64
	for _, c := range b {
		n = n*10 + uint64(c-'0')
	}
	if n > 1<<63-1 {
		return 0, false
	}
	if neg {
		return -int64(n), true
	}
	return int64(n), true
}

// plain reports whether a string's bytes need no unescaping or checking:
// printable ASCII without quotes or backslashes.
func plain(s []byte) bool {
	for _, c := range s {
		if c < 0x20 || c >= 0x7f || c == '\\' || c == '"' {
			return false
		}
	}
	return true
}
