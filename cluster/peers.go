package cluster

import (
	"context"
	"fmt"

	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store"
)

// Peers are the registered nodes, alive or not (server.Nodes): each one's
// internal base URL (NODE_ADDR) by id. A request that says another node
// relayed it is believed only from the address of a node listed here;
// the server keeps the list for a few seconds and asks again on a miss.
func (n *Node) Peers(ctx context.Context) (map[string]string, error) {
	nodes, err := n.st.Nodes(ctx, n.cfg.Timeout)
	if err != nil {
		return nil, fmt.Errorf("node %s: list the nodes: %w", n.cfg.ID, err)
	}
	peers := make(map[string]string, len(nodes))
	for _, p := range nodes {
		peers[p.ID] = p.Addr
	}
	return peers, nil
}

// ArenaNode is where the tournaments run (server.Nodes' optional
// ArenaLocator): "" when on this node, else the internal base URL of the
// live node, not draining, that runs them (Arenas), the one that started
// last if several say so; server.ErrNoArenaNode when none does.
func (n *Node) ArenaNode(ctx context.Context) (string, error) {
	if n.cfg.Arenas {
		return "", nil
	}
	nodes, err := n.st.Nodes(ctx, n.cfg.Timeout)
	if err != nil {
		return "", fmt.Errorf("node %s: list the nodes: %w", n.cfg.ID, err)
	}
	var at store.Node
	for _, p := range nodes {
		if p.Arenas && p.Alive && !p.Draining && p.StartedAt.After(at.StartedAt) {
			at = p
		}
	}
	if at.ID == "" {
		return "", fmt.Errorf("node %s: %w", n.cfg.ID, server.ErrNoArenaNode)
	}
	return at.Addr, nil
}
