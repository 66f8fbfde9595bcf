package loadtest

import (
	"context"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/store/pgtest"
)

func TestMain(m *testing.M) { os.Exit(arenatest.Main(m)) }

func TestCheckTargets(t *testing.T) {
	us, err := CheckTargets("http://127.0.0.1:8081, http://127.0.0.1:8082,http://localhost:8083", false)
	require.NoError(t, err)
	require.Len(t, us, 3)
	assert.Equal(t, "127.0.0.1:8082", us[1].Host)
	_, err = CheckTargets("http://127.0.0.1:8081,http://192.0.2.1:8080", false)
	assert.ErrorContains(t, err, "-allow-remote", "every node is checked")
	_, err = CheckTargets("http://127.0.0.1:8081,", false)
	assert.Error(t, err, "an empty entry")
}

// TestNodeOf: rooms are made round robin, and the remote share of each
// room's players goes to the other nodes in turn, never to the owner.
func TestNodeOf(t *testing.T) {
	three := []*url.URL{{Host: "a"}, {Host: "b"}, {Host: "c"}}
	o := Options{URL: three[0], Nodes: three, Players: 4, Remote: 0.5}
	require.NoError(t, o.validateNodes())
	assert.Equal(t, []int{0, 1, 2, 0}, []int{o.creator(0), o.creator(1), o.creator(2), o.creator(3)})
	for owner := range 3 {
		var nodes []int
		remote := 0
		for k := range 4 {
			n, r := o.nodeOf(owner, k)
			nodes = append(nodes, n)
			if r {
				remote++
				assert.NotEqual(t, owner, n, "a remote player's node does not own the room")
			} else {
				assert.Equal(t, owner, n)
			}
		}
		assert.Equal(t, 2, remote, "half of four players")
		assert.ElementsMatch(t, []int{owner, owner, (owner + 1) % 3, (owner + 2) % 3}, nodes, "both other nodes")
	}

	o.Remote = 1.5
	assert.ErrorContains(t, o.validateNodes(), "-remote")
	one := Options{URL: three[0], Players: 4, Remote: 0.5}
	assert.ErrorContains(t, one.validateNodes(), "two nodes")
	one.Remote = 0
	n, r := one.nodeOf(0, 3)
	assert.Equal(t, 0, n)
	assert.False(t, r)
}

// TestRunAcrossNodes plays a small co-op load over three real nodes on
// one PostgreSQL, half of each room's players on a node that does not own
// the room: every connection holds, moves are acknowledged and timed
// through the relays, each node relays exactly the sockets the plan
// sends it, and the report's count of relayed players, read from the
// nodes' metrics, is the plan's. Then the same load through nginx with
// the deployment's configuration, which routes by room: no player is
// relayed.
func TestRunAcrossNodes(t *testing.T) {
	ctx := context.Background()
	pg, err := pgtest.Start(ctx, pgtest.Options{})
	require.NoError(t, err)
	t.Cleanup(pg.Stop)
	nodes := arenatest.StartNodes(t, arenatest.NodeOptions{
		DatabaseURL: pg.NewDatabase(t), N: 3, Heartbeat: 250 * time.Millisecond, Timeout: 3 * time.Second,
		Env: []string{"COUNTDOWN=1s", "POOL_STOCK=8"},
	})
	var urls, metrics []*url.URL
	var pids []int
	for _, a := range nodes {
		u, err := CheckTarget(a.URL(), false)
		require.NoError(t, err)
		urls = append(urls, u)
		pids = append(pids, a.PID())
		m, err := url.Parse(a.MetricsURL())
		require.NoError(t, err)
		metrics = append(metrics, m)
	}
	res, err := Run(ctx, Options{
		URL: urls[0], Nodes: urls, Remote: 0.5, Rooms: 3, Players: 4, Mode: "coop",
		Rate: 4, Ramp: 0, Duration: 2 * time.Second, PIDs: pids, Metrics: metrics,
	})
	require.NoError(t, err)
	assert.False(t, res.Failed(), "%+v", res.Errors)
	assert.Equal(t, 3, res.Rooms)
	assert.Equal(t, 12, res.Connections)
	assert.Equal(t, 3, res.Nodes)
	assert.Equal(t, 6, res.RemoteConnections, "two of each room's four players")
	assert.Zero(t, res.UnexpectedCloses)
	assert.Greater(t, res.MovesAcked, int64(40), "12 players × 4 moves/s × 2 s, less clashes")
	assert.GreaterOrEqual(t, res.Measured, res.MovesAcked*9/10, "timed to the last member, relayed ones included")
	assert.Positive(t, res.ServerCPU, "the three nodes' CPU")
	assert.Positive(t, res.ServerRSS)
	for i, a := range nodes {
		owned, err := a.Metric("arena_node_rooms_owned")
		require.NoError(t, err)
		assert.Equal(t, 1.0, owned, "node %d made and owns one room", i+1)
		relays, err := a.Metric("arena_relays_total")
		require.NoError(t, err)
		assert.Equal(t, 2.0, relays, "node %d relays one player of each other node's room", i+1)
	}
	assert.True(t, res.RelayedKnown)
	assert.Equal(t, int64(6), res.Relayed, "the nodes' count is the plan's")
	assert.Equal(t, 12, res.Players)

	t.Run("ThroughTheBalancer", func(t *testing.T) {
		lb := arenatest.StartBalancer(t, "../../deploy/nginx.conf", nodes)
		u, err := CheckTarget(lb.URL(), false)
		require.NoError(t, err)
		res, err := Run(ctx, Options{
			URL: u, Rooms: 6, Players: 4, Mode: "coop",
			Rate: 4, Ramp: 0, Duration: 2 * time.Second, PIDs: pids, Metrics: metrics,
		})
		require.NoError(t, err)
		assert.False(t, res.Failed(), "%+v", res.Errors)
		assert.Equal(t, 24, res.Players)
		assert.Zero(t, res.UnexpectedCloses)
		assert.Greater(t, res.MovesAcked, int64(80), "24 players × 4 moves/s × 2 s, less clashes")
		assert.True(t, res.RelayedKnown)
		assert.Zero(t, res.Relayed, "every player reached the node that runs the room")
	})
}
