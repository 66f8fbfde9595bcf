// Package wsframe writes and reads WebSocket frames (RFC 6455, section
// 5.2) where the server's write path and the load generator's client work
// on the bytes themselves rather than through a library's connection.
package wsframe

import (
	"encoding/binary"
	"errors"
	"fmt"
)

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

// Mask masks p with key in place, or unmasks it: the same XOR.
func Mask(p []byte, key [4]byte) {
	for i := range p {
		p[i] ^= key[i&3]
	}
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

// Parse reads the frame at the start of b and reports its size; size 0
// when b holds only part of one. masked says whose frame it is: a
// client's, which masks every frame, or a server's, which masks none; the
// other kind is an error, and so is a frame longer than limit, one with
// extension bits (none is negotiated), an unknown opcode, or a control
// frame fragmented or over 125 bytes.
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
	head, n := 2, uint64(b[1]&0x7F)
	switch n {
	case 126:
		if len(b) < 4 {
			return Frame{}, 0, nil
		}
		head, n = 4, uint64(binary.BigEndian.Uint16(b[2:]))
	case 127:
		if len(b) < 10 {
			return Frame{}, 0, nil
		}
		head, n = 10, binary.BigEndian.Uint64(b[2:])
	}
	if n > uint64(limit) {
		return Frame{}, 0, fmt.Errorf("%w: %d bytes, over the limit of %d", ErrFrame, n, limit)
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

// CloseCode reads a close frame's payload: its status code, 1005 (none
// given) for an empty one.
func CloseCode(p []byte) int {
	if len(p) < 2 {
		return 1005
	}
	return int(binary.BigEndian.Uint16(p))
}
