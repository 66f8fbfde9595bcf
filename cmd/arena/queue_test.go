package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/internal/loadtest"
)

// TestQueueProcess: twelve players of `arena loadtest`'s queue mode wait
// in a real `arena serve`'s Play now queue, half at easy and half at hard,
// from six loopback addresses (two players each, at one level): every one
// is matched within the window, into races of 2 to 4 of their level, and
// never with the other player of their address.
func TestQueueProcess(t *testing.T) {
	t.Parallel()
	a := arenatest.Start(t, arenatest.Options{Env: []string{"PLAYER_RATE=0", "POOL_STOCK=8", "SOCKETS_PER_ADDR=64"}})
	base, err := url.Parse(a.URL())
	require.NoError(t, err)
	sources := []string{"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6", "127.0.0.7"}
	levels := []string{"easy", "hard"}
	res, err := loadtest.RunQueue(context.Background(), loadtest.QueueOptions{Base: base, Players: 12, Levels: levels, Sources: sources, Within: time.Minute})
	require.NoError(t, err)
	assert.Empty(t, res.Errors)
	assert.Equal(t, 12, res.Joined)
	require.Equal(t, 12, res.Matched, "everyone matched")
	// The queue's window: ±100 widening to ±400 over 30 s; everyone is a
	// new guest at 1500, so nobody waits for the window, only for a tick.
	assert.Less(t, res.Wait.Quantile(1), 5*time.Second, "matched within a few ticks")
	seen := map[int]bool{}
	for room, group := range res.Groups {
		assert.GreaterOrEqual(t, len(group), 2, "room %s", room)
		assert.LessOrEqual(t, len(group), 4, "room %s", room)
		addrs := map[string]bool{}
		for _, i := range group {
			assert.False(t, seen[i], "player %d in two rooms", i)
			seen[i] = true
			assert.Equal(t, levels[group[0]%2], levels[i%2], "room %s: one level", room)
			src := sources[i%len(sources)]
			assert.False(t, addrs[src], "room %s: two players from %s", room, src)
			addrs[src] = true
		}
		resp, err := arenatest.Get(a.URL() + "/api/rooms/" + room)
		require.NoError(t, err)
		var r struct {
			Mode  string `json:"mode"`
			Level string `json:"level"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&r))
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, "race", r.Mode)
		assert.Equal(t, levels[group[0]%2], r.Level)
	}
	assert.Len(t, seen, 12)
}
