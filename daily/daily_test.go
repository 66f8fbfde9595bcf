package daily_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/daily"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/room/roomtest"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/sqlite"
)

// openSQLite is a fresh embedded store in the test's temporary directory.
func openSQLite(t *testing.T) store.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "arena.db"))
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	return st
}

// A ranked time is kept on the leaderboard as its score, to the
// millisecond, faster scoring higher; a time past the base scores 1.
func TestScoreKeepsTheTime(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		time   time.Duration
		score  int
		timeMS int64
	}{
		{"none", 0, daily.ScoreBase, 0},
		{"a millisecond", time.Millisecond, daily.ScoreBase - 1, 1},
		{"under a millisecond, cut", 1500 * time.Microsecond, daily.ScoreBase - 1, 1},
		{"four minutes", 4 * time.Minute, daily.ScoreBase - 240_000, 240_000},
		{"with penalties", 3*time.Minute + 30*time.Second + 7*time.Millisecond, daily.ScoreBase - 210_007, 210_007},
		{"the last that keeps its time", (daily.ScoreBase - 1) * time.Millisecond, 1, daily.ScoreBase - 1},
		{"past the base: 1", 24 * 24 * time.Hour, 1, daily.ScoreBase - 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.score, daily.Score(tt.time))
			assert.Equal(t, tt.timeMS, daily.TimeMS(daily.Score(tt.time)))
		})
	}
	assert.Greater(t, daily.Score(time.Minute), daily.Score(time.Minute+time.Millisecond), "faster scores higher")
}

// The day of the tests, and its daily room.
const day = "2026-11-22"

var noon = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// The rooms' results on the real store: a ranked daily finish keeps its
// time as its leaderboard score; a player's first ranked finish of a day
// and level is the one that counts, a second (two attempts played at
// once) is stored unranked and off every board; a finish retried is
// stored once; a finish the database refuses is refused for good, daily
// or not. Only accounts (p_a, p_b) rank unless guests are ranked; a race
// of one is on no board; a held finish is off the boards, waiting.
func TestSaveResultsRanksOnce(t *testing.T) {
	t.Parallel()
	ranked := func(gameID, player string, elapsed time.Duration) room.Result {
		return room.Result{
			GameID: gameID, PlayerID: player, Mode: room.ModeDaily, Level: "easy", Rank: 1,
			Elapsed: elapsed, Mistakes: 1, Hints: 1, Score: 900, FinishedAt: noon, Day: day, Ranked: true,
		}
	}
	race := func(gameID, player string, elapsed time.Duration) room.Result {
		return room.Result{
			GameID: gameID, PlayerID: player, Mode: room.ModeRace, Level: "easy", Rank: 1,
			Elapsed: elapsed, Score: 1700, FinishedAt: noon,
		}
	}
	flagged := race("r4ce", "p_a", 10*time.Second)
	flagged.Flagged = true
	solo := race("r4ce", "p_a", 2*time.Minute)
	solo.Solo = true
	held := ranked("d1", "p_a", 2*time.Minute)
	held.Held = room.HoldRegular
	tests := []struct {
		name       string
		rankGuests bool
		done       bool // p_a's attempt is finished
		finishes   [][]room.Result
		refused    []bool              // per finish: refused for good
		history    map[string][]string // player → "room day score", newest first
		board      []string            // the day's leaderboard: "player time_ms"
		best       []string            // the level's best times: "player elapsed"
	}{
		{
			name:     "a ranked finish keeps its time as its score",
			done:     true,
			finishes: [][]room.Result{{ranked("d1", "p_a", 4*time.Minute)}},
			refused:  []bool{false},
			// 4 min + a mistake's 30 s + a hint's 60 s.
			history: map[string][]string{"p_a": {"d1 2026-11-22 1999670000"}},
			board:   []string{"p_a 330000"},
			best:    []string{"p_a 4m0s"},
		},
		{
			name: "a second ranked finish of the day is stored unranked",
			done: true,
			finishes: [][]room.Result{
				{ranked("d1", "p_a", 4*time.Minute)},
				{ranked("d2", "p_a", time.Minute)},
			},
			refused: []bool{false, false},
			history: map[string][]string{"p_a": {"d2  900", "d1 2026-11-22 1999670000"}},
			board:   []string{"p_a 330000"},
			best:    []string{"p_a 4m0s"},
		},
		{
			name: "a finish of which one result breaks the rule is stored all unranked",
			done: true,
			finishes: [][]room.Result{
				{ranked("d1", "p_a", 4*time.Minute)},
				{ranked("d2", "p_b", 2*time.Minute), ranked("d2", "p_a", 2*time.Minute)},
			},
			refused: []bool{false, false},
			history: map[string][]string{"p_a": {"d2  900", "d1 2026-11-22 1999670000"}, "p_b": {"d2  900"}},
			board:   []string{"p_a 330000"},
			best:    []string{"p_a 4m0s"},
		},
		{
			name:     "a guest's finishes rank nowhere",
			finishes: [][]room.Result{{ranked("d1", "p_c", 4*time.Minute)}, {race("r4ce", "p_c", 3*time.Minute)}},
			refused:  []bool{false, false},
			history:  map[string][]string{"p_c": {"r4ce  1700", "d1  900"}},
		},
		{
			name:       "unless guests are ranked",
			rankGuests: true,
			finishes:   [][]room.Result{{ranked("d1", "p_c", 4*time.Minute)}, {race("r4ce", "p_c", 3*time.Minute)}},
			refused:    []bool{false, false},
			history:    map[string][]string{"p_c": {"r4ce  1700", "d1 2026-11-22 1999670000"}},
			board:      []string{"p_c 330000"},
			best:       []string{"p_c 3m0s"},
		},
		{
			name:     "a race of one is on no board",
			finishes: [][]room.Result{{solo}},
			refused:  []bool{false},
			history:  map[string][]string{"p_a": {"r4ce  1700"}},
		},
		{
			name:     "a held finish waits off the boards",
			done:     true,
			finishes: [][]room.Result{{held}},
			refused:  []bool{false},
			history:  map[string][]string{"p_a": {"d1  1999790000"}},
		},
		{
			name: "a finish retried is stored once",
			done: true,
			finishes: [][]room.Result{
				{ranked("d1", "p_a", 4*time.Minute)},
				{ranked("d1", "p_a", 4*time.Minute)},
				{race("r4ce", "p_b", 3*time.Minute)},
				{race("r4ce", "p_b", 3*time.Minute)},
			},
			refused: []bool{false, false, false, false},
			history: map[string][]string{"p_a": {"d1 2026-11-22 1999670000"}, "p_b": {"r4ce  1700"}},
			board:   []string{"p_a 330000"},
			best:    []string{"p_b 3m0s", "p_a 4m0s"},
		},
		{
			name: "a finish the database refuses is refused for good, daily or not",
			finishes: [][]room.Result{
				{ranked("d1", "p_a", 4*time.Minute), ranked("d1", "p_ghost", 4*time.Minute)},
				{race("r4ce", "p_ghost", time.Minute)},
			},
			refused: []bool{true, true},
			history: map[string][]string{"p_a": nil},
		},
		{
			name:     "a flagged finish is kept, off the best times",
			finishes: [][]room.Result{{flagged}},
			refused:  []bool{false},
			history:  map[string][]string{"p_a": {"r4ce  1700"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			st := openSQLite(t)
			rooms := &daily.Rooms{Adapter: &store.Adapter{Store: st}, Puzzles: &daily.Puzzles{Store: st}, RankGuests: tt.rankGuests}
			for _, p := range []string{"p_a", "p_b", "p_c"} {
				require.NoError(t, rooms.CreatePlayer(ctx, p, "Player "+p, []byte("hash-"+p)))
			}
			for _, p := range []string{"p_a", "p_b"} {
				require.NoError(t, st.CreateAccount(ctx, p, "Handle "+p, "handle "+p, noon, nil))
			}
			pz, err := rooms.DailyGame(ctx, "d1", "d1", room.ModeDaily, "easy", day)
			require.NoError(t, err)
			_, err = rooms.DailyGame(ctx, "d2", "d2", room.ModeDaily, "easy", day)
			require.NoError(t, err)
			require.NoError(t, st.CreateRoom(ctx, store.Room{ID: "r4ce", Mode: room.ModeRace, PuzzleID: pz.ID, State: store.StateRunning, CreatedAt: noon}))

			for i, f := range tt.finishes {
				for j := range f {
					f[j].PuzzleID = pz.ID
				}
				err := rooms.SaveResults(ctx, f)
				if tt.refused[i] {
					assert.ErrorIs(t, err, room.ErrRefused, "finish %d", i)
				} else {
					assert.NoError(t, err, "finish %d", i)
				}
			}
			for player, want := range tt.history {
				hist, err := st.PlayerHistory(ctx, player, 0)
				require.NoError(t, err)
				var got []string
				for _, r := range hist {
					got = append(got, r.RoomID+" "+r.Day+" "+strconv.Itoa(r.Score))
				}
				assert.Equal(t, want, got, "%s's results", player)
			}
			top, err := st.DailyTop(ctx, day, "easy", 10)
			require.NoError(t, err)
			var board []string
			for _, e := range top {
				board = append(board, e.PlayerID+" "+strconv.FormatInt(daily.TimeMS(e.Score), 10))
			}
			assert.Equal(t, tt.board, board, "the day's leaderboard")
			a, err := rooms.DailyAttempt(ctx, day, "easy", "p_a")
			require.NoError(t, err)
			assert.Equal(t, tt.done, a.Unranked, "p_a's attempt is finished")
			if tt.finishes[0][0].Held != "" {
				hr, err := st.HeldResults(ctx, 0)
				require.NoError(t, err)
				require.Len(t, hr, 1)
				assert.Equal(t, room.HoldRegular, hr[0].Reason)
				assert.Equal(t, day, hr[0].HeldDay, "held from the day's board")
			}
			bt, err := st.BestTimes(ctx, "easy", 10)
			require.NoError(t, err)
			var best []string
			for _, e := range bt {
				best = append(best, e.PlayerID+" "+e.Elapsed.String())
			}
			assert.Equal(t, tt.best, best, "the best times")
		})
	}
}

// armed is a test clock that tells the test each time a timer is set on
// it, and for when: the keeper's next wake-up.
type armed struct {
	*roomtest.Clock
	at chan time.Time
}

func (c *armed) NewTimer(at time.Time) room.Timer {
	t := c.Clock.NewTimer(at)
	c.at <- at
	return t
}

// The keeper stores today's dailies at once, and each next day's at its
// lead before midnight UTC (within the lead, at once), so that the first
// request of a day makes none; it waits on its clock, which the test
// moves instead of sleeping.
func TestKeeperPreparesAheadOfTheDay(t *testing.T) {
	t.Parallel()
	type wake struct {
		next time.Time // when the keeper, done, sets its timer for
		days []string  // the days whose dailies are stored by then
	}
	at := func(d, h, m int) time.Time { return time.Date(2026, 11, d, h, m, 0, 0, time.UTC) }
	tests := []struct {
		name  string
		start time.Time
		wakes []wake
	}{
		{
			name:  "in the morning, today's; at the lead, tomorrow's",
			start: at(22, 10, 0),
			wakes: []wake{
				{at(22, 23, 0), []string{"2026-11-22"}},
				// Then past midnight, to wait for the next lead.
				{at(23, 0, 1), []string{"2026-11-22", "2026-11-23"}},
				{at(23, 23, 0), []string{"2026-11-22", "2026-11-23"}},
				{at(24, 0, 1), []string{"2026-11-22", "2026-11-23", "2026-11-24"}},
			},
		},
		{
			name:  "within the lead of midnight, tomorrow's at once",
			start: at(22, 23, 30),
			wakes: []wake{
				{at(23, 0, 1), []string{"2026-11-22", "2026-11-23"}},
				{at(23, 23, 0), []string{"2026-11-22", "2026-11-23"}},
				{at(24, 0, 1), []string{"2026-11-22", "2026-11-23", "2026-11-24"}},
			},
		},
		{
			name:  "at the lead itself",
			start: at(22, 23, 0),
			wakes: []wake{
				{at(23, 0, 1), []string{"2026-11-22", "2026-11-23"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st := openSQLite(t)
			clock := &armed{Clock: roomtest.NewClock(tt.start), at: make(chan time.Time, 1)}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() {
				defer close(done)
				(&daily.Puzzles{Store: st}).Keep(ctx, clock, slog.New(slog.DiscardHandler))
			}()
			defer func() { cancel(); <-done }()
			all := []string{"2026-11-21", "2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25"}
			for i, w := range tt.wakes {
				var next time.Time
				select {
				case next = <-clock.at:
				case <-time.After(30 * time.Second):
					t.Fatalf("wake %d: the keeper set no timer", i)
				}
				assert.Equal(t, w.next, next, "wake %d: the keeper's next wake-up", i)
				for _, d := range all {
					for _, level := range room.Levels {
						_, err := st.Daily(context.Background(), d, level)
						if slices.Contains(w.days, d) {
							assert.NoError(t, err, "wake %d: the daily %s %s", i, d, level)
						} else {
							assert.ErrorIs(t, err, store.ErrNotFound, "wake %d: not yet the daily %s %s", i, d, level)
						}
					}
				}
				clock.Advance(next.Sub(clock.Now()))
			}
		})
	}
}
