package tournament_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/room/roomtest"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/sqlite"
	"github.com/sudoku-arena/arena/tournament"
)

// TestHubStoresTheStandings: a scheduled tournament runs on the hub's
// clock; its finishes come back through Results; once it ends the store
// holds its standings, which the hub then answers with, and each player's
// place.
func TestHubStoresTheStandings(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "arena.db"))
	require.NoError(t, err)
	defer st.Close()
	for _, id := range []string{"ann", "bob", "cy"} {
		require.NoError(t, st.CreatePlayer(ctx, store.Player{ID: id, Name: "Player " + id, TokenHash: []byte(id), CreatedAt: t0, LastSeen: t0}))
	}
	clock := roomtest.NewClock(t0)
	rs := &races{}
	hub := tournament.NewHub(ctx, clock, rs, st, nil)
	hub.Tick(ctx, []tournament.Recurring{{Every: time.Hour, Level: "easy", Duration: 20 * time.Minute}})
	l, err := hub.List(ctx)
	require.NoError(t, err)
	require.Len(t, l.Running, 1, "the hour's arena runs from its start")
	tid := l.Running[0].ID
	assert.Equal(t, "easy-20m-20261121t1200", tid)
	assert.Equal(t, "Easy 20m arena", l.Running[0].Name)

	assert.ErrorIs(t, hub.Join(ctx, "nope", "ann"), server.ErrNoTournament)
	assert.ErrorIs(t, hub.Withdraw(ctx, tid, "ann"), server.ErrNotInTournament)
	for _, id := range []string{"ann", "bob", "cy"} {
		require.NoError(t, hub.Join(ctx, tid, id))
	}
	require.Equal(t, [][]string{{"ann", "bob"}}, rs.made(), "two free: a race; cy waits")
	results := tournament.Results{Store: roomtest.NewStore(), Hub: hub}
	require.NoError(t, results.SaveResults(ctx, []room.Result{{GameID: "R1", PlayerID: "bob", Rank: 1}}))
	require.NoError(t, results.SaveResults(ctx, []room.Result{{GameID: "R1.2", PlayerID: "ann", Rank: 1}}), "a rematch is no tournament race")
	require.NoError(t, results.SaveResults(ctx, []room.Result{{GameID: "R9", PlayerID: "ann", Rank: 1}}), "nor another room")
	tr, err := hub.Tournament(ctx, tid)
	require.NoError(t, err)
	assert.Equal(t, 4, tr.Standings[0].Score)
	assert.Equal(t, "bob", tr.Standings[0].Player)
	assert.Equal(t, "Player bob", tr.Standings[0].Name, "the stored name")
	require.Equal(t, [][]string{{"ann", "bob"}, {"bob", "cy"}}, rs.made(), "bob is paired again with cy")

	clock.Advance(20 * time.Minute)
	require.Eventually(t, func() bool {
		got, err := st.Tournament(ctx, tid)
		return err == nil && got.Status == store.TournamentFinished
	}, 5*time.Second, 10*time.Millisecond)
	tr, err = hub.Tournament(ctx, tid)
	require.NoError(t, err)
	assert.Equal(t, tournament.StatusFinished, tr.Status)
	require.Len(t, tr.Standings, 3)
	assert.Equal(t, []server.TournamentGame{{Race: "R1", Place: 1, Points: 4}, {Race: "R2"}}, tr.Standings[0].Games)
	assert.ErrorIs(t, hub.Join(ctx, tid, "ann"), server.ErrTournamentOver)
	l, err = hub.List(ctx)
	require.NoError(t, err)
	assert.Empty(t, l.Running)
	require.Len(t, l.Finished, 1)
	assert.Equal(t, 3, l.Finished[0].Players)
	mine, err := hub.PlayerTournaments(ctx, "bob", 10)
	require.NoError(t, err)
	require.Len(t, mine, 1)
	assert.Equal(t, 1, mine[0].Rank)
	assert.Equal(t, 4, mine[0].Score)
}

// RegistryRaces makes each race a room for its players alone, which
// starts by itself, and hands it to Rated; a race Rated cannot take still
// runs (its players wait for it), unrated.
func TestRegistryRacesAreTheirPlayersAndRated(t *testing.T) {
	ctx := context.Background()
	reg := room.NewRegistry(room.RegistryConfig{Clock: roomtest.NewClock(t0)}, roomtest.NewStore())
	defer func() { assert.NoError(t, reg.Shutdown(ctx)) }()
	var rated [][]string
	fail := false
	rs := tournament.RegistryRaces{Rooms: reg, Rated: func(_ context.Context, roomID string, players []string) error {
		rated = append(rated, append([]string{roomID}, players...))
		if fail {
			return assert.AnError
		}
		return nil
	}}
	id, err := rs.StartRace(ctx, "t1", "easy", []string{"ann", "bob"})
	require.NoError(t, err)
	rm, err := reg.Get(id)
	require.NoError(t, err)
	snap, err := rm.Snapshot(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"ann", "bob"}, snap.Roster)
	assert.NotNil(t, snap.StartsBy, "it starts by itself")
	assert.Equal(t, [][]string{{id, "ann", "bob"}}, rated)

	fail = true
	id2, err := rs.StartRace(ctx, "t1", "easy", []string{"cy", "dee", "eve"})
	require.NoError(t, err, "an unrated race is still a race")
	assert.Equal(t, [][]string{{id, "ann", "bob"}, {id2, "cy", "dee", "eve"}}, rated)
}
