package cluster

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/config"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/pgtest"
	"github.com/sudoku-arena/arena/store/postgres"
)

// A node's peers are the nodes registered in PostgreSQL, alive or not,
// each by its internal address; one that left is none.
func TestPeersAreTheRegisteredNodes(t *testing.T) {
	ctx := context.Background()
	pg, err := pgtest.Start(ctx, pgtest.Options{})
	require.NoError(t, err)
	t.Cleanup(pg.Stop)
	st, err := postgres.Open(ctx, pg.NewDatabase(t))
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
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
