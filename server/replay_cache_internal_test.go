package server

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/room"
)

// The replay cache keeps answers up to its bytes, the least recently used
// going first, each until it expires or usable turns it down; refusals
// and errors are not kept.
func TestReplayCacheBoundsItsBytesAndAge(t *testing.T) {
	c := newReplayCache(ReplayCacheConfig{Bytes: 100})
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	ctx := context.Background()
	builds := 0
	answer := func(key string, size int, expires time.Time) *replayEntry {
		e, _, err := c.get(ctx, replayKey{game: key}, now, func(*replayEntry) bool { return true }, func() (*replayEntry, *replayRefusal, error) {
			builds++
			return &replayEntry{body: []byte(strings.Repeat(key[:1], size)), rounds: 1, expires: expires}, nil, nil
		})
		require.NoError(t, err)
		return e
	}
	later := now.Add(time.Minute)
	answer("a", 40, later)
	answer("b", 40, later)
	assert.Equal(t, 2, builds)
	answer("a", 40, later) // a is now the most recently used
	assert.Equal(t, 2, builds, "kept")
	answer("c", 40, later) // over 100 bytes: b goes
	n, bytes := c.size()
	assert.Equal(t, []any{2, int64(80)}, []any{n, bytes})
	answer("a", 40, later)
	assert.Equal(t, 3, builds)
	answer("b", 40, later)
	assert.Equal(t, 4, builds, "b was given up")

	answer("d", 101, later)
	n, bytes = c.size()
	assert.Equal(t, 5, builds)
	assert.LessOrEqual(t, bytes, int64(100), "an answer bigger than the cache is not kept")
	assert.Equal(t, 2, n)

	answer("e", 10, now) // expired as it is made
	answer("e", 10, now)
	assert.Equal(t, 7, builds, "an answer given up already is not kept")

	// usable turns a kept answer down: it is read again, and kept anew.
	e, _, err := c.get(ctx, replayKey{game: "a"}, now, func(e *replayEntry) bool { return e.rounds == 2 }, func() (*replayEntry, *replayRefusal, error) {
		builds++
		return &replayEntry{body: []byte("aa"), rounds: 2, expires: later}, nil, nil
	})
	require.NoError(t, err)
	assert.Equal(t, 2, e.rounds)
	assert.Equal(t, 8, builds)

	// Past its expiry, an answer is read again.
	now = later
	answer("a", 40, later.Add(time.Minute))
	assert.Equal(t, 9, builds)

	for _, res := range []struct {
		refusal *replayRefusal
		err     error
	}{{&replayRefusal{"room_not_found", "no"}, nil}, {nil, errors.New("database down")}} {
		for range 2 {
			_, refusal, err := c.get(ctx, replayKey{game: "x"}, now, func(*replayEntry) bool { return true }, func() (*replayEntry, *replayRefusal, error) {
				builds++
				return nil, res.refusal, res.err
			})
			assert.Equal(t, res.refusal, refusal)
			assert.Equal(t, res.err, err)
		}
	}
	assert.Equal(t, 13, builds, "refusals and errors are not kept")
}

// replayEvents writes the events as encoding/json writes []ReplayEvent.
func TestReplayEventsEncodeAsEncodingJSON(t *testing.T) {
	at := time.Date(2026, 11, 22, 12, 0, 0, 120000000, time.UTC)
	recs := []room.Record{
		{Seq: 1, Data: json.RawMessage(`{"type":"move","seq":1,"player":"p_a","cell":3,"digit":4}`), At: at},
		{Seq: 2, Data: json.RawMessage(`{"type":"presence","seq":2,"player":"p_b","name":"Bé","role":"player","status":"left"}`), At: at.Add(time.Second)},
	}
	got, err := replayEvents(recs)
	require.NoError(t, err)
	want, err := json.Marshal([]ReplayEvent{{At: recs[0].At, Event: recs[0].Data}, {At: recs[1].At, Event: recs[1].Data}})
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
	none, err := replayEvents(nil)
	require.NoError(t, err)
	assert.Equal(t, "[]", string(none))
}
