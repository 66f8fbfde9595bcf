package protocol

import "encoding/json"

// Message types, client to server.
const (
	TypeJoin    = "join"
	TypeStart   = "start"
	TypeMove    = "move"
	TypeNote    = "note"
	TypeColour  = "colour"
	TypeHint    = "hint"
	TypeUndo    = "undo"
	TypeRedo    = "redo"
	TypeCursor  = "cursor"
	TypeRematch = "rematch"
	TypeBerserk = "berserk"
	TypePing    = "ping"
	TypeLeave   = "leave"
)

// Msg is one client message, every type's fields in one struct: Decode
// makes it from a frame and checks its shape (Type known, Cell and Digit in
// range), at the server's edge, before any room sees it. A field a type does
// not use is ignored.
type Msg struct {
	Type string `json:"type"`
	// ID is the client's own id for a move, note, hint, undo, redo or
	// ping, echoed back in the answer (or the error) so the client can
	// match them. At most 64 bytes of JSON: a string or a number.
	ID json.RawMessage `json:"id,omitempty"`

	// join
	Room    string `json:"room,omitempty"`
	Name    string `json:"name,omitempty"`
	Token   string `json:"token,omitempty"`
	As      string `json:"as,omitempty"`
	LastSeq int64  `json:"last_seq,omitempty"`
	// History asks that a welcome with a snapshot also carry the room's
	// recent events (Welcome.History), for a client that has none of them
	// (a page just loaded) to show what happened.
	History bool `json:"history,omitempty"`

	// move, note, cursor
	Cell  *int `json:"cell,omitempty"`
	Digit *int `json:"digit,omitempty"`
	// Kind is the note's mark: "corner" or "centre".
	Kind string `json:"kind,omitempty"`
	// Colour is a colour message's colour: 1 to 9 toggles it on the cell,
	// 0 clears the cell's colours.
	Colour *int `json:"colour,omitempty"`
}

// Check checks the message's shape: a known type, and the fields the type
// needs present and in range (cell 0 to 80; digit 0 to 9, 0 clearing; a
// note's kind). Decode checks every frame with it, once, and the room
// takes a decoded message as checked, so the rules never meet a malformed
// message.
func (m *Msg) Check() *Error {
	switch m.Type {
	case TypeJoin:
		if m.Room == "" {
			return Errorf(CodeBadField, "room is missing: the id of the room to join")
		}
		if m.As != "" && m.As != RolePlayer && m.As != RoleSpectator {
			return Errorf(CodeBadField, `as must be "player" or "spectator"`)
		}
		return nil
	case TypeMove:
		if err := m.needCell(); err != nil {
			return err
		}
		return m.needDigit("digit must be 0 (clear) to 9")
	case TypeNote:
		if err := m.needCell(); err != nil {
			return err
		}
		if m.Kind != NoteCorner && m.Kind != NoteCentre {
			return Errorf(CodeBadField, `kind must be "corner" or "centre"`)
		}
		return m.needDigit("digit must be 1 to 9 (toggle), or 0 (clear the cell's marks of that kind)")
	case TypeColour:
		if err := m.needCell(); err != nil {
			return err
		}
		if m.Colour == nil {
			return Errorf(CodeBadField, "colour is missing: 1 to 9 (toggle), or 0 (clear the cell's colours)")
		}
		if c := *m.Colour; c < 0 || c > MaxColour {
			return Errorf(CodeBadField, "colour %d is out of range: 1 to 9 (toggle), or 0 (clear the cell's colours)", c)
		}
		return nil
	case TypeCursor:
		return m.needCell()
	case TypeStart, TypeHint, TypeUndo, TypeRedo, TypeRematch, TypeBerserk, TypePing, TypeLeave:
		return nil
	case "":
		return Errorf(CodeBadField, `the message has no "type"`)
	}
	t := m.Type
	if len(t) > 32 {
		t = t[:32] + "…"
	}
	return Errorf(CodeUnknownType, "unknown message type %q", t)
}

func (m *Msg) needCell() *Error {
	if m.Cell == nil {
		return Errorf(CodeBadField, "cell is missing: 0 to 80")
	}
	if c := *m.Cell; c < 0 || c > 80 {
		return Errorf(CodeBadField, "cell %d is out of range: 0 to 80", c)
	}
	return nil
}

func (m *Msg) needDigit(text string) *Error {
	if m.Digit == nil {
		return Errorf(CodeBadField, "digit is missing: %s", text)
	}
	if d := *m.Digit; d < 0 || d > 9 {
		return Errorf(CodeBadField, "digit %d is out of range: %s", d, text)
	}
	return nil
}

// Roles of a room member.
const (
	RolePlayer    = "player"
	RoleSpectator = "spectator"
)

// MaxColour is the last of the colours a cell can be given (1 to 9).
const MaxColour = 9

// Note kinds.
const (
	NoteCorner = "corner"
	NoteCentre = "centre"
)
