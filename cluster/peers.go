package cluster

import (
	"context"
	"fmt"
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
