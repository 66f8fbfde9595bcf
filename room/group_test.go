package room_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
)

// groupWait is the wait the group tests' rooms are made with.
const groupWait = 20 * time.Second

// Group is the game's Group, before anyone joins (as PlayOwn).
func (g *game) Group(roster ...string) {
	g.Game.Group(roster, g.now.Add(groupWait))
	g.check = room.CheckReplay(g.tb, g.Game, g.now)
}

// AllowBerserk is the game's AllowBerserk, likewise.
func (g *game) AllowBerserk() {
	g.Game.AllowBerserk()
	g.check = room.CheckReplay(g.tb, g.Game, g.now)
}

// group is a race room made for the roster.
func group(tb testing.TB, roster ...string) *game {
	g := newGame(tb, room.ModeRace, room.Config{})
	g.Group(roster...)
	return g
}

// runningGroup is a group race whose roster has all joined and whose
// countdown has run out.
func runningGroup(t *testing.T, roster ...string) *game {
	g := group(t, roster...)
	for _, p := range roster {
		g.join(p)
	}
	cd := g.Snapshot("", g.now).StartsAt
	require.NotNil(t, cd)
	g.now = *cd
	g.tick()
	return g
}

func TestGroupStartsOnceAllAreIn(t *testing.T) {
	g := group(t, "a", "b", "c")
	at := g.now.Add(groupWait)
	snap := g.Snapshot("", g.now)
	assert.Equal(t, []string{"a", "b", "c"}, snap.Roster)
	require.NotNil(t, snap.StartsBy)
	assert.Equal(t, at, *snap.StartsBy)
	assert.True(t, g.Deadline().IsZero(), "nothing is due while nobody is in")

	g.join("a")
	assert.Equal(t, at, g.Deadline(), "with a player in, the wait's end is due")
	s := g.refused("a", msg(protocol.TypeStart), protocol.CodeStartsItself)
	assert.Contains(t, s.Err.Message, "3 players")

	_, _, st := g.arrive("x", false, 0)
	require.NotNil(t, st.Err, "a player the room is not for")
	assert.Equal(t, protocol.CodeNotInvited, st.Err.Code)
	assert.Empty(t, st.Out)
	assert.Equal(t, protocol.CodeNotInvited, g.Admits("x", false).Code)
	assert.Nil(t, g.Admits("b", false))
	g.watch("x") // anyone watches

	g.after(5 * time.Second)
	g.join("b")
	assert.Equal(t, protocol.PhaseWaiting, g.Phase())
	g.after(time.Second)
	_, join := g.enter("c", false)
	cd := one[*protocol.CountdownEvent](t, events(join.Out))
	assert.Equal(t, g.now.Add(room.DefaultConfig().Countdown), cd.StartsAt, "the last one in starts the countdown")
	assert.Equal(t, protocol.PhaseCountdown, g.Phase())
	snap = g.Snapshot("a", g.now)
	assert.Nil(t, snap.StartsBy, "once started, nothing waits")
	assert.Equal(t, []string{"a", "b", "c"}, snap.Roster)
	g.refused("a", msg(protocol.TypeStart), protocol.CodeAlreadyStart)

	g.now = cd.StartsAt
	g.tick()
	assert.Equal(t, protocol.PhaseRunning, g.Phase())
	g.ok("c", move(g.blank(), g.pz.Solution[g.blank()]))
}

func TestGroupStartsAfterTheWaitWithThoseIn(t *testing.T) {
	g := group(t, "a", "b")
	g.join("a")
	g.after(groupWait - time.Second)
	assert.Empty(t, g.tick().Out, "not yet")
	assert.Equal(t, protocol.PhaseWaiting, g.Phase())
	g.after(time.Second)
	cd := one[*protocol.CountdownEvent](t, events(g.tick().Out))
	assert.Equal(t, protocol.PhaseCountdown, g.Phase())
	g.now = cd.StartsAt
	g.tick()
	require.Equal(t, protocol.PhaseRunning, g.Phase())
	started := g.Snapshot("", g.now).StartedAt

	// A player of the roster still gets their place, late: their clock
	// is the race's.
	g.after(30 * time.Second)
	w := g.join("b")
	require.NotNil(t, w.Room)
	assert.Equal(t, protocol.RolePlayer, w.You.Role)
	assert.Equal(t, started, w.Room.StartedAt)
	assert.NotEmpty(t, w.Room.Givens, "the late player gets the puzzle")
	g.ok("b", move(g.blank(), g.pz.Solution[g.blank()]))
	_, _, st := g.arrive("x", false, 0)
	require.NotNil(t, st.Err)
	assert.Equal(t, protocol.CodeNotInvited, st.Err.Code)
}

func TestGroupNobodyCameInTime(t *testing.T) {
	g := group(t, "a", "b")
	g.after(time.Minute)
	assert.Empty(t, g.tick().Out)
	assert.Equal(t, protocol.PhaseWaiting, g.Phase(), "an empty room does not start")
	_, join := g.enter("b", false)
	one[*protocol.CountdownEvent](t, events(join.Out))
	assert.Equal(t, protocol.PhaseCountdown, g.Phase(), "the first one in after the wait starts it")
}

func TestGroupRematchIsTheHosts(t *testing.T) {
	g := runningGroup(t, "a", "b")
	g.saved(g.fill("a").Eff[0].Results)
	g.saved(g.fill("b").Eff[0].Results)
	require.Equal(t, protocol.PhaseFinished, g.Phase())
	g.refused("b", msg(protocol.TypeRematch), protocol.CodeNotHost)
	g.ok("a", msg(protocol.TypeRematch))
	g.Rematch(g.now, 2, puzzle(t, 2))
	g.Drain()
	assert.Nil(t, g.Snapshot("", g.now).StartsBy, "a rematch waits for its host")
	g.ok("a", msg(protocol.TypeStart))
	_, _, st := g.arrive("x", false, 0)
	require.NotNil(t, st.Err, "the room is still the group's")
	assert.Equal(t, protocol.CodeNotInvited, st.Err.Code)
}

func TestGroupSurvivesARestore(t *testing.T) {
	g := group(t, "a", "b")
	g.join("a")
	back, saved := g.restored(room.Config{})
	assert.Equal(t, []string{"a", "b"}, saved.Roster)
	require.NotNil(t, saved.StartsBy)
	assert.Equal(t, g.now.Add(groupWait), back.Deadline())
	back.refused("a", msg(protocol.TypeStart), protocol.CodeStartsItself)
	_, _, st := back.arrive("x", false, 0)
	require.NotNil(t, st.Err)
	assert.Equal(t, protocol.CodeNotInvited, st.Err.Code)
	_, join := back.enter("b", false)
	one[*protocol.CountdownEvent](t, events(join.Out))
}

// In a tournament's race a player may go berserk before their first
// digit, note or hint: everyone is told, their notes and hints are
// refused from then on, and their finish says so; the others play on as
// before. A rematch's round starts without it.
func TestBerserk(t *testing.T) {
	g := group(t, "a", "b", "c")
	g.AllowBerserk()
	assert.True(t, g.Snapshot("", g.now).Berserk, "the room takes berserk")
	g.join("a")
	g.watch("s")
	g.refused("s", msg(protocol.TypeBerserk), protocol.CodeSpectator)
	s := g.ok("a", msg(protocol.TypeBerserk)) // while waiting
	ev := one[*protocol.BerserkEvent](t, events(s.Out))
	assert.Equal(t, "a", ev.Player)
	assert.Equal(t, g.Seq(), ev.Seq, "logged: a replay and a restore see it")
	require.Len(t, s.Out, 1)
	assert.Equal(t, room.Output{Event: ev, Logged: true}, s.Out[0], "to everyone, the spectator too")
	assert.True(t, g.player("a").Berserk)
	g.refused("a", msg(protocol.TypeBerserk), protocol.CodeCannotBerserk)
	g.join("b")
	_, join := g.enter("c", false)
	cd := one[*protocol.CountdownEvent](t, events(join.Out))
	g.ok("c", msg(protocol.TypeBerserk)) // while counting down
	g.now = cd.StartsAt
	g.tick()

	blank := g.blank()
	g.refused("a", note(protocol.NoteCorner, blank, 5), protocol.CodeBerserk)
	g.refused("a", msg(protocol.TypeHint), protocol.CodeBerserk)
	g.ok("b", note(protocol.NoteCorner, blank, 5))
	g.refused("b", msg(protocol.TypeBerserk), protocol.CodeCannotBerserk) // after a note
	g.ok("c", move(blank, g.pz.Solution[blank]))

	rs := g.fill("a").Eff[0].Results
	require.Len(t, rs, 1)
	assert.True(t, rs[0].Berserk, "the finish says so")
	g.saved(rs)
	g.refused("a", msg(protocol.TypeBerserk), protocol.CodeCannotBerserk) // finished
	rs = g.fill("b").Eff[0].Results
	assert.False(t, rs[0].Berserk)
	g.saved(rs)

	back, saved := g.restored(room.Config{})
	assert.True(t, saved.Berserk)
	assert.True(t, back.player("a").Berserk)
	assert.True(t, back.player("c").Berserk)
	assert.False(t, back.player("b").Berserk)

	g.saved(g.fill("c").Eff[0].Results)
	require.Equal(t, protocol.PhaseFinished, g.Phase())
	g.ok("a", msg(protocol.TypeRematch))
	g.Rematch(g.now, 2, puzzle(t, 2))
	g.Drain()
	assert.False(t, g.player("a").Berserk, "a new round")
	assert.False(t, g.Snapshot("", g.now).Berserk, "a rematch is no tournament race")
	g.refused("a", msg(protocol.TypeBerserk), protocol.CodeCannotBerserk)
}

func TestBerserkOnlyInATournamentsRace(t *testing.T) {
	g := group(t, "a", "b")
	g.join("a")
	s := g.refused("a", msg(protocol.TypeBerserk), protocol.CodeCannotBerserk)
	assert.Contains(t, s.Err.Message, "tournament")
	assert.False(t, g.Snapshot("", g.now).Berserk)
}

// A player of the roster who leaves the race gets no place back in it:
// a new board would wipe their mistakes and hints. The rematch's round
// takes them again.
func TestGroupLeaverDoesNotComeBack(t *testing.T) {
	g := runningGroup(t, "a", "b")
	g.ok("b", move(g.blank(), g.pz.Solution[g.blank()]))
	g.ok("b", msg(protocol.TypeLeave))
	_, _, st := g.arrive("b", false, 0)
	require.NotNil(t, st.Err, "b left the race")
	assert.Equal(t, protocol.CodeGameStarted, st.Err.Code)
	back, saved := g.restored(room.Config{})
	assert.Equal(t, []string{"b"}, saved.Left)
	assert.Equal(t, protocol.CodeGameStarted, back.Admits("b", false).Code, "kept through a restore")

	g.saved(g.fill("a").Eff[0].Results)
	require.Equal(t, protocol.PhaseFinished, g.Phase())
	g.ok("a", msg(protocol.TypeRematch))
	g.Rematch(g.now, 2, puzzle(t, 2))
	g.Drain()
	w := g.join("b")
	assert.Equal(t, protocol.RolePlayer, w.You.Role, "b is back for the rematch")
	assert.Equal(t, "b", g.player("b").ID)
}
