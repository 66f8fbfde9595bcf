// Package protocoltest holds what the tests of more than one package check
// the wire with: ValidFrame, the rule every frame the server sends keeps.
// It is for tests only; it imports nothing of the arena, so that the
// protocol package's own tests may use it too.
package protocoltest

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// Why ValidFrame refuses a frame.
var (
	errNotUTF8   = errors.New("the frame is not valid UTF-8")
	errNotObject = errors.New("the frame is not a JSON object")
	errFirstKey  = errors.New(`the frame's first key is not "type"`)
)

// ValidFrame reports why data is not a frame the server may send: valid
// UTF-8, one JSON object, "type" its first key.
func ValidFrame(data []byte) error {
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
