package ladder_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/ladder"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/sqlite"
)

var t0 = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

func open(t *testing.T, players ...string) *sqlite.Store {
	t.Helper()
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "a.db"))
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	for _, id := range players {
		require.NoError(t, s.CreatePlayer(ctx, store.Player{ID: id, Name: id, TokenHash: []byte(id), CreatedAt: t0, LastSeen: t0}))
		require.NoError(t, s.CreateAccount(ctx, id, id, id, t0, nil))
	}
	return s
}

// race stores a race room and its finishes: places[i] is players[i]'s
// place (0: no finish), flagged the players whose finish is held.
func race(t *testing.T, s *sqlite.Store, id string, players []string, places []int, flagged ...string) {
	t.Helper()
	ctx := context.Background()
	pz, err := s.SavePuzzle(ctx, store.Puzzle{Givens: fmt.Sprintf("%081d", len(id)+len(players))[:80] + ".", Solution: fmt.Sprintf("%081d", 1), Level: "easy", CreatedAt: t0})
	require.NoError(t, err)
	require.NoError(t, s.CreateRoom(ctx, store.Room{ID: id, Mode: room.ModeRace, PuzzleID: pz.ID, HostID: players[0], State: store.StateWaiting, CreatedAt: t0}))
	for i, p := range players {
		if places[i] == 0 {
			continue
		}
		r := store.Result{RoomID: id, PlayerID: p, PuzzleID: pz.ID, Mode: room.ModeRace, Level: "easy", Elapsed: time.Duration(places[i]) * time.Minute,
			FinishedAt: t0, RoomRank: places[i], AllTime: true}
		for _, f := range flagged {
			if f == p {
				r.Flagged, r.Review, r.Reason = true, store.ReviewHeld, "too fast"
			}
		}
		require.NoError(t, s.SaveResults(ctx, []store.Result{r}))
	}
}

func byPlayer(cs []store.RatingChange) map[string]store.RatingChange {
	m := map[string]store.RatingChange{}
	for _, c := range cs {
		m[c.PlayerID] = c
	}
	return m
}

func TestRateARace(t *testing.T) {
	ctx := context.Background()
	roster := []string{"a", "b", "c", "d"}
	s := open(t, roster...)
	race(t, s, "r1", roster, []int{1, 2, 0, 3}, "b")
	cs, err := ladder.Rate(ctx, s, "r1", roster, t0)
	require.NoError(t, err)
	m := byPlayer(cs)
	require.Len(t, m, 3, "the flagged finish moves no rating")
	assert.NotContains(t, m, "b")
	assert.Greater(t, m["a"].After.Rating, 1500.0)
	assert.Less(t, m["c"].After.Rating, m["d"].After.Rating, "abandoning is a loss to every finisher")
	assert.Less(t, m["c"].After.Rating, 1500.0)
	assert.Equal(t, 1, m["a"].After.Races)

	again, err := ladder.Rate(ctx, s, "r1", roster, t0.Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, cs[0].After.Rating, byPlayer(again)[cs[0].PlayerID].After.Rating, "a race is rated once")
	stored, err := s.Ratings(ctx, roster)
	require.NoError(t, err)
	assert.Equal(t, 1, stored["a"].Races)
	assert.InDelta(t, m["a"].After.Rating, stored["a"].Rating, 1e-9)
}

func TestTooFewToRate(t *testing.T) {
	ctx := context.Background()
	s := open(t, "a", "b")
	race(t, s, "r1", []string{"a", "b"}, []int{1, 2}, "a")
	cs, err := ladder.Rate(ctx, s, "r1", []string{"a", "b"}, t0)
	require.NoError(t, err)
	assert.Empty(t, cs)
	stored, err := s.Ratings(ctx, []string{"a", "b"})
	require.NoError(t, err)
	assert.Empty(t, stored)
}

// TestRacesAtOnce: two races of one player rated at once both count,
// the second computed on the first's result.
func TestRacesAtOnce(t *testing.T) {
	ctx := context.Background()
	s := open(t, "a", "b", "c")
	race(t, s, "r1", []string{"a", "b"}, []int{1, 2})
	race(t, s, "r2", []string{"a", "c"}, []int{1, 2})
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, r := range []struct {
		id     string
		roster []string
	}{{"r1", []string{"a", "b"}}, {"r2", []string{"a", "c"}}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = ladder.Rate(ctx, s, r.id, r.roster, t0)
		}()
	}
	wg.Wait()
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	stored, err := s.Ratings(ctx, []string{"a"})
	require.NoError(t, err)
	assert.Equal(t, 2, stored["a"].Races)
	hist, err := s.RatingHistory(ctx, "a", 0)
	require.NoError(t, err)
	require.Len(t, hist, 2)
	assert.Equal(t, hist[0].After.Rating, hist[1].Before.Rating, "the second race starts where the first left the rating")
}

func TestPlaces(t *testing.T) {
	got := ladder.Places([]string{"x", "y", "z"}, []store.Result{{PlayerID: "y", RoomRank: 1}, {PlayerID: "z", RoomRank: 2, Flagged: true}, {PlayerID: "q", RoomRank: 3}})
	assert.Equal(t, []ladder.Place{{PlayerID: "x"}, {PlayerID: "y", Place: 1}}, got)
}
