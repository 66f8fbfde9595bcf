package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseRoundTrip(t *testing.T) {
	const p = "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4.."
	g, err := Parse(p)
	require.NoError(t, err)
	assert.Equal(t, p, g.String())
	assert.Equal(t, uint8(8), g[0])
	assert.Equal(t, 21, g.Filled())
	back, err := Parse(g.Pretty())
	require.NoError(t, err)
	assert.Equal(t, g, back)
}
