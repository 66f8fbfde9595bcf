// Package storetest is the contract every store.Store implementation must
// pass: one suite, run against the PostgreSQL and the SQLite store alike.
// Its tests are in one file per entity (players, puzzles, rooms, events,
// results, leaderboards, accounts, sessions, attempts, review); Run lists
// them all.
package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
)

// Opener returns a fresh, empty, migrated store for one test; it registers
// its own cleanup.
type Opener func(t *testing.T) store.Store

// Run runs the whole contract against stores made by open.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"Players", testPlayers},
		{"Puzzles", testPuzzles},
		{"PoolTakeConcurrent", testPoolConcurrent},
		{"Rooms", testRooms},
		{"RoomOwner", testRoomOwner},
		{"FencedWrites", testFencedWrites},
		{"EventsOrderAndIdempotence", testEvents},
		{"EventsKeepTheirText", testEventText},
		{"EventsPacked", testPackedEvents},
		{"EventRetention", testEventRetention},
		{"EventLogBatching", testEventLog},
		{"EventLogRetries", testEventLogRetries},
		{"ResultsUniqueness", testResults},
		{"FinishInOneTransaction", testSaveResults},
		{"DailyPuzzles", testDaily},
		{"LeaderboardOrderAndTies", testLeaderboard},
		{"LeaderboardAround", testAround},
		{"Streaks", testStreaks},
		{"PlayerTallies", testTallies},
		{"DailiesSolved", testDailiesSolved},
		{"HistoryPages", testHistoryPages},
		{"BestTimes", testBestTimes},
		{"LeaderboardGuests", testGuests},
		{"Accounts", testAccounts},
		{"HandleKeyRace", testHandleRace},
		{"DeleteAccount", testDeleteAccount},
		{"AccountSettings", testAccountSettings},
		{"Credentials", testCredentials},
		{"Sessions", testSessions},
		{"DeleteExpired", testDeleteExpired},
		{"SignInCodes", testSignInCodes},
		{"RecoveryCodes", testRecoveryCodes},
		{"Ceremonies", testCeremonies},
		{"Attempts", testAttempts},
		{"AttemptsConcurrent", testAttemptsConcurrent},
		{"Review", testReview},
		{"Tournaments", testTournaments},
		{"TournamentLines", testTournamentLines},
		{"Ratings", testRatings},
		{"RoomResults", testRoomResults},
		{"RatedRaces", testRatedRaces},
		{"BadInput", testBadInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.fn(t, open(t))
		})
	}
}

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// Fixtures shared by the tests.

func mkPlayer(t *testing.T, s store.Store, id string) store.Player {
	t.Helper()
	p := store.Player{ID: id, Name: "Player " + id, TokenHash: []byte("hash-" + id), CreatedAt: t0, LastSeen: t0, Seed: seedOf(id)}
	require.NoError(t, s.CreatePlayer(context.Background(), p))
	return p
}

// seedOf is a player's seed in the fixtures: its top bit set, so that a
// seed stored as a signed 64-bit number comes back bit for bit.
func seedOf(id string) uint64 {
	var seed uint64
	for _, c := range id {
		seed = seed*31 + uint64(c)
	}
	return seed | 1<<63
}

func mkPuzzle(t *testing.T, s store.Store, n int, level string) store.Puzzle {
	t.Helper()
	givens := []byte(fmt.Sprintf("%081d", n))
	for i := range givens {
		if givens[i] == '0' {
			givens[i] = '.'
		}
	}
	p, err := s.SavePuzzle(context.Background(), store.Puzzle{
		Givens: string(givens), Solution: fmt.Sprintf("%081d", n), Level: level, Score: 100 + n,
		Techniques: map[string]int{"naked-single": n}, Seed: uint64(n) << 40, CreatedAt: t0,
		SE: engine.SERating(70 + n),
	})
	require.NoError(t, err)
	return p
}

func mkRoom(t *testing.T, s store.Store, id, mode string, puzzleID int64, host string) store.Room {
	t.Helper()
	r := store.Room{ID: id, Mode: mode, PuzzleID: puzzleID, HostID: host, State: store.StateWaiting, CreatedAt: t0,
		Settings: json.RawMessage(`{"countdown":3}`)}
	require.NoError(t, s.CreateRoom(context.Background(), r))
	return r
}

func testBadInput(t *testing.T, s store.Store) {
	ctx := context.Background()
	mkPlayer(t, s, "a")
	pz := mkPuzzle(t, s, 12, "easy")
	assert.Error(t, s.CreatePlayer(ctx, store.Player{ID: "", Name: "x", TokenHash: []byte("t"), CreatedAt: t0, LastSeen: t0}))
	assert.ErrorIs(t, s.CreateRoom(ctx, store.Room{ID: "x", Mode: "solo", PuzzleID: pz.ID, HostID: "a", State: store.StateWaiting, CreatedAt: t0}), store.ErrInvalid)
	assert.ErrorIs(t, s.CreateRoom(ctx, store.Room{ID: "y", Mode: room.ModeRace, PuzzleID: 777777, HostID: "a", State: store.StateWaiting, CreatedAt: t0}), store.ErrInvalid)
	_, err := s.Room(ctx, "x")
	assert.ErrorIs(t, err, store.ErrNotFound, "a refused room is not stored")
	mkRoom(t, s, "r", room.ModeRace, pz.ID, "a")
	err = s.SaveResults(ctx, []store.Result{{RoomID: "r", PlayerID: "a", PuzzleID: pz.ID, Mode: room.ModeDaily, Level: "easy", FinishedAt: t0, Day: "2026-13-01"}})
	assert.ErrorIs(t, err, store.ErrInvalid)
	err = s.SaveResults(ctx, []store.Result{{RoomID: "r", PlayerID: "ghost", PuzzleID: pz.ID, Mode: room.ModeRace, Level: "easy", FinishedAt: t0}})
	assert.ErrorIs(t, err, store.ErrInvalid)
	for _, r := range []store.Result{{PlayedDay: "2026-11-31"}, {HeldDay: "tomorrow"}, {Review: "maybe"}} {
		r.RoomID, r.PlayerID, r.PuzzleID, r.Mode, r.Level, r.FinishedAt = "r", "a", pz.ID, room.ModeDaily, "easy", t0
		assert.ErrorIs(t, s.SaveResults(ctx, []store.Result{r}), store.ErrInvalid, "%+v", r)
	}
	hist, err := s.PlayerHistory(ctx, "a", 0)
	require.NoError(t, err)
	assert.Empty(t, hist, "refused results are not stored")
	_, err = s.PlayerStreak(ctx, "a", "yesterday")
	assert.ErrorIs(t, err, store.ErrInvalid)
}
