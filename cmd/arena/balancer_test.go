package main

import (
	"context"
	"net/http"
	"slices"
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

// TestNodesBehindBalancer is the whole of several nodes as an operator
// runs them: three real nodes over one PostgreSQL, and nginx in front
// with the deployment's own configuration (deploy/nginx.conf: by room),
// the one URL every player uses. Rooms made through it run on the node
// their players reach, each room's on one node, and a race plays to the
// end with no socket relayed; the node owning a live co-op room and
// a live race is killed (SIGKILL) and both are taken over within 15 s and
// finished by the same players coming back through the balancer; a node
// paused (SIGSTOP) past NODE_TIMEOUT and resumed has its write refused;
// and a rolling restart (SIGTERM, then start again, one node after the
// other) ends no game and loses no acknowledged move. Without nginx it
// skips, unless E2E_REQUIRED=1.
func TestNodesBehindBalancer(t *testing.T) {
	arenatest.Nginx(t)
	ctx := context.Background()
	pg, err := pgtest.Start(ctx, pgtest.Options{})
	require.NoError(t, err)
	t.Cleanup(pg.Stop)
	nodes := startNodes(t, pg.NewDatabase(t), 3)
	lb := arenatest.StartBalancer(t, nginxFile, nodes)
	byID := map[string]*arenatest.Arena{"n1": nodes[0], "n2": nodes[1], "n3": nodes[2]}
	cl, ok := openStore(ctx, t, nodes[0]).(store.Cluster)
	require.True(t, ok)
	relays := func() float64 {
		sum := 0.0
		for _, n := range nodes {
			if v, err := n.Metric("arena_relays_total"); err == nil {
				sum += v
			}
		}
		return sum
	}

	t.Run("RaceThroughTheBalancer", func(t *testing.T) {
		r := startVia(ctx, t, room.ModeRace, lb, lb, lb)
		owner := ownerOf(ctx, t, cl, r.id)
		assert.Len(t, roomView(t, lb, r.id).Players, 3)
		finishRace(ctx, t, r, r.players)
		// A rematch: the next round is made where the room runs, under
		// the epoch its node claimed it at.
		require.NoError(t, r.players[0].host(ctx, protocol.TypeRematch))
		for _, p := range r.players[1:] {
			_, err := p.until(ctx, func(frame) bool { return p.phase == protocol.PhaseWaiting })
			require.NoError(t, err, "%s: the rematch's lobby", p.name)
		}
		require.NoError(t, r.players[0].host(ctx, protocol.TypeStart))
		for _, p := range r.players {
			_, err := p.running(ctx)
			require.NoError(t, err, "%s: the rematch runs", p.name)
		}
		assert.Equal(t, owner, ownerOf(ctx, t, cl, r.id), "the rematch runs where the room ran")
		for _, p := range r.players {
			p.close()
		}
		// The creation went to any node (round robin: it names no room),
		// which handed the room off; the joins and the room request went
		// to the node the room's id hashes to, which claimed it: nothing
		// was relayed.
		assert.Zero(t, relays(), "no join relayed to the owner, %s", owner)
	})

	t.Run("RoomsRunWhereTheirPlayersLand", func(t *testing.T) {
		owners := map[string]int{}
		for range 6 {
			r := startVia(ctx, t, room.ModeCoop, lb, lb)
			owners[ownerOf(ctx, t, cl, r.id)]++
			someMoves(ctx, t, r)
			for _, p := range r.players {
				p.close()
			}
		}
		// A daily room: its player plays as they join.
		id, err := createRoom(lb, room.ModeDaily)
		require.NoError(t, err)
		p, err := dialPlayer(ctx, lb, id, "daily", "", 0)
		require.NoError(t, err)
		givens, err := p.running(ctx)
		require.NoError(t, err)
		solution := solve(t, givens)
		cell := slices.Index(givens[:], 0)
		require.NoError(t, p.move(ctx, cell, int(solution[cell])))
		p.close()
		assert.Zero(t, relays(), "every player reached the node that runs the room")
		assert.GreaterOrEqual(t, len(owners), 2, "the rooms spread over the nodes: %v", owners)
	})

	t.Run("OwnerKilled", func(t *testing.T) {
		coop := startVia(ctx, t, room.ModeCoop, lb, lb)
		owner := ownerOf(ctx, t, cl, coop.id)
		race := startIn(ctx, t, roomOn(ctx, t, cl, lb, room.ModeRace, owner), room.ModeRace, lb, lb)
		someMoves(ctx, t, coop)
		someMoves(ctx, t, race)
		killAndFinish(ctx, t, cl, byID[owner], owner, coop, race, lb)
		takeovers := 0.0
		for id, n := range byID {
			if id != owner {
				takeovers += metric(t, n, "arena_node_takeovers_total")
			}
		}
		assert.GreaterOrEqual(t, takeovers, 2.0, "the two rooms taken over")
		byID[owner].Restart() // the same address, back in the upstream
	})

	t.Run("PausedOwnerIsFenced", func(t *testing.T) {
		r := startVia(ctx, t, room.ModeCoop, lb, lb)
		someMoves(ctx, t, r)
		owner := ownerOf(ctx, t, cl, r.id)
		pauseAndFence(ctx, t, cl, r, byID[owner], owner, lb, lb)
	})

	t.Run("RollingRestart", func(t *testing.T) {
		coop := startVia(ctx, t, room.ModeCoop, lb, lb)
		race := startVia(ctx, t, room.ModeRace, lb, lb)
		rooms := []*liveRoom{coop, race}
		epochs := map[string]int64{}
		for _, r := range rooms {
			someMoves(ctx, t, r)
			o, err := cl.RoomOwner(ctx, r.id, testTimeout)
			require.NoError(t, err)
			epochs[r.id] = o.Epoch
		}
		for _, n := range nodes {
			assert.Equal(t, 0, n.Stop(), "SIGTERM: an orderly exit")
			n.Restart()
			// Whoever was on the node that left comes back through the
			// balancer; everyone finds every move they had acknowledged,
			// and moves once more.
			for _, r := range rooms {
				for i, p := range r.players {
					np := rejoin(ctx, t, lb, p, 10*time.Second)
					if r.mode == room.ModeCoop {
						checkBoard(t, np, r.players...) // one board for the team
					} else {
						checkBoard(t, np, p)
					}
					r.players[i] = np
				}
				for i, p := range r.players {
					cell := nextCell(r, i, p)
					require.NoError(t, p.move(ctx, cell, int(r.solution[cell])), "%s room %s after %s left", r.mode, r.id, n.Addr())
				}
			}
		}
		for _, r := range rooms {
			for i, p := range r.players {
				r.players[i] = rejoin(ctx, t, lb, p, 10*time.Second)
				checkBoard(t, r.players[i], p)
			}
		}
		finishCoop(ctx, t, coop, coop.players[0], coop.players[1])
		finishRace(ctx, t, race, race.players)
		for _, r := range rooms {
			for _, p := range r.players {
				assert.NotNil(t, p.finish, "%s room %s: %s finished", r.mode, r.id, p.name)
				p.close()
			}
			o, err := cl.RoomOwner(ctx, r.id, testTimeout)
			require.NoError(t, err)
			assert.Greater(t, o.Epoch, epochs[r.id], "%s room %s moved as its node left", r.mode, r.id)
		}
	})
}

// TestNodesAnswerForTheirPublicURL runs three nodes as docker-compose.yml
// does, with PUBLIC_URL the balancer's URL: a race made and played
// through nginx plays to the end, its joins (without the room's hint, so
// round robin) that reach a node without the room relayed to the owner
// at its NODE_ADDR (a host other than PUBLIC_URL's, answered for the
// nodes' secret), while a
// request straight to a node's own address is refused as another host
// (421) and its probes still answer; nginx answers /metrics itself.
// Without nginx it skips, unless E2E_REQUIRED=1.
func TestNodesAnswerForTheirPublicURL(t *testing.T) {
	arenatest.Nginx(t)
	ctx := context.Background()
	pg, err := pgtest.Start(ctx, pgtest.Options{})
	require.NoError(t, err)
	t.Cleanup(pg.Stop)
	lbAddr := arenatest.FreeAddr(t)
	nodes := arenatest.StartNodes(t, arenatest.NodeOptions{
		DatabaseURL: pg.NewDatabase(t), N: 3, Heartbeat: testHeartbeat, Timeout: testTimeout,
		Env: []string{"COUNTDOWN=10ms", "HINT_PENALTY=0", "PING_INTERVAL=1h", "PUBLIC_URL=http://" + lbAddr},
	})
	lb := arenatest.StartBalancerOn(t, lbAddr, nginxFile, nodes)

	anyNode := unhinted{lb}
	r := startVia(ctx, t, room.ModeRace, anyNode, anyNode, anyNode)
	assert.Len(t, roomView(t, lb, r.id).Players, 3)
	finishRace(ctx, t, r, r.players)
	relays := 0.0
	for _, n := range nodes {
		relays += metric(t, n, "arena_relays_total")
		assert.Equal(t, http.StatusMisdirectedRequest, n.Status("/api/rooms/"+r.id), "%s's own address is another host", n.Addr())
		assert.Equal(t, http.StatusMisdirectedRequest, n.Status("/"), n.Addr())
		for _, probe := range []string{"/livez", "/readyz", "/healthz"} {
			assert.Equal(t, http.StatusOK, n.Status(probe), "%s at %s", probe, n.Addr())
		}
	}
	assert.GreaterOrEqual(t, relays, 2.0, "joins relayed to the owner")
	for _, p := range r.players {
		assert.NotNil(t, p.finish, "%s finished", p.name)
		p.close()
	}

	resp, err := arenatest.Get(lb.URL() + "/metrics")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "no metrics through the balancer")
}

// ownerOf is the node that owns room id now.
func ownerOf(ctx context.Context, t *testing.T, cl store.Cluster, id string) string {
	t.Helper()
	o, err := cl.RoomOwner(ctx, id, testTimeout)
	require.NoError(t, err)
	require.NotEmpty(t, o.Node, "room %s has an owner", id)
	return o.Node
}

// roomOn makes rooms of the mode through the balancer until one runs on
// the node named owner, and returns its id: a room request through the
// balancer reaches the node the id hashes to, which claims the room, as
// its first join would. A third of the rooms land on each node.
func roomOn(ctx context.Context, t *testing.T, cl store.Cluster, lb endpoint, mode, owner string) string {
	t.Helper()
	for range 40 {
		id, err := createRoom(lb, mode)
		require.NoError(t, err)
		roomView(t, lb, id)
		if ownerOf(ctx, t, cl, id) == owner {
			return id
		}
	}
	t.Fatalf("no %s room run on %s through the balancer in 40 tries", mode, owner)
	return ""
}

// nextCell is the first cell of player i's share that p has not placed
// a digit in yet.
func nextCell(r *liveRoom, i int, p *wsPlayer) int {
	placed := map[int]bool{}
	for _, a := range p.acks {
		placed[a.cell] = true
	}
	for _, cell := range r.cellsOf(i) {
		if !placed[cell] {
			return cell
		}
	}
	return -1
}
