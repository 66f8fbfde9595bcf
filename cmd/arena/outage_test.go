package main

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/pgtest"
)

// outageFor is how long PostgreSQL stays away mid-game, at least: several
// times the event log's longest wait between two tries (2 s) and more than
// PostgreSQL's idle-in-transaction limit (5 s), and long enough for the
// outageSteps steps the test takes meanwhile, a second apart.
const outageFor = 12 * time.Second

// outageSteps is the last of the steps the test plays while PostgreSQL
// is away, whatever the time they take: the team's finish.
const outageSteps = 6

// TestDatabaseOutage runs the real binary over a real PostgreSQL, stops
// PostgreSQL at once mid-game (pg_ctl stop -m immediate) with a race and a
// co-op room playing, and keeps playing for outageFor: moves in both rooms,
// a racer who drops and resumes with their token, a racer's finish and the
// team's. The process stays live and not ready meanwhile, and no finish is
// announced. Once PostgreSQL is back, the finishes are announced, and the
// database holds every event the players were acknowledged, once, with no
// gap, and every result, once.
func TestDatabaseOutage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// Durable: with synchronous_commit off, an immediate stop loses the
	// commits of the last moments, which a real deployment does not.
	pg, err := pgtest.Start(ctx, pgtest.Options{Own: true, Durable: true})
	require.NoError(t, err)
	t.Cleanup(pg.Stop)
	a := arenatest.Start(t, arenatest.Options{DatabaseURL: pg.NewDatabase(t),
		Env: []string{"COUNTDOWN=10ms", "HINT_PENALTY=0", "PING_INTERVAL=1h"}})

	race, err := startRoom(ctx, a, room.ModeRace, "Ada", "Bo")
	require.NoError(t, err)
	coop, err := startRoom(ctx, a, room.ModeCoop, "Ada", "Bo")
	require.NoError(t, err)
	racer, runner := race.players[0], race.players[1]
	raceCells := race.cellsOf(0)
	coopCells := [][]int{coop.cellsOf(0), coop.cellsOf(1)}
	next := map[*wsPlayer]int{}
	step := func(p *wsPlayer, r *liveRoom, cells []int) {
		t.Helper()
		cell := cells[next[p]]
		next[p]++
		require.NoError(t, p.move(ctx, cell, int(r.solution[cell])))
	}
	for _, p := range race.players {
		step(p, race, raceCells)
	}
	for i, p := range coop.players {
		step(p, coop, coopCells[i])
	}

	require.NoError(t, pg.Halt(ctx))
	haltedAt := time.Now()
	require.Eventually(t, func() bool { return a.Status("/readyz") == http.StatusServiceUnavailable }, 10*time.Second, 50*time.Millisecond,
		"not ready while the database is away")
	for k := 0; k <= outageSteps || time.Since(haltedAt) < outageFor; k++ {
		assert.Equal(t, http.StatusOK, a.Status("/livez"), "live throughout")
		assert.Equal(t, http.StatusServiceUnavailable, a.Status("/readyz"), "not ready throughout")
		switch {
		case k == 2:
			// A drop, and a resume with the token, from memory.
			last := runner.lastSeq
			runner.close()
			back, err := dialPlayer(ctx, a, race.id, runner.name, runner.token, last)
			require.NoError(t, err, "a player of a live room comes back without the database")
			assert.Equal(t, runner.id, back.id)
			assert.True(t, back.welcome.Resumed, "with what they missed")
			back.acks, next[back] = runner.acks, next[runner]
			race.players[1], runner = back, back
		case k == 4:
			// The racer finishes: the finish waits for the database.
			for next[racer] < len(raceCells) {
				step(racer, race, raceCells)
			}
		case k == outageSteps:
			// So does the team's.
			for i, p := range coop.players {
				for next[p] < len(coopCells[i]) {
					step(p, coop, coopCells[i])
				}
			}
		case k < outageSteps:
			for i, p := range coop.players {
				step(p, coop, coopCells[i])
			}
		}
		step(runner, race, raceCells)
		time.Sleep(time.Second)
	}
	for _, p := range append(race.players, coop.players...) {
		assert.Zero(t, p.heard, "%s heard of no finish while the database was away", p.name)
	}

	// Taken before the restart, which returns once PostgreSQL accepts
	// connections: the server's retry may store a finish before then.
	resumedAt := time.Now()
	require.NoError(t, pg.Resume(ctx))
	for _, p := range []*wsPlayer{racer, coop.players[0], coop.players[1]} {
		require.NoError(t, p.awaitFinish(ctx), "%s's finish is announced once stored", p.name)
		assert.True(t, p.finishAt.After(resumedAt))
	}
	require.NoError(t, a.WaitReady(30*time.Second))
	assert.Equal(t, 0, a.Stop(), "an orderly shutdown writes the rest")

	st := openStore(ctx, t, a)
	for _, r := range []*liveRoom{race, coop} {
		evs, err := st.Events(ctx, r.id, 0, 0)
		require.NoError(t, err)
		stored := map[int64]store.Event{}
		for i, e := range evs {
			require.Equal(t, int64(i+1), e.Seq, "room %s: every event once, in order, with no gap", r.id)
			stored[e.Seq] = e
			if e.Type == protocol.TypeFinish {
				assert.True(t, e.At.After(resumedAt), "room %s: the finish was announced after the database came back", r.id)
			}
		}
		for _, p := range r.players {
			assert.LessOrEqual(t, p.lastSeq, int64(len(evs)), "room %s: %s saw no event that is not stored", r.id, p.name)
			for _, k := range p.acks {
				e, ok := stored[k.seq]
				if assert.True(t, ok, "room %s: %s's move at seq %d is stored", r.id, p.name, k.seq) {
					assert.Equal(t, protocol.TypeMove, e.Type)
					assert.Equal(t, p.id, e.PlayerID)
				}
			}
		}
	}
	assert.Equal(t, 1, resultsIn(ctx, t, st, racer.id, race.id), "the racer's finish, once")
	assert.Equal(t, 0, resultsIn(ctx, t, st, runner.id, race.id), "the other racer has not finished")
	for _, p := range coop.players {
		assert.Equal(t, 1, resultsIn(ctx, t, st, p.id, coop.id), "the team's finish, once each")
	}
}
