package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/store"
)

// testTournaments: a scheduled tournament is listed as upcoming; saved
// finished with its standings it comes back with them by rank, its games'
// JSON byte for byte, and on each player's page; saving again replaces
// the standings; bad values are refused and change nothing.
func testTournaments(t *testing.T, s store.Store) {
	ctx := context.Background()
	hourly := store.Tournament{ID: "T1", Name: "Hourly easy", Level: "easy", StartsAt: t0, Duration: 20 * time.Minute, Status: store.TournamentUpcoming}
	later := store.Tournament{ID: "T2", Name: "Hourly easy", Level: "easy", StartsAt: t0.Add(time.Hour), Duration: 20 * time.Minute, Status: store.TournamentUpcoming}
	require.NoError(t, s.SaveTournament(ctx, later))
	require.NoError(t, s.SaveTournament(ctx, hourly))
	up, err := s.TournamentsByStatus(ctx, store.TournamentUpcoming, 10)
	require.NoError(t, err)
	assert.Equal(t, []store.Tournament{hourly, later}, up, "earliest start first")

	games := []byte(`[{"race":"R1","place":1,"points":4},{"race":"R2","place":2,"points":6,"fire":true}]`)
	hourly.Status = store.TournamentFinished
	hourly.Standings = []store.Standing{
		{PlayerID: "b", Name: "Bea", Rank: 1, Score: 10, Wins: 1, Games: games},
		{PlayerID: "a", Name: "Zoë", Rank: 2, Score: 3, Wins: 0, Games: []byte(`[]`)},
		{PlayerID: "c", Name: "Cy", Rank: 2, Score: 3, Wins: 0, Games: []byte(`[]`)},
	}
	require.NoError(t, s.SaveTournament(ctx, hourly))
	require.NoError(t, s.SaveTournament(ctx, hourly), "saved again: nothing changes")
	got, err := s.Tournament(ctx, "T1")
	require.NoError(t, err)
	want := hourly
	want.Players = 3
	assert.Equal(t, want, got)
	assert.Equal(t, string(games), string(got.Standings[0].Games))

	fin, err := s.TournamentsByStatus(ctx, store.TournamentFinished, 10)
	require.NoError(t, err)
	require.Len(t, fin, 1)
	assert.Equal(t, 3, fin[0].Players)
	assert.Nil(t, fin[0].Standings, "lists do not read the standings")
	up, err = s.TournamentsByStatus(ctx, store.TournamentUpcoming, 10)
	require.NoError(t, err)
	assert.Equal(t, []store.Tournament{later}, up)

	mine, err := s.PlayerTournaments(ctx, "c", 10)
	require.NoError(t, err)
	require.Len(t, mine, 1)
	assert.Equal(t, 2, mine[0].Rank)
	assert.Equal(t, 3, mine[0].Score)
	assert.Equal(t, "T1", mine[0].Tournament.ID)
	assert.Equal(t, 3, mine[0].Tournament.Players)
	none, err := s.PlayerTournaments(ctx, "nobody", 10)
	require.NoError(t, err)
	assert.Empty(t, none)

	hourly.Standings = hourly.Standings[:1]
	require.NoError(t, s.SaveTournament(ctx, hourly))
	got, err = s.Tournament(ctx, "T1")
	require.NoError(t, err)
	assert.Len(t, got.Standings, 1, "the standings saved last replace those before")

	_, err = s.Tournament(ctx, "T9")
	assert.ErrorIs(t, err, store.ErrNotFound)
	for _, bad := range []store.Tournament{
		{ID: "", Name: "x", Level: "easy", StartsAt: t0, Duration: time.Minute, Status: store.TournamentUpcoming},
		{ID: "T1", Name: "x", Level: "easy", StartsAt: t0, Duration: time.Minute, Status: "maybe"},
		{ID: "T1", Name: "x", Level: "easy", StartsAt: t0, Duration: 0, Status: store.TournamentUpcoming},
		{ID: "T1", Name: "", Level: "easy", StartsAt: t0, Duration: time.Minute, Status: store.TournamentUpcoming},
	} {
		assert.ErrorIs(t, s.SaveTournament(ctx, bad), store.ErrInvalid, "%+v", bad)
	}
	got, err = s.Tournament(ctx, "T1")
	require.NoError(t, err)
	assert.Equal(t, "Hourly easy", got.Name, "a refused save changes nothing")
}

// testTournamentLines: a running tournament's lines are stored one by
// one as they change, each in place of the player's line before and
// the others left as they are, with the order they joined in and whether
// they withdrew; a tournament not stored is ErrNotFound, a bad line is
// ErrInvalid and stores nothing, not even the good lines beside it; the
// final standings saved whole replace them.
func testTournamentLines(t *testing.T, s store.Store) {
	ctx := context.Background()
	run := store.Tournament{ID: "L1", Name: "Hourly easy", Level: "easy", StartsAt: t0, Duration: time.Hour, Status: store.TournamentRunning}
	require.NoError(t, s.SaveTournament(ctx, run))
	ann := store.Standing{PlayerID: "a", Name: "Ann", Rank: 1, Games: []byte(`[]`)}
	bob := store.Standing{PlayerID: "b", Name: "Bob", Rank: 1, Games: []byte(`[]`), Joined: 1}
	require.NoError(t, s.SaveTournamentLines(ctx, "L1", []store.Standing{ann, bob}))
	ann.Score, ann.Wins, ann.Games = 4, 1, []byte(`[{"race":"R1","place":1,"points":4}]`)
	bob.Rank, bob.Score, bob.Games, bob.Withdrawn = 2, 3, []byte(`[{"race":"R1","place":2,"points":3}]`), true
	require.NoError(t, s.SaveTournamentLines(ctx, "L1", []store.Standing{ann}))
	require.NoError(t, s.SaveTournamentLines(ctx, "L1", []store.Standing{bob}))
	require.NoError(t, s.SaveTournamentLines(ctx, "L1", nil), "no lines: nothing to store")
	got, err := s.Tournament(ctx, "L1")
	require.NoError(t, err)
	assert.Equal(t, store.TournamentRunning, got.Status)
	assert.Equal(t, 2, got.Players)
	assert.Equal(t, []store.Standing{ann, bob}, got.Standings)

	assert.ErrorIs(t, s.SaveTournamentLines(ctx, "L9", []store.Standing{ann}), store.ErrNotFound)
	cy := store.Standing{PlayerID: "c", Name: "Cy", Rank: 3, Joined: 2}
	for _, bad := range []store.Standing{
		{PlayerID: "", Name: "x", Rank: 1},
		{PlayerID: "a", Name: "", Rank: 1},
		{PlayerID: "a", Name: "Ann", Rank: 0},
		{PlayerID: "a", Name: "Ann", Rank: 1, Joined: -1},
	} {
		assert.ErrorIs(t, s.SaveTournamentLines(ctx, "L1", []store.Standing{cy, bad}), store.ErrInvalid, "%+v", bad)
	}
	got, err = s.Tournament(ctx, "L1")
	require.NoError(t, err)
	assert.Equal(t, []store.Standing{ann, bob}, got.Standings, "a refused save changes nothing")

	run.Status = store.TournamentFinished
	bob.Rank = 2
	run.Standings = []store.Standing{ann, bob}
	require.NoError(t, s.SaveTournament(ctx, run))
	mine, err := s.PlayerTournaments(ctx, "b", 10)
	require.NoError(t, err)
	require.Len(t, mine, 1)
	assert.Equal(t, 3, mine[0].Score)
	got, err = s.Tournament(ctx, "L1")
	require.NoError(t, err)
	assert.Equal(t, []store.Standing{ann, bob}, got.Standings)
}
