package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store/pgtest"
)

// TestOverloadRefusesRatherThanDrops drives the real binary past its event
// log's capacity: EVENT_QUEUE_MB=1 and PostgreSQL stopped while two co-op
// players place and clear digits as fast as they are acknowledged. Once the
// log is saturated their moves are refused with overloaded, before they
// are applied, and so are a new room (503, Retry-After) and a new player's
// join; a player coming back with last_seq still gets in. Once PostgreSQL
// is back the log drains and moves are taken again, by themselves; and
// every move the server acknowledged, before and after, is stored, with no
// event dropped.
func TestOverloadRefusesRatherThanDrops(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pg, err := pgtest.Start(ctx, pgtest.Options{Own: true, Durable: true})
	require.NoError(t, err)
	t.Cleanup(pg.Stop)
	a := arenatest.Start(t, arenatest.Options{DatabaseURL: pg.NewDatabase(t),
		Env: []string{"EVENT_QUEUE_MB=1", "COUNTDOWN=10ms", "HINT_PENALTY=0", "PING_INTERVAL=1h"}})
	coop, err := startRoom(ctx, a, room.ModeCoop, "Ada", "Bo")
	require.NoError(t, err)

	require.NoError(t, pg.Halt(ctx))
	// Each player flips a cell of their own: its digit, then empty, until
	// a move is refused.
	refusedAt := map[*wsPlayer]int{}
	var mu sync.Mutex
	require.NoError(t, parallel(2, func(i int) error {
		p, cell := coop.players[i], coop.cellsOf(i)[0]
		for n := 0; n < 100_000; n++ {
			digit := int(coop.solution[cell])
			if n%2 == 1 {
				digit = 0
			}
			if err := p.move(ctx, cell, digit); err != nil {
				if strings.Contains(err.Error(), `"code":"`+protocol.CodeOverloaded+`"`) {
					mu.Lock()
					refusedAt[p] = n
					mu.Unlock()
					return nil
				}
				return err
			}
		}
		return nil
	}))
	for _, p := range coop.players {
		require.Contains(t, refusedAt, p, "%s's moves were refused once the log saturated", p.name)
		assert.Greater(t, len(p.acks), 100, "%s played a while first", p.name)
	}
	assert.Equal(t, http.StatusServiceUnavailable, a.Status("/readyz"), "not ready while saturated")

	// A new room and a new player are refused; a player coming back is not.
	resp, err := arenatest.Post(a.URL()+"/api/rooms", "application/json", strings.NewReader(`{"mode":"race","level":"easy"}`))
	require.NoError(t, err)
	var refusal struct {
		Error struct{ Code string } `json:"error"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&refusal))
	resp.Body.Close()
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, "2", resp.Header.Get("Retry-After"))
	assert.Equal(t, protocol.CodeOverloaded, refusal.Error.Code)
	_, err = dialPlayer(ctx, a, coop.id, "Cy", "", 0)
	require.Error(t, err)
	assert.Contains(t, err.Error(), protocol.CodeOverloaded)
	bo := coop.players[1]
	bo.close()
	back, err := dialPlayer(ctx, a, coop.id, bo.name, bo.token, bo.lastSeq)
	require.NoError(t, err, "a player coming back gets in")
	back.acks = bo.acks
	coop.players[1] = back

	// The database comes back: the log drains, and moves are taken again.
	require.NoError(t, pg.Resume(ctx))
	require.NoError(t, a.WaitReady(60*time.Second))
	ada, cell := coop.players[0], coop.cellsOf(0)[0]
	digit := int(coop.solution[cell])
	if refusedAt[ada]%2 == 1 {
		digit = 0
	}
	require.NoError(t, ada.move(ctx, cell, digit), "taken again once drained")
	assert.Equal(t, 0, a.Stop())

	assert.Zero(t, a.Logged("event log: past twice its bound, events dropped"), "no event dropped")
	assert.Equal(t, 1, a.Logged("event log: saturated: new moves, rooms and joins are refused until it drains"))
	assert.Equal(t, 1, a.Logged("event log: drained: taking new moves, rooms and joins again"))
	st := openStore(ctx, t, a)
	events, err := st.Events(ctx, coop.id, 0, 0)
	require.NoError(t, err)
	stored := map[int64]protocol.MoveEvent{}
	for _, e := range events {
		if e.Type == protocol.TypeMove {
			var m protocol.MoveEvent
			require.NoError(t, json.Unmarshal(e.Data, &m))
			stored[e.Seq] = m
		}
	}
	acked := 0
	for _, p := range coop.players {
		for _, k := range p.acks {
			m, ok := stored[k.seq]
			if assert.True(t, ok, "%s's move at seq %d was acknowledged and must be stored", p.name, k.seq) {
				assert.Equal(t, []int{k.cell, k.digit}, []int{m.Cell, m.Digit}, "seq %d", k.seq)
			}
			acked++
		}
	}
	assert.Greater(t, acked, 200)
}
