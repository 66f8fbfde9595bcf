package main

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/backend"
	"github.com/sudoku-arena/arena/store/pgtest"
)

// killBound is what a SIGKILL may lose, as docs/operations.md states it: the
// events acknowledged within the event log's batch interval (25 ms) and the
// write of the batch then under way. The test allows for a machine busy
// with other tests: a move acknowledged longer than this before the kill
// must have survived it.
const killBound = 250 * time.Millisecond

// liveRoom is a room of the test, its players and its solution.
type liveRoom struct {
	id, mode string
	givens   engine.Grid
	solution engine.Grid
	players  []*wsPlayer
	// finishes is set on the rooms where a racer (race) or the team
	// (co-op) finishes before the process dies.
	finishes bool
}

const (
	processRooms   = 100
	roomPlayers    = 4
	movesPerPlayer = 3
)

// cellsOf are the empty cells player i of the room plays: in a race the
// first ones of their own board, in co-op their share of the team's.
func (r *liveRoom) cellsOf(i int) []int {
	var cells []int
	n := 0
	for cell, v := range r.givens {
		if v != 0 {
			continue
		}
		if r.mode == room.ModeRace || n%len(r.players) == i {
			cells = append(cells, cell)
		}
		n++
	}
	return cells
}

// openRooms makes the rooms, half races and half co-op, has four players
// join each and the first start it, and returns them running.
func openRooms(ctx context.Context, t *testing.T, a *arenatest.Arena) []*liveRoom {
	t.Helper()
	rooms := make([]*liveRoom, processRooms)
	err := parallel(processRooms, func(i int) error {
		mode := room.ModeRace
		if i%2 == 1 {
			mode = room.ModeCoop
		}
		names := make([]string, roomPlayers)
		for j := range names {
			names[j] = fmt.Sprintf("p%d-%d", i, j)
		}
		r, err := startRoom(ctx, a, mode, names...)
		if err != nil {
			return err
		}
		r.finishes = i < 4
		rooms[i] = r
		return nil
	})
	require.NoError(t, err)
	return rooms
}

// startRoom creates a room of the mode, has a player of each name join it
// and the first start it, and returns it running, with its solution.
func startRoom(ctx context.Context, a *arenatest.Arena, mode string, names ...string) (*liveRoom, error) {
	id, err := createRoom(a, mode)
	if err != nil {
		return nil, err
	}
	r := &liveRoom{id: id, mode: mode}
	for _, name := range names {
		p, err := dialPlayer(ctx, a, id, name, "", 0)
		if err != nil {
			return nil, err
		}
		r.players = append(r.players, p)
	}
	if err := r.players[0].host(ctx, protocol.TypeStart); err != nil {
		return nil, err
	}
	for _, p := range r.players {
		if r.givens, err = p.running(ctx); err != nil {
			return nil, err
		}
	}
	res := engine.Solve(r.givens, 2)
	if res.Count != 1 {
		return nil, fmt.Errorf("room %s: the puzzle has %d solutions", id, res.Count)
	}
	r.solution = res.Solution
	return r, nil
}

// play has every player of every room make their moves, each in a
// goroutine of their own, and waits until all are acknowledged. In the
// rooms that finish, the first racer (race) or the whole team (co-op) fills
// every cell, and waits for the finish.
func play(ctx context.Context, t *testing.T, rooms []*liveRoom) {
	t.Helper()
	err := parallel(len(rooms)*roomPlayers, func(k int) error {
		r, i := rooms[k/roomPlayers], k%roomPlayers
		p := r.players[i]
		cells := r.cellsOf(i)
		fill := r.finishes && (r.mode == room.ModeCoop || i == 0)
		if !fill {
			cells = cells[:movesPerPlayer]
		}
		for _, cell := range cells {
			if err := p.move(ctx, cell, int(r.solution[cell])); err != nil {
				return err
			}
		}
		if fill {
			return p.awaitFinish(ctx)
		}
		return nil
	})
	require.NoError(t, err)
}

// TestProcessDeath runs the real binary with 100 live rooms of 4 players,
// races and co-op, over SQLite and over PostgreSQL, stops it with SIGTERM
// or kills it with SIGKILL mid-game, starts it again, and checks that every
// room came back with every acknowledged move (SIGKILL: all but those of
// the last moments, within killBound), that no finish was lost, and that
// the players resume with their token.
func TestProcessDeath(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pg, err := pgtest.Start(ctx, pgtest.Options{})
	require.NoError(t, err)
	t.Cleanup(pg.Stop)
	for _, db := range []string{"sqlite", "postgres"} {
		for _, sig := range []string{"SIGTERM", "SIGKILL"} {
			t.Run(db+"/"+sig, func(t *testing.T) {
				opts := arenatest.Options{Env: []string{"COUNTDOWN=10ms", "HINT_PENALTY=0", "MAX_PLAYERS=4"}}
				if db == "postgres" {
					opts.DatabaseURL = pg.NewDatabase(t)
				}
				a := arenatest.Start(t, opts)
				rooms := openRooms(ctx, t, a)
				play(ctx, t, rooms)
				if sig == "SIGTERM" {
					assert.Equal(t, 0, a.Stop(), "an orderly shutdown")
					checkRestart(ctx, t, a, rooms, time.Time{})
					return
				}
				killedAt := killMidGame(ctx, t, a, rooms)
				checkRestart(ctx, t, a, rooms, killedAt)
			})
		}
	}
}

// killMidGame lets the event log write what was played, then has every
// player go on moving and kills the process while they do. It returns
// when it sent the signal.
func killMidGame(ctx context.Context, t *testing.T, a *arenatest.Arena, rooms []*liveRoom) time.Time {
	t.Helper()
	time.Sleep(killBound)
	var wg sync.WaitGroup
	for _, r := range rooms {
		for i, p := range r.players {
			if r.finishes && (r.mode == room.ModeCoop || i == 0) {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, cell := range r.cellsOf(i)[movesPerPlayer:] {
					if p.move(ctx, cell, int(r.solution[cell])) != nil {
						return // the process is gone
					}
				}
			}()
		}
	}
	time.Sleep(150 * time.Millisecond)
	killedAt := time.Now()
	a.Kill()
	wg.Wait()
	return killedAt
}

// checkRestart starts the server again and checks every room and player
// against what the players were acknowledged: the rooms whose team
// finished come back too, finished, with their players. killedAt is zero after an
// orderly stop: then every acknowledged move must be back; after a kill,
// those acknowledged within killBound of it may be lost.
func checkRestart(ctx context.Context, t *testing.T, a *arenatest.Arena, rooms []*liveRoom, killedAt time.Time) {
	t.Helper()
	for _, r := range rooms {
		for _, p := range r.players {
			p.close()
		}
	}
	a.Restart()
	mayLose := func(k ack) bool { return !killedAt.IsZero() && k.at.After(killedAt.Add(-killBound)) }

	// Every room is back, and each player's count of moves is what they
	// were acknowledged.
	acked, lost, oldestLost := 0, 0, time.Duration(0)
	for _, r := range rooms {
		view := roomView(t, a, r.id)
		require.Len(t, view.Players, roomPlayers, "room %s", r.id)
		for i, p := range r.players {
			require.Equal(t, p.id, view.Players[i].ID)
			kept := 0
			for _, k := range p.acks {
				if !mayLose(k) {
					kept++
				}
			}
			got := view.Players[i].Moves
			acked += len(p.acks)
			if n := len(p.acks) - got; n > 0 {
				// The moves lost are the player's last ones.
				lost += n
				oldestLost = max(oldestLost, killedAt.Sub(p.acks[len(p.acks)-n].at))
			}
			if killedAt.IsZero() {
				assert.Equal(t, len(p.acks), got, "room %s: %s's moves", r.id, p.id)
			} else {
				assert.GreaterOrEqual(t, got, kept, "room %s: %s's moves acknowledged before the kill", r.id, p.id)
				// A move the process made but whose answer died with it
				// may be back too.
				assert.LessOrEqual(t, got, len(p.acks)+1, "room %s: %s's moves", r.id, p.id)
			}
		}
	}
	t.Logf("%d moves acknowledged; %d lost to the %s, the oldest acknowledged %s before it",
		acked, lost, map[bool]string{true: "SIGTERM", false: "SIGKILL"}[killedAt.IsZero()], oldestLost)

	// The players resume with their token (and, after an orderly stop,
	// their last seq): each board holds every move acknowledged.
	err := parallel(len(rooms)*roomPlayers, func(k int) error {
		r, i := rooms[k/roomPlayers], k%roomPlayers
		old := r.players[i]
		var last int64
		if killedAt.IsZero() {
			last = old.lastSeq
		}
		p, err := dialPlayer(ctx, a, r.id, old.name, old.token, last)
		if err != nil {
			return err
		}
		defer p.close()
		if p.id != old.id {
			return fmt.Errorf("room %s: %s came back as %s", r.id, old.id, p.id)
		}
		if p.welcome.Room == nil {
			if killedAt.IsZero() && p.welcome.Resumed {
				return nil // nothing missed; the board was checked by count
			}
			return fmt.Errorf("room %s: %s's welcome has no snapshot and did not resume", r.id, p.id)
		}
		board, err := engine.Parse(p.welcome.Room.Board)
		if err != nil {
			return fmt.Errorf("room %s: %s's board: %w", r.id, p.id, err)
		}
		players := []*wsPlayer{old}
		if r.mode == room.ModeCoop {
			players = r.players
		}
		for _, q := range players {
			for _, k := range q.acks {
				if int(board[k.cell]) != k.digit && !mayLose(k) {
					return fmt.Errorf("room %s: %s's move %d at %d (seq %d) is not on %s's board after the restart", r.id, q.id, k.digit, k.cell, k.seq, p.id)
				}
			}
		}
		return nil
	})
	require.NoError(t, err)

	// No finish is lost: every finish told is stored, once.
	assert.Equal(t, 0, a.Stop())
	st := openStore(ctx, t, a)
	for _, r := range rooms {
		for _, p := range r.players {
			if p.finish == nil {
				continue
			}
			assert.Equal(t, 1, resultsIn(ctx, t, st, p.id, r.id), "room %s: %s's finish is stored once", r.id, p.id)
		}
	}
}

// openStore opens the store the server ran over, to check what it kept
// once it stopped; it is closed when the test ends.
func openStore(ctx context.Context, t *testing.T, a *arenatest.Arena) store.Store {
	t.Helper()
	kind, err := backend.Parse(a.DatabaseURL())
	require.NoError(t, err)
	st, err := backend.Open(ctx, kind)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	return st
}

// resultsIn counts player's results in the game.
func resultsIn(ctx context.Context, t *testing.T, st store.Store, player, game string) int {
	t.Helper()
	hist, err := st.PlayerHistory(ctx, player, 100)
	require.NoError(t, err)
	n := 0
	for _, res := range hist {
		if res.RoomID == game {
			n++
		}
	}
	return n
}
