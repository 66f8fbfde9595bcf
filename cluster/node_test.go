package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/daily"
	"github.com/sudoku-arena/arena/internal/config"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/room/roomtest"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/pgtest"
	"github.com/sudoku-arena/arena/store/postgres"
)

var pg *pgtest.Server

func TestMain(m *testing.M) {
	srv, err := pgtest.Start(context.Background(), pgtest.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pg = srv
	// A node counts as dead only once the database has been up for the
	// timeout.
	time.Sleep(testTimeout)
	code := m.Run()
	srv.Stop()
	os.Exit(code)
}

// testTimeout is the nodes' NODE_TIMEOUT: the database counts by its own
// clock, the leases by the test's.
const testTimeout = 2 * time.Second

// cutOff is a node's way to the database, which the test can cut: its
// heartbeats then fail.
type cutOff struct {
	store.Cluster
	cut atomic.Bool
}

func (c *cutOff) Heartbeat(ctx context.Context, id string) error {
	if c.cut.Load() {
		return errors.New("cut off from the database")
	}
	return c.Cluster.Heartbeat(ctx, id)
}

// testNode is a node with its rooms over a database the test shares
// between its nodes, on a clock of its own.
type testNode struct {
	*Node
	clock *roomtest.Clock
	// roomClock is the rooms' clock: their countdowns and periodic saves.
	roomClock *roomtest.Clock
	rooms     *room.Registry
	link      *cutOff
}

func newTestNode(t *testing.T, st store.Store, id string) *testNode {
	t.Helper()
	return newTestNodeOver(t, st, st, id)
}

// newTestNodeOver is newTestNode whose rooms load and save through
// roomStore (st, or a wrapper of it).
func newTestNodeOver(t *testing.T, st, roomStore store.Store, id string) *testNode {
	t.Helper()
	clock := roomtest.NewClock(time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC))
	link := &cutOff{Cluster: st.(store.Cluster)}
	cfg := config.Node{ID: id, Addr: "http://" + id + ".internal", Secret: "s", Heartbeat: testTimeout / 4, Timeout: testTimeout}
	n := NewOn(clock, cfg, "https://arena.example", link, slog.New(slog.DiscardHandler))
	events := store.NewEventLog(st, store.EventLogOptions{Interval: time.Millisecond, OnFenced: n.Fenced})
	t.Cleanup(func() { _ = events.Close(context.Background()) })
	pool := &store.PuzzlePool{Store: st, Make: store.MakePuzzle, Levels: room.Levels, Stock: 1}
	data := &store.Adapter{Store: roomStore, Pool: pool, Events: events, Node: n.ID(), Fences: n.Fences()}
	// The rooms run on a clock of their own, which the test never moves:
	// they write nothing of their own accord (a periodic save), only what
	// the test makes them.
	roomClock := roomtest.NewClock(clock.Now())
	rooms := room.NewRegistry(room.RegistryConfig{Clock: roomClock}, &daily.Rooms{Adapter: data, Puzzles: &daily.Puzzles{Store: st}})
	t.Cleanup(func() { _ = rooms.Shutdown(context.Background()) })
	require.NoError(t, n.Join(context.Background(), rooms, data))
	return &testNode{Node: n, clock: clock, roomClock: roomClock, rooms: rooms, link: link}
}

// create makes an easy room of the mode on the node.
func (tn *testNode) create(t *testing.T, mode string) *room.Room {
	t.Helper()
	r, err := tn.rooms.Create(context.Background(), mode, "easy")
	require.NoError(t, err)
	return r
}

// renew is the node's heartbeat, at its clock's now, a step on.
func (tn *testNode) renew(t *testing.T, step time.Duration) bool {
	t.Helper()
	tn.clock.Advance(step)
	return tn.heartbeat(context.Background())
}

func openShared(t *testing.T) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), pg.NewDatabase(t))
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// A node whose heartbeat stops reaching the database stops taking moves
// once its lease lapses, before any other node may count it dead; when it
// reaches the database again it first stops the rooms another node claimed
// meanwhile, then takes moves again for the rooms it still holds.
func TestLeaseLapsesAndTheNodeFindsWhatItLost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openShared(t)
	a := newTestNode(t, st, "a")
	kept, lost := a.create(t, room.ModeCoop), a.create(t, room.ModeRace)
	require.True(t, a.renew(t, 0))
	assert.True(t, a.Held())
	// The new rooms' first saves land before the test goes on.
	require.Eventually(t, func() bool {
		var saved int
		err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM rooms WHERE id = ANY($1) AND settings IS NOT NULL`,
			[]string{kept.ID(), lost.ID()}).Scan(&saved)
		return err == nil && saved == 2
	}, 5*time.Second, 5*time.Millisecond)

	a.link.cut.Store(true)
	assert.False(t, a.renew(t, testTimeout/4), "the heartbeat fails")
	assert.True(t, a.Held(), "still within the lease")
	a.clock.Advance(testTimeout - testTimeout/5 - testTimeout/4)
	assert.False(t, a.Held(), "the lease lapsed: NODE_TIMEOUT less its fifth after the last heartbeat taken")
	assert.Equal(t, 1.0, counter(t, a.unleased))

	// Meanwhile another node counted it dead and claimed one of its rooms.
	_, err := st.Pool().Exec(ctx, `UPDATE nodes SET heartbeat_at = now() - interval '1 hour' WHERE id = 'a'`)
	require.NoError(t, err)
	epoch, err := st.ClaimRoom(ctx, lost.ID(), "b", testTimeout)
	require.NoError(t, err)
	require.Equal(t, int64(2), epoch)

	_, err = a.rooms.Get(lost.ID())
	require.NoError(t, err, "the node has not heard of the claim yet")
	a.link.cut.Store(false)
	require.True(t, a.renew(t, testTimeout/4))
	assert.True(t, a.Held(), "renewed")
	select {
	case <-lost.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the room claimed meanwhile did not stop here")
	}
	require.Eventually(t, func() bool {
		_, err := a.rooms.Get(lost.ID())
		return errors.Is(err, room.ErrNotFound)
	}, 5*time.Second, time.Millisecond)
	_, err = a.rooms.Get(kept.ID())
	assert.NoError(t, err, "the room still held plays on")
	assert.Equal(t, 1.0, counter(t, a.fenced))
}

// A node takes no room over from a node that looks dead until it has held
// its own lease for NODE_TIMEOUT, and none at all on a pass whose
// heartbeat failed; rooms without an owner it claims at once.
func TestNoTakeoverBeforeGoodStanding(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openShared(t)
	dead := newTestNode(t, st, "dead")
	orphan, released := dead.create(t, room.ModeCoop), dead.create(t, room.ModeCoop)
	require.NoError(t, dead.rooms.Shutdown(ctx)) // saved; the process is gone
	_, err := st.Pool().Exec(ctx, `UPDATE nodes SET heartbeat_at = now() - interval '1 hour' WHERE id = 'dead';
		UPDATE rooms SET owner = NULL WHERE id = '`+released.ID()+`'`)
	require.NoError(t, err)

	b := newTestNode(t, st, "b")
	if assert.True(t, b.renew(t, 0)) {
		b.takeover(ctx)
	}
	_, err = b.rooms.Get(released.ID())
	assert.NoError(t, err, "a room without an owner is claimed at once")
	_, err = b.rooms.Get(orphan.ID())
	assert.ErrorIs(t, err, room.ErrNotFound, "not in good standing yet")
	_, err = b.Locate(ctx, orphan.ID())
	assert.ErrorIs(t, err, errNotYet, "a join for it is asked to try again")

	// Held for the timeout, but this pass's heartbeat fails: no claim.
	for range 4 {
		require.True(t, b.renew(t, testTimeout/4))
	}
	b.link.cut.Store(true)
	b.clock.Advance(time.Millisecond)
	b.pass(ctx)
	_, err = b.rooms.Get(orphan.ID())
	assert.ErrorIs(t, err, room.ErrNotFound, "no takeover on a pass whose heartbeat failed")

	b.link.cut.Store(false)
	b.clock.Advance(time.Millisecond)
	b.pass(ctx)
	_, err = b.rooms.Get(orphan.ID())
	assert.NoError(t, err, "in good standing, its heartbeat taken: the dead node's room is claimed")
	assert.Equal(t, 2.0, counter(t, b.takeovers))
}

// counter is a counter's value.
func counter(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	require.NoError(t, c.Write(&m))
	return m.GetCounter().GetValue()
}
