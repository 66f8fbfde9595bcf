package server

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The registered nodes the relay check asks for are kept: asked again
// once 5 s old, or on a miss once 500 ms old, never more often; a failed
// look-up keeps the last answer and waits as long before the next.
func TestRelayCheckKeepsWhatItLookedUp(t *testing.T) {
	clk := NewFakeClock(time.Now())
	var mu sync.Mutex
	registered := map[string]string{"n1": "http://10.0.0.1:8080"}
	looks := 0
	var fail error
	l := newLookups(clk, peersFresh, peersRetry, func(context.Context, string) (map[string]string, error) {
		mu.Lock()
		defer mu.Unlock()
		looks++
		if fail != nil {
			return nil, fail
		}
		return maps.Clone(registered), nil
	})
	log := slog.New(slog.DiscardHandler)
	has := func(id string) bool {
		_, ok := l.get(context.Background(), "", func(p map[string]string) bool { _, ok := p[id]; return ok }, log)[id]
		return ok
	}
	register := func(id string) {
		mu.Lock()
		registered[id] = "http://" + id
		mu.Unlock()
	}

	assert.True(t, has("n1"))
	assert.Equal(t, 1, looks, "the first asks")
	assert.True(t, has("n1"))
	register("n2")
	assert.False(t, has("n2"), "a miss soon after a look-up waits")
	assert.Equal(t, 1, looks)
	clk.Advance(peersRetry)
	assert.True(t, has("n2"), "a miss asks again after the retry")
	assert.Equal(t, 2, looks)
	clk.Advance(peersFresh - time.Millisecond)
	assert.True(t, has("n1"))
	assert.Equal(t, 2, looks, "a hit is believed while fresh")
	clk.Advance(time.Millisecond)
	register("n3")
	assert.True(t, has("n1"))
	assert.Equal(t, 3, looks, "asked again once old")
	assert.True(t, has("n3"))

	fail = errors.New("the database is away")
	clk.Advance(peersFresh)
	assert.True(t, has("n1"), "a failed look-up keeps the last answer")
	assert.Equal(t, 4, looks)
	assert.False(t, has("n4"))
	assert.Equal(t, 4, looks, "and waits before the next")
}
