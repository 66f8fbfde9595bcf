package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
)

// change is one race's change of a player's rating, from before to a
// rating of after (RD and volatility made up from it).
func change(room, player string, before store.Rating, after float64, at time.Time) store.RatingChange {
	return store.RatingChange{RoomID: room, PlayerID: player, Before: before,
		After: store.Rating{Rating: after, RD: before.RD - 10, Volatility: 0.0599}, At: at}
}

var unrated = store.Rating{Rating: 1500, RD: 350, Volatility: 0.06}

func testRatings(t *testing.T, s store.Store) {
	ctx := context.Background()
	for _, id := range []string{"a", "b", "c", "guest"} {
		mkPlayer(t, s, id)
		if id != "guest" {
			mkAccount(t, s, id)
		}
	}
	got, err := s.Ratings(ctx, []string{"a", "b"})
	require.NoError(t, err)
	assert.Empty(t, got, "never rated")

	race1 := []store.RatingChange{change("r1", "a", unrated, 1662.3, t0), change("r1", "b", unrated, 1337.7, t0)}
	require.NoError(t, s.ApplyRatings(ctx, race1))
	require.NoError(t, s.ApplyRatings(ctx, race1), "a retried race is stored once")
	got, err = s.Ratings(ctx, []string{"a", "b", "c"})
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, store.Rating{PlayerID: "a", Rating: 1662.3, RD: 340, Volatility: 0.0599, Races: 1, UpdatedAt: t0}, got["a"])
	assert.Equal(t, 1337.7, got["b"].Rating)

	// A race computed from a rating that has moved since is refused whole.
	stale := []store.RatingChange{change("r2", "c", unrated, 1600, t0.Add(time.Minute)), change("r2", "a", unrated, 1700, t0.Add(time.Minute))}
	assert.ErrorIs(t, s.ApplyRatings(ctx, stale), store.ErrConflict)
	stale[1].Before = got["a"]
	stale[0].Before.Races = 3
	assert.ErrorIs(t, s.ApplyRatings(ctx, stale), store.ErrConflict, "c has never been rated")
	got2, err := s.Ratings(ctx, []string{"a", "c"})
	require.NoError(t, err)
	assert.Equal(t, got["a"], got2["a"], "nothing of a refused race is stored")
	assert.NotContains(t, got2, "c")

	stale[0].Before.Races = 0
	require.NoError(t, s.ApplyRatings(ctx, stale))
	for i := 3; i <= 6; i++ {
		cur, err := s.Ratings(ctx, []string{"a"})
		require.NoError(t, err)
		require.NoError(t, s.ApplyRatings(ctx, []store.RatingChange{change(fmt.Sprintf("r%d", i), "a", cur["a"], 1700+float64(i), t0.Add(time.Duration(i)*time.Minute))}))
	}

	hist, err := s.RatingHistory(ctx, "a", 3)
	require.NoError(t, err)
	require.Len(t, hist, 3, "the last three, oldest first")
	assert.Equal(t, []string{"r4", "r5", "r6"}, []string{hist[0].RoomID, hist[1].RoomID, hist[2].RoomID})
	assert.Equal(t, 1703.0, hist[0].Before.Rating)
	assert.Equal(t, 1704.0, hist[0].After.Rating)
	assert.Equal(t, 3, hist[0].Before.Races)
	assert.Equal(t, 4, hist[0].After.Races)
	assert.Equal(t, t0.Add(4*time.Minute), hist[0].At)
	all, err := s.RatingHistory(ctx, "a", 0)
	require.NoError(t, err)
	assert.Len(t, all, 6)
	assert.Equal(t, 1500.0, all[0].Before.Rating)

	// The board: accounts only, provisional ratings left off.
	mkPuzzleless := func(id string, r float64, rd float64) {
		require.NoError(t, s.ApplyRatings(ctx, []store.RatingChange{{RoomID: "x" + id, PlayerID: id, Before: unrated,
			After: store.Rating{Rating: r, RD: rd, Volatility: 0.06}, At: t0}}))
	}
	mkPuzzleless("guest", 2500, 50)
	top, err := s.TopRatings(ctx, 400, 10)
	require.NoError(t, err)
	var names []string
	for _, r := range top {
		names = append(names, r.Name)
	}
	assert.Equal(t, []string{"a", "c", "b"}, names, "by rating; the guest is on no board")
	top, err = s.TopRatings(ctx, 335, 10)
	require.NoError(t, err)
	require.Len(t, top, 1, "b and c are still provisional at RD 340")
	assert.Equal(t, "a", top[0].PlayerID)
	assert.Equal(t, 6, top[0].Races)
	top, err = s.TopRatings(ctx, 400, 1)
	require.NoError(t, err)
	assert.Len(t, top, 1)

	assert.ErrorIs(t, s.ApplyRatings(ctx, []store.RatingChange{change("r9", "ghost", unrated, 1600, t0)}), store.ErrInvalid)

	cs, err := s.RoomRatings(ctx, "r1")
	require.NoError(t, err)
	require.Len(t, cs, 2)
	assert.Equal(t, []string{"a", "b"}, []string{cs[0].PlayerID, cs[1].PlayerID})
	assert.Equal(t, 1337.7, cs[1].After.Rating)
	assert.Equal(t, 1500.0, cs[1].Before.Rating)
	cs, err = s.RoomRatings(ctx, "nowhere")
	require.NoError(t, err)
	assert.Empty(t, cs)
}

func testRoomResults(t *testing.T, s store.Store) {
	ctx := context.Background()
	for _, id := range []string{"a", "b", "c"} {
		mkPlayer(t, s, id)
	}
	pz := mkPuzzle(t, s, 5, "easy")
	mkRoom(t, s, "race", room.ModeRace, pz.ID, "a")
	mkRoom(t, s, "other", room.ModeRace, pz.ID, "a")
	for i, id := range []string{"c", "a"} {
		r := store.Result{RoomID: "race", PlayerID: id, PuzzleID: pz.ID, Mode: room.ModeRace, Level: "easy",
			Elapsed: time.Duration(i+2) * time.Minute, FinishedAt: t0.Add(time.Duration(i) * time.Second), RoomRank: i + 1}
		if id == "a" {
			r.Flagged, r.Review, r.Reason = true, store.ReviewHeld, "too fast"
		}
		require.NoError(t, s.SaveResults(ctx, []store.Result{r}))
	}
	require.NoError(t, s.SaveResults(ctx, []store.Result{{RoomID: "other", PlayerID: "b", PuzzleID: pz.ID, Mode: room.ModeRace, Level: "easy", FinishedAt: t0, RoomRank: 1}}))
	rs, err := s.RoomResults(ctx, "race")
	require.NoError(t, err)
	require.Len(t, rs, 2)
	assert.Equal(t, "c", rs[0].PlayerID)
	assert.Equal(t, 1, rs[0].RoomRank)
	assert.False(t, rs[0].Flagged)
	assert.Equal(t, "a", rs[1].PlayerID)
	assert.True(t, rs[1].Flagged)
	assert.Equal(t, store.ReviewHeld, rs[1].Review)
	rs, err = s.RoomResults(ctx, "nowhere")
	require.NoError(t, err)
	assert.Empty(t, rs)
}

func testRatedRaces(t *testing.T, s store.Store) {
	ctx := context.Background()
	got, err := s.RatedRaces(ctx, 10)
	require.NoError(t, err)
	assert.Empty(t, got)

	late := store.RatedRace{RoomID: "rr2", Roster: []string{"p_c", "p_d", "p_e"}, At: t0.Add(time.Minute)}
	early := store.RatedRace{RoomID: "rr1", Roster: []string{"p_a", "p_b"}, At: t0}
	require.NoError(t, s.AddRatedRace(ctx, late))
	require.NoError(t, s.AddRatedRace(ctx, early))
	again := early
	again.Roster, again.At = []string{"p_x", "p_y"}, t0.Add(time.Hour)
	require.NoError(t, s.AddRatedRace(ctx, again), "a room added twice")
	got, err = s.RatedRaces(ctx, 10)
	require.NoError(t, err)
	assert.Equal(t, []store.RatedRace{early, late}, got, "oldest first; a room added twice keeps its first row")
	got, err = s.RatedRaces(ctx, 1)
	require.NoError(t, err)
	assert.Equal(t, []store.RatedRace{early}, got)

	require.NoError(t, s.DropRatedRace(ctx, "rr1"))
	require.NoError(t, s.DropRatedRace(ctx, "rr1"), "dropped twice")
	require.NoError(t, s.DropRatedRace(ctx, "nowhere"))
	got, err = s.RatedRaces(ctx, 10)
	require.NoError(t, err)
	assert.Equal(t, []store.RatedRace{late}, got)
}
