package loadtest

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var scanSeeds = []string{
	`{"type":"move","seq":12,"id":"m1","player":"p_abc","cell":4,"digit":7}`,
	`{"type":"move","seq":12,"player":"p_abc","cell":4,"digit":7}`,
	`{"type":"move","seq":9,"player":"p_x","cell":0,"digit":0,"cleared":[1,2,30]}`,
	`{"type":"move","seq":9,"player":"p_x","cell":0,"digit":0,"undo":true,"cleared":[]}`,
	`{"type":"progress","seq":13,"player":"p_abc","filled":30,"empty":51,"mistakes":1,"hints":0,"moves":44}`,
	`{"type":"progress","seq":13,"player":"p_abc","filled":30,"empty":51,"hints":0,"moves":44,"x":null,"y":false}`,
	`{"type":"move"}`,
	`{"type":"state","seq":1,"room":{"phase":"running","givens":"..."}}`,
	`{"type":"error","seq":0,"id":"m2","code":"conflict","message":"no"}`,
	`{"type":"move","seq":12,"Seq":13,"player":"p"}`,
	`{"type":"move","seq":12,"id":7,"id":"x"}`,
	`{"type":"move","seq":12,"ID":"x"}`,
	`{"type":"move","id":"a\"b"}`,
	`{"type":"move","seq":12,"seq":13}`,
	`{"type":"move","seq":1.5}`,
	`{"type":"move","seq":"5"}`,
	`{"type":"move","seq":01}`,
	`{"type":"move","seq":-}`,
	`{"type":"move","player":"p\u0041"}`,
	`{"type":"move","player":"é"}`,
	`{"type":"move","player":5}`,
	`{"type":"move","cleared":[,]}`,
	`{"type":"move","cleared":[1,]}`,
	`{"type":"move","seq":99999999999999999999}`,
	`{"type":"move"`,
	`{"type":"move"} `,
	`{"type":"move","a":truex}`,
	`{"type":"move","PLAYER":"q","player":"p"}`,
	` {"type":"move"}`,
}

// TestScanFlat: the frames the server sends on every move are read
// without encoding/json, to the same result; anything else is left to it.
func TestScanFlat(t *testing.T) {
	f, ok := scanFlat([]byte(scanSeeds[0]))
	require.True(t, ok, "a move with its mover's message id")
	assert.Equal(t, frame{Type: "move", Seq: 12, ID: json.RawMessage(`"m1"`), Player: "p_abc"}, f)
	f, ok = scanFlat([]byte(scanSeeds[1]))
	require.True(t, ok)
	assert.Equal(t, frame{Type: "move", Seq: 12, Player: "p_abc"}, f)
	f, ok = scanFlat([]byte(scanSeeds[4]))
	require.True(t, ok)
	assert.Equal(t, frame{Type: "progress", Seq: 13, Player: "p_abc"}, f)
	for _, s := range scanSeeds[7:] {
		_, ok := scanFlat([]byte(s))
		assert.False(t, ok, s)
	}
	progress := []byte(scanSeeds[4])
	assert.Equal(t, 1.0, testing.AllocsPerRun(100, func() { scanFlat(progress) }), "one allocation: the player's id")
}

// FuzzScanFlat: whatever scanFlat reads, encoding/json reads alike and
// without error.
func FuzzScanFlat(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := scanFlat(data)
		if !ok {
			return
		}
		var want frame
		require.NoError(t, json.Unmarshal(data, &want), "%q", data)
		require.Equal(t, want, got, "%q", data)
	})
}
