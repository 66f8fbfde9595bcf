package wsframe

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLengths: each of the three length forms, at its bounds, is written
// and read back, whole and not before its last byte.
func TestLengths(t *testing.T) {
	for _, n := range []int{0, 1, 125, 126, 127, 0xFFFF, 0x10000, 70000} {
		p := bytes.Repeat([]byte{'x'}, n)
		b := AppendHeader(nil, Fin|OpText, n, false, [4]byte{})
		head := len(b)
		switch {
		case n <= 125:
			assert.Equal(t, 2, head, n)
		case n <= 0xFFFF:
			assert.Equal(t, 4, head, n)
		default:
			assert.Equal(t, 10, head, n)
		}
		b = append(b, p...)
		f, size, err := Parse(b, 1<<20)
		require.NoError(t, err, n)
		assert.Equal(t, len(b), size, n)
		assert.True(t, f.Fin)
		assert.Equal(t, byte(OpText), f.Op)
		assert.Equal(t, p, f.Payload, n)
		for _, cut := range []int{0, 1, head - 1, len(b) - 1} {
			if cut < 0 || cut >= len(b) {
				continue
			}
			_, size, err := Parse(b[:cut], 1<<20)
			require.NoError(t, err, "%d cut at %d", n, cut)
			assert.Zero(t, size, "%d cut at %d: not whole yet", n, cut)
		}
	}
}

// TestAppendMasked: a client's frame carries the mask bit and its key, and
// the payload XORed with it.
func TestAppendMasked(t *testing.T) {
	key := [4]byte{1, 2, 3, 4}
	b := AppendMasked([]byte("prefix"), OpText, []byte("hello"), key)
	b = b[len("prefix"):]
	require.Len(t, b, 2+4+5)
	assert.Equal(t, byte(Fin|OpText), b[0])
	assert.Equal(t, byte(0x80|5), b[1])
	assert.Equal(t, key[:], b[2:6])
	got := make([]byte, 5)
	for i := range got {
		got[i] = b[6+i] ^ key[i%4]
	}
	assert.Equal(t, "hello", string(got))
}

// TestParseRefuses: what no server may send is an error, not a frame.
func TestParseRefuses(t *testing.T) {
	for name, b := range map[string][]byte{
		"masked":              {Fin | OpText, 0x80 | 1, 0, 0, 0, 0, 'x'},
		"extension bits":      {Fin | 0x40 | OpText, 1, 'x'},
		"unknown opcode":      {Fin | 0x3, 0},
		"fragmented ping":     {OpPing, 0},
		"long close":          {Fin | OpClose, 126, 0, 126},
		"over the limit":      {Fin | OpText, 126, 0x04, 0x01},
		"over the limit, 64b": {Fin | OpBinary, 127, 0x80, 0, 0, 0, 0, 0, 0, 0},
	} {
		_, size, err := Parse(b, 1024)
		assert.ErrorIs(t, err, ErrFrame, name)
		assert.Zero(t, size, name)
	}
}

func TestCloseCode(t *testing.T) {
	assert.Equal(t, 1005, CloseCode(nil))
	assert.Equal(t, 4007, CloseCode([]byte{0x0F, 0xA7, 'b', 'y', 'e'}))
}

// FuzzParse: whatever the bytes, Parse neither panics nor reads past
// them, and a frame it reads is written back the same by AppendHeader.
func FuzzParse(f *testing.F) {
	f.Add([]byte{Fin | OpText, 2, 'h', 'i'})
	f.Add([]byte{OpText, 1, 'a', Fin, 1, 'b'})
	f.Add([]byte{Fin | OpPing, 0})
	f.Add([]byte{Fin | OpClose, 2, 0x03, 0xE8})
	f.Add(append([]byte{Fin | OpBinary, 126, 0, 200}, make([]byte, 200)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		fr, size, err := Parse(b, 4096)
		if err != nil || size == 0 {
			return
		}
		require.LessOrEqual(t, size, len(b))
		require.LessOrEqual(t, len(fr.Payload), 4096)
		first := fr.Op
		if fr.Fin {
			first |= Fin
		}
		again := append(AppendHeader(nil, first, len(fr.Payload), false, [4]byte{}), fr.Payload...)
		// The same frame, unless the sender spent more length bytes than
		// it needed (which the protocol allows a reader to take).
		if len(again) == size {
			require.Equal(t, b[:size], again)
		}
	})
}
