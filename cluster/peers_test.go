package cluster

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/config"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/pgtest"
	"github.com/sudoku-arena/arena/store/postgres"
)

// A node's peers are the nodes registered in PostgreSQL, alive or not,
// each by its internal address; one that left is none.
func TestPeersAreTheRegisteredNodes(t *testing.T) {
	ctx := context.Background()
	st := clusterStore(t)
	for id, addr := range map[string]string{"n1": "http://10.0.0.1:8080", "n2": "http://arena2:8080", "n3": "http://[fd00::3]:8080"} {
		require.NoError(t, st.RegisterNode(ctx, store.Node{ID: id, Addr: addr, PublicURL: "https://arena.example"}))
	}
	n := New(config.Node{ID: "n1", Timeout: 10 * time.Second}, "https://arena.example", st, slog.New(slog.DiscardHandler))

	peers, err := n.Peers(ctx)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"n1": "http://10.0.0.1:8080", "n2": "http://arena2:8080", "n3": "http://[fd00::3]:8080"}, peers)

	_, err = st.LeaveNode(ctx, "n2")
	require.NoError(t, err)
	peers, err = n.Peers(ctx)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"n1": "http://10.0.0.1:8080", "n3": "http://[fd00::3]:8080"}, peers)

	st.Close()
	_, err = n.Peers(ctx)
	assert.ErrorContains(t, err, "node n1: list the nodes")
}

// The tournaments are where the live node that runs them (Arenas) is:
// here for that node, at its address for the others, nowhere once it
// drains or leaves.
func TestArenaNode(t *testing.T) {
	ctx := context.Background()
	st := clusterStore(t)
	require.NoError(t, st.RegisterNode(ctx, store.Node{ID: "n1", Addr: "http://10.0.0.1:8080"}))
	n1 := New(config.Node{ID: "n1", Timeout: 10 * time.Second}, "", st, slog.New(slog.DiscardHandler))
	_, err := n1.ArenaNode(ctx)
	assert.ErrorIs(t, err, server.ErrNoArenaNode)

	require.NoError(t, st.RegisterNode(ctx, store.Node{ID: "n2", Addr: "http://10.0.0.2:8080", Arenas: true}))
	nodes, err := st.Nodes(ctx, 10*time.Second)
	require.NoError(t, err)
	require.Len(t, nodes, 2)
	assert.False(t, nodes[0].Arenas)
	assert.True(t, nodes[1].Arenas, "stored")
	at, err := n1.ArenaNode(ctx)
	require.NoError(t, err)
	assert.Equal(t, "http://10.0.0.2:8080", at)
	n2 := New(config.Node{ID: "n2", Timeout: 10 * time.Second, Arenas: true}, "", st, slog.New(slog.DiscardHandler))
	at, err = n2.ArenaNode(ctx)
	require.NoError(t, err)
	assert.Empty(t, at, "here")

	require.NoError(t, st.DrainNode(ctx, "n2"))
	_, err = n1.ArenaNode(ctx)
	assert.ErrorIs(t, err, server.ErrNoArenaNode, "a draining node takes nothing new")
}

// clusterStore is a store of a throwaway PostgreSQL database.
func clusterStore(t *testing.T) *postgres.Store {
	t.Helper()
	ctx := context.Background()
	pg, err := pgtest.Start(ctx, pgtest.Options{})
	require.NoError(t, err)
	t.Cleanup(pg.Stop)
	st, err := postgres.Open(ctx, pg.NewDatabase(t))
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	return st
}
