package tournament_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/room/roomtest"
	"github.com/sudoku-arena/arena/tournament"
)

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// races is a tournament.Races that names its rooms R1, R2, … and keeps
// the players of each.
type races struct {
	mu     sync.Mutex
	groups [][]string
}

func (r *races) StartRace(_ context.Context, _, level string, players []string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.groups = append(r.groups, players)
	return fmt.Sprintf("R%d", len(r.groups)), nil
}

func (r *races) made() [][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]string(nil), r.groups...)
}

type saver struct {
	mu    sync.Mutex
	recs  []tournament.Record
	lines map[string]tournament.Line // the latest of each player
	fail  bool                       // SaveLines fails: a database away
}

func (s *saver) SaveLines(_ context.Context, _ string, lines []tournament.Line) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail {
		return errors.New("database away")
	}
	if s.lines == nil {
		s.lines = map[string]tournament.Line{}
	}
	for _, l := range lines {
		s.lines[l.Player] = l
	}
	return nil
}

// stored are the latest lines stored, by the order they joined in.
func (s *saver) stored() []tournament.Line {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]tournament.Line, len(s.lines))
	for _, l := range s.lines {
		out[l.Joined] = l
	}
	return out
}

func standingsOf(lines []tournament.Line) []tournament.Standing {
	out := make([]tournament.Standing, len(lines))
	for i, l := range lines {
		out[i] = l.Standing
	}
	return out
}

// TestArenaRestoresItsLines: each change's lines are stored by the time
// the change returns, so a second arena started with them (a restart)
// has the same standings: scores, wins, games, streaks (the fire) and
// the withdrawn; the race played at the stop is over for its players,
// paired again at once,
// the player on a streak still scores double, and the order of joining
// still breaks ties.
func TestArenaRestoresItsLines(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clock := roomtest.NewClock(t0.Add(time.Minute))
	spec := tournament.Spec{ID: "T1", Name: "Hourly easy", Level: "easy", StartsAt: t0, Duration: time.Hour}
	rs, sv := &races{}, &saver{}
	a, err := tournament.Start(ctx, tournament.Config{Clock: clock, Races: rs, Saver: sv}, spec)
	require.NoError(t, err)
	for _, p := range []string{"a", "b", "c"} {
		require.NoError(t, a.Join(ctx, p, "Player "+p))
	}
	require.NoError(t, a.Withdraw(ctx, "c"))
	require.NoError(t, a.Finish(ctx, "R1", "a", false)) // a 4, streak 1
	require.NoError(t, a.Finish(ctx, "R1", "b", false)) // b 3; R2
	require.NoError(t, a.Finish(ctx, "R2", "a", false)) // a 8, streak 2
	require.NoError(t, a.Finish(ctx, "R2", "b", false)) // b 6; R3
	require.NoError(t, a.Finish(ctx, "R3", "b", false)) // b 10; a still races R3
	before, err := a.Snapshot(ctx)
	require.NoError(t, err)
	assert.Equal(t, "R3", before.Standings[1].Playing, "a races when the server stops")
	stored := sv.stored()
	require.Len(t, stored, 3)
	assert.Equal(t, []int{0, 1, 2}, []int{stored[0].Joined, stored[1].Joined, stored[2].Joined})
	cancel()
	<-a.Done()

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	rs2, sv2 := &races{}, &saver{}
	b, err := tournament.Start(ctx, tournament.Config{Clock: clock, Races: rs2, Saver: sv2, Lines: stored}, spec)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(rs2.made()) == 1 }, 5*time.Second, time.Millisecond, "paired on its start")
	after, err := b.Snapshot(ctx)
	require.NoError(t, err)
	assert.Equal(t, "R1", after.Standings[1].Playing, "a race of the stopped arena is not a's any more: paired anew")
	for i := range before.Standings {
		before.Standings[i].Playing = after.Standings[i].Playing
	}
	assert.Equal(t, before.Standings, after.Standings, "the same standings")
	assert.True(t, after.Standings[1].Fire, "a's streak of two is back")
	assert.True(t, after.Standings[2].Left)

	require.NoError(t, b.Join(ctx, "d", "Player d")) // d waits
	assert.Equal(t, [][]string{{"b", "a"}}, rs2.made(), "c has withdrawn")
	require.NoError(t, b.Finish(ctx, "R1", "a", false)) // a 16
	u, err := b.Snapshot(ctx)
	require.NoError(t, err)
	assert.Equal(t, tournament.Game{Race: "R1", Place: 1, Points: 8, Fire: true}, u.Standings[0].Games[2], "on a streak: double")
	sv2.mu.Lock()
	assert.Equal(t, 16, sv2.lines["a"].Score, "stored at once after the restart too")
	sv2.mu.Unlock()

	_, err = tournament.Start(ctx, tournament.Config{Clock: clock, Races: rs2, Lines: append(stored, stored[0])}, spec)
	assert.ErrorIs(t, err, tournament.ErrBadSpec, "a player twice")
}

func (s *saver) SaveTournament(_ context.Context, r tournament.Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recs = append(s.recs, r)
	return nil
}

func bot(i int) string { return fmt.Sprintf("p%02d", i) }

// TestArenaOfTwelveBots runs a 3-minute tournament on a fake clock with 12
// bots and a scripted sequence of finishes; its pairings and standings are
// the ones computed by hand in the comments.
func TestArenaOfTwelveBots(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clock := roomtest.NewClock(t0.Add(-time.Minute))
	rs, sv := &races{}, &saver{}
	a, err := tournament.Start(ctx, tournament.Config{Clock: clock, Races: rs, Saver: sv},
		tournament.Spec{ID: "T1", Name: "Hourly easy", Level: "easy", StartsAt: t0, Duration: 3 * time.Minute})
	require.NoError(t, err)
	for i := 1; i <= 12; i++ {
		require.NoError(t, a.Join(ctx, bot(i), "Bot "+bot(i)))
	}
	u, err := a.Snapshot(ctx)
	require.NoError(t, err)
	assert.Equal(t, tournament.StatusUpcoming, u.Status)
	assert.Empty(t, rs.made(), "nobody is paired before the start")

	updates, stop, err := a.Subscribe(ctx)
	require.NoError(t, err)
	defer stop()
	<-updates

	clock.Advance(time.Minute) // the start: all on 0, paired in the order they joined
	_, err = a.Snapshot(ctx)   // after the timer's work
	require.NoError(t, err)
	want := [][]string{{"p01", "p02", "p03", "p04"}, {"p05", "p06", "p07", "p08"}, {"p09", "p10", "p11", "p12"}}
	require.Equal(t, want, rs.made())

	step := func(race, player string) {
		t.Helper()
		clock.Advance(5 * time.Second)
		require.NoError(t, a.Finish(ctx, race, player, false), "%s finishes %s", player, race)
	}
	step("R1", "p01") // 4, a win: streak 1; alone free
	step("R1", "p02") // 3; R4 = p01 (4), p02 (3)
	step("R1", "p03") // 2; alone free
	step("R1", "p04") // 1; R5 = p03 (2), p04 (1)
	step("R2", "p05") // 4
	step("R2", "p06") // 3; R6 = p05, p06
	step("R2", "p07") // 2; alone free
	step("R3", "p09") // 4; R7 = p09 (4), p07 (2)
	step("R4", "p01") // 4, a second win: 8 in all, streak 2
	step("R4", "p02") // 3: 6; R8 = p01 (8), p02 (6)
	step("R8", "p01") // on a streak: 4×2 = 8: 16, streak 3
	step("R3", "p10") // 3; R9 = p01 (16), p10 (3)
	step("R2", "p08") // 1; alone free
	step("R3", "p11") // 2; R10 = p11 (2), p08 (1)
	step("R8", "p02") // 3: 9; alone free
	step("R9", "p10") // 4: 7; R11 = p02 (9), p10 (7)
	step("R9", "p01") // 2nd on a streak: 3×2 = 6: 22, the streak ends
	clock.Advance(5 * time.Second)
	require.NoError(t, a.Abandon(ctx, "R3", "p12")) // 0; R12 = p01 (22), p12 (0)
	step("R7", "p07")                               // 4: 6; alone free

	want = append(want, []string{"p01", "p02"}, []string{"p03", "p04"}, []string{"p05", "p06"},
		[]string{"p09", "p07"}, []string{"p01", "p02"}, []string{"p01", "p10"}, []string{"p11", "p08"},
		[]string{"p02", "p10"}, []string{"p01", "p12"})
	require.Equal(t, want, rs.made())

	err = a.Finish(ctx, "R1", "p01", false)
	require.ErrorIs(t, err, tournament.ErrNoRace, "a race finished already")

	clock.Advance(3 * time.Minute) // the end: R5, R6, R7, R10, R11, R12 count unfinished
	<-a.Done()
	var last tournament.Update
	for u := range updates {
		last = u.TournamentResponse
	}
	assert.Equal(t, tournament.StatusFinished, last.Status)

	type line struct {
		rank   int
		player string
		score  int
		wins   int
		games  int
	}
	wantLines := []line{
		{1, "p01", 4 + 4 + 8 + 6 + 0, 3, 5},
		{2, "p02", 3 + 3 + 3 + 0, 0, 4},
		{3, "p10", 3 + 4 + 0, 1, 3},
		{4, "p07", 2 + 4, 1, 2},
		{5, "p05", 4 + 0, 1, 2},
		{5, "p09", 4 + 0, 1, 2},
		{7, "p06", 3 + 0, 0, 2},
		{8, "p03", 2 + 0, 0, 2},
		{8, "p11", 2 + 0, 0, 2},
		{10, "p04", 1 + 0, 0, 2},
		{10, "p08", 1 + 0, 0, 2},
		{12, "p12", 0, 0, 2},
	}
	var got []line
	for _, s := range last.Standings {
		got = append(got, line{s.Rank, s.Player, s.Score, s.Wins, len(s.Games)})
		assert.Empty(t, s.Playing, "nobody plays once it has ended")
	}
	assert.Equal(t, wantLines, got)
	assert.Equal(t, []tournament.Game{
		{Race: "R1", Place: 1, Points: 4}, {Race: "R4", Place: 1, Points: 4},
		{Race: "R8", Place: 1, Points: 8, Fire: true}, {Race: "R9", Place: 2, Points: 6, Fire: true},
		{Race: "R12"},
	}, last.Standings[0].Games)

	require.Len(t, sv.recs, 1, "stored once, at the end")
	assert.Equal(t, tournament.StatusFinished, sv.recs[0].Status)
	assert.Equal(t, last.Standings, standingsOf(sv.recs[0].Lines))

	err = a.Join(ctx, "p13", "Late")
	assert.ErrorIs(t, err, tournament.ErrClosed)
}

func TestGroupsAreEvenRacesOfTwoToFour(t *testing.T) {
	for n, want := range map[int][]int{0: nil, 1: nil, 2: {2}, 4: {4}, 5: {3, 2}, 6: {3, 3}, 8: {4, 4}, 9: {3, 3, 3}, 13: {4, 3, 3, 3}} {
		tr, err := tournament.New(tournament.Spec{ID: "T", Level: "easy", StartsAt: t0, Duration: time.Hour})
		require.NoError(t, err)
		for i := 1; i <= n; i++ {
			require.NoError(t, tr.Join(bot(i), bot(i), t0))
		}
		var sizes []int
		for _, g := range tr.Groups(t0) {
			sizes = append(sizes, len(g))
		}
		assert.Equal(t, want, sizes, "%d free players", n)
		assert.Nil(t, tr.Groups(t0.Add(-time.Second)), "none before the start")
		assert.Nil(t, tr.Groups(t0.Add(time.Hour)), "none after the end")
	}
}

func TestCommandsRefuseWhatIsNotSo(t *testing.T) {
	_, err := tournament.New(tournament.Spec{ID: "T", Level: "easy", StartsAt: t0, Duration: time.Second})
	assert.ErrorIs(t, err, tournament.ErrBadSpec)
	tr, err := tournament.New(tournament.Spec{ID: "T", Level: "easy", StartsAt: t0, Duration: time.Hour})
	require.NoError(t, err)
	assert.ErrorIs(t, tr.Join("a", "A", t0.Add(time.Hour)), tournament.ErrFinished)
	assert.ErrorIs(t, tr.Withdraw("a"), tournament.ErrNotJoined)
	require.NoError(t, tr.Join("a", "A", t0))
	require.NoError(t, tr.Join("b", "B", t0))
	require.NoError(t, tr.Join("c", "C", t0))
	require.NoError(t, tr.Withdraw("c"))
	assert.Equal(t, [][]string{{"a", "b"}}, tr.Groups(t0), "a withdrawn player is not paired")
	assert.ErrorIs(t, tr.AddRace("R", []string{"a"}), tournament.ErrNoRace)
	require.NoError(t, tr.AddRace("R", []string{"a", "b"}))
	assert.ErrorIs(t, tr.AddRace("S", []string{"a", "b"}), tournament.ErrNotJoined, "busy players")
	_, err = tr.Finish("R", "c", false)
	assert.ErrorIs(t, err, tournament.ErrNoRace)
	g, err := tr.Finish("R", "b", false)
	require.NoError(t, err)
	assert.Equal(t, tournament.Game{Race: "R", Place: 1, Points: 4}, g)
	_, err = tr.Finish("R", "b", false)
	assert.ErrorIs(t, err, tournament.ErrNoRace, "finished twice")
	require.NoError(t, tr.Join("d", "D", t0))
	require.NoError(t, tr.AddRace("S", []string{"b", "d"}))
	assert.Equal(t, []string{"b", "d"}, tr.EndRace("S"), "its room ended: both abandon it")
	assert.Nil(t, tr.EndRace("S"), "nobody left in it")
	assert.Equal(t, [][]string{{"b", "d"}}, tr.Groups(t0), "free again (a still races R)")
	assert.Equal(t, []string{"R"}, tr.End())
	assert.Equal(t, tournament.StatusFinished, tr.Status(t0))
}

// TestUpdatesArePaced: an update goes out at once after a quiet
// PublishEvery; the changes within it go out together when it has passed.
func TestUpdatesArePaced(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clock := roomtest.NewClock(t0.Add(-time.Hour))
	a, err := tournament.Start(ctx, tournament.Config{Clock: clock, Races: &races{}},
		tournament.Spec{ID: "T", Level: "easy", StartsAt: t0, Duration: time.Hour})
	require.NoError(t, err)
	ups, stop, err := a.Subscribe(ctx)
	require.NoError(t, err)
	defer stop()
	require.Empty(t, (<-ups).Standings, "the tournament as it is, at once")
	require.NoError(t, a.Join(ctx, "p1", "One"))
	select {
	case u := <-ups:
		assert.Len(t, u.Standings, 1, "the first change goes out at once")
	case <-time.After(5 * time.Second):
		t.Fatal("no update")
	}
	require.NoError(t, a.Join(ctx, "p2", "Two"))
	require.NoError(t, a.Join(ctx, "p3", "Three"))
	select {
	case u := <-ups:
		t.Fatalf("an update within %s of the last: %+v", tournament.PublishEvery, u.Standings)
	case <-time.After(50 * time.Millisecond):
	}
	clock.Advance(tournament.PublishEvery)
	select {
	case u := <-ups:
		assert.Len(t, u.Standings, 3, "both joins in one update")
	case <-time.After(5 * time.Second):
		t.Fatal("no update once the pace has passed")
	}
}

// A berserk win scores BerserkBonus more, after a streak's doubling; a
// berserk race lost scores its place's points, marked berserk.
func TestBerserkWinScoresOneMore(t *testing.T) {
	tr, err := tournament.New(tournament.Spec{ID: "T", Level: "easy", StartsAt: t0, Duration: time.Hour})
	require.NoError(t, err)
	require.NoError(t, tr.Join("a", "A", t0))
	require.NoError(t, tr.Join("b", "B", t0))
	var got []tournament.Game
	for i, berserk := range []bool{true, false, true} {
		race := fmt.Sprint("R", i)
		require.NoError(t, tr.AddRace(race, []string{"a", "b"}))
		g, err := tr.Finish(race, "a", berserk)
		require.NoError(t, err)
		got = append(got, g)
		lost, err := tr.Finish(race, "b", true)
		require.NoError(t, err)
		assert.Equal(t, tournament.Game{Race: race, Place: 2, Points: 3, Berserk: true}, lost, "no bonus without the win")
	}
	assert.Equal(t, []tournament.Game{
		{Race: "R0", Place: 1, Points: 4 + tournament.BerserkBonus, Berserk: true},
		{Race: "R1", Place: 1, Points: 4},
		{Race: "R2", Place: 1, Points: 2*4 + tournament.BerserkBonus, Fire: true, Berserk: true},
	}, got)
	st := tr.Standings()
	require.Len(t, st, 2)
	assert.Equal(t, 5+4+9, st[0].Score)
}

// Standings not stored are not sent: while the lines cannot be stored no
// update goes out, and the first once they are shows them.
func TestNothingShownBeforeStored(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clock := roomtest.NewClock(t0.Add(-time.Hour))
	sv := &saver{fail: true}
	a, err := tournament.Start(ctx, tournament.Config{Clock: clock, Races: &races{}, Saver: sv},
		tournament.Spec{ID: "T", Level: "easy", StartsAt: t0, Duration: time.Hour})
	require.NoError(t, err)
	ups, stop, err := a.Subscribe(ctx)
	require.NoError(t, err)
	defer stop()
	require.Empty(t, (<-ups).Standings)
	require.NoError(t, a.Join(ctx, "p1", "One"))
	clock.Advance(tournament.PublishEvery)
	select {
	case u := <-ups:
		t.Fatalf("standings sent before they were stored: %+v", u.Standings)
	case <-time.After(100 * time.Millisecond):
	}
	sv.mu.Lock()
	sv.fail = false
	sv.mu.Unlock()
	clock.Advance(tournament.PublishEvery)
	select {
	case u := <-ups:
		assert.Len(t, u.Standings, 1)
	case <-time.After(5 * time.Second):
		t.Fatal("no update once the store took the lines")
	}
	assert.Len(t, sv.stored(), 1)
}
