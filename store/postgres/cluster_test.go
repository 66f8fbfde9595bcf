package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
)

// nodeTimeout is short, so that a node the test stops heartbeating is dead
// in a moment.
const nodeTimeout = 300 * time.Millisecond

// openCluster is a fresh store with a puzzle and a player for rooms.
func openCluster(t *testing.T) (*Store, store.Puzzle) {
	t.Helper()
	s := open(t).(*Store)
	ctx := context.Background()
	pz, err := s.SavePuzzle(ctx, store.Puzzle{Givens: fmt.Sprintf("%081d", 7), Solution: fmt.Sprintf("%081d", 7), Level: "easy", CreatedAt: time.Now()})
	require.NoError(t, err)
	require.NoError(t, s.CreatePlayer(ctx, store.Player{ID: "host", Name: "Host", TokenHash: []byte("h"), CreatedAt: time.Now(), LastSeen: time.Now()}))
	return s, pz
}

func register(t *testing.T, s *Store, ids ...string) {
	t.Helper()
	for _, id := range ids {
		require.NoError(t, s.RegisterNode(context.Background(), store.Node{ID: id, Addr: "http://" + id + ".internal", PublicURL: "https://arena.example"}))
	}
}

func ownedRoom(t *testing.T, s *Store, pz store.Puzzle, id, owner string) {
	t.Helper()
	require.NoError(t, s.CreateRoom(context.Background(), store.Room{
		ID: id, Mode: room.ModeCoop, PuzzleID: pz.ID, HostID: "host", State: store.StateRunning, CreatedAt: time.Now(), Owner: owner,
	}))
}

// dies lets the nodes' heartbeats grow older than nodeTimeout while the
// others heartbeat.
func dies(t *testing.T, s *Store, alive ...string) {
	t.Helper()
	time.Sleep(nodeTimeout + 100*time.Millisecond)
	for _, id := range alive {
		require.NoError(t, s.Heartbeat(context.Background(), id))
	}
}

func TestClusterMembership(t *testing.T) {
	ctx := context.Background()
	s, pz := openCluster(t)
	register(t, s, "a", "b")
	ns, err := s.Nodes(ctx, nodeTimeout)
	require.NoError(t, err)
	require.Len(t, ns, 2)
	assert.Equal(t, "a", ns[0].ID)
	assert.Equal(t, "http://a.internal", ns[0].Addr)
	assert.Equal(t, "https://arena.example", ns[0].PublicURL)
	assert.True(t, ns[0].Alive && ns[1].Alive)

	dies(t, s, "b")
	ns, err = s.Nodes(ctx, nodeTimeout)
	require.NoError(t, err)
	assert.False(t, ns[0].Alive, "a stopped heartbeating")
	assert.True(t, ns[1].Alive, "b heartbeats")
	assert.ErrorIs(t, s.Heartbeat(ctx, "nobody"), store.ErrNotFound)

	require.NoError(t, s.DrainNode(ctx, "b"))
	ownedRoom(t, s, pz, "r1", "b")
	ownedRoom(t, s, pz, "r2", "b")
	o, err := s.RoomOwner(ctx, "r1.3", nodeTimeout)
	require.NoError(t, err)
	assert.Equal(t, store.Owner{Node: "b", Addr: "http://b.internal", Alive: true, Draining: true, Epoch: 1}, o)
	n, err := s.LeaveNode(ctx, "b")
	require.NoError(t, err)
	assert.Equal(t, int64(2), n)
	o, err = s.RoomOwner(ctx, "r1", nodeTimeout)
	require.NoError(t, err)
	assert.Equal(t, store.Owner{Epoch: 1}, o, "released: no owner, same epoch")
	_, err = s.RoomOwner(ctx, "none", nodeTimeout)
	assert.ErrorIs(t, err, store.ErrNotFound)
	ns, err = s.Nodes(ctx, nodeTimeout)
	require.NoError(t, err)
	assert.Len(t, ns, 1)
}

func TestClaimRoom(t *testing.T) {
	ctx := context.Background()
	s, pz := openCluster(t)
	register(t, s, "a", "b")
	ownedRoom(t, s, pz, "r1", "a")
	_, err := s.ClaimRoom(ctx, "r1", "b", nodeTimeout)
	assert.ErrorIs(t, err, store.ErrOwned, "a is alive")
	_, err = s.ClaimRoom(ctx, "none", "b", nodeTimeout)
	assert.ErrorIs(t, err, store.ErrNotFound)
	epoch, err := s.ClaimRoom(ctx, "r1", "a", nodeTimeout)
	require.NoError(t, err)
	assert.Equal(t, int64(2), epoch, "the owner may claim its own room again")

	dies(t, s, "b")
	epoch, err = s.ClaimRoom(ctx, "r1.2", "b", nodeTimeout)
	require.NoError(t, err)
	assert.Equal(t, int64(3), epoch)
	o, err := s.RoomOwner(ctx, "r1", nodeTimeout)
	require.NoError(t, err)
	assert.Equal(t, "b", o.Node)
	assert.Equal(t, int64(3), o.Epoch)
}

// TestClaimConcurrent: of claimers racing for a dead node's room, exactly
// one wins; the others find it owned by a live node.
func TestClaimConcurrent(t *testing.T) {
	ctx := context.Background()
	s, pz := openCluster(t)
	register(t, s, "dead")
	ownedRoom(t, s, pz, "r1", "dead")
	claimers := []string{"c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7"}
	time.Sleep(nodeTimeout + 100*time.Millisecond)
	register(t, s, claimers...)
	var wg sync.WaitGroup
	errs := make([]error, len(claimers))
	epochs := make([]int64, len(claimers))
	for i, c := range claimers {
		wg.Go(func() { epochs[i], errs[i] = s.ClaimRoom(ctx, "r1", c, nodeTimeout) })
	}
	wg.Wait()
	won := ""
	for i, err := range errs {
		if err == nil {
			assert.Empty(t, won, "a second claimer won")
			won = claimers[i]
			assert.Equal(t, int64(2), epochs[i])
			continue
		}
		assert.ErrorIs(t, err, store.ErrOwned)
	}
	require.NotEmpty(t, won)
	o, err := s.RoomOwner(ctx, "r1", nodeTimeout)
	require.NoError(t, err)
	assert.Equal(t, won, o.Node)
}

// TestClaimOrphans: live nodes share a dead node's live rooms, each
// claimed once; finished rooms and live owners' rooms stay.
func TestClaimOrphans(t *testing.T) {
	ctx := context.Background()
	s, pz := openCluster(t)
	register(t, s, "dead", "live")
	for i := range 5 {
		ownedRoom(t, s, pz, fmt.Sprintf("d%d", i), "dead")
	}
	ownedRoom(t, s, pz, "mine", "live")
	// d4's first round finished; its second is live, so the room is.
	r := store.Room{ID: "d4", Mode: room.ModeCoop, PuzzleID: pz.ID, HostID: "host", State: store.StateFinished, CreatedAt: time.Now(), FinishedAt: time.Now(), Epoch: 1}
	require.NoError(t, s.UpdateRoom(ctx, r))
	r.ID, r.State, r.Owner = "d4.2", store.StateRunning, "dead"
	require.NoError(t, s.CreateRoom(ctx, r))
	// d3 is over.
	r = store.Room{ID: "d3", Mode: room.ModeCoop, PuzzleID: pz.ID, HostID: "host", State: store.StateFinished, CreatedAt: time.Now(), FinishedAt: time.Now()}
	require.NoError(t, s.UpdateRoom(ctx, r))

	time.Sleep(nodeTimeout + 100*time.Millisecond)
	claimers := []string{"c0", "c1", "c2"}
	register(t, s, append(claimers, "live")...)
	var mu sync.Mutex
	got := map[string]string{}
	var wg sync.WaitGroup
	for _, c := range claimers {
		wg.Go(func() {
			for {
				cs, err := s.ClaimOrphans(ctx, c, nodeTimeout, 1)
				if !assert.NoError(t, err) || len(cs) == 0 {
					return
				}
				mu.Lock()
				for _, cl := range cs {
					assert.Empty(t, got[cl.RoomID], "claimed twice: %s", cl.RoomID)
					assert.Equal(t, int64(2), cl.Epoch)
					got[cl.RoomID] = c
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	keys := make([]string, 0, len(got))
	for k := range got {
		keys = append(keys, k)
	}
	assert.ElementsMatch(t, []string{"d0", "d1", "d2", "d4"}, keys)
	o, err := s.RoomOwner(ctx, "mine", nodeTimeout)
	require.NoError(t, err)
	assert.Equal(t, "live", o.Node)
}

// TestFencing: once a room is claimed, each kind of write carrying the old
// epoch is refused with ErrFenced and changes nothing; the new epoch's go
// through.
func TestFencing(t *testing.T) {
	ctx := context.Background()
	s, pz := openCluster(t)
	register(t, s, "old", "new")
	ownedRoom(t, s, pz, "r1", "old")
	ownedRoom(t, s, pz, "r2", "old")
	dies(t, s, "new")
	epoch, err := s.ClaimRoom(ctx, "r1", "new", nodeTimeout)
	require.NoError(t, err)
	require.Equal(t, int64(2), epoch)

	t.Run("state", func(t *testing.T) {
		stale := store.Room{ID: "r1", Mode: room.ModeCoop, PuzzleID: pz.ID, HostID: "host", State: store.StateRunning,
			CreatedAt: time.Now(), Settings: json.RawMessage(`{"by":"old"}`), Epoch: 1}
		assert.ErrorIs(t, s.UpdateRoom(ctx, stale), store.ErrFenced)
		fresh := stale
		fresh.Settings, fresh.Epoch = json.RawMessage(`{"by":"new"}`), 2
		require.NoError(t, s.UpdateRoom(ctx, fresh))
		got, err := s.Room(ctx, "r1")
		require.NoError(t, err)
		assert.JSONEq(t, `{"by":"new"}`, string(got.Settings))
		assert.Equal(t, "new", got.Owner)

		round := stale
		round.ID = "r1.2"
		assert.ErrorIs(t, s.CreateRoom(ctx, round), store.ErrFenced, "a later round made by the old owner")
		_, err = s.Room(ctx, "r1.2")
		assert.ErrorIs(t, err, store.ErrNotFound)
		round.Epoch = 2
		require.NoError(t, s.CreateRoom(ctx, round))
	})

	t.Run("events", func(t *testing.T) {
		ev := func(room string, seq, epoch int64) store.Event {
			return store.Event{RoomID: room, Seq: seq, Type: "move", PlayerID: "host", Data: json.RawMessage(`{}`), At: time.Now(), Epoch: epoch}
		}
		err := s.AppendEvents(ctx, []store.Event{ev("r1", 1, 1), ev("r2", 1, 1), ev("r1.2", 1, 1), ev("r2", 2, 1)})
		var fe *store.FencedError
		require.ErrorAs(t, err, &fe)
		assert.ErrorIs(t, err, store.ErrFenced)
		assert.Equal(t, []string{"r1"}, fe.Rooms)
		for _, tt := range []struct {
			game string
			n    int
		}{{"r1", 0}, {"r1.2", 0}, {"r2", 2}} {
			evs, err := s.Events(ctx, tt.game, 0, 0)
			require.NoError(t, err)
			assert.Len(t, evs, tt.n, tt.game)
		}
		require.NoError(t, s.AppendEvents(ctx, []store.Event{ev("r1", 1, 2), ev("r1.2", 1, 2), ev("r2", 3, 0)}))
		evs, err := s.Events(ctx, "r1", 0, 0)
		require.NoError(t, err)
		assert.Len(t, evs, 1)
	})

	t.Run("results", func(t *testing.T) {
		res := store.Result{RoomID: "r1", PlayerID: "host", PuzzleID: pz.ID, Mode: room.ModeCoop, Level: "easy",
			Elapsed: time.Minute, FinishedAt: time.Now(), Epoch: 1}
		assert.ErrorIs(t, s.SaveResults(ctx, []store.Result{res}), store.ErrFenced)
		hist, err := s.PlayerHistory(ctx, "host", 0)
		require.NoError(t, err)
		assert.Empty(t, hist)
		res.Epoch = 2
		require.NoError(t, s.SaveResults(ctx, []store.Result{res}))
		hist, err = s.PlayerHistory(ctx, "host", 0)
		require.NoError(t, err)
		assert.Len(t, hist, 1)
	})
}

// writeUnderWay is room r1 of node "old", dead while "new" lives, with a
// write of old's under way: its transaction holds r1's row (fence) until
// the test ends it.
func writeUnderWay(t *testing.T) (*Store, store.Puzzle, pgx.Tx) {
	t.Helper()
	ctx := context.Background()
	s, pz := openCluster(t)
	register(t, s, "old", "new")
	ownedRoom(t, s, pz, "r1", "old")
	dies(t, s, "new")
	tx, err := s.pool.Begin(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = tx.Rollback(ctx) })
	require.NoError(t, fence(ctx, tx, "r1", 1))
	return s, pz, tx
}

// TestFenceWaitsForWrite: a claim waits for a fenced write under way (it
// holds the room's row FOR SHARE), and the write that committed first is
// the old owner's last: after the claim the old epoch is refused.
func TestFenceWaitsForWrite(t *testing.T) {
	ctx := context.Background()
	s, pz, tx := writeUnderWay(t)
	claimed := make(chan error, 1)
	go func() {
		_, err := s.ClaimRoom(ctx, "r1", "new", nodeTimeout)
		claimed <- err
	}()
	select {
	case err := <-claimed:
		t.Fatalf("the claim did not wait for the write: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	_, err := tx.Exec(ctx, `UPDATE rooms SET settings = '{"by":"old"}' WHERE id = 'r1'`)
	require.NoError(t, err)
	require.NoError(t, tx.Commit(ctx))
	require.NoError(t, <-claimed)
	err = s.UpdateRoom(ctx, store.Room{ID: "r1", Mode: room.ModeCoop, PuzzleID: pz.ID, HostID: "host", State: store.StateRunning, Epoch: 1})
	assert.True(t, errors.Is(err, store.ErrFenced), "%v", err)
}

// TestEventLogFenced: the event log drops a fenced room's events without
// retrying, writes the rest of the batch, and names the room to OnFenced.
func TestEventLogFenced(t *testing.T) {
	ctx := context.Background()
	s, pz := openCluster(t)
	register(t, s, "old", "new")
	ownedRoom(t, s, pz, "r1", "old")
	ownedRoom(t, s, pz, "r2", "old")
	dies(t, s, "new")
	_, err := s.ClaimRoom(ctx, "r1", "new", nodeTimeout)
	require.NoError(t, err)
	fenced := make(chan []string, 1)
	l := store.NewEventLog(s, store.EventLogOptions{OnFenced: func(rooms []string) { fenced <- rooms }})
	at := time.Now()
	l.Append(store.Event{RoomID: "r1", Seq: 1, Type: "move", At: at, Epoch: 1}, store.Event{RoomID: "r2", Seq: 1, Type: "move", At: at, Epoch: 1})
	require.NoError(t, l.Close(ctx))
	select {
	case rooms := <-fenced:
		assert.Equal(t, []string{"r1"}, rooms)
	default:
		t.Fatal("OnFenced was not called")
	}
	st := l.Stats()
	assert.Zero(t, st.Retries)
	assert.Zero(t, st.Pending)
	evs, err := s.Events(ctx, "r2", 0, 0)
	require.NoError(t, err)
	assert.Len(t, evs, 1)
	evs, err = s.Events(ctx, "r1", 0, 0)
	require.NoError(t, err)
	assert.Empty(t, evs)
}

// TestNoTakeoverOfTheLiving: an owner whose heartbeat is old is not dead
// while the database has been up for less than the timeout (after an
// outage every heartbeat is old), and a claimer passing a timeout of 0
// takes only rooms without an owner.
func TestNoTakeoverOfTheLiving(t *testing.T) {
	ctx := context.Background()
	s, pz := openCluster(t)
	register(t, s, "old", "new")
	ownedRoom(t, s, pz, "r1", "old")
	ownedRoom(t, s, pz, "free", "")
	_, err := s.pool.Exec(ctx, `UPDATE nodes SET heartbeat_at = now() - interval '1 day' WHERE id = 'old'`)
	require.NoError(t, err)
	var up time.Duration
	require.NoError(t, s.pool.QueryRow(ctx, `SELECT (extract(epoch FROM now() - pg_postmaster_start_time()) * 1e9)::bigint`).Scan(&up))
	require.Greater(t, up, nodeTimeout, "the database has been up for longer than the short timeout")

	// A timeout longer than the database has been up: nobody is dead.
	longer := up + time.Hour
	o, err := s.RoomOwner(ctx, "r1", longer)
	require.NoError(t, err)
	assert.True(t, o.Alive, "not known dead: the database has not been up for the timeout")
	_, err = s.ClaimRoom(ctx, "r1", "new", longer)
	assert.ErrorIs(t, err, store.ErrOwned)
	cs, err := s.ClaimOrphans(ctx, "new", longer, 10)
	require.NoError(t, err)
	assert.Equal(t, []string{"free"}, claimed(cs), "only the room without an owner")

	// A claimer not in good standing (timeout 0) takes no room from
	// another node, dead or not.
	_, err = s.ClaimRoom(ctx, "r1", "new", 0)
	assert.ErrorIs(t, err, store.ErrOwned)
	ownedRoom(t, s, pz, "free2", "")
	cs, err = s.ClaimOrphans(ctx, "new", 0, 10)
	require.NoError(t, err)
	assert.Equal(t, []string{"free2"}, claimed(cs))

	// With the timeout the database has been up for, the owner is dead.
	o, err = s.RoomOwner(ctx, "r1", nodeTimeout)
	require.NoError(t, err)
	assert.False(t, o.Alive)
	epoch, err := s.ClaimRoom(ctx, "r1", "new", nodeTimeout)
	require.NoError(t, err)
	assert.Equal(t, int64(2), epoch)

	// HeldBy names the rooms a node still holds, with their epochs.
	held, err := s.HeldBy(ctx, "new", []string{"r1", "free", "free2", "none"})
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{"r1": 2, "free": 1, "free2": 1}, held)
	held, err = s.HeldBy(ctx, "old", []string{"r1"})
	require.NoError(t, err)
	assert.Empty(t, held)
}

func claimed(cs []store.Claim) []string {
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.RoomID
	}
	return ids
}

// TestIdleTransactionsEnd: a session of the store that sits idle inside a
// transaction (its process stopped while it held a room's row) is ended by
// the server after idleInTx, so that the row is free to claim; a
// DATABASE_URL may set its own.
func TestIdleTransactionsEnd(t *testing.T) {
	ctx := context.Background()
	s, _ := openCluster(t)
	var got string
	require.NoError(t, s.pool.QueryRow(ctx, `SHOW idle_in_transaction_session_timeout`).Scan(&got))
	assert.Equal(t, "5s", got)

	for _, param := range []string{"idle_in_transaction_session_timeout=1500", "options=-c%20idle_in_transaction_session_timeout%3D1500"} {
		own, err := Open(ctx, server.NewDatabase(t)+"&"+param)
		require.NoError(t, err)
		require.NoError(t, own.pool.QueryRow(ctx, `SHOW idle_in_transaction_session_timeout`).Scan(&got))
		own.Close()
		assert.Equal(t, "1500ms", got, "the URL's own setting stands: %s", param)
	}
}
