package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sudoku-arena/arena/room"
)

// Limits on a client message's fields.
const (
	maxIDBytes   = 64 // a client id: a JSON string or number
	maxNameRunes = 24
	maxTokenLen  = 128
	maxRoomLen   = 32
)

// decode parses one frame into a message and checks its shape: a JSON
// object, a known type, and each field the type needs present and in range.
// The rules of the game (is it this player's turn to start, is the cell a
// given) are the room's.
func decode(data []byte) (*room.Msg, *room.Error) {
	var msg room.Msg
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, room.Errorf(room.CodeBadJSON, "the frame is not a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if err := dec.Decode(&msg); err != nil {
		return nil, badJSON(err)
	}
	if dec.InputOffset() != int64(len(trimmed)) {
		return nil, room.Errorf(room.CodeBadJSON, "a frame holds one JSON object and nothing after it")
	}
	if len(msg.ID) > 0 {
		if len(msg.ID) > maxIDBytes {
			msg.ID = nil
			return &msg, room.Errorf(room.CodeBadField, "id is longer than %d bytes", maxIDBytes)
		}
		if c := msg.ID[0]; c != '"' && c != '-' && (c < '0' || c > '9') {
			msg.ID = nil
			return &msg, room.Errorf(room.CodeBadField, "id must be a string or a number")
		}
	}
	if msg.Room != "" && len(msg.Room) > maxRoomLen {
		return &msg, room.Errorf(room.CodeBadField, "room is longer than %d characters", maxRoomLen)
	}
	if err := msg.Check(); err != nil {
		return &msg, err
	}
	if msg.Type == room.TypeJoin {
		return &msg, checkJoin(&msg)
	}
	return &msg, nil
}

func badJSON(err error) *room.Error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return room.Errorf(room.CodeBadField, "%s has the wrong type: want %s", te.Field, te.Type)
	}
	return room.Errorf(room.CodeBadJSON, "the frame is not a JSON object: %v", err)
}

func checkJoin(msg *room.Msg) *room.Error {
	if len(msg.Token) > maxTokenLen {
		return room.Errorf(room.CodeBadToken, "the token is not a player's")
	}
	if msg.LastSeq < 0 {
		return room.Errorf(room.CodeBadField, "last_seq must not be negative")
	}
	name, err := cleanName(msg.Name)
	if err != nil {
		return err
	}
	msg.Name = name
	return nil
}

// cleanName trims a display name and checks it: valid UTF-8, at most
// maxNameRunes characters, no control or format characters. An empty name
// is allowed here; a new player without one is refused by the join.
func cleanName(s string) (string, *room.Error) {
	s = strings.TrimSpace(s)
	if !utf8.ValidString(s) {
		return "", room.Errorf(room.CodeBadName, "the name is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(s); n > maxNameRunes {
		return "", room.Errorf(room.CodeBadName, "the name has %d characters; at most %d", n, maxNameRunes)
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return "", room.Errorf(room.CodeBadName, "the name has a control character")
		}
	}
	return s, nil
}
