package room_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
)

// t0 is when every test's fake clock starts.
var t0 = time.Date(2030, time.March, 4, 12, 0, 0, 0, time.UTC)

// generated caches the puzzles the tests generate, one per seed.
var generated sync.Map // seed → func() (engine.Generated, error)

// puzzle is the easy puzzle generated from seed, with its solution.
func puzzle(tb testing.TB, seed uint64) room.Puzzle {
	tb.Helper()
	gen, _ := generated.LoadOrStore(seed, sync.OnceValues(func() (engine.Generated, error) {
		return engine.Generate(engine.GenerateOptions{Level: engine.LevelEasy, Seed: seed})
	}))
	p, err := gen.(func() (engine.Generated, error))()
	require.NoError(tb, err)
	return room.Puzzle{ID: int64(seed), Level: engine.LevelEasy.String(), Givens: p.Givens, Solution: p.Solution}
}

// game is a Game driven by a fake clock: every call passes now. Each time
// its outputs are drained, a restore of it is checked to equal it
// (room.ReplayCheck): one from the state it last asked to have saved and
// the records it logged since.
type game struct {
	*room.Game
	tb    testing.TB
	pz    room.Puzzle
	now   time.Time
	ids   []string // every member that joined, in order
	check *room.ReplayCheck
}

func newGame(tb testing.TB, mode string, cfg room.Config) *game {
	tb.Helper()
	pz := puzzle(tb, 1)
	g, err := room.NewGame(cfg, "r00m", mode, pz, t0)
	require.NoError(tb, err)
	_, eff := g.Drain()
	assert.Equal(tb, []room.Effect{{Save: true}}, eff, "a new room is saved at once")
	return played(tb, g, pz, t0)
}

// played is g, whose state at now was just saved (as a new or restored
// game's is), driven by a fake clock from now and checked against its
// restores; the last check runs as the test ends.
func played(tb testing.TB, g *room.Game, pz room.Puzzle, now time.Time) *game {
	w := &game{Game: g, tb: tb, pz: pz, now: now, check: room.CheckReplay(tb, g, now)}
	tb.Cleanup(func() {
		w.Drain()
		w.check.Done(w.Game, w.now)
	})
	return w
}

// Drain is the game's Drain, and a check of its restore.
func (g *game) Drain() ([]room.Output, []room.Effect) {
	g.tb.Helper()
	out, eff := g.Game.Drain()
	g.check.Step(g.Game, eff, g.now)
	return out, eff
}

// PlayOwn is the game's PlayOwn, before anyone joins: the room's first
// save, once it is set up, is the state a restore starts from.
func (g *game) PlayOwn() {
	g.Game.PlayOwn()
	g.check = room.CheckReplay(g.tb, g.Game, g.now)
}

// PlayDaily is the game's PlayDaily, likewise.
func (g *game) PlayDaily(day string, archive bool) {
	g.Game.PlayDaily(day, archive)
	g.check = room.CheckReplay(g.tb, g.Game, g.now)
}

// DrainRecords is the game's DrainRecords, once the check has them.
func (g *game) DrainRecords() []room.Logged {
	g.check.Take(g.Game)
	return g.Game.DrainRecords()
}

// running is a game whose players (the first hosts) have started and whose
// countdown is over.
func running(tb testing.TB, mode string, cfg room.Config, players ...string) *game {
	tb.Helper()
	g := newGame(tb, mode, cfg)
	for _, id := range players {
		g.join(id)
	}
	g.begin()
	return g
}

// after moves the clock on by d.
func (g *game) after(d time.Duration) { g.now = g.now.Add(d) }

// step is what one call did: its refusal, and the outputs and effects it
// queued.
type step struct {
	Err *protocol.Error
	Out []room.Output
	Eff []room.Effect
}

func (g *game) drained(err *protocol.Error) step {
	out, eff := g.Drain()
	return step{Err: err, Out: out, Eff: eff}
}

// do has member id send msg.
func (g *game) do(id string, msg *protocol.Msg) step {
	return g.drained(g.Handle(g.now, id, msg))
}

// ok has member id send msg, and requires it accepted.
func (g *game) ok(id string, msg *protocol.Msg) step {
	g.tb.Helper()
	s := g.do(id, msg)
	require.Nil(g.tb, s.Err, "%s from %s", msg.Type, id)
	return s
}

// refused has member id send msg and checks that it is refused with code
// and changes nothing anyone can see. Only a conflict is told to the room.
func (g *game) refused(id string, msg *protocol.Msg, code string) step {
	g.tb.Helper()
	before, seq := g.views(), g.Seq()
	s := g.do(id, msg)
	require.NotNil(g.tb, s.Err, "%s from %s should be refused with %s", msg.Type, id, code)
	assert.Equal(g.tb, code, s.Err.Code, s.Err.Message)
	assert.NotEmpty(g.tb, s.Err.Message)
	assert.Equal(g.tb, before, g.views(), "a refused %s changes nothing", msg.Type)
	if code == protocol.CodeUndoStale {
		// The stale entry it drops from the history is told by no event:
		// the saved state keeps it.
		assert.Equal(g.tb, []room.Effect{{Save: true}}, s.Eff)
	} else {
		assert.Empty(g.tb, s.Eff)
	}
	if code != protocol.CodeConflict {
		assert.Empty(g.tb, s.Out, "a refusal is the caller's to send")
		assert.Equal(g.tb, seq, g.Seq())
	}
	return s
}

// views are the snapshots of every member who joined, and an outsider's.
func (g *game) views() map[string]protocol.Snapshot {
	vs := map[string]protocol.Snapshot{"": g.Snapshot("", g.now)}
	for _, id := range g.ids {
		vs[id] = g.Snapshot(id, g.now)
	}
	return vs
}

// arrive is Join with what it queued.
func (g *game) arrive(id string, spectator bool, lastSeq int64) (*protocol.Welcome, []room.Output, step) {
	w, replay, err := g.Join(g.now, id, "Name "+id, spectator, lastSeq)
	if err == nil && !slices.Contains(g.ids, id) {
		g.ids = append(g.ids, id)
	}
	return w, replay, g.drained(err)
}

func (g *game) enter(id string, spectator bool) (*protocol.Welcome, step) {
	g.tb.Helper()
	w, replay, s := g.arrive(id, spectator, 0)
	require.Nil(g.tb, s.Err, "join %s", id)
	require.NotNil(g.tb, w.Room, "a join without last_seq gets a snapshot")
	assert.Empty(g.tb, replay)
	return w, s
}

// join adds player id; watch adds spectator id.
func (g *game) join(id string) *protocol.Welcome {
	g.tb.Helper()
	w, _ := g.enter(id, false)
	return w
}

func (g *game) watch(id string) *protocol.Welcome {
	g.tb.Helper()
	w, _ := g.enter(id, true)
	return w
}

// begin has the host start, and the countdown run out. It returns the
// start and the tick that ended the countdown.
func (g *game) begin() (start, tick step) {
	g.tb.Helper()
	start = g.ok(g.Host(), msg(protocol.TypeStart))
	g.now = one[*protocol.CountdownEvent](g.tb, events(start.Out)).StartsAt
	return start, g.tick()
}

// tick runs the game's clock at now.
func (g *game) tick() step {
	g.Tick(g.now)
	return g.drained(nil)
}

// board is member id's board (the team's in co-op).
func (g *game) board(id string) engine.Grid {
	g.tb.Helper()
	s := g.Snapshot(id, g.now)
	require.NotEmpty(g.tb, s.Board, "%s sees no board", id)
	return engine.MustParse(s.Board)
}

// progress is player id's progress as everyone sees it.
func (g *game) progress(id string) protocol.Progress {
	g.tb.Helper()
	return g.player(id).Progress
}

// mistakes is player id's mistakes as the room counts them, told or not:
// read from the state it saves, which no client sees.
func (g *game) mistakes(id string) int {
	g.tb.Helper()
	for _, p := range g.Save(g.now).Players {
		if p.ID == id {
			require.NotNil(g.tb, p.Progress.Mistakes, "the saved state keeps every count")
			return *p.Progress.Mistakes
		}
	}
	require.Failf(g.tb, "no such player", "%s is not a player", id)
	return 0
}

// told is a count of mistakes as a live game of mode tells it: in co-op as
// it is, in a race not at all (nil).
func told(mode string, n int) *int {
	if mode == room.ModeRace {
		return nil
	}
	return &n
}

func (g *game) player(id string) protocol.PlayerView {
	g.tb.Helper()
	for _, p := range g.Snapshot("", g.now).Players {
		if p.ID == id {
			return p
		}
	}
	require.Failf(g.tb, "no such player", "%s is not a player", id)
	return protocol.PlayerView{}
}

// fill has id clear the wrong digits of their board and place the
// solution's digit in every empty cell but skip. It returns all the moves
// queued.
func (g *game) fill(id string, skip ...int) step {
	g.tb.Helper()
	var all step
	for _, clear := range []bool{true, false} {
		for cell, v := range g.board(id) {
			var s step
			switch {
			case slices.Contains(skip, cell) || v == g.pz.Solution[cell]:
				continue
			case clear && v != 0:
				s = g.ok(id, move(cell, 0))
			case !clear && v == 0:
				s = g.ok(id, move(cell, g.pz.Solution[cell]))
			}
			all.Out = append(all.Out, s.Out...)
			all.Eff = append(all.Eff, s.Eff...)
		}
	}
	return all
}

// find is the first empty cell of board and a digit for which want holds.
func find(tb testing.TB, board engine.Grid, want func(cell int, d uint8) bool) (int, uint8) {
	tb.Helper()
	for cell, v := range board {
		for d := uint8(1); v == 0 && d <= 9; d++ {
			if want(cell, d) {
				return cell, d
			}
		}
	}
	require.FailNow(tb, "no such cell on the board")
	return 0, 0
}

// wrong is an empty cell of id's board and a digit that no peer holds but
// the solution does not have there.
func (g *game) wrong(id string) (int, uint8) {
	g.tb.Helper()
	b := g.board(id)
	return find(g.tb, b, func(cell int, d uint8) bool {
		return d != g.pz.Solution[cell] && b.Conflicts(cell, d).Empty()
	})
}

// clash is an empty cell of id's board and a digit a peer holds.
func (g *game) clash(id string) (int, uint8) {
	g.tb.Helper()
	b := g.board(id)
	return find(g.tb, b, func(cell int, d uint8) bool { return !b.Conflicts(cell, d).Empty() })
}

// open is the first empty cell of id's board.
func (g *game) open(id string) int {
	g.tb.Helper()
	cell, _ := find(g.tb, g.board(id), func(int, uint8) bool { return true })
	return cell
}

// givenCell is the first of the puzzle's givens, blank the first of its
// empty cells.
func (g *game) givenCell() int {
	return slices.IndexFunc(g.pz.Givens[:], func(v uint8) bool { return v != 0 })
}

func (g *game) blank() int { return slices.Index(g.pz.Givens[:], 0) }

// Messages.

func msg(typ string) *protocol.Msg {
	return &protocol.Msg{Type: typ, ID: json.RawMessage(`"c-` + typ + `"`)}
}

func move(cell int, digit uint8) *protocol.Msg {
	m := msg(protocol.TypeMove)
	d := int(digit)
	m.Cell, m.Digit = &cell, &d
	return m
}

func note(kind string, cell, digit int) *protocol.Msg {
	m := msg(protocol.TypeNote)
	m.Cell, m.Digit, m.Kind = &cell, &digit, kind
	return m
}

func cursor(cell int) *protocol.Msg {
	m := msg(protocol.TypeCursor)
	m.Cell = &cell
	return m
}

// Outputs.

// events are the outputs' events, in order.
func events(outs []room.Output) []protocol.Event {
	evs := make([]protocol.Event, len(outs))
	for i := range outs {
		evs[i] = outs[i].Event
	}
	return evs
}

// seen is what member id receives of outs, in order.
func seen(outs []room.Output, id string) []protocol.Event {
	var evs []protocol.Event
	for i := range outs {
		if outs[i].For(id) {
			evs = append(evs, outs[i].Event)
		}
	}
	return evs
}

// ofType is the events of type T.
func ofType[T protocol.Event](evs []protocol.Event) []T {
	var out []T
	for _, ev := range evs {
		if e, ok := ev.(T); ok {
			out = append(out, e)
		}
	}
	return out
}

// one is the one event of type T.
func one[T protocol.Event](tb testing.TB, evs []protocol.Event) T {
	tb.Helper()
	es := ofType[T](evs)
	require.Len(tb, es, 1, "events: %s", kinds(evs))
	return es[0]
}

// kinds are the events' types, for messages and comparisons.
func kinds(evs []protocol.Event) []string {
	ts := make([]string, len(evs))
	for i, ev := range evs {
		ts[i] = typeOf(ev)
	}
	return ts
}

// typeOf and seqOf read an event's header the way a client does: from its
// JSON.
func typeOf(ev protocol.Event) string { return headerOf(ev).Type }

func seqOf(ev protocol.Event) int64 { return headerOf(ev).Seq }

func headerOf(ev protocol.Event) protocol.Header {
	var h protocol.Header
	data, _ := json.Marshal(ev)
	_ = json.Unmarshal(data, &h)
	return h
}

// secret checks that no event of outs tells anyone the solution.
func (g *game) secret(outs []room.Output) {
	g.tb.Helper()
	sol := g.pz.Solution.String()
	for i := range outs {
		data, err := json.Marshal(outs[i].Event)
		require.NoError(g.tb, err)
		assert.NotContains(g.tb, string(data), sol, "event %d gives the solution away", i)
	}
}

func TestJoinFirstPlayerHostsAndOthersAreTold(t *testing.T) {
	g := newGame(t, room.ModeRace, room.Config{})

	wa, sa := g.enter("a", false)
	assert.Equal(t, protocol.You{ID: "a", Name: "Name a", Role: protocol.RolePlayer, Host: true}, wa.You)
	assert.Equal(t, protocol.TypeWelcome, wa.Type)
	assert.Equal(t, int64(1), wa.Seq, "the welcome carries the seq of the join")
	assert.False(t, wa.Resumed)
	assert.Equal(t, "a", g.Host())

	wb, sb := g.enter("b", false)
	assert.False(t, wb.You.Host)
	assert.Equal(t, "a", wb.Room.Host)

	ws, ss := g.enter("s", true)
	assert.Equal(t, protocol.You{ID: "s", Name: "Name s", Role: protocol.RoleSpectator}, ws.You)
	assert.Equal(t, "a", g.Host(), "a spectator never hosts")
	assert.Equal(t, 1, ws.Room.Spectators)
	assert.Empty(t, ws.Room.Board, "a spectator has no board")

	for i, c := range []struct {
		id, role string
		s        step
	}{{"a", protocol.RolePlayer, sa}, {"b", protocol.RolePlayer, sb}, {"s", protocol.RoleSpectator, ss}} {
		require.Len(t, c.s.Out, 1, c.id)
		o := c.s.Out[0]
		assert.Equal(t, room.Output{Skip: c.id, Logged: true, Event: &protocol.PresenceEvent{
			Header: protocol.Header{Type: protocol.TypePresence, Seq: int64(i + 1)},
			Player: c.id, Name: "Name " + c.id, Role: c.role, Status: protocol.PresenceJoined, Host: "a",
		}}, o)
		assert.False(t, o.For(c.id), "the newcomer learns of the room from the welcome")
	}
	assert.Equal(t, 2, g.Players())
	assert.Equal(t, 3, g.Connected())
	snap := g.Snapshot("a", g.now)
	assert.Equal(t, []string{"a", "b"}, playerIDs(snap), "players in the order they joined")
	assert.Equal(t, 1, snap.Spectators)
}

func playerIDs(s protocol.Snapshot) []string {
	ids := make([]string, len(s.Players))
	for i, p := range s.Players {
		ids[i] = p.ID
	}
	return ids
}

func TestJoinRefusals(t *testing.T) {
	tests := []struct {
		name      string
		mode      string
		cfg       room.Config
		setup     func(g *game)
		id        string
		spectator bool
		code      string
	}{
		{
			name: "race counting down", mode: room.ModeRace,
			setup: func(g *game) { g.join("a"); g.ok("a", msg(protocol.TypeStart)) },
			id:    "b", code: protocol.CodeGameStarted,
		},
		{
			name: "race running", mode: room.ModeRace,
			setup: func(g *game) { g.join("a"); g.begin() },
			id:    "b", code: protocol.CodeGameStarted,
		},
		{
			name: "players full", mode: room.ModeCoop, cfg: room.Config{MaxPlayers: 2},
			setup: func(g *game) { g.join("a"); g.join("b") },
			id:    "c", code: protocol.CodeRoomFull,
		},
		{
			name: "spectators full", mode: room.ModeRace, cfg: room.Config{MaxSpectators: 1},
			setup: func(g *game) { g.join("a"); g.watch("s1") },
			id:    "s2", spectator: true, code: protocol.CodeRoomFull,
		},
		{
			name: "spectator twice", mode: room.ModeRace,
			setup: func(g *game) { g.watch("s") },
			id:    "s", spectator: true, code: protocol.CodeAlreadyJoined,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGame(t, tt.mode, tt.cfg)
			tt.setup(g)
			g.Drain()
			before, seq, players, conn := g.views(), g.Seq(), g.Players(), g.Connected()

			w, replay, s := g.arrive(tt.id, tt.spectator, 0)
			require.NotNil(t, s.Err)
			assert.Equal(t, tt.code, s.Err.Code)
			assert.Nil(t, w)
			assert.Nil(t, replay)
			assert.Empty(t, s.Out)
			assert.Equal(t, seq, g.Seq())
			assert.Equal(t, players, g.Players())
			assert.Equal(t, conn, g.Connected())
			assert.Equal(t, before, g.views())
		})
	}
}

func TestJoinAfterStart(t *testing.T) {
	tests := []struct {
		name      string
		mode      string
		spectator bool
		role      string
	}{
		{"race spectator", room.ModeRace, true, protocol.RoleSpectator},
		{"co-op player", room.ModeCoop, false, protocol.RolePlayer},
		{"co-op spectator", room.ModeCoop, true, protocol.RoleSpectator},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := running(t, tt.mode, room.Config{}, "a")
			w, _ := g.enter("late", tt.spectator)
			assert.Equal(t, tt.role, w.You.Role)
			assert.Equal(t, protocol.PhaseRunning, w.Room.Phase)
			assert.Equal(t, g.pz.Givens.String(), w.Room.Givens)
			role, ok := g.Member("late")
			assert.True(t, ok)
			assert.Equal(t, tt.role, role)
		})
	}
}

func TestRejoinReplaysWhatTheMemberMissed(t *testing.T) {
	g := running(t, room.ModeRace, room.Config{}, "a", "b")
	g.watch("s")
	lastSeq := g.Seq()

	g.after(time.Second)
	g.Disconnect(g.now, "b")
	var missed []room.Output
	away := g.drained(nil)
	missed = append(missed, away.Out...)
	cell := g.open("a")
	missed = append(missed, g.ok("a", move(cell, g.pz.Solution[cell])).Out...)
	missed = append(missed, g.ok("a", note(protocol.NoteCorner, g.open("a"), 4)).Out...)
	c, d := g.clash("a")
	missed = append(missed, g.refused("a", move(c, d), protocol.CodeConflict).Out...)
	missed = append(missed, g.ok("a", msg(protocol.TypeHint)).Out...)
	missed = append(missed, g.ok("a", msg(protocol.TypePing)).Out...)
	g.Disconnect(g.now, "s")
	missed = append(missed, g.drained(nil).Out...)

	var want []room.Output
	for _, o := range missed {
		if o.Logged && o.For("b") {
			want = append(want, o)
		}
	}
	require.Equal(t,
		[]string{protocol.TypeProgress, protocol.TypeError, protocol.TypeHint, protocol.TypeProgress, protocol.TypePresence},
		kinds(events(want)), "b misses a's progress, the room's view of the conflict and hint, and s leaving")

	w, replay, back := g.arrive("b", false, lastSeq)
	require.Nil(t, back.Err)
	assert.True(t, w.Resumed)
	assert.Nil(t, w.Room, "a resumed member gets no snapshot")
	assert.Equal(t, len(want), w.Replay)
	assert.Equal(t, want, replay, "exactly the logged events for b after last_seq, in order")
	assert.Equal(t, g.Seq(), w.Seq)
	for i, o := range replay {
		assert.Greater(t, seqOf(o.Event), lastSeq)
		if i > 0 {
			assert.Greater(t, seqOf(o.Event), seqOf(replay[i-1].Event), "replay in seq order")
		}
	}
	hint := ofType[*protocol.HintEvent](events(replay))[0]
	assert.Empty(t, hint.Explanation, "b is replayed the hint as b saw it")

	require.Len(t, back.Out, 1)
	assert.Equal(t, room.Output{Skip: "b", Logged: true, Event: &protocol.PresenceEvent{
		Header: protocol.Header{Type: protocol.TypePresence, Seq: g.Seq()},
		Player: "b", Name: "Name b", Role: protocol.RolePlayer, Status: protocol.PresenceBack, Host: "a",
	}}, back.Out[0])
	assert.True(t, g.player("b").Connected)
	assert.True(t, g.Deadline().IsZero(), "b's place is no longer on a timer")
}

func TestRejoinSnapshot(t *testing.T) {
	tests := []struct {
		name    string
		replay  int
		lastSeq func(g *game, before int64) int64
		resumed bool
	}{
		{"no last seq", 0, func(*game, int64) int64 { return 0 }, false},
		{"last seq from the future", 0, func(g *game, _ int64) int64 { return g.Seq() + 1 }, false},
		{"last seq older than the buffer", 4, func(_ *game, before int64) int64 { return before }, false},
		{"last seq just past the buffer's edge", 4, func(g *game, _ int64) int64 { return g.Seq() - 5 }, false},
		{"last seq at the buffer's edge", 4, func(g *game, _ int64) int64 { return g.Seq() - 4 }, true},
		{"last seq is the latest", 4, func(g *game, _ int64) int64 { return g.Seq() }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := running(t, room.ModeCoop, room.Config{ReplayEvents: tt.replay}, "a", "b")
			before := g.Seq()
			g.Disconnect(g.now, "b")
			for range 3 {
				cell := g.open("a")
				g.ok("a", move(cell, g.pz.Solution[cell])) // a move and a progress event
			}
			g.Drain()
			lastSeq, seq := tt.lastSeq(g, before), g.Seq()

			w, replay, s := g.arrive("b", false, lastSeq)
			require.Nil(t, s.Err)
			assert.Equal(t, tt.resumed, w.Resumed)
			assert.Equal(t, len(replay), w.Replay)
			if tt.resumed {
				assert.Nil(t, w.Room)
				assert.Len(t, replay, int(seq-lastSeq), "every event after last_seq")
				return
			}
			assert.Empty(t, replay)
			require.NotNil(t, w.Room)
			assert.Equal(t, g.Snapshot("b", g.now), *w.Room)
			assert.Equal(t, g.board("a").String(), w.Room.Board, "the snapshot has the shared board")
		})
	}
}

// TestNewcomerWithALastSeqGetsASnapshot: only a player coming back
// resumes; a stray last_seq from someone new, player or spectator, does not
// stand in for the snapshot they need.
func TestNewcomerWithALastSeqGetsASnapshot(t *testing.T) {
	for _, spectator := range []bool{false, true} {
		g := running(t, room.ModeCoop, room.Config{}, "a")
		w, replay, s := g.arrive("c", spectator, g.Seq())
		require.Nil(t, s.Err)
		assert.False(t, w.Resumed)
		assert.Empty(t, replay)
		require.NotNil(t, w.Room)
		assert.Equal(t, g.Snapshot("c", g.now), *w.Room)
	}
}

// TestRejoinGroupCutByTheBuffer: when the buffer's oldest event is the
// tail of a group (one event, a view per member), a member whose view was
// cut gets a snapshot, not a replay without it.
func TestRejoinGroupCutByTheBuffer(t *testing.T) {
	tests := []struct {
		replay  int
		resumed bool
	}{
		{replay: 2, resumed: false}, // the buffer holds b's and c's views of the state, not a's
		{replay: 3, resumed: true},
	}
	for _, tt := range tests {
		g := newGame(t, room.ModeRace, room.Config{ReplayEvents: tt.replay})
		g.join("a")
		g.join("b")
		g.join("c")
		start, _ := g.begin()
		require.Equal(t, protocol.PhaseRunning, g.Phase())

		// a's connection died unnoticed; a's new one joins from the countdown.
		w, replay, s := g.arrive("a", false, seqOf(start.Out[0].Event))
		require.Nil(t, s.Err)
		assert.Empty(t, s.Out, "a never left")
		assert.Equal(t, tt.resumed, w.Resumed, "buffer of %d", tt.replay)
		if tt.resumed {
			st := one[*protocol.State](t, events(replay))
			assert.Equal(t, protocol.PhaseRunning, st.Room.Phase)
			continue
		}
		require.NotNil(t, w.Room, "buffer of %d", tt.replay)
		assert.Equal(t, protocol.PhaseRunning, w.Room.Phase)
	}
}

func TestStartRefusals(t *testing.T) {
	tests := []struct {
		name  string
		setup func(g *game)
		id    string
		code  string
	}{
		{"not the host", func(*game) {}, "b", protocol.CodeNotHost},
		{"a spectator", func(*game) {}, "s", protocol.CodeSpectator},
		{"counting down", func(g *game) { g.ok("a", msg(protocol.TypeStart)) }, "a", protocol.CodeAlreadyStart},
		{"running", func(g *game) { g.begin() }, "a", protocol.CodeAlreadyStart},
		{"not a member", func(*game) {}, "x", protocol.CodeNotJoined},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGame(t, room.ModeRace, room.Config{})
			g.join("a")
			g.join("b")
			g.watch("s")
			tt.setup(g)
			g.refused(tt.id, msg(protocol.TypeStart), tt.code)
		})
	}
}

func TestPlayBeforeStartIsRefused(t *testing.T) {
	for _, mode := range []string{room.ModeRace, room.ModeCoop} {
		g := newGame(t, mode, room.Config{})
		g.join("a")
		cell := g.blank()
		plays := []*protocol.Msg{
			move(cell, g.pz.Solution[cell]), note(protocol.NoteCorner, cell, 1),
			msg(protocol.TypeHint), msg(protocol.TypeUndo), msg(protocol.TypeRedo),
		}
		for _, counting := range []bool{false, true} {
			if counting {
				g.ok("a", msg(protocol.TypeStart))
			}
			for _, m := range plays {
				g.refused("a", m, protocol.CodeNotStarted)
			}
		}
	}
}

func TestStartCountsDownThenRuns(t *testing.T) {
	tests := []struct {
		mode          string
		hiddenGivens  bool
		spectatorSees bool
	}{
		{room.ModeRace, true, false},
		{room.ModeCoop, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			g := newGame(t, tt.mode, room.Config{Countdown: 5 * time.Second})
			g.join("a")
			g.join("b")
			g.watch("s")
			givens := g.pz.Givens.String()
			for id, s := range g.views() {
				assert.Equal(t, tt.hiddenGivens, s.Givens == "", "%s's givens while waiting", id)
				assert.Nil(t, s.StartsAt)
			}

			g.after(time.Minute)
			seq := g.Seq()
			s := g.ok("a", msg(protocol.TypeStart))
			assert.Empty(t, s.Eff)
			require.Len(t, s.Out, 1)
			assert.Equal(t, room.Output{Logged: true, Event: &protocol.CountdownEvent{
				Header:  protocol.Header{Type: protocol.TypeCountdown, Seq: seq + 1},
				Seconds: 5, StartsAt: g.now.Add(5 * time.Second), Now: g.now,
			}}, s.Out[0])
			assert.Equal(t, protocol.PhaseCountdown, g.Phase())
			startsAt := g.now.Add(5 * time.Second)
			assert.Equal(t, startsAt, g.Deadline())
			for id, snap := range g.views() {
				assert.Equal(t, tt.hiddenGivens, snap.Givens == "", "%s's givens counting down", id)
				if tt.hiddenGivens {
					assert.Empty(t, snap.Board, "%s's board counting down", id)
				} else {
					assert.Equal(t, givens, snap.Board, "%s's board counting down", id)
				}
				assert.Equal(t, &startsAt, snap.StartsAt)
			}

			g.now = startsAt.Add(-time.Millisecond)
			assert.Equal(t, step{}, g.tick(), "nothing is due before the countdown ends")
			assert.Equal(t, protocol.PhaseCountdown, g.Phase())

			g.now = startsAt
			s = g.tick()
			assert.Equal(t, protocol.PhaseRunning, g.Phase())
			assert.Equal(t, []room.Effect{{Save: true}}, s.Eff)
			assert.True(t, g.Deadline().IsZero())
			require.Len(t, s.Out, 3, "a state for each member")
			for i, id := range []string{"a", "b", "s"} {
				o := s.Out[i]
				assert.Equal(t, id, o.To)
				assert.True(t, o.Logged)
				st, ok := o.Event.(*protocol.State)
				require.True(t, ok, "%T", o.Event)
				assert.Equal(t, seq+2, st.Seq, "one event, a view for each")
				assert.Equal(t, g.Snapshot(id, g.now), st.Room)
				assert.Equal(t, protocol.PhaseRunning, st.Room.Phase)
				assert.Equal(t, givens, st.Room.Givens)
				assert.Equal(t, &startsAt, st.Room.StartedAt)
				assert.Empty(t, st.Room.Solution)
				if id == "s" && !tt.spectatorSees {
					assert.Empty(t, st.Room.Board, "a race's spectator sees no board")
				} else {
					assert.Equal(t, givens, st.Room.Board)
				}
			}
		})
	}
}

func TestMoveRefusals(t *testing.T) {
	tests := []struct {
		name string
		mode string
		id   string
		msg  func(g *game) *protocol.Msg
		code string
	}{
		{"race given", room.ModeRace, "a", func(g *game) *protocol.Msg { return move(g.givenCell(), 1) }, protocol.CodeGivenCell},
		{"co-op given", room.ModeCoop, "a", func(g *game) *protocol.Msg { return move(g.givenCell(), 0) }, protocol.CodeGivenCell},
		{"race spectator", room.ModeRace, "s", func(g *game) *protocol.Msg { return move(g.open("a"), 1) }, protocol.CodeSpectator},
		{"co-op spectator", room.ModeCoop, "s", func(g *game) *protocol.Msg { return move(g.open("a"), 1) }, protocol.CodeSpectator},
		{"wrong room", room.ModeRace, "a", func(g *game) *protocol.Msg {
			m := move(g.open("a"), 1)
			m.Room = "elsewhere"
			return m
		}, protocol.CodeWrongRoom},
		{"join again", room.ModeRace, "a", func(*game) *protocol.Msg {
			m := msg(protocol.TypeJoin)
			m.Room = "r00m"
			return m
		}, protocol.CodeAlreadyJoined},
		{"cursor in a race", room.ModeRace, "a", func(g *game) *protocol.Msg { return cursor(0) }, protocol.CodeCoopOnly},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := running(t, tt.mode, room.Config{}, "a", "b")
			g.watch("s")
			g.refused(tt.id, tt.msg(g), tt.code)
		})
	}
}

// TestRaceConflictKeepsTheMoversDigitsPrivate: when the clash is with the
// racer's own digit, the others learn who and where, not the racer's cells.
func TestRaceConflictKeepsTheMoversDigitsPrivate(t *testing.T) {
	g := running(t, room.ModeRace, room.Config{}, "a", "b")
	g.watch("s")
	placed := g.open("a")
	d := g.pz.Solution[placed]
	g.ok("a", move(placed, d))
	b := g.board("a")
	cell, _ := find(t, b, func(c int, x uint8) bool {
		return x == d && engine.Row(c) == engine.Row(placed) && b.Conflicts(c, x).Cells(nil)[0] == placed
	})
	own := b.Conflicts(cell, d).Cells(nil)
	s := g.refused("a", move(cell, d), protocol.CodeConflict)
	assert.Equal(t, own, s.Err.Cells, "the mover hears every clash")
	var givens []int
	for _, p := range own {
		if g.pz.Givens[p] != 0 {
			givens = append(givens, p)
		}
	}
	for _, id := range []string{"b", "s"} {
		evs := seen(s.Out, id)
		require.Len(t, evs, 1)
		other := evs[0].(*protocol.ErrorEvent)
		assert.Equal(t, givens, other.Cells, "%s hears only the clashing givens", id)
		assert.NotContains(t, other.Cells, placed)
		assert.NotContains(t, other.Message, engine.CellName(placed))
	}
}

func TestMoveConflict(t *testing.T) {
	for _, mode := range []string{room.ModeRace, room.ModeCoop} {
		t.Run(mode, func(t *testing.T) {
			g := running(t, mode, room.Config{}, "a", "b")
			g.watch("s")
			cell, d := g.clash("a")
			b := g.board("a")
			peers := b.Conflicts(cell, d).Cells(nil)
			require.NotEmpty(t, peers)
			seq := g.Seq()
			m := move(cell, d)

			s := g.refused("a", m, protocol.CodeConflict)
			assert.Equal(t, &cell, s.Err.Cell)
			assert.Equal(t, peers, s.Err.Cells)
			assert.Equal(t, seq+1, g.Seq(), "a conflict is one logged event")
			assert.Equal(t, protocol.Progress{Empty: g.progress("a").Empty, Mistakes: told(mode, 0)}, g.progress("a"), "a refused digit is no mistake")
			assert.Zero(t, g.mistakes("a"), "a refused digit is no mistake")
			require.Len(t, s.Out, 2, "the mover's view and the room's")
			mine, theirs := s.Out[0], s.Out[1]
			assert.Equal(t, room.Output{To: "a", Logged: true, Event: &protocol.ErrorEvent{
				Header: protocol.Header{Type: protocol.TypeError, Seq: seq + 1},
				ID:     m.ID, Code: protocol.CodeConflict, Message: s.Err.Message,
				Player: "a", Cell: &cell, Cells: peers, Digit: int(d),
			}}, mine, "the mover's view answers their message")
			other, ok := theirs.Event.(*protocol.ErrorEvent)
			require.True(t, ok, "%T", theirs.Event)
			assert.Equal(t, "a", theirs.Skip)
			assert.Empty(t, theirs.To)
			assert.True(t, theirs.Logged)
			assert.Equal(t, seq+1, other.Seq, "two views of one event")
			assert.Nil(t, other.ID, "the mover's message id is theirs")
			assert.Equal(t, "a", other.Player)
			assert.Equal(t, protocol.CodeConflict, other.Code)
			assert.Equal(t, &cell, other.Cell)
			assert.Equal(t, peers, other.Cells, "clash() picks a digit a given holds: nothing private")
			if mode == room.ModeCoop {
				assert.Equal(t, int(d), other.Digit, "the shared board's digit is everyone's")
			} else {
				assert.Zero(t, other.Digit, "a racer's digit is their own")
			}
			assert.Contains(t, other.Message, "Name a")
			assert.NotEqual(t, s.Err.Message, other.Message)
			for _, id := range []string{"b", "s"} {
				assert.Equal(t, []protocol.Event{other}, seen(s.Out, id))
			}
		})
	}
}

func TestMove(t *testing.T) {
	type play struct {
		cell  int
		digit uint8
	}
	tests := []struct {
		name  string
		setup func(g *game) play // a's move before the one tested
		play  func(g *game, before play) play
		want  protocol.Progress // a's, Empty and Mistakes aside
		// mistakes is a's count, told in co-op and not in a race.
		mistakes int
	}{
		{
			name: "the solution's digit",
			play: func(g *game, _ play) play { c := g.open("a"); return play{c, g.pz.Solution[c]} },
			want: protocol.Progress{Filled: 1, Moves: 1},
		},
		{
			name:     "a wrong digit no peer holds is a mistake",
			play:     func(g *game, _ play) play { c, d := g.wrong("a"); return play{c, d} },
			want:     protocol.Progress{Filled: 1, Moves: 1},
			mistakes: 1,
		},
		{
			name:  "clearing a digit",
			setup: func(g *game) play { c := g.open("a"); return play{c, g.pz.Solution[c]} },
			play:  func(_ *game, before play) play { return play{before.cell, 0} },
			want:  protocol.Progress{Filled: 0, Moves: 2},
		},
		{
			name:  "a wrong digit over a right one",
			setup: func(g *game) play { c := g.open("a"); return play{c, g.pz.Solution[c]} },
			play: func(g *game, before play) play {
				b := g.board("a")
				b[before.cell] = 0
				_, d := find(g.tb, b, func(cell int, d uint8) bool {
					return cell == before.cell && d != g.pz.Solution[cell] && b.Conflicts(cell, d).Empty()
				})
				return play{before.cell, d}
			},
			want:     protocol.Progress{Filled: 1, Moves: 2},
			mistakes: 1,
		},
	}
	for _, mode := range []string{room.ModeRace, room.ModeCoop} {
		for _, tt := range tests {
			t.Run(mode+"/"+tt.name, func(t *testing.T) {
				g := running(t, mode, room.Config{}, "a", "b")
				g.watch("s")
				var before play
				if tt.setup != nil {
					before = tt.setup(g)
					g.ok("a", move(before.cell, before.digit))
				}
				p := tt.play(g, before)
				board, seq := g.board("a"), g.Seq()
				m := move(p.cell, p.digit)

				s := g.ok("a", m)
				board[p.cell] = p.digit
				assert.Equal(t, board, g.board("a"))
				tt.want.Empty = g.progress("a").Empty
				tt.want.Mistakes = told(mode, tt.mistakes)
				assert.Equal(t, tt.want, g.progress("a"))
				assert.Equal(t, tt.mistakes, g.mistakes("a"), "counted, told or not")
				assert.Equal(t, protocol.Progress{Empty: tt.want.Empty, Mistakes: told(mode, 0)}, g.progress("b"), "b has not played")
				assert.Empty(t, s.Eff)
				g.secret(s.Out)

				require.Len(t, s.Out, 2)
				mv, pr := s.Out[0], s.Out[1]
				assert.Equal(t, &protocol.MoveEvent{
					Header: protocol.Header{Type: protocol.TypeMove, Seq: seq + 1},
					ID:     m.ID, Player: "a", Cell: p.cell, Digit: int(p.digit),
				}, mv.Event, "the move as placed, and nothing of the solution")
				assert.Equal(t, &protocol.ProgressEvent{
					Header: protocol.Header{Type: protocol.TypeProgress, Seq: seq + 2},
					Player: "a", Progress: tt.want,
				}, pr.Event)
				assert.True(t, mv.Logged && pr.Logged)
				assert.Equal(t, room.Output{Logged: true, Event: pr.Event}, pr, "progress is for everyone")
				if mode == room.ModeRace {
					assert.Equal(t, room.Output{To: "a", Logged: true, Event: mv.Event}, mv, "a racer's digits are theirs")
				} else {
					assert.Equal(t, room.Output{Logged: true, Event: mv.Event}, mv, "the team sees every digit")
				}
			})
		}
	}
}

func TestMoveSameDigitIsEchoed(t *testing.T) {
	g := running(t, room.ModeRace, room.Config{}, "a", "b")
	cell := g.open("a")
	g.ok("a", move(cell, g.pz.Solution[cell]))
	progress, seq := g.progress("a"), g.Seq()

	for _, d := range []uint8{g.pz.Solution[cell], 0} {
		if d == 0 {
			cell = g.open("a") // clearing an empty cell
		}
		m := move(cell, d)
		s := g.ok("a", m)
		assert.Equal(t, []room.Output{{To: "a", Event: &protocol.MoveEvent{
			Header: protocol.Header{Type: protocol.TypeMove, Seq: seq},
			ID:     m.ID, Player: "a", Cell: cell, Digit: int(d),
		}}}, s.Out, "an unlogged echo under the current seq")
		assert.Equal(t, seq, g.Seq())
		assert.Equal(t, progress, g.progress("a"), "not a move")
	}
}

func TestMistakesNeverRevealTheDigit(t *testing.T) {
	g := running(t, room.ModeRace, room.Config{}, "a", "b")
	g.watch("s")
	var outs []room.Output
	for range 5 {
		cell, d := g.wrong("a")
		s := g.ok("a", move(cell, d))
		outs = append(outs, s.Out...)
		for _, ev := range seen(s.Out, "a") {
			switch ev := ev.(type) {
			case *protocol.MoveEvent:
				assert.Equal(t, int(d), ev.Digit, "the digit a placed")
				assert.Equal(t, cell, ev.Cell)
			case *protocol.ProgressEvent:
			default:
				assert.Failf(t, "unexpected event", "%T", ev)
			}
		}
	}
	assert.Equal(t, 5, g.mistakes("a"))
	g.secret(outs)
	snap := g.Snapshot("a", g.now)
	assert.Empty(t, snap.Solution)
	for cell, v := range engine.MustParse(snap.Board) {
		if g.pz.Givens[cell] == 0 && v != 0 {
			assert.NotEqual(t, g.pz.Solution[cell], v, "the board shows what a placed, not the fix")
		}
	}
}

func TestPlacementClearsPeerNotes(t *testing.T) {
	for _, mode := range []string{room.ModeRace, room.ModeCoop} {
		t.Run(mode, func(t *testing.T) {
			g := running(t, mode, room.Config{}, "a", "b")
			b := g.board("a")
			cell := g.open("a")
			d := int(g.pz.Solution[cell])
			var peers []int
			for _, p := range engine.Peers[cell] {
				if b[p] == 0 && len(peers) < 3 {
					peers = append(peers, int(p))
				}
			}
			require.Len(t, peers, 3)
			other := d%9 + 1
			g.ok("a", note(protocol.NoteCorner, peers[0], d))
			g.ok("a", note(protocol.NoteCorner, peers[0], other))
			g.ok("a", note(protocol.NoteCentre, peers[1], d))
			g.ok("b", note(protocol.NoteCentre, peers[2], other))
			g.ok("a", note(protocol.NoteCorner, cell, other))

			s := g.ok("a", move(cell, uint8(d)))
			mv := one[*protocol.MoveEvent](t, events(s.Out))
			assert.Equal(t, peers[:2], mv.Cleared, "the peers whose notes held the digit")
			want := []protocol.CellNotes{{Cell: peers[0], Corner: []int{other}}}
			if mode == room.ModeCoop {
				want = append(want, protocol.CellNotes{Cell: peers[2], Centre: []int{other}})
			}
			assert.Equal(t, want, g.Snapshot("a", g.now).Notes, "the cell's own notes go too")
		})
	}
}

func TestNotes(t *testing.T) {
	type mark struct {
		kind  string
		digit int
	}
	tests := []struct {
		name   string
		marks  []mark // sent in order; the last is checked
		corner []int
		centre []int
	}{
		{"corner on", []mark{{protocol.NoteCorner, 3}}, []int{3}, nil},
		{"corner off", []mark{{protocol.NoteCorner, 3}, {protocol.NoteCorner, 3}}, nil, nil},
		{"centre beside corner", []mark{{protocol.NoteCorner, 3}, {protocol.NoteCentre, 7}, {protocol.NoteCentre, 2}}, []int{3}, []int{2, 7}},
		{"digit 0 clears the corner", []mark{{protocol.NoteCorner, 3}, {protocol.NoteCorner, 5}, {protocol.NoteCentre, 7}, {protocol.NoteCorner, 0}}, nil, []int{7}},
		{"digit 0 clears the centre", []mark{{protocol.NoteCorner, 3}, {protocol.NoteCentre, 7}, {protocol.NoteCentre, 0}}, []int{3}, nil},
	}
	for _, mode := range []string{room.ModeRace, room.ModeCoop} {
		for _, tt := range tests {
			t.Run(mode+"/"+tt.name, func(t *testing.T) {
				g := running(t, mode, room.Config{}, "a", "b")
				g.watch("s")
				cell := g.open("a")
				var s step
				for _, mk := range tt.marks {
					s = g.ok("a", note(mk.kind, cell, mk.digit))
				}
				cn := protocol.CellNotes{Cell: cell, Corner: tt.corner, Centre: tt.centre}
				require.Len(t, s.Out, 1)
				last := tt.marks[len(tt.marks)-1]
				want := room.Output{Logged: true, Event: &protocol.NoteEvent{
					Header: protocol.Header{Type: protocol.TypeNote, Seq: g.Seq()},
					ID:     note(last.kind, cell, last.digit).ID, Player: "a", CellNotes: cn,
				}}
				var wantNotes []protocol.CellNotes
				if tt.corner != nil || tt.centre != nil {
					wantNotes = []protocol.CellNotes{cn}
				}
				assert.Equal(t, wantNotes, g.Snapshot("a", g.now).Notes)
				if mode == room.ModeRace {
					want.To = "a"
					assert.Empty(t, g.Snapshot("b", g.now).Notes, "a racer's notes are theirs")
				} else {
					assert.Equal(t, wantNotes, g.Snapshot("b", g.now).Notes, "the team shares notes")
					assert.Equal(t, wantNotes, g.Snapshot("s", g.now).Notes)
				}
				assert.Equal(t, want, s.Out[0])
				assert.Equal(t, protocol.Progress{Empty: g.progress("a").Empty, Mistakes: told(mode, 0)}, g.progress("a"), "notes are not moves")
			})
		}
	}
}

func TestNoteRefusals(t *testing.T) {
	for _, mode := range []string{room.ModeRace, room.ModeCoop} {
		g := running(t, mode, room.Config{}, "a", "b")
		g.watch("s")
		cell := g.open("a")
		g.ok("a", note(protocol.NoteCentre, cell, 4))
		g.ok("a", move(cell, g.pz.Solution[cell]))
		g.refused("a", note(protocol.NoteCorner, g.givenCell(), 1), protocol.CodeGivenCell)
		g.refused("a", note(protocol.NoteCorner, cell, 1), protocol.CodeCellFilled)
		g.refused("a", note(protocol.NoteCentre, cell, 0), protocol.CodeCellFilled)
		g.refused("s", note(protocol.NoteCorner, g.open("a"), 1), protocol.CodeSpectator)
		if mode == room.ModeCoop {
			g.refused("b", note(protocol.NoteCorner, cell, 1), protocol.CodeCellFilled)
		} else {
			g.ok("b", note(protocol.NoteCorner, cell, 1)) // b's own board is empty there
		}
	}
}

func TestHint(t *testing.T) {
	tests := []struct {
		mode    string
		penalty time.Duration
		frozen  time.Duration // how long the asker is frozen
	}{
		{room.ModeRace, 15 * time.Second, 15 * time.Second},
		{room.ModeRace, 4 * time.Second, 4 * time.Second},
		{room.ModeRace, 0, 0}, // no freeze
		{room.ModeCoop, 4 * time.Second, 0},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%v", tt.mode, tt.penalty), func(t *testing.T) {
			g := running(t, tt.mode, room.Config{HintPenalty: tt.penalty}, "a", "b")
			g.watch("s")
			g.after(time.Second)
			seq := g.Seq()
			m := msg(protocol.TypeHint)

			s := g.ok("a", m)
			views := 2 // the asker's and the others'
			if tt.mode == room.ModeCoop {
				views = 1
			}
			require.Len(t, s.Out, views+1, "the hint's views and a's progress")
			full, ok := s.Out[0].Event.(*protocol.HintEvent)
			require.True(t, ok, "%T", s.Out[0].Event)
			assert.Equal(t, seq+1, full.Seq)
			assert.Equal(t, m.ID, full.ID)
			assert.Equal(t, "a", full.Player)
			assert.Equal(t, 1, full.Hints)
			assert.NotEmpty(t, full.Technique)
			assert.NotEmpty(t, full.TechniqueName)
			assert.NotEmpty(t, full.Explanation)
			assert.NotEmpty(t, full.Cells)
			require.NotEmpty(t, full.Place, "an easy puzzle's first step places a digit")
			for _, p := range full.Place {
				assert.Equal(t, int(g.pz.Solution[p.Cell]), p.Digit, "the hint is right")
			}
			assert.Empty(t, full.Wrong)

			var until *time.Time
			if tt.frozen > 0 {
				u := g.now.Add(tt.frozen)
				until = &u
			}
			assert.Equal(t, until, full.FrozenUntil)
			assert.Equal(t, until, g.player("a").FrozenUntil)
			assert.Nil(t, g.player("b").FrozenUntil)

			if tt.mode == room.ModeCoop {
				assert.Equal(t, room.Output{Logged: true, Event: full}, s.Out[0], "the team sees the whole hint")
			} else {
				assert.Equal(t, room.Output{To: "a", Logged: true, Event: full}, s.Out[0], "the asker sees the hint")
				assert.Equal(t, room.Output{Skip: "a", Logged: true, Event: &protocol.HintEvent{
					Header: protocol.Header{Type: protocol.TypeHint, Seq: seq + 1},
					Player: "a", Hints: 1, FrozenUntil: until,
				}}, s.Out[1], "the others learn who asked, not the technique or the cells")
			}
			pr := s.Out[views]
			assert.Equal(t, room.Output{Logged: true, Event: &protocol.ProgressEvent{
				Header: protocol.Header{Type: protocol.TypeProgress, Seq: seq + 2},
				Player: "a", Progress: protocol.Progress{Empty: g.progress("a").Empty, Mistakes: told(tt.mode, 0), Hints: 1},
			}}, pr, "hints count in progress")
			g.secret(s.Out)
		})
	}
}

func TestHintFreezesARacer(t *testing.T) {
	g := running(t, room.ModeRace, room.Config{HintPenalty: 10 * time.Second}, "a", "b")
	placed := g.open("a")
	g.ok("a", move(placed, g.pz.Solution[placed]))
	g.ok("a", msg(protocol.TypeUndo))
	g.ok("a", msg(protocol.TypeRedo))
	hint := one[*protocol.HintEvent](t, seen(g.ok("a", msg(protocol.TypeHint)).Out, "a"))
	require.NotNil(t, hint.FrozenUntil)
	until := *hint.FrozenUntil
	cell := g.open("a")

	g.now = until.Add(-time.Millisecond)
	g.refused("a", move(cell, g.pz.Solution[cell]), protocol.CodeFrozen)
	g.refused("a", msg(protocol.TypeHint), protocol.CodeFrozen)
	g.ok("a", note(protocol.NoteCorner, cell, 1)) // notes are not frozen
	g.ok("a", msg(protocol.TypeUndo))             // clearing a digit is not either
	g.refused("a", msg(protocol.TypeRedo), protocol.CodeFrozen)
	g.ok("b", move(cell, g.pz.Solution[cell])) // nor is anyone else

	g.now = until
	assert.Nil(t, g.player("a").FrozenUntil)
	g.ok("a", move(cell, g.pz.Solution[cell]))
	s := g.ok("a", msg(protocol.TypeHint))
	assert.Equal(t, 2, one[*protocol.ProgressEvent](t, events(s.Out)).Hints)
	assert.Equal(t, 2, g.progress("a").Hints)
}

func TestUndoRedo(t *testing.T) {
	for _, mode := range []string{room.ModeRace, room.ModeCoop} {
		t.Run(mode, func(t *testing.T) {
			g := running(t, mode, room.Config{}, "a", "b")
			g.refused("a", msg(protocol.TypeUndo), protocol.CodeNothingToUndo)
			g.refused("a", msg(protocol.TypeRedo), protocol.CodeNothingToRedo)

			first := g.open("a")
			g.ok("a", move(first, g.pz.Solution[first]))
			wrongCell, d := g.wrong("a")
			g.ok("a", move(wrongCell, d))
			g.refused("b", msg(protocol.TypeUndo), protocol.CodeNothingToUndo) // a's moves are a's

			for _, c := range []struct {
				typ   string
				cell  int
				digit uint8
			}{
				{protocol.TypeUndo, wrongCell, 0},
				{protocol.TypeUndo, first, 0},
				{protocol.TypeRedo, first, g.pz.Solution[first]},
				{protocol.TypeRedo, wrongCell, d},
				{protocol.TypeUndo, wrongCell, 0},
			} {
				m := msg(c.typ)
				s := g.ok("a", m)
				mv := one[*protocol.MoveEvent](t, events(s.Out))
				assert.Equal(t, &protocol.MoveEvent{
					Header: protocol.Header{Type: protocol.TypeMove, Seq: g.Seq() - 1},
					ID:     m.ID, Player: "a", Cell: c.cell, Digit: int(c.digit),
					Undo: c.typ == protocol.TypeUndo, Redo: c.typ == protocol.TypeRedo,
				}, mv)
				assert.Equal(t, c.digit, g.board("a")[c.cell])
			}
			p := g.progress("a")
			assert.Equal(t, 1, p.Filled)
			assert.Equal(t, 7, p.Moves, "undo and redo are moves")
			assert.Equal(t, 1, g.mistakes("a"), "undo does not take a mistake back, nor redo make another")

			// A new move clears what could be redone.
			other := g.open("a")
			g.ok("a", move(other, g.pz.Solution[other]))
			g.refused("a", msg(protocol.TypeRedo), protocol.CodeNothingToRedo)
			g.ok("a", msg(protocol.TypeUndo))
			assert.Equal(t, uint8(0), g.board("a")[other])
			g.ok("a", msg(protocol.TypeUndo))
			assert.Equal(t, uint8(0), g.board("a")[first])
			g.refused("a", msg(protocol.TypeUndo), protocol.CodeNothingToUndo)
		})
	}
}

func TestUndoStaleInCoop(t *testing.T) {
	g := running(t, room.ModeCoop, room.Config{}, "a", "b")
	kept := g.open("a")
	g.ok("a", move(kept, g.pz.Solution[kept]))
	cell, d := g.wrong("a")
	g.ok("a", move(cell, d))
	g.ok("b", move(cell, g.pz.Solution[cell]))
	assert.Equal(t, 1, g.progress("a").Filled, "b's digit replaced one of a's")
	assert.Equal(t, 1, g.progress("b").Filled)

	s := g.refused("a", msg(protocol.TypeUndo), protocol.CodeUndoStale)
	assert.Equal(t, &cell, s.Err.Cell)
	assert.Equal(t, g.pz.Solution[cell], g.board("a")[cell], "b's digit stays")

	// The stale move is dropped: the next undo takes back the one before.
	mv := one[*protocol.MoveEvent](t, events(g.ok("a", msg(protocol.TypeUndo)).Out))
	assert.Equal(t, kept, mv.Cell)
	assert.True(t, mv.Undo)
	g.refused("a", msg(protocol.TypeUndo), protocol.CodeNothingToUndo)

	// b's own undo is fine, and gives the cell back to a's digit.
	mv = one[*protocol.MoveEvent](t, events(g.ok("b", msg(protocol.TypeUndo)).Out))
	assert.Equal(t, protocol.MoveEvent{Header: mv.Header, Player: "b", Cell: cell, Digit: int(d), Undo: true, ID: mv.ID}, *mv)
}

func TestUndoIntoAConflict(t *testing.T) {
	g := running(t, room.ModeCoop, room.Config{}, "a", "b")
	cell, d := g.wrong("a")
	g.ok("a", move(cell, d))
	g.ok("a", move(cell, 0))
	// b puts d in a peer of cell: a's undo of the clear would conflict.
	b := g.board("b")
	var peer int
	for _, p := range engine.Peers[cell] {
		if b[p] == 0 && b.Conflicts(int(p), d).Empty() {
			peer = int(p)
			break
		}
	}
	require.NotZero(t, peer)
	g.ok("b", move(peer, d))

	s := g.refused("a", msg(protocol.TypeUndo), protocol.CodeConflict)
	assert.Equal(t, []int{peer}, s.Err.Cells)
	g.ok("b", move(peer, 0))
	mv := one[*protocol.MoveEvent](t, events(g.ok("a", msg(protocol.TypeUndo)).Out))
	assert.Equal(t, int(d), mv.Digit, "the conflict kept the move to undo")
}

// results is the one effect's results.
func results(tb testing.TB, s step) []room.Result {
	tb.Helper()
	require.Len(tb, s.Eff, 1)
	require.NotEmpty(tb, s.Eff[0].Results)
	return s.Eff[0].Results
}

// saved is ResultsSaved with what it queued.
func (g *game) saved(rs []room.Result) step {
	g.ResultsSaved(g.now, rs)
	return g.drained(nil)
}

// states checks that outs end with one state for each of ids, all under
// one seq, and returns them.
func states(tb testing.TB, outs []room.Output, ids ...string) []*protocol.State {
	tb.Helper()
	require.GreaterOrEqual(tb, len(outs), len(ids))
	outs = outs[len(outs)-len(ids):]
	var sts []*protocol.State
	for i, id := range ids {
		st, ok := outs[i].Event.(*protocol.State)
		require.True(tb, ok, "%T", outs[i].Event)
		assert.Equal(tb, id, outs[i].To)
		assert.True(tb, outs[i].Logged)
		assert.Equal(tb, seqOf(outs[0].Event), st.Seq, "one event, a view for each")
		sts = append(sts, st)
	}
	return sts
}

func TestRaceFinish(t *testing.T) {
	g := running(t, room.ModeRace, room.Config{HintPenalty: 0}, "a", "b")
	g.watch("s")
	startedAt := *g.Snapshot("", g.now).StartedAt
	var live []room.Output

	g.after(90 * time.Second)
	s := g.fill("a")
	live = append(live, s.Out...)
	assert.NotContains(t, kinds(events(s.Out)), protocol.TypeFinish, "no finish before the result is stored")
	rs := results(t, s)
	assert.Equal(t, []room.Result{{
		GameID: "r00m", PlayerID: "a", PuzzleID: g.pz.ID, Mode: room.ModeRace, Level: "easy",
		Rank: 1, Elapsed: 90 * time.Second, Score: room.Score("easy", 90*time.Second, 0, 0), FinishedAt: g.now,
		// The test fills the board in one instant: no person does.
		Held: room.HoldRegular,
	}}, rs)
	assert.Equal(t, g.now.Sub(startedAt), rs[0].Elapsed)
	assert.Zero(t, g.player("a").Rank, "no rank is told before it is stored")
	g.refused("a", move(g.blank(), 0), protocol.CodeFinished)
	g.refused("a", msg(protocol.TypeHint), protocol.CodeFinished)
	assert.Equal(t, protocol.PhaseRunning, g.Phase())

	g.after(time.Second)
	s = g.saved(rs)
	live = append(live, s.Out...)
	require.Len(t, s.Out, 1)
	assert.Equal(t, room.Output{Logged: true, Event: &protocol.FinishEvent{
		Header: protocol.Header{Type: protocol.TypeFinish, Seq: g.Seq()},
		Player: "a", Rank: 1, ElapsedMS: 90_000, Score: rs[0].Score,
	}}, s.Out[0])
	assert.Empty(t, s.Eff)
	assert.Equal(t, protocol.PhaseRunning, g.Phase(), "b still races")
	assert.Equal(t, 1, g.player("a").Rank)
	assert.Equal(t, int64(90_000), g.player("a").ElapsedMS)
	g.refused("a", move(g.blank(), 0), protocol.CodeFinished)

	// b makes a mistake and asks for a hint on the way.
	cell, d := g.wrong("b")
	live = append(live, g.ok("b", move(cell, d)).Out...)
	live = append(live, g.ok("b", msg(protocol.TypeHint)).Out...)
	g.after(30 * time.Second)
	s = g.fill("b")
	live = append(live, s.Out...)
	rs = results(t, s)
	require.Len(t, rs, 1)
	assert.Equal(t, "b", rs[0].PlayerID)
	assert.Equal(t, 2, rs[0].Rank)
	assert.Equal(t, 1, rs[0].Mistakes)
	assert.Equal(t, 1, rs[0].Hints)
	assert.Equal(t, 121*time.Second, rs[0].Elapsed)
	assert.Equal(t, room.Score("easy", 121*time.Second, 1, 1), rs[0].Score)
	g.secret(live)
	for _, ev := range seen(live, "s") {
		assert.NotContains(t, []string{protocol.TypeMove, protocol.TypeNote}, typeOf(ev), "a spectator sees no digits")
	}

	s = g.saved(rs)
	assert.Equal(t, []room.Effect{{Save: true}}, s.Eff)
	assert.Equal(t, protocol.PhaseFinished, g.Phase())
	require.Len(t, s.Out, 4, "b's finish, then a state for each member")
	fin, ok := s.Out[0].Event.(*protocol.FinishEvent)
	require.True(t, ok)
	assert.Equal(t, "b", fin.Player)
	assert.Equal(t, 2, fin.Rank)
	assert.Equal(t, fin.Seq+1, seqOf(s.Out[1].Event))
	sol := g.pz.Solution.String()
	for _, st := range states(t, s.Out, "a", "b", "s") {
		assert.Equal(t, protocol.PhaseFinished, st.Room.Phase)
		assert.Equal(t, sol, st.Room.Solution)
		assert.Equal(t, &g.now, st.Room.FinishedAt)
		require.Len(t, st.Room.Players, 2)
		for i, p := range st.Room.Players {
			assert.Equal(t, sol, p.Board, "every board is shown at the end")
			assert.Equal(t, i+1, p.Rank)
		}
	}
	for _, id := range []string{"a", "b"} {
		g.refused(id, move(g.blank(), 0), protocol.CodeFinished)
	}
	g.refused("b", msg(protocol.TypeHint), protocol.CodeFinished)
}

func TestCoopFinish(t *testing.T) {
	g := running(t, room.ModeCoop, room.Config{}, "a", "b")
	g.watch("s")
	last := g.open("a")
	cell, d := g.wrong("b")
	g.ok("b", move(cell, d))
	g.ok("b", move(cell, 0))
	g.ok("a", msg(protocol.TypeHint))
	g.after(2 * time.Minute)
	g.fill("a", last)

	s := g.ok("b", move(last, g.pz.Solution[last]))
	assert.Equal(t, protocol.PhaseFinished, g.Phase(), "the board is done: no more moves")
	assert.Equal(t, []string{protocol.TypeMove, protocol.TypeProgress}, kinds(events(s.Out)), "no finish before the results are stored")
	rs := results(t, s)
	elapsed := 2 * time.Minute
	want := []room.Result{
		{PlayerID: "a", Hints: 1, Score: room.Score("easy", elapsed, 0, 1)},
		{PlayerID: "b", Mistakes: 1, Score: room.Score("easy", elapsed, 1, 0)},
	}
	for i := range want {
		want[i].GameID, want[i].PuzzleID, want[i].Mode, want[i].Level = "r00m", g.pz.ID, room.ModeCoop, "easy"
		want[i].Rank, want[i].Elapsed, want[i].FinishedAt = 1, elapsed, g.now
	}
	assert.Equal(t, want, rs, "a result for every player")
	g.refused("a", move(g.blank(), 0), protocol.CodeFinished)
	g.refused("a", msg(protocol.TypeRematch), protocol.CodeNotFinished)

	s = g.saved(rs)
	assert.Equal(t, []room.Effect{{Save: true}}, s.Eff)
	require.Len(t, s.Out, 4, "the team's finish, then a state for each member")
	assert.Equal(t, room.Output{Logged: true, Event: &protocol.FinishEvent{
		Header:    protocol.Header{Type: protocol.TypeFinish, Seq: g.Seq() - 1},
		ElapsedMS: elapsed.Milliseconds(), Mistakes: 1, Hints: 1, Score: room.Score("easy", elapsed, 1, 1),
	}}, s.Out[0])
	for _, st := range states(t, s.Out, "a", "b", "s") {
		assert.Equal(t, protocol.PhaseFinished, st.Room.Phase)
		assert.Equal(t, g.pz.Solution.String(), st.Room.Solution)
		assert.Equal(t, g.pz.Solution.String(), st.Room.Board)
		for _, p := range st.Room.Players {
			assert.Equal(t, 1, p.Rank)
			assert.Equal(t, elapsed.Milliseconds(), p.ElapsedMS)
		}
	}
}

// finished is a race of a and b, watched by s, that a has finished (the
// result stored); with both, b has too and the race is over.
func finished(tb testing.TB, both bool) *game {
	tb.Helper()
	g := running(tb, room.ModeRace, room.Config{}, "a", "b")
	g.watch("s")
	players := []string{"a"}
	if both {
		players = append(players, "b")
	}
	for _, id := range players {
		g.saved(results(tb, g.fill(id)))
	}
	return g
}

func TestRematchRefusals(t *testing.T) {
	tests := []struct {
		name  string
		setup func(tb testing.TB) *game
		id    string
		code  string
	}{
		{"waiting", func(tb testing.TB) *game { g := newGame(tb, room.ModeRace, room.Config{}); g.join("a"); return g }, "a", protocol.CodeNotFinished},
		{"nobody has finished", func(tb testing.TB) *game { return running(tb, room.ModeRace, room.Config{}, "a", "b") }, "a", protocol.CodeNotFinished},
		{"co-op running", func(tb testing.TB) *game { return running(tb, room.ModeCoop, room.Config{}, "a", "b") }, "a", protocol.CodeNotFinished},
		{"result not stored", func(tb testing.TB) *game {
			g := running(tb, room.ModeRace, room.Config{}, "a", "b")
			g.fill("a")
			return g
		}, "a", protocol.CodeNotFinished},
		{"not the host", func(tb testing.TB) *game { return finished(tb, true) }, "b", protocol.CodeNotHost},
		{"a spectator", func(tb testing.TB) *game { return finished(tb, true) }, "s", protocol.CodeSpectator},
		{"preparing", func(tb testing.TB) *game {
			g := finished(tb, true)
			g.ok("a", msg(protocol.TypeRematch))
			return g
		}, "a", protocol.CodePreparing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := tt.setup(t)
			g.refused(tt.id, msg(protocol.TypeRematch), tt.code)
		})
	}
}

func TestRematch(t *testing.T) {
	for _, both := range []bool{true, false} {
		t.Run(fmt.Sprintf("everyone finished %v", both), func(t *testing.T) {
			g := finished(t, both)
			seq := g.Seq()

			s := g.ok("a", msg(protocol.TypeRematch))
			assert.Equal(t, []room.Effect{{Save: true}, {NewRound: 2}}, s.Eff, "the old round is saved finished")
			assert.Equal(t, protocol.PhasePreparing, g.Phase())
			views := ofType[*protocol.State](events(s.Out))
			require.Len(t, views, len(s.Out), "only state events")
			require.NotEmpty(t, views)
			for i, st := range views {
				assert.NotEmpty(t, s.Out[i].To, "each member gets their own view")
				assert.Equal(t, seq+1, st.Seq, "one event, many views")
				assert.Equal(t, protocol.PhasePreparing, st.Room.Phase)
				assert.Equal(t, 1, st.Room.Round)
				assert.Empty(t, st.Room.Givens)
				assert.Empty(t, st.Room.Solution, "the old solution is not shown while the next is fetched")
				assert.Equal(t, []string{"a", "b"}, playerIDs(st.Room))
			}
			g.refused("b", move(g.blank(), 0), protocol.CodePreparing)
			g.refused("a", msg(protocol.TypeStart), protocol.CodePreparing)

			g.after(time.Second)
			next := puzzle(t, 2)
			require.NotEqual(t, g.pz.Givens, next.Givens)
			g.Rematch(g.now, 2, next)
			g.pz = next
			s = g.drained(nil)
			assert.Equal(t, []room.Effect{{Save: true}}, s.Eff)
			assert.Equal(t, protocol.PhaseWaiting, g.Phase())
			assert.Equal(t, 2, g.Round())
			assert.Equal(t, "r00m.2", g.GameID())
			assert.Equal(t, "r00m", g.ID())
			assert.Equal(t, next, g.Puzzle())
			assert.Equal(t, 2, g.Players(), "the players stay")
			assert.Equal(t, "a", g.Host())
			empty := engine.NumCells - next.Givens.Filled()
			for _, st := range states(t, s.Out, "a", "b", "s") {
				assert.Equal(t, protocol.PhaseWaiting, st.Room.Phase)
				assert.Equal(t, 2, st.Room.Round)
				assert.Empty(t, st.Room.Givens, "the new race's puzzle is hidden until it starts")
				assert.Empty(t, st.Room.Board)
				assert.Empty(t, st.Room.Solution)
				assert.Nil(t, st.Room.StartedAt)
				assert.Nil(t, st.Room.FinishedAt)
				for _, p := range st.Room.Players {
					assert.Equal(t, protocol.PlayerView{ID: p.ID, Name: "Name " + p.ID, Connected: true, Progress: protocol.Progress{Empty: empty}}, p)
				}
			}

			g.begin()
			for _, id := range []string{"a", "b"} {
				assert.Equal(t, next.Givens, g.board(id), "%s starts afresh", id)
				g.refused(id, msg(protocol.TypeUndo), protocol.CodeNothingToUndo)
			}
			cell := g.open("b")
			g.ok("b", move(cell, next.Solution[cell]))
			assert.Equal(t, protocol.Progress{Filled: 1, Empty: empty, Moves: 1}, g.progress("b"))
			res := results(t, g.fill("a"))
			assert.Equal(t, "r00m.2", res[0].GameID)
			assert.Equal(t, next.ID, res[0].PuzzleID)
			assert.Equal(t, 1, res[0].Rank, "ranks start again")
		})
	}
}

func TestRematchFailed(t *testing.T) {
	for _, both := range []bool{true, false} {
		g := finished(t, both)
		finishedAt := g.Snapshot("", g.now).FinishedAt
		g.ok("a", msg(protocol.TypeRematch))
		g.after(time.Second)

		g.RematchFailed(g.now)
		s := g.drained(nil)
		assert.Equal(t, []room.Effect{{Save: true}}, s.Eff, "the finished game is saved again")
		assert.Equal(t, protocol.PhaseFinished, g.Phase(), "back to the game that was")
		assert.Equal(t, 1, g.Round())
		assert.Equal(t, "r00m", g.GameID())
		require.Len(t, s.Out, 4, "a state for each member, and an error for the host")
		for _, st := range states(t, s.Out[:3], "a", "b", "s") {
			assert.Equal(t, protocol.PhaseFinished, st.Room.Phase)
			assert.Equal(t, g.pz.Solution.String(), st.Room.Solution)
			if both {
				assert.Equal(t, finishedAt, st.Room.FinishedAt, "the race's own finish")
			} else {
				assert.Equal(t, &g.now, st.Room.FinishedAt, "the race ends here")
			}
		}
		e, ok := s.Out[3].Event.(*protocol.ErrorEvent)
		require.True(t, ok, "%T", s.Out[3].Event)
		assert.Equal(t, "a", s.Out[3].To)
		assert.Equal(t, protocol.CodeUnavailable, e.Code)
		assert.Equal(t, seqOf(s.Out[0].Event)+1, e.Seq)

		// The host may try again.
		assert.Equal(t, []room.Effect{{Save: true}, {NewRound: 2}}, g.ok("a", msg(protocol.TypeRematch)).Eff)
	}
}

func TestReconnectWindow(t *testing.T) {
	tests := []struct {
		name     string
		away     []string // in order, a second apart: the first's window runs out
		nextHost string
	}{
		{"the host's place passes to the next to have joined", []string{"a"}, "b"},
		{"a connected player hosts before an away one", []string{"a", "b"}, "c"},
		{"a player leaving keeps the host", []string{"b", "a"}, "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGame(t, room.ModeCoop, room.Config{ReconnectWindow: 30 * time.Second})
			for _, id := range []string{"a", "b", "c"} {
				g.join(id)
			}
			until := map[string]time.Time{}
			for _, id := range tt.away {
				g.after(time.Second)
				seq := g.Seq()
				g.Disconnect(g.now, id)
				until[id] = g.now.Add(30 * time.Second)
				s := g.drained(nil)
				u := until[id]
				assert.Equal(t, []room.Output{{Skip: id, Logged: true, Event: &protocol.PresenceEvent{
					Header: protocol.Header{Type: protocol.TypePresence, Seq: seq + 1},
					Player: id, Name: "Name " + id, Role: protocol.RolePlayer, Status: protocol.PresenceAway, Host: "a", Until: &u,
				}}}, s.Out)
				assert.False(t, g.player(id).Connected)
			}
			assert.Equal(t, until[tt.away[0]], g.Deadline(), "the first window to run out")
			assert.Equal(t, 3, g.Players(), "away players keep their place")

			gone := tt.away[0]
			g.now = until[gone].Add(-time.Nanosecond)
			assert.Equal(t, step{}, g.tick())
			g.now = until[gone]
			seq := g.Seq()
			s := g.tick()
			require.Len(t, s.Out, 1)
			assert.Equal(t, room.Output{Skip: gone, Logged: true, Event: &protocol.PresenceEvent{
				Header: protocol.Header{Type: protocol.TypePresence, Seq: seq + 1},
				Player: gone, Name: "Name " + gone, Role: protocol.RolePlayer, Status: protocol.PresenceLeft, Host: tt.nextHost,
			}}, s.Out[0])
			assert.Equal(t, tt.nextHost, g.Host())
			assert.Equal(t, 2, g.Players())
			_, ok := g.Member(gone)
			assert.False(t, ok)
			assert.NotContains(t, playerIDs(g.Snapshot("", g.now)), gone)
		})
	}
}

func TestLeavingEndsARaceTheOthersFinished(t *testing.T) {
	g := running(t, room.ModeRace, room.Config{ReconnectWindow: 10 * time.Second}, "a", "b")
	g.saved(results(t, g.fill("a")))
	g.Disconnect(g.now, "b")
	g.Drain()
	assert.Equal(t, protocol.PhaseRunning, g.Phase(), "b may come back")

	g.after(10 * time.Second)
	s := g.tick()
	assert.Equal(t, protocol.PhaseFinished, g.Phase())
	assert.Equal(t, []room.Effect{{Save: true}}, s.Eff)
	require.Len(t, s.Out, 2)
	assert.Equal(t, protocol.PresenceLeft, s.Out[0].Event.(*protocol.PresenceEvent).Status)
	st := states(t, s.Out, "a")[0]
	assert.Equal(t, g.pz.Solution.String(), st.Room.Solution)
}

func TestLeave(t *testing.T) {
	g := newGame(t, room.ModeRace, room.Config{})
	g.join("a")
	g.join("b")
	g.watch("s")
	s := g.ok("a", msg(protocol.TypeLeave))
	left := one[*protocol.PresenceEvent](t, events(s.Out))
	assert.Equal(t, protocol.PresenceLeft, left.Status)
	assert.Equal(t, "b", left.Host)
	assert.Equal(t, "b", g.Host())

	// A spectator who drops is gone at once.
	g.Disconnect(g.now, "s")
	s = g.drained(nil)
	assert.Equal(t, []room.Output{{Skip: "s", Logged: true, Event: &protocol.PresenceEvent{
		Header: protocol.Header{Type: protocol.TypePresence, Seq: g.Seq()},
		Player: "s", Name: "Name s", Role: protocol.RoleSpectator, Status: protocol.PresenceLeft, Host: "b",
	}}}, s.Out)
	_, ok := g.Member("s")
	assert.False(t, ok)
	assert.True(t, g.Deadline().IsZero())

	// The last player leaving leaves no host; the next to join hosts.
	g.ok("b", msg(protocol.TypeLeave))
	assert.Empty(t, g.Host())
	assert.True(t, g.join("c").You.Host)
}

func TestSpectatorsCannotPlay(t *testing.T) {
	for _, mode := range []string{room.ModeRace, room.ModeCoop} {
		g := running(t, mode, room.Config{}, "a")
		g.watch("s")
		cell := g.open("a")
		for _, m := range []*protocol.Msg{
			move(cell, g.pz.Solution[cell]), move(cell, 0), note(protocol.NoteCorner, cell, 2),
			msg(protocol.TypeHint), msg(protocol.TypeUndo), msg(protocol.TypeRedo),
			msg(protocol.TypeStart), msg(protocol.TypeRematch), cursor(cell),
		} {
			g.refused("s", m, protocol.CodeSpectator)
		}
	}
}

// TestSpectatorsSeeNoDigitsOfARace plays a race through and checks every
// event a spectator receives (and the snapshots they would get) until the
// end for any digit of a board, a note or the solution.
func TestSpectatorsSeeNoDigitsOfARace(t *testing.T) {
	g := running(t, room.ModeRace, room.Config{HintPenalty: 0}, "a", "b")
	g.watch("s")
	var outs []room.Output
	play := func(s step) { outs = append(outs, s.Out...) }
	for _, id := range []string{"a", "b"} {
		cell, d := g.wrong(id)
		play(g.ok(id, move(cell, d)))
		play(g.ok(id, msg(protocol.TypeHint)))
		play(g.ok(id, note(protocol.NoteCentre, g.open(id), 5)))
		c, d := g.clash(id)
		play(g.refused(id, move(c, d), protocol.CodeConflict))
		play(g.ok(id, msg(protocol.TypeUndo)))
		play(g.ok(id, msg(protocol.TypeRedo)))
		play(g.ok(id, msg(protocol.TypeHint)))
	}
	play(g.ok("a", msg(protocol.TypePing)))
	snaps := []protocol.Snapshot{g.Snapshot("s", g.now)}
	play(g.saved(results(t, g.fill("a"))))
	snaps = append(snaps, g.Snapshot("s", g.now))
	b := g.fill("b")
	snaps = append(snaps, g.Snapshot("s", g.now))
	play(b)

	watched := seen(outs, "s")
	assert.Contains(t, kinds(watched), protocol.TypeProgress, "a spectator follows the race")
	assert.Contains(t, kinds(watched), protocol.TypeHint)
	assert.Contains(t, kinds(watched), protocol.TypeFinish)
	for _, ev := range watched {
		assert.NotContains(t, []string{protocol.TypeMove, protocol.TypeNote, protocol.TypePong}, typeOf(ev))
		data, err := json.Marshal(ev)
		require.NoError(t, err)
		for _, key := range []string{`"board"`, `"digit"`, `"place"`, `"eliminate"`, `"explanation"`, `"wrong"`, `"notes"`, `"solution"`, `"givens"`} {
			assert.NotContains(t, string(data), key, "%s", data)
		}
	}
	for _, snap := range snaps {
		assert.Empty(t, snap.Board)
		assert.Empty(t, snap.Notes)
		assert.Empty(t, snap.Solution)
		for _, p := range snap.Players {
			assert.Empty(t, p.Board)
		}
	}

	// At the end everything is shown.
	fin := g.saved(results(t, b))
	st := states(t, fin.Out, "a", "b", "s")[2]
	assert.Equal(t, g.pz.Solution.String(), st.Room.Solution)
	assert.Equal(t, g.pz.Givens.String(), st.Room.Givens)
	for _, p := range st.Room.Players {
		assert.Equal(t, g.pz.Solution.String(), p.Board)
	}
}

// TestSeq plays a session of every kind of event and checks the sequence
// numbers: logged events take the next number (the views of one event
// share it, each for other members), replies carry the latest.
func TestSeq(t *testing.T) {
	for _, mode := range []string{room.ModeRace, room.ModeCoop} {
		t.Run(mode, func(t *testing.T) {
			g := newGame(t, mode, room.Config{HintPenalty: 0})
			ids := []string{"a", "b", "s"}
			var outs []room.Output
			play := func(s step) { outs = append(outs, s.Out...) }
			for _, id := range ids {
				_, s := g.enter(id, id == "s")
				play(s)
			}
			start, tick := g.begin()
			play(start)
			play(tick)
			for _, id := range []string{"a", "b"} {
				cell, d := g.wrong(id)
				play(g.ok(id, move(cell, d)))
				play(g.ok(id, move(cell, d))) // an echo
				play(g.ok(id, msg(protocol.TypePing)))
				play(g.ok(id, note(protocol.NoteCorner, g.open(id), 3)))
				c, d := g.clash(id)
				play(g.refused(id, move(c, d), protocol.CodeConflict))
				play(g.ok(id, msg(protocol.TypeHint)))
				play(g.ok(id, msg(protocol.TypeUndo)))
				if mode == room.ModeCoop {
					play(g.ok(id, cursor(40)))
				}
			}
			play(g.ok("s", msg(protocol.TypePing)))
			g.Disconnect(g.now, "b")
			play(g.drained(nil))
			_, _, back := g.arrive("b", false, 0)
			play(back)
			s := g.fill("a")
			play(s)
			play(g.saved(results(t, s)))

			require.NotEmpty(t, outs)
			var seq int64
			last := map[string]int64{}
			var group []room.Output // the views of the current event
			replies := 0
			for i, o := range outs {
				ev := seqOf(o.Event)
				if !o.Logged {
					replies++
					assert.Equal(t, seq, ev, "output %d (%s): a reply carries the latest seq", i, typeOf(o.Event))
					continue
				}
				switch ev {
				case seq + 1:
					seq, group = ev, nil
				case seq:
					require.NotEmpty(t, group, "output %d", i)
					assert.Equal(t, typeOf(group[0].Event), typeOf(o.Event), "views of one event")
				default:
					require.Failf(t, "seq out of order", "output %d (%s) has seq %d after %d", i, typeOf(o.Event), ev, seq)
				}
				group = append(group, o)
				for _, id := range ids {
					if o.For(id) {
						assert.Greater(t, ev, last[id], "output %d: %s gets one view of each event", i, id)
						last[id] = ev
					}
				}
			}
			assert.Equal(t, g.Seq(), seq)
			assert.Positive(t, replies)
		})
	}
}

func TestReplies(t *testing.T) {
	g := running(t, room.ModeCoop, room.Config{}, "a", "b")
	before := g.Seq()
	g.watch("s")
	seq := g.Seq()
	for _, id := range []string{"a", "s"} {
		g.after(time.Second)
		m := msg(protocol.TypePing)
		s := g.ok(id, m)
		assert.Equal(t, []room.Output{{To: id, Event: &protocol.Pong{
			Header: protocol.Header{Type: protocol.TypePong, Seq: seq}, ID: m.ID, Now: g.now,
		}}}, s.Out)
	}
	s := g.ok("b", cursor(17))
	assert.Equal(t, []room.Output{{Skip: "b", Event: &protocol.CursorEvent{
		Header: protocol.Header{Type: protocol.TypeCursor, Seq: seq}, Player: "b", Cell: 17,
	}}}, s.Out)
	assert.Equal(t, seq, g.Seq(), "replies take no seq")

	// Nor are they replayed.
	w, replay, _ := g.arrive("a", false, before)
	require.True(t, w.Resumed)
	assert.Equal(t, []string{protocol.TypePresence}, kinds(events(replay)), "s joined, and nothing else was logged")
}

// TestCoopPlayerBackAfterLeaving: a co-op player who left and joins again
// is credited with their digits still on the board.
func TestCoopPlayerBackAfterLeaving(t *testing.T) {
	g := running(t, room.ModeCoop, room.Config{}, "a", "b")
	first := g.open("b")
	g.ok("b", move(first, g.pz.Solution[first]))
	second := g.open("b")
	g.ok("b", move(second, g.pz.Solution[second]))
	g.ok("b", msg(protocol.TypeLeave))
	w := g.join("b")
	assert.Equal(t, 2, g.progress("b").Filled)
	assert.Equal(t, g.board("a").String(), w.Room.Board)

	s := g.ok("a", move(first, 0))
	assert.Equal(t, 1, g.progress("b").Filled)
	assert.Equal(t, []*protocol.ProgressEvent{
		{Header: protocol.Header{Type: protocol.TypeProgress, Seq: g.Seq()}, Player: "b", Progress: g.progress("b")},
	}, ofType[*protocol.ProgressEvent](events(s.Out))[1:], "b is told of the digit b lost")
}

func TestAdmits(t *testing.T) {
	g := newGame(t, room.ModeRace, room.Config{MaxPlayers: 2, MaxSpectators: 1})
	assert.Nil(t, g.Admits("new", false))
	g.join("a")
	g.join("b")
	assert.Equal(t, protocol.CodeRoomFull, g.Admits("new", false).Code)
	assert.Nil(t, g.Admits("new", true))
	g.watch("s")
	assert.Equal(t, protocol.CodeRoomFull, g.Admits("new", true).Code)
	g.Leave(g.now, "b")
	assert.Nil(t, g.Admits("new", false))
	g.begin()
	assert.Equal(t, protocol.CodeGameStarted, g.Admits("new", false).Code, "a race takes players only before its start")
}

// A player who leaves while their finish is being stored stays a member,
// away, until it is: a save meanwhile keeps the finish to store
// (Saved.Unstored), so a restart would store it, and once stored they go.
func TestLeavingWhileTheFinishIsStoredKeepsIt(t *testing.T) {
	for _, mode := range []string{room.ModeRace, room.ModeCoop} {
		t.Run(mode, func(t *testing.T) {
			g := running(t, mode, room.Config{}, "a", "b")
			s := g.fill("a")
			var rs []room.Result
			for _, e := range s.Eff {
				rs = append(rs, e.Results...)
			}
			require.NotEmpty(t, rs, "the finish asks to be stored")
			g.Leave(g.now, "a")
			_, _ = g.Drain()

			saved := g.Save(g.now)
			assert.True(t, saved.Unstored(), "the save keeps the finish to store")
			var kept bool
			for _, p := range saved.Players {
				kept = kept || p.ID == "a" && p.Unstored
			}
			assert.True(t, kept, "the leaver is saved with their unstored finish")

			g.ResultsSaved(g.now, rs)
			_, _ = g.Drain()
			_, stillThere := g.Member("a")
			assert.False(t, stillThere, "once stored, the leaver is gone")
			assert.False(t, g.Save(g.now).Unstored())
		})
	}
}
