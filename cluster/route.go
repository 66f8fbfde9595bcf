package cluster

// Routing by room. A balancer that hashes on the room (deploy/nginx.conf:
// /ws?room=ID, /api/rooms/ID) sends all of a room's players to one node,
// but POST /api/rooms, which names no room yet, reaches any node. So the
// node that makes a room hands it off at once (HandOff): it saves it,
// stops it, and marks it handed off in the database, and the first node
// one of its players reaches claims it there (Router.Locate) and runs
// it, where the others meet it. Without the hand-off the maker would run
// every room and relay (N-1)/N of its players.
//
// The cost is one more write when a room is made (the hand-off; the save
// is what a shutdown does) and, on the node that claims it, the claim and
// a load of the saved room: a few queries once per room, against a relay
// (two more sockets and a copy of every frame) for most players of it.
// The alternatives cost more: making the room where its id hashes needs
// nginx's hash in the nodes, and leaving it unowned (owner NULL) would
// have the takeover pass of any node take it before its first join.

import (
	"context"
	"errors"
	"fmt"

	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
)

// HandOff hands a room this node has just made, before anyone joined
// it, to the node its first player reaches: the room is saved and stopped
// here, and its epoch moves on with the note that it was handed off
// (store.Cluster.HandOff), so that this node's writes for it are refused
// from then on. On an error the room is served all the same: it may still
// run here, or be saved and stopped, with this node its owner, which
// claims it again for a join relayed to it (Locate).
func (n *Node) HandOff(ctx context.Context, id string) error {
	epoch := n.fences.Epoch(id)
	if err := n.rooms.Release(ctx, id); err != nil {
		return fmt.Errorf("node: hand off room %s: %w", id, err)
	}
	if err := n.st.HandOff(ctx, id, n.cfg.ID, epoch); err != nil {
		return fmt.Errorf("node: hand off room %s at epoch %d: %w", id, epoch, err)
	}
	return nil
}

// Router is the node as the server asks it where rooms live when a
// balancer routes by room: Locate claims a room handed off (HandOff) and
// run by no node yet, wherever it was made, and is Node.Locate for every
// other room.
type Router struct{ *Node }

// Router is the node as a Router.
func (n *Node) Router() Router { return Router{n} }

// Locate is where the room lives: "" when here, a handed-off room
// claimed and brought back here first; else as Node.Locate says.
func (r Router) Locate(ctx context.Context, id string) (string, error) {
	if _, err := r.rooms.Get(id); err == nil {
		return "", nil
	}
	if err := r.claimHanded(ctx, id); !errors.Is(err, store.ErrOwned) {
		return "", err
	}
	return r.Node.Locate(ctx, id)
}

// claimHanded claims a room handed off and claimed by none since, and
// brings it back here; store.ErrOwned when the room is no such room (or
// this node is draining: it takes on no room, and Node.Locate sends the
// player to the room's maker, which claims it).
func (n *Node) claimHanded(ctx context.Context, id string) error {
	if n.draining.Load() {
		return store.ErrOwned
	}
	n.claimMu.Lock()
	defer n.claimMu.Unlock()
	if _, err := n.rooms.Get(id); err == nil {
		return nil // a claim just before this one brought it here
	}
	epoch, err := n.st.ClaimHanded(ctx, id, n.cfg.ID)
	if err != nil {
		return err
	}
	// Not counted as a takeover (nobody lost the room), and not logged:
	// every room made with routing by room is claimed so, once.
	k, err := n.bringBack(ctx, id, epoch)
	if err != nil {
		return fmt.Errorf("node: bring back handed-off room %s: %w", id, err)
	}
	if k == 0 {
		return room.ErrNotFound // its rounds are over
	}
	return nil
}
