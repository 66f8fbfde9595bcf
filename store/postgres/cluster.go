package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sudoku-arena/arena/store"
)

var _ store.Cluster = (*Store)(nil)

// querier is the pool or a transaction.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// fenced runs write on the pool when epoch is 0 (an unfenced write), or
// else in a transaction that first takes the room's row FOR SHARE and
// checks its epoch (fence). The share lock is what makes the check and the
// write one: a claim (an UPDATE of that row) waits for the writing
// transaction to end, and a write that starts after a claim committed
// sees the new epoch, so no write with the old epoch commits after a
// claim.
func (s *Store) fenced(ctx context.Context, what, gameID string, epoch int64, write func(q querier) error) error {
	if epoch <= 0 {
		return mapErr(write(s.pool), what)
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := fence(ctx, tx, store.RoomOf(gameID), epoch); err != nil {
			return err
		}
		return write(tx)
	})
	return mapErr(err, what)
}

// fence locks the room's row FOR SHARE and refuses with a *FencedError
// unless its epoch is the one given.
func fence(ctx context.Context, tx pgx.Tx, roomID string, epoch int64) error {
	var cur int64
	if err := tx.QueryRow(ctx, `SELECT epoch FROM rooms WHERE id = $1 FOR SHARE`, roomID).Scan(&cur); err != nil {
		return err
	}
	if cur != epoch {
		return &store.FencedError{Rooms: []string{roomID}}
	}
	return nil
}

// fencedEvents reports whether any event carries an epoch.
func fencedEvents(events []store.Event) bool {
	return slices.ContainsFunc(events, func(e store.Event) bool { return e.Epoch > 0 })
}

// appendFenced is AppendEvents for a batch with fenced events: in one
// transaction it takes their rooms' rows FOR SHARE (in id order, as every
// such batch does), drops the events of rooms whose epoch moved on, and
// inserts the rest. The rooms dropped are named in a *FencedError.
func (s *Store) appendFenced(ctx context.Context, events []store.Event) error {
	var fenced []string
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT id, epoch FROM rooms WHERE id = ANY($1) ORDER BY id FOR SHARE`, store.FencedRooms(events))
		if err != nil {
			return err
		}
		epochs := map[string]int64{}
		var id string
		var epoch int64
		_, err = pgx.ForEachRow(rows, []any{&id, &epoch}, func() error { epochs[id] = epoch; return nil })
		if err != nil {
			return err
		}
		var kept []store.Event
		kept, fenced = store.SplitFenced(events, epochs)
		return s.appendEvents(ctx, tx, kept)
	})
	if err != nil {
		return mapErr(err, fmt.Sprintf("append %d fenced events", len(events)))
	}
	if len(fenced) > 0 {
		return &store.FencedError{Rooms: fenced}
	}
	return nil
}

// secs is a timeout as the seconds make_interval takes.
func secs(d time.Duration) float64 { return d.Seconds() }

// aliveSQL is whether the node row n (joined, possibly NULL) counts as
// alive, with the timeout in seconds as the parameter given: its heartbeat
// is younger than the timeout, or the database itself has been up for
// less (after an outage every heartbeat is old, and none proves a death).
func aliveSQL(param string) string {
	return `coalesce(n.id IS NOT NULL AND (n.heartbeat_at > now() - make_interval(secs => ` + param + `)
	  OR now() - pg_postmaster_start_time() < make_interval(secs => ` + param + `)), false)`
}

// RegisterNode records the node with a fresh heartbeat.
func (s *Store) RegisterNode(ctx context.Context, n store.Node) error {
	_, err := s.pool.Exec(ctx,
		`INSERT INTO nodes (id, addr, public_url, started_at, heartbeat_at, draining, arenas) VALUES ($1, $2, $3, now(), now(), false, $4)
		 ON CONFLICT (id) DO UPDATE SET addr = EXCLUDED.addr, public_url = EXCLUDED.public_url,
		   started_at = now(), heartbeat_at = now(), draining = false, arenas = EXCLUDED.arenas`,
		n.ID, n.Addr, n.PublicURL, n.Arenas)
	return mapErr(err, "register node "+n.ID)
}

// Heartbeat stamps the node's heartbeat.
func (s *Store) Heartbeat(ctx context.Context, id string) error {
	return s.execOne(ctx, "heartbeat of node "+id, `UPDATE nodes SET heartbeat_at = now() WHERE id = $1`, id)
}

// DrainNode marks the node draining.
func (s *Store) DrainNode(ctx context.Context, id string) error {
	return s.execOne(ctx, "drain node "+id, `UPDATE nodes SET draining = true WHERE id = $1`, id)
}

// LeaveNode releases the node's rooms and removes its row.
func (s *Store) LeaveNode(ctx context.Context, id string) (int64, error) {
	var n int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE rooms SET owner = NULL WHERE owner = $1`, id)
		if err != nil {
			return err
		}
		n = tag.RowsAffected()
		_, err = tx.Exec(ctx, `DELETE FROM nodes WHERE id = $1`, id)
		return err
	})
	return n, mapErr(err, "node "+id+" leaves")
}

// Nodes lists the registered nodes.
func (s *Store) Nodes(ctx context.Context, timeout time.Duration) ([]store.Node, error) {
	rows, err := s.pool.Query(ctx,
		`SELECT id, addr, public_url, started_at, heartbeat_at, draining, arenas, `+aliveSQL("$1")+` FROM nodes n ORDER BY id`, secs(timeout))
	if err != nil {
		return nil, mapErr(err, "nodes")
	}
	ns, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Node, error) {
		var n store.Node
		err := row.Scan(&n.ID, &n.Addr, &n.PublicURL, &n.StartedAt, &n.HeartbeatAt, &n.Draining, &n.Arenas, &n.Alive)
		n.StartedAt, n.HeartbeatAt = n.StartedAt.UTC(), n.HeartbeatAt.UTC()
		return n, err
	})
	return ns, mapErr(err, "nodes")
}

// RoomOwner is who owns the room.
func (s *Store) RoomOwner(ctx context.Context, roomID string, timeout time.Duration) (store.Owner, error) {
	var o store.Owner
	err := s.pool.QueryRow(ctx,
		`SELECT coalesce(r.owner, ''), r.epoch, coalesce(n.addr, ''), `+aliveSQL("$2")+`, coalesce(n.draining, false)
		 FROM rooms r LEFT JOIN nodes n ON n.id = r.owner WHERE r.id = $1`, store.RoomOf(roomID), secs(timeout)).
		Scan(&o.Node, &o.Epoch, &o.Addr, &o.Alive, &o.Draining)
	return o, mapErr(err, "owner of room "+roomID)
}

// claimable is the condition under which a claimer $2 may take the row r:
// no owner, itself, or a dead owner. An owner is dead when its heartbeat
// is older than $3 seconds (or it left), and the database has been up for
// longer than that: after a database outage every heartbeat is old, and
// none proves its node dead until the nodes have had the timeout to renew.
// A timeout of 0 takes no room from another node. It is read at the
// statement's start, so it only picks the rows to lock: deadOwners judges
// their owners again once they are locked.
const claimable = `(r.owner IS NULL OR r.owner = $2 OR ($3::float8 > 0
	AND now() - pg_postmaster_start_time() > make_interval(secs => $3)
	AND NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = r.owner AND n.heartbeat_at > now() - make_interval(secs => $3))))`

// deadOwners is, among the owners of rooms the transaction has locked, those
// dead by their newest heartbeats (or gone), their rows locked FOR SHARE
// till it ends. A claim's statement reads the nodes as they were when it
// began, and may then wait on a room's row (a write holds it, and one sent
// into a partition holds it until the partition heals) while the owner
// heartbeats and asks which rooms it still holds: told the room is its
// own, the owner takes moves for it, and a claim that committed after
// would fence them. Judged again here, after the room's row is locked,
// with the owner's row locked so that its heartbeat waits for the claim
// to commit, the owner's check after its heartbeat sees the claim, or the
// claim sees the heartbeat. The lock order, rooms then nodes, is
// LeaveNode's. A timeout of 0 counts no owner dead.
func deadOwners(ctx context.Context, tx pgx.Tx, owners []string, timeout time.Duration) (map[string]bool, error) {
	dead := make(map[string]bool, len(owners))
	if timeout <= 0 || len(owners) == 0 {
		return dead, nil
	}
	for _, o := range owners {
		dead[o] = true // gone, unless its row says otherwise
	}
	rows, err := tx.Query(ctx, `SELECT n.id, `+aliveSQL("$2")+` FROM nodes n WHERE n.id = ANY($1) FOR SHARE`, owners, secs(timeout))
	if err != nil {
		return nil, err
	}
	var id string
	var alive bool
	_, err = pgx.ForEachRow(rows, []any{&id, &alive}, func() error { dead[id] = !alive; return nil })
	return dead, err
}

// ClaimRoom makes node the owner of the room if it may.
func (s *Store) ClaimRoom(ctx context.Context, roomID, node string, timeout time.Duration) (int64, error) {
	what := "claim room " + roomID
	var epoch int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var owner *string
		if err := tx.QueryRow(ctx, `SELECT owner FROM rooms WHERE id = $1 FOR UPDATE`, store.RoomOf(roomID)).Scan(&owner); err != nil {
			return err
		}
		if owner != nil && *owner != node {
			dead, err := deadOwners(ctx, tx, []string{*owner}, timeout)
			if err != nil {
				return err
			}
			if !dead[*owner] {
				return store.ErrOwned
			}
		}
		return tx.QueryRow(ctx, `UPDATE rooms SET owner = $2, epoch = epoch + 1 WHERE id = $1 RETURNING epoch`,
			store.RoomOf(roomID), node).Scan(&epoch)
	})
	if errors.Is(err, store.ErrOwned) {
		return 0, fmt.Errorf("postgres: %s: %w", what, store.ErrOwned)
	}
	return epoch, mapErr(err, what)
}

// ClaimOrphans claims up to limit live rooms without a live owner. A room
// is live while any of its rounds' rows is not finished; SKIP LOCKED
// passes over rows another claimer (or a fenced write) holds.
func (s *Store) ClaimOrphans(ctx context.Context, node string, timeout time.Duration, limit int) ([]store.Claim, error) {
	var cs []store.Claim
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx,
			`SELECT r.id, r.owner FROM rooms r
			 WHERE r.id IN (SELECT split_part(id, '.', 1) FROM rooms WHERE state <> 'finished')
			   AND (r.owner IS NULL OR r.owner <> $2) AND `+claimable+`
			 ORDER BY r.created_at, r.id LIMIT $1
			 FOR UPDATE OF r SKIP LOCKED`, limit, node, secs(timeout))
		if err != nil {
			return err
		}
		var ids, owners []string
		var id string
		var owner *string
		owned := map[string]string{}
		_, err = pgx.ForEachRow(rows, []any{&id, &owner}, func() error {
			ids = append(ids, id)
			if owner != nil {
				owned[id] = *owner
				owners = append(owners, *owner)
			}
			return nil
		})
		if err != nil {
			return err
		}
		dead, err := deadOwners(ctx, tx, owners, timeout)
		if err != nil {
			return err
		}
		ids = slices.DeleteFunc(ids, func(id string) bool { o, ok := owned[id]; return ok && !dead[o] })
		if len(ids) == 0 {
			return nil
		}
		rows, err = tx.Query(ctx, `UPDATE rooms SET owner = $2, epoch = epoch + 1 WHERE id = ANY($1) RETURNING id, epoch`, ids, node)
		if err != nil {
			return err
		}
		cs, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Claim, error) {
			var c store.Claim
			return c, row.Scan(&c.RoomID, &c.Epoch)
		})
		return err
	})
	return cs, mapErr(err, "claim orphan rooms")
}

// HeldBy is the epoch of each of the rooms that node owns, among those
// named.
func (s *Store) HeldBy(ctx context.Context, node string, roomIDs []string) (map[string]int64, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, epoch FROM rooms WHERE id = ANY($1) AND owner = $2`, roomIDs, node)
	if err != nil {
		return nil, mapErr(err, "rooms held by node "+node)
	}
	held := make(map[string]int64, len(roomIDs))
	var id string
	var epoch int64
	_, err = pgx.ForEachRow(rows, []any{&id, &epoch}, func() error { held[id] = epoch; return nil })
	return held, mapErr(err, "rooms held by node "+node)
}

// HandOff hands off a room node made, stored and stopped: its epoch goes
// up and is noted as the one it was handed off at.
func (s *Store) HandOff(ctx context.Context, roomID, node string, epoch int64) error {
	what := "hand off room " + roomID
	tag, err := s.pool.Exec(ctx,
		`UPDATE rooms SET epoch = epoch + 1, handed_epoch = epoch + 1 WHERE id = $1 AND owner = $2 AND epoch = $3`,
		store.RoomOf(roomID), node, epoch)
	if err != nil {
		return mapErr(err, what)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("postgres: %s: %w", what, store.ErrOwned)
	}
	return nil
}

// ClaimHanded claims a room handed off and not claimed since: every claim
// moves the epoch on, so the epoch is still the one it was handed off at
// only until then.
func (s *Store) ClaimHanded(ctx context.Context, roomID, node string) (int64, error) {
	what := "claim handed room " + roomID
	var epoch int64
	err := s.pool.QueryRow(ctx,
		`UPDATE rooms SET owner = $2, epoch = epoch + 1, handed_epoch = NULL WHERE id = $1 AND handed_epoch = epoch RETURNING epoch`,
		store.RoomOf(roomID), node).Scan(&epoch)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("postgres: %s: %w", what, store.ErrOwned)
	}
	return epoch, mapErr(err, what)
}
