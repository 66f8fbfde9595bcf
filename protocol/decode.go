package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on a client message's fields.
const (
	MaxIDBytes   = 64 // a client id: a JSON string or number
	MaxNameRunes = 24
	MaxTokenLen  = 128
	MaxRoomLen   = 32
)

// Decode parses one frame into a message and checks its shape: one JSON
// object in valid UTF-8, a known type, and each field the type needs present
// and in range (Msg.Check, and a join's limits). It is where a message is
// checked, once: the server decodes every frame with it, and a room takes
// what it accepts as checked. The rules of the game (is it this player's
// turn to start, is the cell a given) are the room's.
//
// The message's id comes back (in the message, also with an error) whenever
// the frame had a valid one, so that the refusal can name the message; it is
// re-encoded here (see checkID), never the client's bytes.
func Decode(data []byte) (*Msg, *Error) {
	if msg, err, ok := decodeFlat(data); ok {
		return msg, err
	}
	return decodeFull(data)
}

// decodeFull is Decode for any frame, through encoding/json.
func decodeFull(data []byte) (*Msg, *Error) {
	// head is what is read of a frame before its fields' types are
	// checked: the id to answer with, and what tells a bad name from
	// other invalid text. RawMessage takes any JSON value, so this fails
	// only on a frame that is not one JSON object.
	var head struct {
		Type json.RawMessage `json:"type"`
		ID   json.RawMessage `json:"id"`
		Name json.RawMessage `json:"name"`
	}
	if err := DecodeObject(data, &head, false); err != nil {
		return nil, Errorf(CodeBadJSON, "%v", err)
	}
	id, idErr := checkID(head.ID)
	if !utf8.Valid(data) {
		// encoding/json would turn the bad bytes into U+FFFD and carry
		// on: refuse the frame instead, naming the message when its id is
		// valid.
		msg := &Msg{ID: id}
		var typ string
		_ = json.Unmarshal(head.Type, &typ)
		if typ == TypeJoin && !utf8.Valid(head.Name) {
			return msg, Errorf(CodeBadName, "the name is not valid UTF-8")
		}
		return msg, Errorf(CodeBadJSON, "%v", ErrNotUTF8)
	}
	if idErr != nil {
		return &Msg{}, idErr
	}
	var msg Msg
	if err := json.Unmarshal(data, &msg); err != nil {
		return &Msg{ID: id}, badJSON(err)
	}
	msg.ID = id
	if msg.Room != "" && len(msg.Room) > MaxRoomLen {
		return &msg, Errorf(CodeBadField, "room is longer than %d characters", MaxRoomLen)
	}
	if err := msg.Check(); err != nil {
		return &msg, err
	}
	if msg.Type == TypeJoin {
		return &msg, checkJoin(&msg)
	}
	return &msg, nil
}

// IDOf is the id to answer a message with: the one Decode checked and
// re-encoded, or none.
func IDOf(msg *Msg) json.RawMessage {
	if msg == nil {
		return nil
	}
	return msg.ID
}

// Why DecodeObject refuses a body, in words a client can act on.
var (
	errNotObject = errors.New("the frame is not a JSON object")
	ErrNotUTF8   = errors.New("the frame is not valid UTF-8")
	errTrailing  = errors.New("a frame holds one JSON object and nothing after it")
)

// jsonSpace is the white space JSON allows around a value; Unicode's other
// spaces (a vertical tab, a no-break space) are not among it.
const jsonSpace = " \t\r\n"

// DecodeObject decodes data, which must be exactly one JSON object with
// nothing but white space around it, into v; with strict, a field v does
// not have is an error. It does not check UTF-8 (see Decode); a type
// mismatch comes back as encoding/json's *json.UnmarshalTypeError, the
// rest as one of the errors above or the syntax error.
func DecodeObject(data []byte, v any, strict bool) error {
	trimmed := bytes.Trim(data, jsonSpace)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return errNotObject
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%w: %v", errNotObject, err)
		}
		return err
	}
	if dec.InputOffset() != int64(len(trimmed)) {
		return errTrailing
	}
	return nil
}

// checkID is the id to echo for a message's raw id: a JSON string or number
// of at most MaxIDBytes bytes as the client wrote it, re-encoded by the
// server, so what is echoed is always valid UTF-8 JSON that the server
// built, whatever the client sent. No id gives nil.
func checkID(raw json.RawMessage) (json.RawMessage, *Error) {
	if len(raw) == 0 {
		return nil, nil
	}
	if len(raw) > MaxIDBytes {
		return nil, Errorf(CodeBadField, "id is longer than %d bytes", MaxIDBytes)
	}
	if raw[0] == '"' {
		var s string
		if !utf8.Valid(raw) || json.Unmarshal(raw, &s) != nil {
			return nil, badID()
		}
		out, err := json.Marshal(s)
		if err != nil {
			return nil, badID()
		}
		return out, nil
	}
	// A json.Number holds only a number's literal: digits, sign, point
	// and exponent, all ASCII.
	var n json.Number
	if json.Unmarshal(raw, &n) != nil || n == "" || !isNumberLiteral(n) {
		return nil, badID()
	}
	return json.RawMessage(n), nil
}

// badID is the refusal of an id that is neither a JSON string nor a number.
func badID() *Error { return Errorf(CodeBadField, "id must be a string or a number") }

// isNumberLiteral reports whether n has only the bytes of a JSON number:
// json.Number also takes a quoted number, which is a string here.
func isNumberLiteral(n json.Number) bool {
	for i := 0; i < len(n); i++ {
		switch c := n[i]; {
		case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
		default:
			return false
		}
	}
	return true
}

func badJSON(err error) *Error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return Errorf(CodeBadField, "%s has the wrong type: want %s", te.Field, te.Type)
	}
	return Errorf(CodeBadJSON, "the frame is not a JSON object: %v", err)
}

func checkJoin(msg *Msg) *Error {
	if len(msg.Token) > MaxTokenLen {
		return Errorf(CodeBadToken, "the token is not a player's")
	}
	if msg.LastSeq < 0 {
		return Errorf(CodeBadField, "last_seq must not be negative")
	}
	name, err := CleanName(msg.Name)
	if err != nil {
		return err
	}
	msg.Name = name
	return nil
}

// CleanName trims a display name and checks it: valid UTF-8, at most
// MaxNameRunes characters, no control or format characters, no line or
// paragraph separators, nothing invisible (default-ignorable characters,
// variation selectors), at most MaxMarks combining marks on a character,
// and a letter or digit somewhere, so that a name is seen as it is. An
// empty name is allowed here; a new player without one is refused by the
// join (and by POST /api/session).
func CleanName(s string) (string, *Error) {
	s = strings.TrimSpace(s)
	if !utf8.ValidString(s) {
		return "", Errorf(CodeBadName, "the name is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(s); n > MaxNameRunes {
		return "", Errorf(CodeBadName, "the name has %d characters; at most %d", n, MaxNameRunes)
	}
	marks, seen := 0, false
	for _, r := range s {
		switch {
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			return "", Errorf(CodeBadName, "the name has a control character")
		case unicode.In(r, unicode.Zl, unicode.Zp):
			return "", Errorf(CodeBadName, "the name has a line break")
		case unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector):
			return "", Errorf(CodeBadName, "the name has an invisible character")
		case unicode.In(r, unicode.Mn, unicode.Me):
			if marks++; marks > MaxMarks {
				return "", Errorf(CodeBadName, "the name has more than %d accents on one character", MaxMarks)
			}
			continue
		}
		marks = 0
		seen = seen || unicode.IsLetter(r) || unicode.IsDigit(r)
	}
	if s != "" && !seen {
		return "", Errorf(CodeBadName, "a name needs a letter or a digit")
	}
	return s, nil
}

// MaxMarks is how many combining marks one character of a name may carry.
const MaxMarks = 2

// flatMsg is a message decodeFlat made, with what its pointers point to,
// so that decoding one is one allocation.
type flatMsg struct {
	msg         Msg
	cell, digit int
	id          [MaxIDBytes]byte
}

// decodeFlat decodes the frames players send on every move, note, cursor
// and ping without encoding/json, whose reflection was most of what
// decoding cost: one flat JSON object in ASCII, with a type other than
// join and no field but type, id, cell, digit and kind, each at most once,
// the strings without escapes, the numbers integers. It reports false for
// any other frame, which decodeFull then decodes: what it does decode
// comes out as decodeFull would make it (a test holds the two to that),
// with the id re-encoded by the same rule (see checkID): a number's
// literal, or a string that encoding/json writes back as it was.
func decodeFlat(data []byte) (*Msg, *Error, bool) {
	f := flat{data: data}
	var (
		typ, kind         string
		id                []byte
		cell, digit       int
		hasCell, hasDigit bool
		seen              uint8
	)
	f.space()
	if !f.byte('{') {
		return nil, nil, false
	}
	for first := true; ; first = false {
		f.space()
		if !first && f.byte('}') {
			break
		}
		if !first && !f.byte(',') {
			return nil, nil, false
		}
		f.space()
		key, ok := f.plainString()
		if !ok {
			return nil, nil, false
		}
		f.space()
		if !f.byte(':') {
			return nil, nil, false
		}
		f.space()
		var bit uint8
		switch string(key) {
		case "type":
			bit = 1
			v, ok := f.plainString()
			if typ = hotType(v); !ok || typ == "" {
				return nil, nil, false
			}
		case "kind":
			bit = 2
			v, ok := f.plainString()
			switch string(v) {
			case NoteCorner:
				kind = NoteCorner
			case NoteCentre:
				kind = NoteCentre
			default:
				ok = false
			}
			if !ok {
				return nil, nil, false
			}
		case "cell":
			bit = 4
			if cell, ok = f.smallInt(); !ok {
				return nil, nil, false
			}
			hasCell = true
		case "digit":
			bit = 8
			if digit, ok = f.smallInt(); !ok {
				return nil, nil, false
			}
			hasDigit = true
		case "id":
			bit = 16
			if id, ok = f.plainID(); !ok {
				return nil, nil, false
			}
		default:
			return nil, nil, false
		}
		if seen&bit != 0 {
			return nil, nil, false
		}
		seen |= bit
	}
	f.space()
	if f.i != len(data) || typ == "" {
		return nil, nil, false
	}
	m := &flatMsg{cell: cell, digit: digit}
	m.msg.Type, m.msg.Kind = typ, kind
	if hasCell {
		m.msg.Cell = &m.cell
	}
	if hasDigit {
		m.msg.Digit = &m.digit
	}
	if id != nil {
		m.msg.ID = m.id[:copy(m.id[:], id):len(id)]
	}
	return &m.msg, m.msg.Check(), true
}

// hotType is the message type t names among those decodeFlat takes, or "".
func hotType(t []byte) string {
	for _, typ := range [...]string{TypeMove, TypeCursor, TypePing, TypeNote, TypeUndo,
		TypeRedo, TypeHint, TypeStart, TypeRematch, TypeLeave} {
		if string(t) == typ {
			return typ
		}
	}
	return ""
}

// flat reads a frame for decodeFlat: ok false is a frame it leaves to
// decodeFull, not an error.
type flat struct {
	data []byte
	i    int
}

func (f *flat) space() {
	for f.i < len(f.data) && strings.IndexByte(jsonSpace, f.data[f.i]) >= 0 {
		f.i++
	}
}

// byte reads c if it comes next.
func (f *flat) byte(c byte) bool {
	if f.i < len(f.data) && f.data[f.i] == c {
		f.i++
		return true
	}
	return false
}

// plainString reads a string of printable ASCII with no escape, and
// returns what is between its quotes.
func (f *flat) plainString() ([]byte, bool) {
	if !f.byte('"') {
		return nil, false
	}
	start := f.i
	for f.i < len(f.data) {
		switch c := f.data[f.i]; {
		case c == '"':
			f.i++
			return f.data[start : f.i-1], true
		case c < ' ' || c > '~' || c == '\\':
			return nil, false
		}
		f.i++
	}
	return nil, false
}

// smallInt reads an integer of at most nine digits: JSON's, so no leading
// zero.
func (f *flat) smallInt() (int, bool) {
	neg := f.byte('-')
	start := f.i
	n := 0
	for f.i < len(f.data) && f.data[f.i] >= '0' && f.data[f.i] <= '9' {
		n = n*10 + int(f.data[f.i]-'0')
		f.i++
	}
	digits := f.i - start
	if digits == 0 || digits > 9 || digits > 1 && f.data[start] == '0' || !f.delimited() {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// delimited reports whether what was read is followed by what may follow
// a value: white space, a comma, the object's end, or nothing.
func (f *flat) delimited() bool {
	if f.i == len(f.data) {
		return true
	}
	c := f.data[f.i]
	return c == ',' || c == '}' || strings.IndexByte(jsonSpace, c) >= 0
}

// plainID reads an id that checkID would echo as the frame wrote it, and
// returns its bytes: a string that encoding/json writes back unchanged
// (printable ASCII with no escape and none of <, > and &), or a number;
// at most MaxIDBytes either way.
func (f *flat) plainID() ([]byte, bool) {
	start := f.i
	if f.i < len(f.data) && f.data[f.i] == '"' {
		s, ok := f.plainString()
		if !ok || bytes.ContainsAny(s, "<>&") || f.i-start > MaxIDBytes {
			return nil, false
		}
		return f.data[start:f.i], true
	}
	f.byte('-')
	if !f.digits(true) {
		return nil, false
	}
	if f.byte('.') && !f.digits(false) {
		return nil, false
	}
	if f.byte('e') || f.byte('E') {
		if !f.byte('+') {
			f.byte('-')
		}
		if !f.digits(false) {
			return nil, false
		}
	}
	if !f.delimited() || f.i-start > MaxIDBytes {
		return nil, false
	}
	return f.data[start:f.i], true
}

// digits reads one digit or more; with integer, JSON's integer part, where
// a leading zero stands alone.
func (f *flat) digits(integer bool) bool {
	start := f.i
	for f.i < len(f.data) && f.data[f.i] >= '0' && f.data[f.i] <= '9' {
		f.i++
	}
	n := f.i - start
	return n > 0 && !(integer && n > 1 && f.data[start] == '0')
}
