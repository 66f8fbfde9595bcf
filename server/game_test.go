package server_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/server"
)

// conflicting is an empty cell and a digit one of its peers holds.
func conflicting(board engine.Grid) (int, uint8) {
	for cell, v := range board {
		if v != 0 {
			continue
		}
		for d := uint8(1); d <= 9; d++ {
			if !board.Conflicts(cell, d).Empty() {
				return cell, d
			}
		}
	}
	panic("no conflicting move")
}

// wrongMove is an empty cell and a digit that conflicts with no peer but
// is not the solution's.
func wrongMove(board, sol engine.Grid) (int, uint8) {
	for cell, v := range board {
		if v != 0 {
			continue
		}
		for d := uint8(1); d <= 9; d++ {
			if d != sol[cell] && board.Conflicts(cell, d).Empty() {
				return cell, d
			}
		}
	}
	panic("no wrong move")
}

// awaitRunning waits for the state event that starts play and returns the
// givens.
func awaitRunning(c *client) engine.Grid {
	c.tb.Helper()
	st := await(c, protocol.TypeState, func(s *protocol.State) bool { return s.Room.Phase == protocol.PhaseRunning })
	require.Len(c.tb, st.Room.Givens, 81)
	return engine.MustParse(st.Room.Givens)
}

// solve fills the player's empty cells with the solution, skipping cells in
// skip, and waits until each move is echoed.
func solve(c *client, givens, sol engine.Grid) {
	c.tb.Helper()
	for cell, v := range givens {
		if v == 0 {
			c.move(cell, sol[cell])
		}
	}
}

func TestRaceThreePlayersFromCreateToRanksAndRematch(t *testing.T) {
	t.Parallel()
	// The rooms and the server share a clock that moves when told: the
	// countdown ends, and the hint's freeze passes, when the test moves it.
	clk := server.NewFakeClock(time.Now())
	e := newEnv(t, server.WithFakeClock(clk))
	id := e.createRoom("race", "easy")
	a, b, c := e.dial("Ann"), e.dial("Bob"), e.dial("Cid")

	wa := a.join(id)
	require.NotNil(t, wa.Room)
	assert.True(t, wa.You.Host)
	assert.Equal(t, protocol.PhaseWaiting, wa.Room.Phase)
	assert.Empty(t, wa.Room.Givens, "a race shows its puzzle only once it starts")
	assert.False(t, b.join(id).You.Host)
	c.join(id)
	await(a, protocol.TypePresence, func(p *protocol.PresenceEvent) bool { return p.Player == c.id && p.Status == protocol.PresenceJoined })

	b.send(map[string]any{"type": "start"})
	b.awaitError(protocol.CodeNotHost)

	a.send(map[string]any{"type": "start"})
	var givens engine.Grid
	for _, x := range []*client{a, b, c} {
		cd := await[protocol.CountdownEvent](x, protocol.TypeCountdown, nil)
		assert.InDelta(t, 0.02, cd.Seconds, 1e-9)
	}
	clk.Advance(20 * time.Millisecond) // the countdown
	for _, x := range []*client{a, b, c} {
		givens = awaitRunning(x)
	}
	clk.Advance(time.Second) // play takes time: every finish's is positive
	sol := e.solution(id, 1)
	for cell, v := range givens {
		if v != 0 {
			require.Equal(t, sol[cell], v)
		}
	}

	// A conflict is refused and told to the whole room, naming the player.
	cell, d := conflicting(givens)
	a.move(cell, d)
	own := a.awaitError(protocol.CodeConflict)
	assert.Equal(t, a.id, own.Player)
	require.NotNil(t, own.Cell)
	assert.Equal(t, cell, *own.Cell)
	require.NotEmpty(t, own.Cells)
	for _, p := range own.Cells {
		assert.Equal(t, d, givens[p], "conflict cell %d", p)
	}
	for _, x := range []*client{b, c} {
		other := x.awaitError(protocol.CodeConflict)
		assert.Equal(t, a.id, other.Player)
		assert.Equal(t, own.Cells, other.Cells)
		assert.Equal(t, own.Seq, other.Seq, "one event, two views")
		assert.Contains(t, other.Message, "Ann")
	}

	// A wrong digit that conflicts with nothing is placed and counted as a
	// mistake, but nobody, B included, is told so before B's finish (nor
	// the right digit).
	wc, wd := wrongMove(givens, sol)
	b.move(wc, wd)
	mv := await(b, protocol.TypeMove, func(m *protocol.MoveEvent) bool { return m.Cell == wc })
	assert.Equal(t, int(wd), mv.Digit)
	for _, x := range []*client{a, b, c} {
		p := await(x, protocol.TypeProgress, func(p *protocol.ProgressEvent) bool { return p.Player == b.id })
		assert.Nil(t, p.Mistakes, "%s is told of no mistake in a running race", x.name)
		assert.NotContains(t, string(x.seen[len(x.seen)-1].raw), "mistakes")
		assert.Equal(t, 1, p.Filled)
		assert.Equal(t, 81-givens.Filled(), p.Empty)
	}

	// C's hint: all of it for C, who asked (not even the technique) for the
	// rest.
	c.send(map[string]any{"type": "hint", "id": 7})
	hc := await[protocol.HintEvent](c, protocol.TypeHint, nil)
	assert.Equal(t, c.id, hc.Player)
	assert.Equal(t, "7", string(hc.ID))
	assert.NotEmpty(t, hc.Explanation)
	assert.NotEmpty(t, hc.Cells)
	assert.NotEmpty(t, hc.Technique)
	require.NotNil(t, hc.FrozenUntil)
	for _, x := range []*client{a, b} {
		h := await(x, protocol.TypeHint, func(h *protocol.HintEvent) bool { return h.Player == c.id })
		assert.Empty(t, h.Technique, "the technique would tell whether C has a wrong digit")
		assert.Empty(t, h.TechniqueName)
		assert.Empty(t, h.Explanation)
		assert.Empty(t, h.Cells)
		assert.Empty(t, h.Place)
		assert.Equal(t, 1, h.Hints)
	}
	// C is frozen for the penalty.
	c.move(wc, sol[wc])
	c.awaitError(protocol.CodeFrozen)

	// A finishes first, then B (after clearing the mistake), then C.
	solve(a, givens, sol)
	fa := await(b, protocol.TypeFinish, func(f *protocol.FinishEvent) bool { return f.Player == a.id })
	assert.Equal(t, 1, fa.Rank)
	assert.GreaterOrEqual(t, fa.ElapsedMS, int64(0), "0 ms when the moves come in quickly")
	b.move(wc, 0)
	solve(b, givens, sol)
	fb := await(c, protocol.TypeFinish, func(f *protocol.FinishEvent) bool { return f.Player == b.id })
	assert.Equal(t, 2, fb.Rank)
	assert.Equal(t, 1, fb.Mistakes)
	clk.Advance(hc.FrozenUntil.Sub(clk.Now()))
	solve(c, givens, sol)
	for _, x := range []*client{a, b, c} {
		fc := await(x, protocol.TypeFinish, func(f *protocol.FinishEvent) bool { return f.Player == c.id })
		assert.Equal(t, 3, fc.Rank)
		assert.Equal(t, 1, fc.Hints)
		end := await(x, protocol.TypeState, func(s *protocol.State) bool { return s.Room.Phase == protocol.PhaseFinished })
		assert.Equal(t, sol.String(), end.Room.Solution)
		require.Len(t, end.Room.Players, 3)
		for i, p := range end.Room.Players {
			assert.Equal(t, i+1, p.Rank, "players in join order finished in order")
			assert.Equal(t, sol.String(), p.Board)
			want := 0
			if p.ID == b.id {
				want = 1
			}
			assert.Equal(t, &want, p.Mistakes, "the finished race tells every count")
		}
	}
	// Moves after the finish change nothing.
	a.move(wc, 0)
	a.awaitError(protocol.CodeFinished)

	// The results were stored.
	for i, tc := range []struct {
		c               *client
		mistakes, hints int
	}{{a, 0, 0}, {b, 1, 0}, {c, 0, 1}} {
		hist := e.results(tc.c.id)
		require.Len(t, hist, 1, tc.c.name)
		assert.Equal(t, id, hist[0].GameID)
		assert.Equal(t, "race", hist[0].Mode)
		assert.Equal(t, i+1, hist[0].Rank, tc.c.name)
		assert.Equal(t, tc.mistakes, hist[0].Mistakes, tc.c.name)
		assert.Equal(t, tc.hints, hist[0].Hints, tc.c.name)
		assert.Positive(t, hist[0].Elapsed)
	}

	// No one ever saw another player's digits.
	for _, x := range []*client{a, b, c} {
		for _, f := range x.seen {
			if f.Type == protocol.TypeMove {
				assert.Contains(t, string(f.raw), `"player":"`+x.id+`"`, "%s saw %s", x.name, f.raw)
			}
		}
	}

	// Only the host starts a rematch; it brings a new puzzle for the same
	// players.
	b.send(map[string]any{"type": "rematch"})
	b.awaitError(protocol.CodeNotHost)
	a.send(map[string]any{"type": "rematch"})
	for _, x := range []*client{a, b, c} {
		st := await(x, protocol.TypeState, func(s *protocol.State) bool { return s.Room.Phase == protocol.PhaseWaiting })
		assert.Equal(t, 2, st.Room.Round)
		require.Len(t, st.Room.Players, 3)
		for _, p := range st.Room.Players {
			assert.Zero(t, p.Filled)
			assert.Zero(t, p.Rank)
		}
	}
	a.send(map[string]any{"type": "start"})
	await[protocol.CountdownEvent](b, protocol.TypeCountdown, nil)
	clk.Advance(20 * time.Millisecond)
	g2 := awaitRunning(b)
	assert.NotEqual(t, givens, g2, "a rematch plays a new puzzle")
	assert.Equal(t, e.solution(id, 2).String(), solvedString(t, g2))
}

// solvedString solves a puzzle with the engine.
func solvedString(t *testing.T, g engine.Grid) string {
	t.Helper()
	r := engine.Solve(g, 2)
	require.Equal(t, 1, r.Count)
	return r.Solution.String()
}

func TestCoopSharedBoardNotesAndCursors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.createRoom("coop", "easy")
	a, b := e.dial("Ann"), e.dial("Bob")
	w := a.join(id)
	assert.Len(t, w.Room.Givens, 81, "co-op shows its board from the start")
	b.join(id)
	a.send(map[string]any{"type": "start"})
	givens := awaitRunning(a)
	awaitRunning(b)
	sol := e.solution(id, 1)

	// Notes are shared: B sees A's marks.
	var noteCell int
	for cell, v := range givens {
		if v == 0 {
			noteCell = cell
			break
		}
	}
	a.send(map[string]any{"type": "note", "cell": noteCell, "kind": "corner", "digit": int(sol[noteCell])})
	a.send(map[string]any{"type": "note", "cell": noteCell, "kind": "centre", "digit": 9})
	n := await(b, protocol.TypeNote, func(n *protocol.NoteEvent) bool { return len(n.Centre) > 0 })
	assert.Equal(t, a.id, n.Player)
	assert.Equal(t, []int{int(sol[noteCell])}, n.Corner)
	assert.Equal(t, []int{9}, n.Centre)

	// Cursors go to the others, not back.
	a.send(map[string]any{"type": "cursor", "cell": 40})
	cur := await[protocol.CursorEvent](b, protocol.TypeCursor, nil)
	assert.Equal(t, a.id, cur.Player)
	assert.Equal(t, 40, cur.Cell)

	// A peer's digit clears the note's digit there, for everyone.
	var peer int
	for _, p := range engine.Peers[noteCell] {
		if givens[p] == 0 && sol[p] == sol[noteCell] {
			t.Fatal("a peer cannot share the digit")
		}
	}
	peer = -1
	for _, p := range engine.Peers[noteCell] {
		if givens[p] == 0 {
			peer = int(p)
			break
		}
	}
	require.GreaterOrEqual(t, peer, 0)
	b.send(map[string]any{"type": "note", "cell": noteCell, "kind": "corner", "digit": int(sol[peer])})
	await(a, protocol.TypeNote, func(n *protocol.NoteEvent) bool { return n.Player == b.id })
	b.move(peer, sol[peer])
	for _, x := range []*client{a, b} {
		mv := await(x, protocol.TypeMove, func(m *protocol.MoveEvent) bool { return m.Cell == peer })
		assert.Equal(t, b.id, mv.Player, "moves are attributed")
		assert.Contains(t, mv.Cleared, noteCell)
	}

	// A conflict on the shared board is refused and told to both.
	cell, d := conflicting(givens)
	a.move(cell, d)
	a.awaitError(protocol.CodeConflict)
	assert.Equal(t, a.id, b.awaitError(protocol.CodeConflict).Player)

	// They finish together, taking turns.
	i := 0
	for cell, v := range givens {
		if v == 0 && cell != peer {
			[]*client{a, b}[i%2].move(cell, sol[cell])
			i++
		}
	}
	for _, x := range []*client{a, b} {
		f := await[protocol.FinishEvent](x, protocol.TypeFinish, nil)
		assert.Empty(t, f.Player, "the team finishes")
		assert.GreaterOrEqual(t, f.ElapsedMS, int64(0), "0 ms when the moves come in quickly")
		end := await(x, protocol.TypeState, func(s *protocol.State) bool { return s.Room.Phase == protocol.PhaseFinished })
		assert.Equal(t, sol.String(), end.Room.Board)
		total := 0
		for _, p := range end.Room.Players {
			total += p.Filled
		}
		assert.Equal(t, 81-givens.Filled(), total, "every digit is attributed to its player")
	}
	for _, x := range []*client{a, b} {
		hist := e.results(x.id)
		require.Len(t, hist, 1)
		assert.Equal(t, "coop", hist[0].Mode)
	}
}

// TestCoopLateJoinerSeesWhoPlacedEachDigit: a player who joins a co-op
// game under way, and a spectator, learn from their welcome who placed the
// digits already on the board, which no move event told them.
func TestCoopLateJoinerSeesWhoPlacedEachDigit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.dial("Ann")
	id, givens, sol := e.startGame("coop", a)
	var placed []int
	for cell, v := range givens {
		if v == 0 && len(placed) < 3 {
			placed = append(placed, cell)
			a.move(cell, sol[cell])
		}
	}
	await(a, protocol.TypeMove, func(m *protocol.MoveEvent) bool { return m.Cell == placed[2] })

	b := e.dial("Bob")
	w := b.join(id)
	require.NotNil(t, w.Room)
	assert.Equal(t, map[string][]int{a.id: placed}, w.Room.PlacedBy, "the newcomer sees Ann's digits as hers")
	s := e.dial("Sam")
	s.send(map[string]any{"type": "join", "room": id, "as": "spectator"})
	sw := await[protocol.Welcome](s, protocol.TypeWelcome, nil)
	require.NotNil(t, sw.Room)
	assert.Equal(t, map[string][]int{a.id: placed}, sw.Room.PlacedBy, "and so does a spectator")

	// B overwrites one of A's digits with a wrong one: it is B's now.
	board := givens
	for _, cell := range placed {
		board[cell] = sol[cell]
	}
	wrong := uint8(0)
	for d := uint8(1); d <= 9 && wrong == 0; d++ {
		if d != sol[placed[0]] && board.Conflicts(placed[0], d).Empty() {
			wrong = d
		}
	}
	require.NotZero(t, wrong, "no digit can replace Ann's")
	b.move(placed[0], wrong)
	await(b, protocol.TypeMove, func(m *protocol.MoveEvent) bool { return m.Cell == placed[0] })
	c := e.dial("Cal")
	w = c.join(id)
	require.NotNil(t, w.Room)
	assert.Equal(t, map[string][]int{a.id: placed[1:], b.id: placed[:1]}, w.Room.PlacedBy)
}

func TestDropAndResumeReplaysMissedEvents(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b := e.dial("Ann"), e.dial("Bob")
	id, givens, sol := e.startGame("race", a, b)
	var empty []int
	for cell, v := range givens {
		if v == 0 {
			empty = append(empty, cell)
		}
	}

	b.move(empty[0], sol[empty[0]])
	await(b, protocol.TypeProgress, func(p *protocol.ProgressEvent) bool { return p.Player == b.id })
	before := await(a, protocol.TypeProgress, func(p *protocol.ProgressEvent) bool { return p.Player == b.id })
	require.NoError(t, b.ws.CloseNow())
	away := await(a, protocol.TypePresence, func(p *protocol.PresenceEvent) bool { return p.Player == b.id })
	assert.Equal(t, protocol.PresenceAway, away.Status)
	require.NotNil(t, away.Until)

	// A plays on while B is away.
	a.move(empty[0], sol[empty[0]])
	a.move(empty[1], sol[empty[1]])
	missed := []int64{}
	for len(missed) < 2 {
		p := await(a, protocol.TypeProgress, func(p *protocol.ProgressEvent) bool { return p.Player == a.id })
		missed = append(missed, p.Seq)
	}

	// B comes back with the token and the last seq seen.
	b2 := e.dial("Bob")
	b2.send(map[string]any{"type": "join", "room": id, "token": b.token, "last_seq": b.lastSeq})
	w := await[protocol.Welcome](b2, protocol.TypeWelcome, nil)
	assert.Equal(t, b.id, w.You.ID, "same player")
	assert.True(t, w.Resumed)
	assert.Nil(t, w.Room)
	require.Positive(t, w.Replay)
	var replayed []int64
	for range w.Replay {
		f := b2.read()
		assert.Greater(t, f.Seq, b.lastSeq)
		if f.Type == protocol.TypeProgress {
			replayed = append(replayed, f.Seq)
		}
	}
	assert.Equal(t, missed, replayed, "the missed progress events, in order")
	back := await(a, protocol.TypePresence, func(p *protocol.PresenceEvent) bool { return p.Player == b.id && p.Status == protocol.PresenceBack })
	assert.Equal(t, b.id, back.Player)

	// With no last seq, a snapshot: B's board and progress are kept.
	require.NoError(t, b2.ws.CloseNow())
	await(a, protocol.TypePresence, func(p *protocol.PresenceEvent) bool { return p.Player == b.id && p.Status == protocol.PresenceAway })
	b3 := e.dial("Bob")
	b3.send(map[string]any{"type": "join", "room": id, "token": b.token})
	w = await[protocol.Welcome](b3, protocol.TypeWelcome, nil)
	require.NotNil(t, w.Room)
	assert.False(t, w.Resumed)
	assert.Equal(t, sol[empty[0]], engine.MustParse(w.Room.Board)[empty[0]])
	for _, p := range w.Room.Players {
		if p.ID == b.id {
			assert.Equal(t, before.Progress, p.Progress)
		}
	}
	// The clock is the room's: started_at has not moved.
	require.NotNil(t, w.Room.StartedAt)
}

func TestSpectatorWatchesProgressNotDigits(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.createRoom("race", "easy")
	a := e.dial("Ann")
	a.join(id)
	s := e.dial("Sam")
	s.send(map[string]any{"type": "join", "room": id, "as": "spectator"})
	w := await[protocol.Welcome](s, protocol.TypeWelcome, nil)
	assert.Equal(t, protocol.RoleSpectator, w.You.Role)
	assert.Empty(t, w.You.Token)
	a.send(map[string]any{"type": "start"})
	givens := awaitRunning(a)
	st := await(s, protocol.TypeState, func(s *protocol.State) bool { return s.Room.Phase == protocol.PhaseRunning })
	assert.Empty(t, st.Room.Board, "a spectator sees no board during a race")
	sol := e.solution(id, 1)

	s.move(0, 1)
	s.awaitError(protocol.CodeSpectator)

	solve(a, givens, sol)
	end := await(s, protocol.TypeState, func(st *protocol.State) bool { return st.Room.Phase == protocol.PhaseFinished })
	assert.Equal(t, sol.String(), end.Room.Solution)
	require.Len(t, end.Room.Players, 1)
	assert.Equal(t, sol.String(), end.Room.Players[0].Board, "boards are shown once the race is over")
	progress := 0
	for _, f := range s.seen {
		assert.NotEqual(t, protocol.TypeMove, f.Type, "spectator saw %s", f.raw)
		if f.Type == protocol.TypeProgress {
			progress++
		}
	}
	assert.Equal(t, 81-givens.Filled(), progress, "one progress event a move")
	assert.False(t, strings.Contains(string(s.seen[0].raw), sol.String()))
}

// TestRoomSnapshotCarriesSE makes a room at each level and joins it: the
// welcome's snapshot has the puzzle's Sudoku Explainer rating, the
// rater's own, within the level's range.
func TestRoomSnapshotCarriesSE(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, d := range engine.Difficulties {
		id := e.createRoom("coop", d.Name)
		w := e.dial("Ann").join(id)
		require.NotNil(t, w.Room)
		assert.Equal(t, d.Name, w.Room.Level)
		want, ok := engine.RateSE(engine.MustParse(w.Room.Givens))
		got := engine.SERating(w.Room.SE*10 + 0.5)
		if ok {
			assert.Equal(t, want, got, "%s: the snapshot's se is the puzzle's rating", d.Name)
		}
		assert.True(t, d.Holds(got, ok), "%s: se %v outside %s", d.Name, w.Room.SE, d.Range())
	}
}
