package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/store"
)

func testAttempts(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "a")
	mkPlayer(t, s, "b")
	day := "2026-11-21"
	started := t0.Add(123 * time.Microsecond)
	got, err := s.StartAttempt(ctx, store.Attempt{PlayerID: "a", Day: day, Level: "easy", StartedAt: started})
	require.NoError(t, err)
	assert.Equal(t, "a", got.PlayerID)
	assert.Equal(t, day, got.Day)
	assert.Equal(t, "easy", got.Level)
	assert.True(t, started.Equal(got.StartedAt))
	assert.True(t, got.FinishedAt.IsZero())
	again, err := s.StartAttempt(ctx, store.Attempt{PlayerID: "a", Day: day, Level: "easy", StartedAt: t0.Add(time.Hour)})
	require.NoError(t, err)
	assert.True(t, started.Equal(again.StartedAt), "the first view's time stays: %v", again.StartedAt)
	for _, a := range []store.Attempt{
		{PlayerID: "a", Day: day, Level: "hard", StartedAt: t0.Add(time.Minute)},
		{PlayerID: "a", Day: "2026-11-22", Level: "easy", StartedAt: t0.Add(2 * time.Minute)},
		{PlayerID: "b", Day: day, Level: "easy", StartedAt: t0.Add(3 * time.Minute)},
	} {
		got, err := s.StartAttempt(ctx, a)
		require.NoError(t, err)
		assert.True(t, a.StartedAt.Equal(got.StartedAt), "each player, day and level has its own: %+v", a)
	}
	got, err = s.Attempt(ctx, "a", day, "easy")
	require.NoError(t, err)
	assert.True(t, started.Equal(got.StartedAt))
	_, err = s.Attempt(ctx, "a", "2026-11-23", "easy")
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.Attempt(ctx, "nobody", day, "easy")
	assert.ErrorIs(t, err, store.ErrNotFound)

	done := t0.Add(5*time.Minute + 7*time.Microsecond)
	fin, err := s.FinishAttempt(ctx, "a", day, "easy", done)
	require.NoError(t, err)
	assert.True(t, fin, "this call finished it")
	fin, err = s.FinishAttempt(ctx, "a", day, "easy", done.Add(time.Minute))
	require.NoError(t, err)
	assert.False(t, fin, "finished already")
	got, err = s.Attempt(ctx, "a", day, "easy")
	require.NoError(t, err)
	assert.True(t, done.Equal(got.FinishedAt), "the first finish stays: %v", got.FinishedAt)
	got, err = s.StartAttempt(ctx, store.Attempt{PlayerID: "a", Day: day, Level: "easy", StartedAt: t0.Add(time.Hour)})
	require.NoError(t, err)
	assert.True(t, done.Equal(got.FinishedAt), "a start of a finished attempt returns it finished")
	other, err := s.Attempt(ctx, "a", day, "hard")
	require.NoError(t, err)
	assert.True(t, other.FinishedAt.IsZero(), "other attempts untouched")
	_, err = s.FinishAttempt(ctx, "a", "2026-11-23", "easy", done)
	assert.ErrorIs(t, err, store.ErrNotFound)

	_, err = s.StartAttempt(ctx, store.Attempt{PlayerID: "a", Day: "21/11/2026", Level: "easy", StartedAt: t0})
	assert.ErrorIs(t, err, store.ErrInvalid)
	_, err = s.StartAttempt(ctx, store.Attempt{PlayerID: "ghost", Day: day, Level: "easy", StartedAt: t0})
	assert.ErrorIs(t, err, store.ErrInvalid)
	_, err = s.Attempt(ctx, "a", "2026-02-30", "easy")
	assert.ErrorIs(t, err, store.ErrInvalid)
}

func testAttemptsConcurrent(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "a")
	day := "2026-11-21"
	const n = 12
	starts := make(chan time.Time, n)
	ok := racers(t, n, nil, func(i int) error {
		a, err := s.StartAttempt(ctx, store.Attempt{PlayerID: "a", Day: day, Level: "hard", StartedAt: t0.Add(time.Duration(i) * time.Second)})
		starts <- a.StartedAt
		return err
	})
	require.Equal(t, n, ok)
	close(starts)
	first := <-starts
	assert.False(t, first.IsZero())
	for st := range starts {
		assert.True(t, first.Equal(st), "racing starts agree: %v and %v", first, st)
	}
	stored, err := s.Attempt(ctx, "a", day, "hard")
	require.NoError(t, err)
	assert.True(t, first.Equal(stored.StartedAt))

	finished := make(chan bool, n)
	ok = racers(t, n, nil, func(i int) error {
		fin, err := s.FinishAttempt(ctx, "a", day, "hard", t0.Add(time.Hour+time.Duration(i)*time.Second))
		finished <- fin
		return err
	})
	require.Equal(t, n, ok)
	close(finished)
	count := 0
	for fin := range finished {
		if fin {
			count++
		}
	}
	assert.Equal(t, 1, count, "one of the callers at once finishes the attempt")
}
