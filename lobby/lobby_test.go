package lobby_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/lobby"
	"github.com/sudoku-arena/arena/queue"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/sqlite"
)

var t0 = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

// rooms makes race rooms in the store, as a registry's Create would.
type rooms struct {
	st   *sqlite.Store
	mu   sync.Mutex
	n    int
	fail bool
	hook func() // called as a room is made
}

func (r *rooms) CreateRace(ctx context.Context, level string, _ []string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail {
		return "", errors.New("server full")
	}
	if r.hook != nil {
		r.hook()
	}
	r.n++
	id := fmt.Sprintf("room%d", r.n)
	pz, err := r.st.SavePuzzle(ctx, store.Puzzle{Givens: fmt.Sprintf("%080d.", r.n), Solution: fmt.Sprintf("%081d", 1), Level: level, CreatedAt: t0})
	if err != nil {
		return "", err
	}
	return id, r.st.CreateRoom(ctx, store.Room{ID: id, Mode: room.ModeRace, PuzzleID: pz.ID, State: store.StateWaiting, CreatedAt: t0})
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func setup(t *testing.T, players ...string) (*lobby.Lobby, *sqlite.Store, *rooms, *clock) {
	t.Helper()
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "a.db"))
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	for _, id := range players {
		require.NoError(t, s.CreatePlayer(ctx, store.Player{ID: id, Name: id, TokenHash: []byte(id), CreatedAt: t0, LastSeen: t0}))
		require.NoError(t, s.CreateAccount(ctx, id, id, id, t0, nil))
	}
	rs := &rooms{st: s}
	c := &clock{t: t0}
	return lobby.New(lobby.Config{}, room.Levels, rs, s, c.now, nil), s, rs, c
}

func TestJoinWaitLeave(t *testing.T) {
	ctx := context.Background()
	l, _, _, _ := setup(t, "a")
	_, err := l.Join(ctx, lobby.Request{Player: "g", Addr: "1", Level: "easy", Rated: true})
	assert.ErrorIs(t, err, lobby.ErrGuestRated)
	st, err := l.Join(ctx, lobby.Request{Player: "a", Account: true, Addr: "1", Level: "easy", Rated: true})
	require.NoError(t, err)
	assert.Equal(t, lobby.StateWaiting, st.State)
	assert.Equal(t, 1500.0, st.Rating)
	assert.Equal(t, 100.0, st.Window)
	assert.Equal(t, 1, st.Waiting["easy"])
	assert.Equal(t, 0, st.Waiting["hard"])
	_, err = l.Join(ctx, lobby.Request{Player: "a", Account: true, Addr: "2", Level: "hard", Rated: true})
	assert.ErrorIs(t, err, queue.ErrQueued, "one account waits once")
	casual, err := l.Join(ctx, lobby.Request{Player: "g", Addr: "3", Level: "easy"})
	require.NoError(t, err)
	assert.Equal(t, 1, casual.Waiting["easy"], "the casual queue counts apart")
	assert.True(t, l.Leave(st.Ticket))
	assert.False(t, l.Leave(st.Ticket))
	_, err = l.Status(st.Ticket)
	assert.ErrorIs(t, err, lobby.ErrUnknownTicket)
}

func TestMatchRateAndForget(t *testing.T) {
	ctx := context.Background()
	l, s, rs, c := setup(t, "a", "b", "c")
	var tickets []string
	for i, p := range []string{"a", "b", "c"} {
		addr := fmt.Sprint(i)
		if p == "c" {
			addr = "0" // a's address: never with a
			c.add(time.Second)
		}
		st, err := l.Join(ctx, lobby.Request{Player: p, Account: true, Addr: addr, Level: "easy", Rated: true})
		require.NoError(t, err)
		tickets = append(tickets, st.Ticket)
	}
	rs.fail = true
	l.Tick(ctx)
	assert.Equal(t, 3, l.Len(), "no room: the group waits on")
	rs.fail = false
	c.add(time.Second)
	rs.hook = func() {
		st, err := l.Status(tickets[0])
		assert.NoError(t, err, "a ticket answers while its room is made")
		assert.Equal(t, lobby.StateWaiting, st.State)
	}
	l.Tick(ctx)
	rs.hook = nil
	a, err := l.Status(tickets[0])
	require.NoError(t, err)
	b, err := l.Status(tickets[1])
	require.NoError(t, err)
	assert.Equal(t, lobby.StateMatched, a.State)
	assert.Equal(t, "room1", a.Room)
	assert.Equal(t, a.Room, b.Room)
	assert.ElementsMatch(t, []string{"a", "b"}, a.Players)
	cst, err := l.Status(tickets[2])
	require.NoError(t, err)
	assert.Equal(t, lobby.StateWaiting, cst.State, "c shares a's address")

	// The race: b wins, a leaves without a finish. Not rated until over.
	rm, err := s.Room(ctx, "room1")
	require.NoError(t, err)
	require.NoError(t, s.SaveResults(ctx, []store.Result{{RoomID: "room1", PlayerID: "b", PuzzleID: rm.PuzzleID, Mode: room.ModeRace, Level: "easy",
		Elapsed: 3 * time.Minute, FinishedAt: t0, RoomRank: 1, AllTime: true}}))
	l.Tick(ctx)
	got, err := s.RoomRatings(ctx, "room1")
	require.NoError(t, err)
	assert.Empty(t, got, "the room is not over yet")
	// Over, as a room saves it while its players are still there.
	rm.State, rm.StartedAt, rm.FinishedAt = store.StateRunning, t0, t0.Add(3*time.Minute)
	require.NoError(t, s.UpdateRoom(ctx, rm))
	l.Tick(ctx)
	got, err = s.RoomRatings(ctx, "room1")
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, "a", got[0].PlayerID)
	assert.Less(t, got[0].After.Rating, 1500.0, "leaving a rated race is a loss")
	assert.Greater(t, got[1].After.Rating, 1500.0)

	c.add(3 * time.Minute)
	l.Tick(ctx)
	_, err = l.Status(tickets[0])
	assert.ErrorIs(t, err, lobby.ErrUnknownTicket, "a match is kept a while, then forgotten")

	// Rated again, the queue matches by the stored rating.
	st, err := l.Join(ctx, lobby.Request{Player: "b", Account: true, Addr: "1", Level: "easy", Rated: true})
	require.NoError(t, err)
	assert.Equal(t, got[1].After.Rating, st.Rating)

	// What the API shows of it.
	race, err := l.Race(ctx, "room1")
	require.NoError(t, err)
	require.Len(t, race, 2)
	assert.Equal(t, "b", race[1].Player)
	assert.Equal(t, 1500.0, race[1].Before)
	assert.InDelta(t, race[1].After-1500, race[1].Delta, 0.011)
	assert.Greater(t, race[1].Delta, 0.0)
	assert.True(t, race[1].Provisional)
	pb, err := l.Player(ctx, "b", 10)
	require.NoError(t, err)
	require.NotNil(t, pb.Rating)
	assert.Equal(t, 1, pb.Rating.Races)
	assert.True(t, pb.Rating.Provisional)
	assert.Equal(t, race[1], pb.History[0])
	pc, err := l.Player(ctx, "c", 10)
	require.NoError(t, err)
	assert.Nil(t, pc.Rating, "never rated")
	assert.Empty(t, pc.History)
	board, err := l.Board(ctx, 10)
	require.NoError(t, err)
	assert.Empty(t, board, "provisional ratings are on no board")
}

// failing is the store with AddRatedRace failing while fail is set: a
// database that refuses a write for a while.
type failing struct {
	*sqlite.Store
	fail bool
}

func (f *failing) AddRatedRace(ctx context.Context, r store.RatedRace) error {
	if f.fail {
		return errors.New("database away")
	}
	return f.Store.AddRatedRace(ctx, r)
}

// A rated race is stored as it is matched: a lobby started again (a
// restart, or another node) rates it once it is over. A race the store
// would not record at first is recorded on a later tick.
func TestRatedRaceOutlivesTheLobby(t *testing.T) {
	ctx := context.Background()
	_, s, rs, c := setup(t, "a", "b")
	f := &failing{Store: s, fail: true}
	l := lobby.New(lobby.Config{}, room.Levels, rs, f, c.now, nil)
	for i, p := range []string{"a", "b"} {
		_, err := l.Join(ctx, lobby.Request{Player: p, Account: true, Addr: fmt.Sprint(i), Level: "easy", Rated: true})
		require.NoError(t, err)
	}
	l.Tick(ctx)
	pending, err := s.RatedRaces(ctx, 10)
	require.NoError(t, err)
	assert.Empty(t, pending, "the store refused it")
	f.fail = false
	l.Tick(ctx)
	pending, err = s.RatedRaces(ctx, 10)
	require.NoError(t, err)
	require.Len(t, pending, 1, "recorded on the next tick")
	assert.Equal(t, "room1", pending[0].RoomID)
	assert.ElementsMatch(t, []string{"a", "b"}, pending[0].Roster)

	// The lobby is gone; the race ends; a new one rates it.
	rm, err := s.Room(ctx, "room1")
	require.NoError(t, err)
	require.NoError(t, s.SaveResults(ctx, []store.Result{{RoomID: "room1", PlayerID: "a", PuzzleID: rm.PuzzleID, Mode: room.ModeRace, Level: "easy",
		Elapsed: 3 * time.Minute, FinishedAt: t0, RoomRank: 1, AllTime: true}}))
	rm.State, rm.StartedAt, rm.FinishedAt = store.StateFinished, t0, t0.Add(3*time.Minute)
	require.NoError(t, s.UpdateRoom(ctx, rm))
	again := lobby.New(lobby.Config{}, room.Levels, rs, s, c.now, nil)
	again.Tick(ctx)
	got, err := s.RoomRatings(ctx, "room1")
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Greater(t, got[0].After.Rating, 1500.0, "a won")
	assert.Less(t, got[1].After.Rating, 1500.0)
	pending, err = s.RatedRaces(ctx, 10)
	require.NoError(t, err)
	assert.Empty(t, pending, "rated, and forgotten")
	again.Tick(ctx)
	got2, err := s.RoomRatings(ctx, "room1")
	require.NoError(t, err)
	assert.Equal(t, got, got2, "rated once")
}

// Track rates a race between the accounts among its players; a race with
// fewer than two accounts is not rated.
func TestTrack(t *testing.T) {
	ctx := context.Background()
	l, s, _, _ := setup(t, "a", "b")
	require.NoError(t, s.CreatePlayer(ctx, store.Player{ID: "g", Name: "g", TokenHash: []byte("g"), CreatedAt: t0, LastSeen: t0}))
	require.NoError(t, l.Track(ctx, "t1", []string{"a", "g", "b"}))
	require.NoError(t, l.Track(ctx, "t2", []string{"a", "g"}))
	assert.Error(t, l.Track(ctx, "t3", []string{"a", "nobody"}))
	pending, err := s.RatedRaces(ctx, 10)
	require.NoError(t, err)
	require.Len(t, pending, 1)
	assert.Equal(t, store.RatedRace{RoomID: "t1", Roster: []string{"a", "b"}, At: t0}, pending[0], "the guest is left out")
}
