// Package cluster is several nodes behind one URL, coordinated through
// PostgreSQL: each node registers in the nodes table and heartbeats; each
// live room has one owner with an epoch that every write for it carries
// (store.Cluster, and the Fences a node's store.Adapter writes with). A
// join for a room another live node owns is relayed there (server's
// relay.go, which asks Node.Locate); a room without a live owner is
// claimed and brought back from its saved state and events, on a join or
// by the takeover pass after each heartbeat, so that a dead node's rooms
// come back within NODE_TIMEOUT and a pass or two.
//
// A node takes moves only while it holds its Lease: its last heartbeat
// that the database took was sent less than NODE_TIMEOUT less a margin
// ago, and its event log's writes are not stalled. The other nodes count
// it dead only once that heartbeat is NODE_TIMEOUT old and the database
// has been up for as long, and only a node that has held its own lease
// for NODE_TIMEOUT takes rooms over: so nothing a node acknowledged is
// lost to a takeover, and a database outage moves no room. A node whose
// lease lapsed checks which rooms it still holds before it takes moves
// again, and one whose write is refused as fenced has lost the room to
// another: it stops the room and closes its sockets with 4009. A node
// that shuts down drains (claims no more rooms), saves its rooms, and
// leaves, releasing them.
package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sudoku-arena/arena/internal/config"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
)

// takeoverBatch bounds the rooms one takeover pass claims, so that the
// live nodes share a dead node's rooms rather than the first to look
// taking them all.
const takeoverBatch = 50

// errDraining: the room's owner is saving its rooms to leave; it releases
// them in a moment, and the client tries again.
var errDraining = errors.New("the room's node is draining")

// errNotYet: the room's owner looks dead, but this node has not held its
// lease for NODE_TIMEOUT yet, and takes no room over until it has.
var errNotYet = errors.New("the room's node looks dead, and this node is not yet in good standing to take it over")

// Node is this server as one of several (server.Nodes).
type Node struct {
	cfg    config.Node
	public string
	st     store.Cluster
	rooms  *room.Registry
	data   *store.Adapter
	fences *Fences
	logger *slog.Logger

	// claimMu makes this node's claims one at a time, so that two joins
	// for one room bring it back once.
	claimMu sync.Mutex
	// draining is set once the node shuts down: it claims no more rooms,
	// and heartbeats on until it leaves, so that no other node takes its
	// rooms while it saves them.
	draining atomic.Bool
	// lease is the node's right to take what changes its rooms.
	lease *Lease

	takeovers, fenced, heartbeatFailures, unleased prometheus.Counter
}

// New is the node cfg describes (a random id when it names none), whose
// clients reach it at public, coordinated through st, on the wall clock.
func New(cfg config.Node, public string, st store.Cluster, logger *slog.Logger) *Node {
	return NewOn(room.WallClock{}, cfg, public, st, logger)
}

// NewOn is New on the clock given: a test's clock moves the lease on.
func NewOn(clock room.Clock, cfg config.Node, public string, st store.Cluster, logger *slog.Logger) *Node {
	if cfg.ID == "" {
		var b [6]byte
		_, _ = rand.Read(b[:])
		cfg.ID = "node-" + hex.EncodeToString(b[:])
	}
	n := &Node{cfg: cfg, public: public, st: st, logger: logger.With("node", cfg.ID), lease: NewLease(clock, cfg.Timeout)}
	n.fences = NewFences(n.onFenced)
	n.takeovers = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "arena_node_takeovers_total", Help: "Rooms this node claimed and brought back because their owner was dead, gone or had released them.",
	})
	n.fenced = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "arena_node_fencing_refusals_total", Help: "Rooms this node stopped because a write for them was refused: another node had claimed them.",
	})
	n.heartbeatFailures = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "arena_node_heartbeat_failures_total", Help: "Heartbeats of this node the database did not take.",
	})
	n.unleased = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "arena_node_lease_refusals_total", Help: "Moves, joins and new rooms refused with retry because this node did not hold its lease: its heartbeat or its event log's writes were not reaching the database.",
	})
	return n
}

// row is the node as the nodes table records it.
func (n *Node) row() store.Node {
	return store.Node{ID: n.cfg.ID, Addr: n.cfg.Addr, PublicURL: n.public, Arenas: n.cfg.Arenas}
}

// ID is the node's id: the owner its rooms are recorded with.
func (n *Node) ID() string { return n.cfg.ID }

// Fences are the epochs the node's writes carry.
func (n *Node) Fences() *Fences { return n.fences }

// Register adds the node's metrics to reg, beside the server's.
func (n *Node) Register(reg *prometheus.Registry) {
	rooms := n.rooms
	reg.MustRegister(n.takeovers, n.fenced, n.heartbeatFailures, n.unleased,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "arena_node_rooms_owned", Help: "Live rooms this node owns and runs.",
		}, func() float64 { return float64(rooms.Stats().Rooms) }))
}

// Secret is the secret the nodes share for relays.
func (n *Node) Secret() string { return n.cfg.Secret }

// Join registers the node, which runs rooms in the registry and loads
// them through data. Rooms recorded as this node's from an earlier run
// under the same NODE_ID are released first: they are not in this
// process, and the takeover pass claims them again like any other.
func (n *Node) Join(ctx context.Context, rooms *room.Registry, data *store.Adapter) error {
	n.rooms, n.data = rooms, data
	if data.Events != nil {
		n.lease.Watch(data.Events.Waiting)
	}
	if released, err := n.st.LeaveNode(ctx, n.cfg.ID); err != nil {
		return fmt.Errorf("node %s: release the rooms of an earlier run: %w", n.cfg.ID, err)
	} else if released > 0 {
		n.logger.Info("node: rooms of an earlier run released", "rooms", released)
	}
	sent := n.lease.Now()
	if err := n.st.RegisterNode(ctx, n.row()); err != nil {
		return fmt.Errorf("node %s: register: %w", n.cfg.ID, err)
	}
	n.lease.Renewed(sent)
	n.logger.Info("node: registered", "addr", n.cfg.Addr, "heartbeat", n.cfg.Heartbeat, "timeout", n.cfg.Timeout)
	return nil
}

// Run heartbeats and takes over the rooms of dead nodes, every
// NODE_HEARTBEAT, until ctx ends: the heartbeat first, and no takeover
// unless it was taken, so that a node cut off from the database, or one
// that comes back from an outage, claims nothing on heartbeats it has not
// seen renewed.
func (n *Node) Run(ctx context.Context) {
	t := time.NewTicker(n.cfg.Heartbeat)
	defer t.Stop()
	for {
		n.pass(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// pass is one heartbeat, and a takeover pass if the heartbeat was taken.
func (n *Node) pass(ctx context.Context) {
	if n.heartbeat(ctx) {
		n.takeover(ctx)
	}
}

// Held reports whether the node holds its lease: whether it may take what
// changes its rooms now (server.Lease). A refusal is counted.
func (n *Node) Held() bool {
	if n.lease.Held() {
		return true
	}
	n.unleased.Inc()
	return false
}

// heartbeat stamps the node's row and renews its lease, and reports
// whether the database took it. It may take up to half NODE_TIMEOUT, not
// just the interval: a database slow for a moment must not make the node
// look dead, and the next tick waits meanwhile. After a lapse of the
// lease, the node first stops the rooms another node has claimed
// meanwhile (their players come back on it), and only then takes moves
// again.
func (n *Node) heartbeat(ctx context.Context) bool {
	hctx, cancel := context.WithTimeout(ctx, n.cfg.Timeout/2)
	defer cancel()
	sent := n.lease.Now()
	err := n.st.Heartbeat(hctx, n.cfg.ID)
	if errors.Is(err, store.ErrNotFound) {
		err = n.st.RegisterNode(hctx, n.row())
	}
	if err == nil && n.lease.Lapsed(n.lease.Now()) {
		err = n.recheck(hctx)
	}
	if err != nil {
		if ctx.Err() == nil {
			n.heartbeatFailures.Inc()
			n.logger.Warn("node: heartbeat failed", "err", err, "lease_held", !n.lease.Lapsed(n.lease.Now()))
		}
		return false
	}
	n.lease.Renewed(sent)
	return true
}

// recheck stops the rooms held here that another node has claimed while
// the lease had lapsed: their sockets close with 4009, and their players
// come back on the owner, with every move it stored.
func (n *Node) recheck(ctx context.Context) error {
	ids := n.rooms.IDs()
	if len(ids) == 0 {
		return nil
	}
	held, err := n.st.HeldBy(ctx, n.cfg.ID, ids)
	if err != nil {
		return fmt.Errorf("rooms still held after a lapse of the lease: %w", err)
	}
	lost := 0
	for _, id := range ids {
		if e, ok := held[id]; !ok || e != n.fences.Epoch(id) {
			lost++
			n.onFenced(id)
		}
	}
	n.logger.Warn("node: lease renewed after a lapse", "rooms", len(ids), "lost_to_other_nodes", lost)
	return nil
}

// deadAfter is the timeout the node's claims count an owner dead by:
// NODE_TIMEOUT while the node is in good standing, else 0 (it takes no
// room from another node).
func (n *Node) deadAfter() time.Duration {
	if n.lease.Standing(n.lease.Now()) {
		return n.cfg.Timeout
	}
	return 0
}

// takeover claims a batch of rooms without a live owner and brings them
// back here, unless the node is draining.
func (n *Node) takeover(ctx context.Context) {
	if n.draining.Load() {
		return
	}
	n.claimMu.Lock()
	defer n.claimMu.Unlock()
	cctx, cancel := context.WithTimeout(ctx, n.cfg.Timeout)
	defer cancel()
	claims, err := n.st.ClaimOrphans(cctx, n.cfg.ID, n.deadAfter(), takeoverBatch)
	if err != nil {
		if ctx.Err() == nil {
			n.logger.Warn("node: look for rooms to take over", "err", err)
		}
		return
	}
	for _, c := range claims {
		if _, err := n.adopt(cctx, c.RoomID, c.Epoch); err != nil {
			n.logger.Error("node: take over room", "room", c.RoomID, "err", err)
		}
	}
}

// Locate is where the room lives: "" when here (claimed and brought back
// here when it had no live owner), or its live owner's internal URL.
func (n *Node) Locate(ctx context.Context, id string) (string, error) {
	for range 2 {
		if _, err := n.rooms.Get(id); err == nil {
			return "", nil
		}
		o, err := n.st.RoomOwner(ctx, id, n.cfg.Timeout)
		if errors.Is(err, store.ErrNotFound) {
			return "", room.ErrNotFound
		}
		if err != nil {
			return "", err
		}
		if o.Node != "" && o.Node != n.cfg.ID && o.Alive {
			if o.Draining {
				return "", errDraining
			}
			return o.Addr, nil
		}
		if o.Node != "" && o.Node != n.cfg.ID && n.deadAfter() == 0 {
			// Its owner looks dead, and this node is not yet in good
			// standing to take the room over: the client tries again.
			return "", errNotYet
		}
		err = n.claim(ctx, id)
		if !errors.Is(err, store.ErrOwned) {
			return "", err
		}
		// Another node claimed it first: look again.
	}
	return "", fmt.Errorf("locate room %s: its owner keeps changing", id)
}

// claim makes this node the room's owner and brings the room back here.
func (n *Node) claim(ctx context.Context, id string) error {
	n.claimMu.Lock()
	defer n.claimMu.Unlock()
	if _, err := n.rooms.Get(id); err == nil {
		return nil // a claim just before this one brought it back
	}
	if n.draining.Load() {
		// Saving its rooms to leave, the node takes on no more: the
		// client retries, and another node claims the room.
		return errDraining
	}
	epoch, err := n.st.ClaimRoom(ctx, id, n.cfg.ID, n.deadAfter())
	if errors.Is(err, store.ErrNotFound) {
		return room.ErrNotFound
	}
	if err != nil {
		return err
	}
	k, err := n.adopt(ctx, id, epoch)
	if err != nil {
		return err
	}
	if k == 0 {
		return room.ErrNotFound // its rounds are over
	}
	return nil
}

// adopt brings back a room this node has claimed, at the epoch it holds,
// and returns how many rooms came back (0: the room is over).
func (n *Node) adopt(ctx context.Context, id string, epoch int64) (int, error) {
	k, err := n.bringBack(ctx, id, epoch)
	if err != nil {
		return k, err
	}
	if k > 0 {
		n.takeovers.Inc()
		n.logger.Info("node: room taken over", "room", id, "epoch", epoch)
	}
	return k, nil
}

// bringBack loads a room this node has claimed, at the epoch it holds,
// into its registry, and returns how many rooms came back (0: the room
// is over).
func (n *Node) bringBack(ctx context.Context, id string, epoch int64) (int, error) {
	n.fences.Hold(id, epoch)
	saved, err := n.data.LoadRoom(ctx, id)
	if err != nil {
		return 0, err
	}
	return n.rooms.Adopt(ctx, saved)
}

// Fenced stops the rooms whose writes were refused as fenced (the event
// log's OnFenced).
func (n *Node) Fenced(rooms []string) {
	for _, r := range rooms {
		n.onFenced(r)
	}
}

// onFenced stops a room another node has claimed: its write here was
// refused, and its sockets are closed with 4009 so that its clients
// reconnect to the new owner.
//
// The room's epoch stays held: any write for it still under way carries
// the old epoch and is refused too, where none would fence a write.
func (n *Node) onFenced(roomID string) {
	if n.rooms.Evict(roomID) {
		n.fenced.Inc()
		n.logger.Warn("node: write refused as fenced: another node owns the room now; room stopped", "room", roomID)
	}
}

// Drain marks the node draining: it claims no more rooms, and other nodes
// hold joins for its rooms until it leaves.
func (n *Node) Drain(ctx context.Context) error {
	n.draining.Store(true)
	// A claim under way finishes first, so that the room it brings back
	// is among those the shutdown saves.
	n.claimMu.Lock()
	//lint:ignore SA2001 an empty section: waiting for the claim is the point
	n.claimMu.Unlock()
	return n.st.DrainNode(ctx, n.cfg.ID)
}

// Leave releases the node's rooms, once saved, and removes its row: any
// node claims them at once on their next join or takeover pass.
func (n *Node) Leave(ctx context.Context) error {
	released, err := n.st.LeaveNode(ctx, n.cfg.ID)
	if err == nil {
		n.logger.Info("node: left; rooms released", "rooms", released)
	}
	return err
}
