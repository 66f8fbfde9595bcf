package room

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIDAcceptBelowIsTheLargestMultipleOfTheAlphabet(t *testing.T) {
	assert.Equal(t, 248, idAcceptBelow)
	assert.Zero(t, idAcceptBelow%len(idAlphabet))
	assert.Greater(t, idAcceptBelow+len(idAlphabet), 256, "no larger multiple fits in a byte")
}

// TestIDFromRejectsTheBiasedBytes feeds idFrom chosen bytes: those from 248
// up are skipped, the others map to the alphabet modulo 31.
func TestIDFromRejectsTheBiasedBytes(t *testing.T) {
	in := []byte{
		248, 0, 255, 30, 31, 250, 247, 61, 62, 251, 1, 2, // 8 kept, 4 thrown away
		0, 0, 0, 0,
	}
	id, err := idFrom(bytes.NewReader(in))
	require.NoError(t, err)
	a := idAlphabet
	want := string([]byte{a[0], a[30], a[0], a[247%31], a[61%31], a[0], a[1], a[2]})
	assert.Equal(t, want, id)

	// A draw that throws away a whole buffer reads another.
	in = append(bytes.Repeat([]byte{252}, 16), bytes.Repeat([]byte{5}, 16)...)
	id, err = idFrom(bytes.NewReader(in))
	require.NoError(t, err)
	assert.Equal(t, strings.Repeat(string(a[5]), 8), id)
}

func TestIDFromSaysWhenRandomnessFails(t *testing.T) {
	boom := errors.New("no entropy")
	_, err := idFrom(iotest.ErrReader(boom))
	assert.ErrorIs(t, err, boom)
}

// TestNewIDUsesTheWholeAlphabet draws ids and checks that every character
// of the alphabet turns up in every position and nothing else does: the
// support of the distribution. (With 31 characters and 3,000 ids a
// character is missing from a position with probability about 31 ×
// (30/31)^3000, far below 1e-30.)
func TestNewIDUsesTheWholeAlphabet(t *testing.T) {
	var seen [8]map[rune]int
	for i := range seen {
		seen[i] = map[rune]int{}
	}
	for range 3000 {
		id := NewID()
		require.Len(t, id, 8)
		for i, r := range id {
			require.Contains(t, idAlphabet, string(r))
			seen[i][r]++
		}
	}
	for i := range seen {
		assert.Len(t, seen[i], len(idAlphabet), "position %d", i)
	}
}
