package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
)

// heldSaves is a room store whose saves of the rooms' state wait, once
// held, until released: a save in flight when the node loses the room,
// as one sent into a cut that the database answers only once it heals.
type heldSaves struct {
	store.Store
	mu      sync.Mutex
	release chan struct{} // non-nil: held until closed
	entered chan struct{} // told of each save that waits
}

// hold makes the saves from now on wait until released.
func (h *heldSaves) hold() (entered <-chan struct{}, release func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.release, h.entered = make(chan struct{}), make(chan struct{}, 16)
	rel := h.release
	return h.entered, sync.OnceFunc(func() { close(rel) })
}

func (h *heldSaves) UpdateRoom(ctx context.Context, r store.Room) error {
	h.mu.Lock()
	release, entered := h.release, h.entered
	h.mu.Unlock()
	if release != nil {
		entered <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
			return fmt.Errorf("held save of room %s: %w", r.ID, ctx.Err())
		}
	}
	return h.Store.UpdateRoom(ctx, r)
}

// player is a member's connection that keeps its frames.
type player struct {
	mu     sync.Mutex
	frames []room.Frame
	closed chan room.CloseReason
}

func newPlayer() *player { return &player{closed: make(chan room.CloseReason, 1)} }

func (p *player) Send(f room.Frame) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.frames = append(p.frames, f)
	return true
}

func (p *player) Close(why room.CloseReason) { p.closed <- why }

// acks are the moves acknowledged to the player: its moves as the room
// sent them back, with their seq, by the id the player gave.
func (p *player) acks(t *testing.T, who string) map[string]protocol.MoveEvent {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]protocol.MoveEvent{}
	for _, f := range p.frames {
		if f.Type != protocol.TypeMove {
			continue
		}
		var m protocol.MoveEvent
		require.NoError(t, json.Unmarshal(f.Data, &m))
		var id string
		if m.Player == who && m.Seq > 0 && json.Unmarshal(m.ID, &id) == nil {
			out[id] = m
		}
	}
	return out
}

// move is a move message with its id.
func move(id string, cell, digit int) *protocol.Msg {
	return &protocol.Msg{Type: protocol.TypeMove, ID: json.RawMessage(`"` + id + `"`), Cell: &cell, Digit: &digit}
}

// A node cut off while another node claimed one of its rooms comes back
// with a save of that room still in flight (the room waits for it before
// it ends): once its lease is renewed, which may happen before that save
// returns, a move its server then hands the room (the server asks only
// whether the lease is held) must not be acknowledged, since the new
// owner's epoch fences its write. Every move acknowledged is stored.
func TestNoMoveAcknowledgedForARoomLostDuringALapse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openShared(t)
	saves := &heldSaves{Store: st}
	a := newTestNodeOver(t, st, saves, "a")
	require.True(t, a.renew(t, 0))
	r := a.create(t, room.ModeCoop)
	p := newPlayer()
	require.NoError(t, r.Attach(ctx, room.Join{ID: "p_a", Name: "A"}, p))
	require.NoError(t, r.Message(ctx, "p_a", p, &protocol.Msg{Type: protocol.TypeStart}, a.roomClock.Now()))
	_, err := r.Snapshot(ctx) // the start handled before the countdown runs out
	require.NoError(t, err)
	// The play begins, and the room's save of that goes out and does not
	// come back yet.
	entered, release := saves.hold()
	defer release()
	a.roomClock.Advance(room.DefaultConfig().Countdown)
	select {
	case <-entered:
	case <-time.After(5 * time.Second):
		t.Fatal("no save of the room went out")
	}

	// Two cells to fill, with their digits.
	var givens, solution string
	require.NoError(t, st.Pool().QueryRow(ctx, `SELECT p.givens, p.solution FROM rooms r JOIN puzzles p ON p.id = r.puzzle_id WHERE r.id = $1`,
		r.ID()).Scan(&givens, &solution))
	var cells []int
	for i := range 81 {
		if givens[i] < '1' || givens[i] > '9' {
			cells = append(cells, i)
		}
	}
	require.GreaterOrEqual(t, len(cells), 2)
	digit := func(cell int) int { return int(solution[cell] - '0') }

	require.True(t, a.Held())
	require.NoError(t, r.Message(ctx, "p_a", p, move("m1", cells[0], digit(cells[0])), a.roomClock.Now()))
	require.Eventually(t, func() bool { _, ok := p.acks(t, "p_a")["m1"]; return ok }, 5*time.Second, time.Millisecond,
		"a move taken while the lease is held is acknowledged")
	// It is written long before another node may count this one dead;
	// the test then makes that happen at once.
	require.Eventually(t, func() bool {
		evs, err := st.Events(ctx, r.ID(), 0, 0)
		return err == nil && storedMoves(t, evs)["m1"]
	}, 5*time.Second, 5*time.Millisecond, "the move acknowledged is stored")

	// Cut off, the lease lapses; another node claims the room.
	a.link.cut.Store(true)
	a.clock.Advance(testTimeout)
	require.False(t, a.Held())
	_, err = st.Pool().Exec(ctx, `UPDATE nodes SET heartbeat_at = now() - interval '1 hour' WHERE id = 'a'`)
	require.NoError(t, err)
	_, err = st.ClaimRoom(ctx, r.ID(), "b", testTimeout)
	require.NoError(t, err)

	// Back: the heartbeat is taken and the lease renewed after the check
	// of the rooms still held, which stops this one.
	a.link.cut.Store(false)
	require.True(t, a.renew(t, testTimeout/4))
	require.True(t, a.Held(), "renewed")
	// A move the server hands the room now, as it does once Held says
	// yes; the room has not ended yet (its save is still out).
	if err := r.Message(ctx, "p_a", p, move("m2", cells[1], digit(cells[1])), a.roomClock.Now()); err != nil {
		assert.ErrorIs(t, err, room.ErrClosed)
	}
	release()
	select {
	case <-r.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the room lost to another node did not end")
	}
	select {
	case why := <-p.closed:
		assert.Equal(t, room.CloseMoved, why, "its players resume on the new owner")
	case <-time.After(5 * time.Second):
		t.Fatal("the player was not closed")
	}

	// Every move acknowledged is stored, by the events the owner reads.
	acks := p.acks(t, "p_a")
	assert.Contains(t, acks, "m1")
	assert.NotContains(t, acks, "m2", "no move acknowledged for a room another node owns")
	evs, err := st.Events(ctx, r.ID(), 0, 0)
	require.NoError(t, err)
	stored := storedMoves(t, evs)
	for id := range acks {
		assert.True(t, stored[id], "move %s acknowledged but not stored", id)
	}
}

// storedMoves are the ids of the moves among the events.
func storedMoves(t *testing.T, evs []store.Event) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, e := range evs {
		if e.Type != protocol.TypeMove {
			continue
		}
		var m struct {
			ID string `json:"id"`
		}
		require.NoError(t, json.Unmarshal(e.Data, &m))
		out[m.ID] = true
	}
	return out
}
