package ws

import (
	"bytes"
	"math"
	"strconv"
	"strings"
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
		f, size, err := Parse(b, 1<<20, false)
		require.NoError(t, err, n)
		assert.Equal(t, len(b), size, n)
		assert.True(t, f.Fin)
		assert.Equal(t, byte(OpText), f.Op)
		assert.Equal(t, p, f.Payload, n)
		for _, cut := range []int{0, 1, head - 1, len(b) - 1} {
			if cut < 0 || cut >= len(b) {
				continue
			}
			_, size, err := Parse(b[:cut], 1<<20, false)
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
		_, size, err := Parse(b, 1024, false)
		assert.ErrorIs(t, err, ErrFrame, name)
		assert.Zero(t, size, name)
	}
}

func TestCloseCode(t *testing.T) {
	assert.Equal(t, StatusNoStatus, CloseCode(nil))
	assert.Equal(t, StatusCode(4007), CloseCode([]byte{0x0F, 0xA7, 'b', 'y', 'e'}))
}

// FuzzParse: whatever the bytes, Parse neither panics nor reads past
// them, and a frame it reads, a client's or a server's, is written back
// the same by AppendHeader.
func FuzzParse(f *testing.F) {
	f.Add([]byte{Fin | OpText, 2, 'h', 'i'}, false)
	f.Add([]byte{OpText, 1, 'a', Fin, 1, 'b'}, false)
	f.Add([]byte{Fin | OpPing, 0}, false)
	f.Add([]byte{Fin | OpClose, 2, 0x03, 0xE8}, false)
	f.Add(append([]byte{Fin | OpBinary, 126, 0, 200}, make([]byte, 200)...), false)
	f.Add([]byte{Fin | OpPong, 0x82, 1, 2, 3, 4, 'o', 'k'}, true)
	f.Fuzz(func(t *testing.T, b []byte, masked bool) {
		fr, size, err := Parse(b, 4096, masked)
		if err != nil || size == 0 {
			return
		}
		require.LessOrEqual(t, size, len(b))
		require.LessOrEqual(t, len(fr.Payload), 4096)
		first := fr.Op
		if fr.Fin {
			first |= Fin
		}
		again := append(AppendHeader(nil, first, len(fr.Payload), masked, fr.Key), fr.Payload...)
		// The same frame, unless the sender spent more length bytes than
		// it needed (which the protocol allows a reader to take).
		if len(again) == size {
			require.Equal(t, b[:size], again)
		}
	})
}

// TestParseMasked: a client's frame is read with its key and its payload
// as sent, masked; a frame of the other kind is an error either way.
func TestParseMasked(t *testing.T) {
	key := [4]byte{9, 8, 7, 6}
	b := AppendMasked(nil, OpPing, []byte("hey"), key)
	f, size, err := Parse(b, 125, true)
	require.NoError(t, err)
	assert.Equal(t, len(b), size)
	assert.Equal(t, key, f.Key)
	p := bytes.Clone(f.Payload)
	Mask(p, f.Key)
	assert.Equal(t, "hey", string(p))
	_, size, err = Parse(b[:5], 125, true)
	require.NoError(t, err)
	assert.Zero(t, size, "the key in part")
	_, _, err = Parse(b, 125, false)
	assert.ErrorIs(t, err, ErrFrame, "a masked frame from a server")
	_, _, err = Parse([]byte{Fin | OpPing, 0}, 125, true)
	assert.ErrorIs(t, err, ErrFrame, "an unmasked frame from a client")
}

func TestSizeAndClose(t *testing.T) {
	for _, n := range []int{0, 125, 126, 65535, 65536} {
		b := AppendHeader(nil, Fin|OpText, n, true, [4]byte{1, 2, 3, 4})
		size, ok := Size(b, true)
		assert.True(t, ok, "%d", n)
		assert.Equal(t, len(b)+n, size, "%d", n)
		_, ok = Size(b[:3], true)
		assert.Equal(t, n < 126, ok, "the length is in the first bytes")
	}
	size, ok := Size([]byte{0x81, 127, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}, false)
	assert.True(t, ok)
	assert.Equal(t, math.MaxInt, size)
	// A 64-bit length with its top bit set breaks the framing (section
	// 5.2): refused as a bad frame, not as one too big.
	_, _, err := Parse([]byte{0x81, 0x80 | 127, 0x80, 0, 0, 0, 0, 0, 0, 1, 1, 2, 3, 4}, 4096, true)
	assert.ErrorIs(t, err, ErrFrame)
	assert.NotErrorIs(t, err, ErrTooBig)
	_, _, err = Parse([]byte{0x81, 0x80 | 127, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 1, 2, 3, 4}, 4096, true)
	assert.ErrorIs(t, err, ErrTooBig, "the longest a length may be is too big")

	f, n, err := Parse(AppendClose(nil, 4003, "bye"), MaxControlPayload, false)
	require.NoError(t, err)
	require.Positive(t, n)
	code, reason, err := CheckClose(f.Payload)
	require.NoError(t, err)
	assert.Equal(t, StatusCode(4003), code)
	assert.Equal(t, "bye", reason)
	assert.Equal(t, []byte{Fin | OpClose, 0}, AppendClose(nil, StatusNoStatus, "ignored"))
	long := AppendClose(nil, 1000, strings.Repeat("é", 100))
	f, _, err = Parse(long, MaxControlPayload, false)
	require.NoError(t, err, "a long reason is cut to fit")
	_, reason, err = CheckClose(f.Payload)
	require.NoError(t, err, "at a character's start")
	assert.Equal(t, strings.Repeat("é", 61), reason)
	for _, p := range [][]byte{{3}, {0x03, 0xED}, {0x03, 0xF7}, {0x13, 0x88}, {0x03, 0xE8, 0xC3}} {
		_, _, err := CheckClose(p)
		assert.ErrorIs(t, err, ErrFrame, "% x", p)
	}
}

// Mask is RFC 6455's XOR (section 5.3), byte i with key[i mod 4], at every
// length and offset the word loop and the byte tail split differently.
func TestMaskIsTheRFCsXOR(t *testing.T) {
	key := [4]byte{0x37, 0xfa, 0x21, 0x3d}
	for n := range 41 {
		p := make([]byte, n)
		for i := range p {
			p[i] = byte(i*7 + 3)
		}
		want := make([]byte, n)
		for i := range want {
			want[i] = p[i] ^ key[i%4]
		}
		got := bytes.Clone(p)
		Mask(got, key)
		assert.Equal(t, want, got, "length %d", n)
		Mask(got, key)
		assert.Equal(t, p, got, "length %d: masking twice gives the bytes back", n)
	}
}

// unmask reports all-ASCII bytes, unmasked, at every length, with one
// byte of the high half at each place in the word loop and the tail.
func TestUnmaskTellsASCII(t *testing.T) {
	key := [4]byte{0x37, 0xfa, 0x21, 0x3d}
	for n := range 41 {
		text := bytes.Repeat([]byte("a"), n)
		p := bytes.Clone(text)
		Mask(p, key)
		assert.True(t, unmask(p, key), "length %d", n)
		assert.Equal(t, text, p)
		for i := range n {
			text[i] = 0x80
			p := bytes.Clone(text)
			Mask(p, key)
			assert.False(t, unmask(p, key), "length %d, 0x80 at %d", n, i)
			text[i] = 'a'
		}
	}
}

func BenchmarkMask(b *testing.B) {
	for _, n := range []int{64, 4096} {
		p := make([]byte, n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				Mask(p, [4]byte{1, 2, 3, 4})
			}
		})
	}
}
