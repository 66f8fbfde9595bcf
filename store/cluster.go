package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Node is one `arena serve` process of several sharing a PostgreSQL
// database: where other nodes reach it (Addr, an internal base URL), where
// clients do (PublicURL), and its heartbeat. Alive and Draining are read
// by the database's clock against the timeout given.
type Node struct {
	ID          string
	Addr        string
	PublicURL   string
	StartedAt   time.Time
	HeartbeatAt time.Time
	Draining    bool
	Alive       bool
	// Arenas: the node runs the tournaments.
	Arenas bool
}

// Owner is who owns a room: the node's id ("" for none), its Addr, whether
// it is alive (its heartbeat is within the timeout, or the database has
// been up for less than that) and draining, and the room's epoch.
type Owner struct {
	Node     string
	Addr     string
	Alive    bool
	Draining bool
	Epoch    int64
}

// Claim is a room a node claimed, with the epoch it now holds.
type Claim struct {
	RoomID string
	Epoch  int64
}

// Cluster is the coordination of several nodes through the database: a
// membership table with heartbeats, and one owner per room with an epoch
// that goes up at every change of owner (a fencing token, as Temporal's
// range id). A node is dead when its heartbeat is older than the timeout,
// by the database's clock, and the database has been up for longer than
// the timeout: after a database outage every heartbeat is old, and a node
// is given the timeout to renew before any counts as dead. Only
// store/postgres implements it: several nodes need a database they share.
type Cluster interface {
	// RegisterNode records the node (or records it again) with a fresh
	// heartbeat, not draining.
	RegisterNode(ctx context.Context, n Node) error
	// Heartbeat stamps the node's heartbeat with the database's now();
	// ErrNotFound when the node's row is gone (register it again).
	Heartbeat(ctx context.Context, id string) error
	// DrainNode marks the node draining: it is saving its rooms to leave.
	DrainNode(ctx context.Context, id string) error
	// LeaveNode releases the node's rooms (owner NULL, so that any node
	// claims them at once) and removes its row, in one transaction.
	LeaveNode(ctx context.Context, id string) (released int64, err error)
	// Nodes lists the registered nodes, alive or not.
	Nodes(ctx context.Context, timeout time.Duration) ([]Node, error)
	// RoomOwner is who owns the room; ErrNotFound when no room has the id.
	RoomOwner(ctx context.Context, roomID string, timeout time.Duration) (Owner, error)
	// ClaimRoom makes node the room's owner, and returns the new epoch,
	// when the room has no owner, a dead one, or node itself; ErrOwned
	// when a live node owns it, ErrNotFound when there is no such room.
	// Of concurrent claimers one wins. A timeout of 0 takes no room from
	// another node, dead or not: a claimer not yet in good standing
	// passes it. The owner is judged dead by its newest heartbeat, not by
	// one read before the claim waited on the room: an owner whose
	// heartbeat is taken and who then asks HeldBy sees the claim, or the
	// claim fails.
	ClaimRoom(ctx context.Context, roomID, node string, timeout time.Duration) (int64, error)
	// ClaimOrphans claims up to limit rooms that are not finished and have
	// no owner or a dead one, passing over rooms another claimer holds
	// locked, so that live nodes share a dead node's rooms. A timeout of
	// 0 claims only rooms without an owner.
	ClaimOrphans(ctx context.Context, node string, timeout time.Duration, limit int) ([]Claim, error)
	// HeldBy is the epoch of each of the rooms node owns, among those
	// named: a room missing from it is another node's now (or no
	// node's).
	HeldBy(ctx context.Context, node string, roomIDs []string) (map[string]int64, error)
	// HandOff hands off a room node made and owns at epoch, which it has
	// stored and stopped before anyone joined: the room's epoch goes up
	// (node's writes for it are refused from then on), and ClaimHanded
	// lets the first node its players reach claim it, while node lives
	// too. ErrOwned unless node owns the room at epoch.
	HandOff(ctx context.Context, roomID, node string, epoch int64) error
	// ClaimHanded makes node the owner of a room handed off (HandOff) and
	// claimed by no node since, so run by none, and returns the new epoch;
	// ErrOwned for any other room, or none. Of concurrent claimers one
	// wins.
	ClaimHanded(ctx context.Context, roomID, node string) (int64, error)
}

// FencedError is AppendEvents' (and the other fenced writes') refusal:
// the rooms whose epoch moved on, whose writes were dropped. It wraps
// ErrFenced.
type FencedError struct {
	Rooms []string
}

func (e *FencedError) Error() string {
	return fmt.Sprintf("%v: rooms %s", ErrFenced, strings.Join(e.Rooms, ", "))
}

func (e *FencedError) Unwrap() error { return ErrFenced }

// RoomOf is the room a game (a round's row) belongs to: a game's id is its
// room's id, or ROOM.N for round N. Room ids hold no dot.
func RoomOf(gameID string) string {
	if i := strings.IndexByte(gameID, '.'); i >= 0 {
		return gameID[:i]
	}
	return gameID
}

// FirstEpoch is the epoch CreateRoom stores: 1 for a room's first round
// made with an owner, else 0 (the later rounds' rows carry none: the
// first round's row holds the room's).
func FirstEpoch(r Room) int64 {
	if r.Owner != "" && RoomOf(r.ID) == r.ID {
		return 1
	}
	return 0
}

// NullString maps "" to NULL.
func NullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// FencedRooms are the rooms of the events that carry an epoch, sorted,
// once each: the rows a fenced batch checks.
func FencedRooms(events []Event) []string {
	var rooms []string
	for _, e := range events {
		if e.Epoch > 0 {
			rooms = append(rooms, RoomOf(e.RoomID))
		}
	}
	slices.Sort(rooms)
	return slices.Compact(rooms)
}

// SplitFenced drops the events whose epoch is not their room's (epochs:
// each room's epoch as stored; a room missing from it is not checked), and
// returns the events kept and the rooms dropped, sorted.
func SplitFenced(events []Event, epochs map[string]int64) (kept []Event, fenced []string) {
	kept = make([]Event, 0, len(events))
	for _, e := range events {
		room := RoomOf(e.RoomID)
		if cur, ok := epochs[room]; e.Epoch > 0 && ok && cur != e.Epoch {
			fenced = append(fenced, room)
			continue
		}
		kept = append(kept, e)
	}
	slices.Sort(fenced)
	return kept, slices.Compact(fenced)
}
