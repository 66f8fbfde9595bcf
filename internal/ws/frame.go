package ws

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"
)

// Frames (RFC 6455, section 5.2), as both ends write and read them: the
// server's connections (Conn) and the load generator's client.

// Opcodes and sizes.
const (
	OpContinuation = 0x0
	OpText         = 0x1
	OpBinary       = 0x2
	OpClose        = 0x8
	OpPing         = 0x9
	OpPong         = 0xA

	Fin               = 0x80
	maskBit           = 0x80
	MaxControlPayload = 125
)

// AppendHeader appends a frame header: first is the header's first byte
// (Fin and the opcode), n the payload's length, and key, when masked, the
// masking key that follows the length.
func AppendHeader(b []byte, first byte, n int, masked bool, key [4]byte) []byte {
	var mask byte
	if masked {
		mask = maskBit
	}
	switch {
	case n <= 125:
		b = append(b, first, mask|byte(n))
	case n <= 0xFFFF:
		b = append(b, first, mask|126, byte(n>>8), byte(n))
	default:
		b = append(b, first, mask|127)
		b = binary.BigEndian.AppendUint64(b, uint64(n))
	}
	if masked {
		b = append(b, key[:]...)
	}
	return b
}

// AppendMasked appends a final frame of opcode op holding p, masked with
// key, as a client sends every frame.
func AppendMasked(b []byte, op byte, p []byte, key [4]byte) []byte {
	b = AppendHeader(b, Fin|op, len(p), true, key)
	start := len(b)
	b = append(b, p...)
	Mask(b[start:], key)
	return b
}

// Mask masks p with key in place, or unmasks it: the same XOR. It works
// eight bytes at a time (the key repeated twice in a word) and the tail a
// byte at a time: the read path unmasks every client frame, and the word
// loop halves the time to parse a small one.
func Mask(p []byte, key [4]byte) { unmask(p, key) }

// unmask is Mask, and reports whether the bytes unmasked are all ASCII:
// text that is UTF-8 with no further look, which a client's JSON mostly
// is. The words are at hand in the loop, so the answer costs an OR each.
func unmask(p []byte, key [4]byte) (ascii bool) {
	var seen uint64
	if len(p) >= 8 {
		k := uint64(binary.LittleEndian.Uint32(key[:]))
		k |= k << 32
		for len(p) >= 8 {
			w := binary.LittleEndian.Uint64(p) ^ k
			binary.LittleEndian.PutUint64(p, w)
			seen |= w
			p = p[8:]
		}
	}
	for i := range p {
		p[i] ^= key[i&3]
		seen |= uint64(p[i])
	}
	return seen&0x8080808080808080 == 0
}

// Frame is one frame parsed.
type Frame struct {
	Fin     bool
	Op      byte
	Key     [4]byte // a client's frame's masking key
	Payload []byte  // within the bytes parsed, still masked
}

// ErrFrame is what Parse reports for a frame that breaks the rules.
var ErrFrame = errors.New("websocket: bad frame")

// ErrNotUTF8 is what CheckClose reports, besides ErrFrame, for a close
// reason that is not UTF-8: a peer closes for it with 1007 rather than
// 1002.
var ErrNotUTF8 = errors.New("websocket: not UTF-8")

// ErrTooBig is what Parse reports, besides ErrFrame, for a data frame
// longer than its limit: a peer closes for it with 1009 rather than 1002.
var ErrTooBig = errors.New("websocket: frame too big")

// Parse reads the frame at the start of b and reports its size; size 0
// when b holds only part of one. masked says whose frame it is: a
// client's, which masks every frame, or a server's, which masks none; the
// other kind is an error, and so is a frame longer than limit, one with
// extension bits (none is negotiated), an unknown opcode, a 64-bit length
// with its top bit set, or a control frame fragmented or over 125 bytes.
func Parse(b []byte, limit int, masked bool) (f Frame, size int, err error) {
	if len(b) < 2 {
		return Frame{}, 0, nil
	}
	if b[0]&0x70 != 0 {
		return Frame{}, 0, fmt.Errorf("%w: extension bits %#x", ErrFrame, b[0])
	}
	if (b[1]&maskBit != 0) != masked {
		return Frame{}, 0, fmt.Errorf("%w: masked %t, want %t", ErrFrame, b[1]&maskBit != 0, masked)
	}
	f.Fin, f.Op = b[0]&Fin != 0, b[0]&0x0F
	switch f.Op {
	case OpContinuation, OpText, OpBinary:
	case OpClose, OpPing, OpPong:
		if !f.Fin || b[1]&0x7F > MaxControlPayload {
			return Frame{}, 0, fmt.Errorf("%w: control frame %#x fragmented or long", ErrFrame, f.Op)
		}
	default:
		return Frame{}, 0, fmt.Errorf("%w: opcode %#x", ErrFrame, f.Op)
	}
	head, n, ok := length(b)
	if !ok {
		return Frame{}, 0, nil
	}
	if n>>63 != 0 {
		// RFC 6455, section 5.2: the most significant bit of a 64-bit
		// length must be 0. Not a frame too big but a broken one.
		return Frame{}, 0, fmt.Errorf("%w: a 64-bit length with its top bit set", ErrFrame)
	}
	if n > uint64(limit) {
		return Frame{}, 0, fmt.Errorf("%w: %w: %d bytes, over the limit of %d", ErrFrame, ErrTooBig, n, limit)
	}
	if masked {
		if len(b) < head+4 {
			return Frame{}, 0, nil
		}
		copy(f.Key[:], b[head:])
		head += 4
	}
	if uint64(len(b)-head) < n {
		return Frame{}, 0, nil
	}
	f.Payload = b[head : head+int(n)]
	return f, head + int(n), nil
}

// length reads the payload length at the start of a frame's header, and
// how many bytes the header takes up to the masking key; ok is false when
// b holds only part of them.
func length(b []byte) (head int, n uint64, ok bool) {
	if len(b) < 2 {
		return 0, 0, false
	}
	switch n := b[1] & 0x7F; n {
	case 126:
		if len(b) < 4 {
			return 0, 0, false
		}
		return 4, uint64(binary.BigEndian.Uint16(b[2:])), true
	case 127:
		if len(b) < 10 {
			return 0, 0, false
		}
		return 10, binary.BigEndian.Uint64(b[2:]), true
	default:
		return 2, uint64(n), true
	}
}

// Size reads the header at the start of b and reports the whole frame's
// size, header and payload, past any limit (a peer that refuses a frame as
// too big can skip it); ok is false when b holds only part of the
// header. A payload too long to count is math.MaxInt bytes.
func Size(b []byte, masked bool) (size int, ok bool) {
	head, n, ok := length(b)
	if !ok {
		return 0, false
	}
	if masked {
		head += 4
	}
	if n > math.MaxInt-uint64(head) {
		return math.MaxInt, true
	}
	return head + int(n), true
}

// CloseCode reads a close frame's payload: its status code, 1005 (none
// given) for an empty one.
func CloseCode(p []byte) StatusCode {
	if len(p) < 2 {
		return StatusNoStatus
	}
	return StatusCode(binary.BigEndian.Uint16(p))
}

// MaxCloseReason is the longest reason a close frame holds: its payload
// is at most 125 bytes, two of them the code.
const MaxCloseReason = MaxControlPayload - 2

// AppendClose appends a server's close frame (final, unmasked) with code
// and reason, the reason cut at a character's start to fit; code 1005
// (none) makes an empty frame.
func AppendClose(b []byte, code StatusCode, reason string) []byte {
	if code == StatusNoStatus {
		return append(b, Fin|OpClose, 0)
	}
	if len(reason) > MaxCloseReason {
		cut := MaxCloseReason
		for cut > 0 && !utf8.RuneStart(reason[cut]) {
			cut--
		}
		reason = reason[:cut]
	}
	b = AppendHeader(b, Fin|OpClose, 2+len(reason), false, [4]byte{})
	b = binary.BigEndian.AppendUint16(b, uint16(code))
	return append(b, reason...)
}

// CheckClose reads the payload of a close frame a peer sent: its code
// (1005 when empty) and reason, or an error when the frame breaks the
// rules: one byte long, a code no peer may send, a reason that is not
// UTF-8 (ErrNotUTF8).
func CheckClose(p []byte) (code StatusCode, reason string, err error) {
	switch {
	case len(p) == 0:
		return StatusNoStatus, "", nil
	case len(p) == 1:
		return 0, "", fmt.Errorf("%w: a close frame of one byte", ErrFrame)
	}
	code = StatusCode(binary.BigEndian.Uint16(p))
	if !sendable(code) {
		return 0, "", fmt.Errorf("%w: close code %d", ErrFrame, code)
	}
	if !utf8.Valid(p[2:]) {
		return 0, "", fmt.Errorf("%w: %w: a close reason", ErrFrame, ErrNotUTF8)
	}
	return code, string(p[2:]), nil
}

// sendable reports whether a peer may send code in a close frame: the
// defined codes but those kept for local use (1004-1006, 1015), and the
// ranges for libraries and applications.
func sendable(code StatusCode) bool {
	switch {
	case code >= 1000 && code <= 1003, code >= 1007 && code <= 1014:
		return true
	case code >= 3000 && code <= 4999:
		return true
	}
	return false
}

// AppendText appends a final, unmasked text frame holding p, as a server
// frames a message.
func AppendText(b, p []byte) []byte {
	b = AppendHeader(b, Fin|OpText, len(p), false, [4]byte{})
	return append(b, p...)
}
