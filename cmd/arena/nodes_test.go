package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/pgtest"
)

// Short node timing keeps the test fast: a node is dead 3 s after its
// last heartbeat, and each live node looks for dead nodes' rooms every
// 250 ms. (2 s is too short beside the whole suite on two cores: a
// heartbeat then waits that long for the database now and then.)
const (
	testHeartbeat = 250 * time.Millisecond
	testTimeout   = 3 * time.Second
	// takeoverBound is what the product promises: a dead node's rooms are
	// claimed within 15 s of its death.
	takeoverBound = 15 * time.Second
	// rejoinTry bounds one try of a rejoin.
	rejoinTry = 5 * time.Second
)

// startNodes starts n `arena serve` processes as nodes over one database.
func startNodes(t *testing.T, dbURL string, n int) []*arenatest.Arena {
	t.Helper()
	return arenatest.StartNodes(t, arenatest.NodeOptions{
		DatabaseURL: dbURL, N: n, Heartbeat: testHeartbeat, Timeout: testTimeout,
		Env: []string{"COUNTDOWN=10ms", "HINT_PENALTY=0", "PING_INTERVAL=1h"},
	})
}

// metric is a counter's or gauge's value on a node's /metrics.
func metric(t *testing.T, a *arenatest.Arena, name string) float64 {
	t.Helper()
	v, err := a.Metric(name)
	require.NoError(t, err)
	return v
}

// rejoin brings a player back through the node (or balancer) given, with
// their token, as the web client does after a close: again and again
// until a welcome comes (the node may still be taking the room over), for
// up to within. It asks for a snapshot (no last_seq), so that the board
// can be checked. Each try is bounded by rejoinTry: behind a balancer a
// try may reach a paused node, which never answers; and, as the web
// client, every other try leaves the room out of the WebSocket's URL, so
// that a balancer routing by room does not send each try to that node.
func rejoin(ctx context.Context, t *testing.T, a endpoint, p *wsPlayer, within time.Duration) *wsPlayer {
	t.Helper()
	p.close()
	deadline := time.Now().Add(within)
	for try := 0; ; try++ {
		via := a
		if try%2 == 1 {
			via = unhinted{a}
		}
		tctx, cancel := context.WithTimeout(ctx, rejoinTry)
		np, err := dialPlayer(tctx, via, p.roomID, p.name, p.token, 0)
		cancel()
		if err == nil {
			np.acks = p.acks
			return np
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s could not rejoin %s within %s: %v", p.name, p.roomID, within, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkBoard checks that every move the players had acknowledged is on
// the board the welcome showed (co-op: one board for the team).
func checkBoard(t *testing.T, p *wsPlayer, acked ...*wsPlayer) {
	t.Helper()
	require.NotNil(t, p.welcome.Room)
	board := p.welcome.Room.Board
	for _, q := range acked {
		for _, a := range q.acks {
			assert.Equal(t, byte('0'+a.digit), board[a.cell], "%s's acknowledged move at %d", q.name, a.cell)
		}
	}
}

// finishCoop has p fill every cell left on the team's board and waits
// until both players hear the team's finish.
func finishCoop(ctx context.Context, t *testing.T, r *liveRoom, p, mate *wsPlayer) {
	t.Helper()
	board := p.welcome.Room.Board
	_, err := p.running(ctx)
	require.NoError(t, err)
	for cell, v := range r.givens {
		if v != 0 || board[cell] != '.' && board[cell] != '0' {
			continue
		}
		require.NoError(t, p.move(ctx, cell, int(r.solution[cell])))
	}
	require.NoError(t, p.awaitFinish(ctx))
	require.NoError(t, mate.awaitFinish(ctx))
}

// awaitOwner waits until the room's owner is a live node other than
// gone, and returns it.
func awaitOwner(ctx context.Context, t *testing.T, cl store.Cluster, id, gone string, within time.Duration) store.Owner {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		o, err := cl.RoomOwner(ctx, id, testTimeout)
		require.NoError(t, err)
		if o.Node != "" && o.Node != gone && o.Alive {
			return o
		}
		if time.Now().After(deadline) {
			t.Fatalf("room %s has no live owner but %q within %s: %+v", id, gone, within, o)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// someMoves has each player make two moves of the team's (co-op), and
// waits a moment so that the event log has written them.
func someMoves(ctx context.Context, t *testing.T, r *liveRoom) {
	t.Helper()
	for i, p := range r.players {
		for _, cell := range r.cellsOf(i)[:2] {
			require.NoError(t, p.move(ctx, cell, int(r.solution[cell])))
		}
	}
	time.Sleep(300 * time.Millisecond)
}

// joinVia has a new player of each name join room id, the i-th through
// nodes[i].
func joinVia(ctx context.Context, t *testing.T, id string, nodes []endpoint, names ...string) []*wsPlayer {
	t.Helper()
	var ps []*wsPlayer
	for i, name := range names {
		p, err := dialPlayer(ctx, nodes[i], id, name, "", 0)
		require.NoError(t, err)
		ps = append(ps, p)
	}
	return ps
}

// startVia makes a room of the mode on nodes[0] and has the players join
// through the nodes given, one each, and start it.
func startVia(ctx context.Context, t *testing.T, mode string, nodes ...endpoint) *liveRoom {
	t.Helper()
	id, err := createRoom(nodes[0], mode)
	require.NoError(t, err)
	return startIn(ctx, t, id, mode, nodes...)
}

// startIn has players join room id through the nodes given, one each,
// and start it.
func startIn(ctx context.Context, t *testing.T, id, mode string, nodes ...endpoint) *liveRoom {
	t.Helper()
	names := make([]string, len(nodes))
	for i := range names {
		names[i] = fmt.Sprintf("%s-%d", mode, i)
	}
	r := &liveRoom{id: id, mode: mode, players: joinVia(ctx, t, id, nodes, names...)}
	require.NoError(t, r.players[0].host(ctx, protocol.TypeStart))
	r.awaitRunning(ctx, t)
	return r
}

// awaitRunning waits until every player of the room sees it running, and
// notes its puzzle and solution.
func (r *liveRoom) awaitRunning(ctx context.Context, t *testing.T) {
	t.Helper()
	for _, p := range r.players {
		g, err := p.running(ctx)
		require.NoError(t, err)
		r.givens = g
	}
	r.solution = solve(t, r.givens)
}

// TestNodes runs three real nodes over one PostgreSQL: a race whose
// players join through different nodes plays to the end; the owner of a
// live co-op room is killed (SIGKILL) and the room is taken over within
// 15 s and played to the end by the same players; an owner paused
// (SIGSTOP) past NODE_TIMEOUT and resumed has its write refused and its
// sockets closed with 4009; a node stopped (SIGTERM) mid-game hands its
// room on.
func TestNodes(t *testing.T) {
	ctx := context.Background()
	pg, err := pgtest.Start(ctx, pgtest.Options{Own: true})
	require.NoError(t, err)
	t.Cleanup(pg.Stop)
	nodes := startNodes(t, pg.NewDatabase(t), 3)
	n1, n2, n3 := nodes[0], nodes[1], nodes[2]
	cl, ok := openStore(ctx, t, n1).(store.Cluster)
	require.True(t, ok)

	t.Run("RaceThroughThreeNodes", func(t *testing.T) {
		r := startVia(ctx, t, room.ModeRace, n1, n2, n3)
		snap := roomView(t, n3, r.id) // relayed to its owner, n1
		assert.Len(t, snap.Players, 3)
		err := parallel(len(r.players), func(i int) error {
			p := r.players[i]
			for _, cell := range r.cellsOf(i) {
				if err := p.move(ctx, cell, int(r.solution[cell])); err != nil {
					return err
				}
			}
			return p.awaitFinish(ctx)
		})
		require.NoError(t, err)
		assert.GreaterOrEqual(t, metric(t, n2, "arena_relays_total"), 1.0)
		assert.Equal(t, 1.0, metric(t, n2, "arena_relayed_connections"), "n2 relays its racer's socket")
		for _, p := range r.players {
			p.close()
		}
	})

	t.Run("OwnerKilled", func(t *testing.T) {
		coop := startVia(ctx, t, room.ModeCoop, n3, n1) // owned by n3; the second player relayed by n1
		race := startVia(ctx, t, room.ModeRace, n3, n2)
		someMoves(ctx, t, coop)
		someMoves(ctx, t, race)
		killAndFinish(ctx, t, cl, n3, "n3", coop, race, n1, n2)
		assert.GreaterOrEqual(t, metric(t, n1, "arena_node_takeovers_total")+metric(t, n2, "arena_node_takeovers_total"), 2.0,
			"the two rooms taken over")
		assert.GreaterOrEqual(t, metric(t, n1, "arena_node_heartbeat_failures_total"), 0.0)
	})

	t.Run("PausedOwnerIsFenced", func(t *testing.T) {
		r := startVia(ctx, t, room.ModeCoop, n2, n1) // owned by n2
		someMoves(ctx, t, r)
		pauseAndFence(ctx, t, cl, r, n2, "n2", n1, n2)
	})

	t.Run("NodeStopped", func(t *testing.T) {
		r := startVia(ctx, t, room.ModeCoop, n2, n1) // owned by n2
		someMoves(ctx, t, r)
		assert.Equal(t, 0, n2.Stop(), "SIGTERM: an orderly exit")
		o, err := cl.RoomOwner(ctx, r.id, testTimeout)
		require.NoError(t, err)
		// Released as it left (and perhaps claimed by n1's takeover pass
		// since).
		assert.NotEqual(t, "n2", o.Node, "released by the node that left")
		a := rejoin(ctx, t, n1, r.players[0], 5*time.Second)
		b := rejoin(ctx, t, n1, r.players[1], 5*time.Second)
		checkBoard(t, a, r.players...)
		finishCoop(ctx, t, r, a, b)
		a.close()
		b.close()
	})
}

// finishRace has each racer (race.players[i], or that player come back)
// fill every cell of theirs left on the board their welcome showed, and
// waits for their finishes.
func finishRace(ctx context.Context, t *testing.T, race *liveRoom, racers []*wsPlayer) {
	t.Helper()
	err := parallel(len(racers), func(i int) error {
		np := racers[i]
		board := np.welcome.Room.Board
		if _, err := np.running(ctx); err != nil {
			return err
		}
		for _, cell := range race.cellsOf(i) {
			if len(board) > cell && board[cell] != '.' && board[cell] != '0' {
				continue // placed before (a board in the lobby is empty)
			}
			if err := np.move(ctx, cell, int(race.solution[cell])); err != nil {
				return err
			}
		}
		return np.awaitFinish(ctx)
	})
	require.NoError(t, err)
}

// killAndFinish kills (SIGKILL) owner, the node named ownerID that owns a
// live co-op room and a live race, checks that both are taken over within
// takeoverBound, and has the same players come back with their tokens
// (the i-th of each room through via[i%len(via)]), find every move they
// had acknowledged, and play both rooms to the end.
func killAndFinish(ctx context.Context, t *testing.T, cl store.Cluster, owner *arenatest.Arena, ownerID string, coop, race *liveRoom, via ...endpoint) {
	t.Helper()
	owner.Kill()
	killed := time.Now()
	for _, r := range []*liveRoom{coop, race} {
		o := awaitOwner(ctx, t, cl, r.id, ownerID, takeoverBound)
		t.Logf("%s room %s taken over by %s %s after the kill", r.mode, r.id, o.Node, time.Since(killed).Round(time.Millisecond))
	}
	assert.Less(t, time.Since(killed), takeoverBound)

	a := rejoin(ctx, t, via[0], coop.players[0], 5*time.Second)
	b := rejoin(ctx, t, via[1%len(via)], coop.players[1], 5*time.Second)
	checkBoard(t, a, coop.players...)
	assert.Equal(t, coop.players[0].id, a.id, "the same player, by the token")
	finishCoop(ctx, t, coop, a, b)
	a.close()
	b.close()

	racers := make([]*wsPlayer, len(race.players))
	for i, p := range race.players {
		racers[i] = rejoin(ctx, t, via[i%len(via)], p, 5*time.Second)
		checkBoard(t, racers[i], p)
	}
	finishRace(ctx, t, race, racers)
	for _, p := range racers {
		p.close()
	}
}

// pauseAndFence pauses (SIGSTOP) owner, the node named ownerID that owns
// the live co-op room r, past NODE_TIMEOUT: another node takes the room
// over, and the second player comes back through via and moves there.
// Then owner resumes (SIGCONT) and the first player, still on its old
// socket, moves: the stale owner's write is refused as fenced (its
// counter and its log say so), it closes the socket with 4009, and the
// database keeps the new owner and its events (its other rooms, taken
// over too, may be refused as well). The first player comes
// back through staleVia and the team finishes.
func pauseAndFence(ctx context.Context, t *testing.T, cl store.Cluster, r *liveRoom, owner *arenatest.Arena, ownerID string, via, staleVia endpoint) {
	t.Helper()
	stale := r.players[0]
	owned := metric(t, owner, "arena_node_rooms_owned")
	owner.Pause(t)
	o := awaitOwner(ctx, t, cl, r.id, ownerID, takeoverBound)
	// Behind a balancer routing by room, a try with the room's hint
	// reaches the paused node; one without goes round robin.
	b := rejoin(ctx, t, via, r.players[1], 20*time.Second)
	cell := r.cellsOf(1)[2]
	require.NoError(t, b.move(ctx, cell, int(r.solution[cell])))
	time.Sleep(300 * time.Millisecond) // written by the new owner

	owner.Resume()
	// The stale owner takes a move for the room it lost: its write is
	// refused, it stops the room and closes its sockets with 4009.
	staleCell := r.cellsOf(0)[2]
	require.NoError(t, stale.send(ctx, map[string]any{"type": "move", "id": "stale", "cell": staleCell, "digit": int(r.solution[staleCell])}))
	var closeErr error
	for closeErr == nil {
		_, closeErr = stale.read(ctx)
	}
	assert.Equal(t, protocol.CloseMoved, protocol.CloseCode(websocket.CloseStatus(closeErr)), "%v", closeErr)
	// Every room the owner held was taken over while it was paused: each
	// that it writes for is refused, this one first.
	refusals := metric(t, owner, "arena_node_fencing_refusals_total")
	assert.GreaterOrEqual(t, refusals, 1.0)
	assert.LessOrEqual(t, refusals, owned, "no more refusals than rooms it owned")
	assert.Eventually(t, func() bool {
		return owner.Logged("node: write refused as fenced: another node owns the room now; room stopped", "room", r.id) == 1
	}, 5*time.Second, 10*time.Millisecond, "the refusal is logged")

	now, err := cl.RoomOwner(ctx, r.id, testTimeout)
	require.NoError(t, err)
	assert.Equal(t, o.Node, now.Node, "the database keeps the new owner")
	evs, err := cl.(store.Store).Events(ctx, r.id, 0, 0)
	require.NoError(t, err)
	for _, e := range evs {
		assert.NotContains(t, string(e.Data), `"id":"stale"`, "the stale owner's move is not stored")
	}
	a := rejoin(ctx, t, staleVia, stale, 10*time.Second)
	checkBoard(t, a, r.players[0], b)
	assert.NotEqual(t, byte('0'+r.solution[staleCell]), a.welcome.Room.Board[staleCell], "the stale move is not on the new owner's board")
	finishCoop(ctx, t, r, a, b)
	a.close()
	b.close()
}

// solve is the puzzle's one solution.
func solve(t *testing.T, givens engine.Grid) engine.Grid {
	t.Helper()
	res := engine.Solve(givens, 2)
	require.Equal(t, 1, res.Count)
	return res.Solution
}
