package queue

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

func entry(n int, rating float64, at time.Duration) Entry {
	id := fmt.Sprintf("p%d", n)
	return Entry{Ticket: "t" + id, Player: id, Account: "a" + id, Addr: fmt.Sprintf("10.0.0.%d", n),
		Pool: Pool{Level: "easy", Rated: true}, Rating: rating, JoinedAt: t0.Add(at)}
}

func tickets(g Group) []string {
	var out []string
	for _, e := range g.Entries {
		out = append(out, e.Ticket)
	}
	return out
}

func TestWindowWidens(t *testing.T) {
	q := New(Config{})
	assert.Equal(t, 100.0, q.WindowAt(t0, t0))
	assert.Equal(t, 250.0, q.WindowAt(t0, t0.Add(15*time.Second)))
	assert.Equal(t, 400.0, q.WindowAt(t0, t0.Add(31*time.Second)))
}

func TestMatchBySimilarRating(t *testing.T) {
	q := New(Config{})
	for i, r := range []float64{1500, 1900, 1550, 2300} {
		require.NoError(t, q.Join(entry(i, r, 0)))
	}
	gs := q.Match(t0)
	require.Len(t, gs, 1)
	assert.Equal(t, []string{"tp0", "tp2"}, tickets(gs[0]))
	assert.Equal(t, 2, q.Len())
	assert.Empty(t, q.Match(t0.Add(10*time.Second)), "1900 and 2300 are 400 apart: not yet")
	gs = q.Match(t0.Add(30 * time.Second))
	require.Len(t, gs, 1)
	assert.Equal(t, []string{"tp1", "tp3"}, tickets(gs[0]))
	assert.Zero(t, q.Len())
}

func TestGroupsOfUpToFour(t *testing.T) {
	q := New(Config{})
	for i := range 6 {
		require.NoError(t, q.Join(entry(i, 1500+float64(i*10), time.Duration(i)*time.Second)))
	}
	gs := q.Match(t0.Add(6 * time.Second))
	require.Len(t, gs, 2, "four, then the two that are left")
	// The oldest leads; the four nearest its rating go together.
	assert.Equal(t, []string{"tp0", "tp1", "tp2", "tp3"}, tickets(gs[0]))
	assert.Equal(t, []string{"tp4", "tp5"}, tickets(gs[1]))
	assert.Zero(t, q.Len())
}

func TestNeverWithThemselves(t *testing.T) {
	q := New(Config{})
	a := entry(1, 1500, 0)
	sameAddr := entry(2, 1500, 0)
	sameAddr.Addr = a.Addr
	require.NoError(t, q.Join(a))
	require.NoError(t, q.Join(sameAddr))
	assert.Empty(t, q.Match(t0.Add(time.Minute)), "one address")

	again := entry(3, 1500, 0)
	again.Account = a.Account
	assert.ErrorIs(t, q.Join(again), ErrQueued, "one account twice")
	dup := entry(4, 1500, 0)
	dup.Player = a.Player
	assert.ErrorIs(t, q.Join(dup), ErrQueued, "one player twice")
	assert.ErrorIs(t, q.Join(Entry{Ticket: "x"}), ErrInvalid)
	assert.Equal(t, 2, q.Len())

	require.NoError(t, q.Join(entry(5, 1500, 0)))
	gs := q.Match(t0.Add(time.Minute))
	require.Len(t, gs, 1)
	assert.Equal(t, []string{"tp1", "tp5"}, tickets(gs[0]), "the one of the same address waits on")
	_, ok := q.Waiting("tp2")
	assert.True(t, ok)
}

func TestLeaveIsInstant(t *testing.T) {
	q := New(Config{})
	require.NoError(t, q.Join(entry(1, 1500, 0)))
	assert.True(t, q.Leave("tp1"))
	assert.False(t, q.Leave("tp1"))
	require.NoError(t, q.Join(entry(2, 1500, 0)))
	assert.Empty(t, q.Match(t0))
	_, ok := q.Waiting("tp2")
	assert.True(t, ok)
}

func TestPoolsApart(t *testing.T) {
	q := New(Config{})
	a, b, c := entry(1, 1500, 0), entry(2, 1500, 0), entry(3, 1500, 0)
	b.Pool.Level = "hard"
	c.Pool.Rated = false
	for _, e := range []Entry{a, b, c} {
		require.NoError(t, q.Join(e))
	}
	assert.Empty(t, q.Match(t0.Add(time.Hour)))
	assert.Equal(t, map[Pool]int{{"easy", true}: 1, {"hard", true}: 1, {"easy", false}: 1}, q.Counts())
}

// TestEveryGroupFits: in a crowded queue, every group's members fit one
// another at the time they were matched.
func TestEveryGroupFits(t *testing.T) {
	q := New(Config{})
	for i := range 200 {
		e := entry(i, 1000+math.Mod(float64(i)*137, 1000), time.Duration(i)*100*time.Millisecond)
		e.Addr = fmt.Sprintf("10.0.%d.1", i%50) // four entries share each address
		require.NoError(t, q.Join(e))
	}
	for s := 0; s < 60; s++ {
		now := t0.Add(time.Duration(s) * time.Second)
		for _, g := range q.Match(now) {
			require.GreaterOrEqual(t, len(g.Entries), 2)
			require.LessOrEqual(t, len(g.Entries), 4)
			for i, a := range g.Entries {
				for _, b := range g.Entries[i+1:] {
					assert.True(t, q.Fits(a, b, now), "%+v and %+v", a, b)
					assert.NotEqual(t, a.Addr, b.Addr)
				}
			}
		}
	}
	assert.LessOrEqual(t, q.Len(), 1)
}

// Greedy grouping would put z, x and y together and leave the second z
// alone, with nobody it may meet; a group of three spares one player for
// it, so that everyone plays.
func TestNobodyLeftAlone(t *testing.T) {
	q := New(Config{})
	for i, addr := range []string{"z", "x", "y", "z"} {
		e := entry(i, 1500, time.Duration(i)*time.Second)
		e.Addr = addr
		require.NoError(t, q.Join(e))
	}
	gs := q.Match(t0.Add(5 * time.Second))
	require.Len(t, gs, 2)
	assert.Zero(t, q.Len(), "everyone is matched")
	for _, g := range gs {
		require.Len(t, g.Entries, 2)
		assert.NotEqual(t, g.Entries[0].Addr, g.Entries[1].Addr)
	}
	assert.Equal(t, []string{"tp0", "tp2"}, tickets(gs[0]), "the oldest keeps the group it led, less the member spared")
	assert.Equal(t, []string{"tp1", "tp3"}, tickets(gs[1]))

	// One that nobody may meet still waits, and no group is broken for it.
	q = New(Config{})
	for i, addr := range []string{"z", "x", "y", "z"} {
		e := entry(i, 1500, time.Duration(i)*time.Second)
		e.Addr = addr
		if i == 3 {
			e.Rating = 2500
		}
		require.NoError(t, q.Join(e))
	}
	gs = q.Match(t0.Add(5 * time.Second))
	require.Len(t, gs, 1)
	assert.Equal(t, []string{"tp0", "tp1", "tp2"}, tickets(gs[0]))
	assert.Equal(t, 1, q.Len())
}
