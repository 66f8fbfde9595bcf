package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/daily"
	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/backend/backendtest"
)

// newAdapter is the rooms' store over st, with its event log.
func newAdapter(t *testing.T, st store.Store) (*store.Adapter, *store.EventLog) {
	t.Helper()
	events := store.NewEventLog(st, store.EventLogOptions{Interval: time.Millisecond})
	t.Cleanup(func() { _ = events.Close(context.Background()) })
	pool := &store.PuzzlePool{Store: st, Make: store.MakePuzzle, Levels: room.Levels, Stock: 1}
	return &store.Adapter{Store: st, Pool: pool, Events: events}, events
}

// The rooms' storage works the same on both stores: a game recorded with
// its puzzle, its state saved and loaded back, results stored once, events
// logged, players found by token.
func TestStorageOnEveryStore(t *testing.T) {
	t.Parallel()
	for name, st := range backendtest.Stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			sg, events := newAdapter(t, st)

			pz, err := sg.NewGame(ctx, "r00m", "r00m", room.ModeRace, "medium")
			require.NoError(t, err)
			assert.Equal(t, "medium", pz.Level)
			r := engine.Solve(pz.Givens, 2)
			assert.Equal(t, 1, r.Count, "the puzzle has one solution")
			assert.Equal(t, pz.Solution, r.Solution, "and the game keeps it")
			rec, err := st.Room(ctx, "r00m")
			require.NoError(t, err)
			assert.Equal(t, pz.ID, rec.PuzzleID)
			assert.Equal(t, store.StateWaiting, rec.State)

			require.NoError(t, sg.CreatePlayer(ctx, "p_a", "Ann", server.HashToken("secret")))
			id, pname, err := sg.PlayerByToken(ctx, server.HashToken("secret"))
			require.NoError(t, err)
			assert.Equal(t, []string{"p_a", "Ann"}, []string{id, pname})
			_, _, err = sg.PlayerByToken(ctx, server.HashToken("other"))
			assert.ErrorIs(t, err, room.ErrUnknownPlayer)

			// A running game's state comes back as it was saved.
			now := time.Now().UTC().Truncate(time.Millisecond)
			g, err := room.NewGame(room.Config{}, "r00m", room.ModeRace, pz, now)
			require.NoError(t, err)
			_, _, jerr := g.Join(now, "p_a", "Ann", false, 0)
			require.Nil(t, jerr)
			require.Nil(t, g.Handle(now, "p_a", &protocol.Msg{Type: protocol.TypeStart}))
			g.Tick(now.Add(time.Hour))
			require.NoError(t, sg.SaveRoom(ctx, g.Save(now)))
			made := time.Now()
			pz2, err := sg.NewGame(ctx, "n3w", "n3w", room.ModeCoop, "easy")
			require.NoError(t, err)
			loaded, err := sg.LoadRooms(ctx)
			require.NoError(t, err)
			require.Len(t, loaded, 2, "a game never saved comes back too")
			assert.Equal(t, g.Save(now), loaded[0])
			// As it was made: its events, replayed, bring back the rest.
			n3w := loaded[1]
			assert.Equal(t, "n3w", n3w.GameID())
			assert.Equal(t, room.ModeCoop, n3w.Mode)
			assert.Equal(t, protocol.PhaseWaiting, n3w.Phase)
			assert.Empty(t, n3w.Players)
			assert.False(t, n3w.Final)
			assert.Equal(t, room.SavedPuzzle{ID: pz2.ID, Level: "easy", Givens: pz2.Givens.String(), Solution: pz2.Solution.String()}, n3w.Puzzle)
			assert.WithinDuration(t, made, n3w.Created, time.Minute)
			rec2 := room.Record{Seq: 1, Type: protocol.TypePresence, Player: "p_a", Data: []byte(`{"type":"presence","seq":1}`), At: now}
			sg.RecordEvents("n3w", []room.Record{rec2})
			require.NoError(t, events.Flush(ctx))
			back, err := sg.LoadEvents(ctx, "n3w", 0)
			require.NoError(t, err)
			require.Len(t, back, 1)
			assert.Equal(t, rec2.Seq, back[0].Seq)
			assert.Equal(t, rec2.Type, back[0].Type)
			assert.Equal(t, rec2.Player, back[0].Player)
			assert.JSONEq(t, string(rec2.Data), string(back[0].Data))
			back, err = sg.LoadEvents(ctx, "n3w", 1)
			require.NoError(t, err)
			assert.Empty(t, back, "only the events after the seq given")
			n3w.Final, n3w.Abandoned = true, true
			require.NoError(t, sg.SaveRoom(ctx, n3w), "it ends, as nobody came")
			rec, err = st.Room(ctx, "r00m")
			require.NoError(t, err)
			assert.Equal(t, store.StateRunning, rec.State)
			assert.Equal(t, "p_a", rec.HostID)

			// Results are stored once; a retried save is no error.
			res := []store.Result{{RoomID: "r00m", PlayerID: "p_a", PuzzleID: pz.ID, Mode: room.ModeRace, Level: "medium",
				Elapsed: 90 * time.Second, Mistakes: 2, Hints: 1, Score: 1710, FinishedAt: now}}
			require.NoError(t, sg.SaveFinish(ctx, res))
			require.NoError(t, sg.SaveFinish(ctx, res))
			hist, err := st.PlayerHistory(ctx, "p_a", 10)
			require.NoError(t, err)
			require.Len(t, hist, 1)
			assert.Equal(t, 90*time.Second, hist[0].Elapsed)
			assert.Equal(t, 1710, hist[0].Score)
			// A finish the database refuses (a player it does not know) is
			// refused for good, and none of it is stored.
			bad := append(res[:1:1], res[0])
			bad[0].RoomID, bad[1].RoomID, bad[1].PlayerID = "n3w", "n3w", "p_ghost"
			err = sg.SaveFinish(ctx, bad)
			require.ErrorIs(t, err, room.ErrRefused)
			hist, err = st.PlayerHistory(ctx, "p_a", 10)
			require.NoError(t, err)
			assert.Len(t, hist, 1, "all of a finish or none")

			// A finished game comes back while its room lives (its players
			// may still be there), and not once the room has ended.
			s := g.Save(now)
			s.Phase = protocol.PhaseFinished
			require.NoError(t, sg.SaveRoom(ctx, s))
			loaded, err = sg.LoadRooms(ctx)
			require.NoError(t, err)
			require.Len(t, loaded, 1)
			assert.Equal(t, protocol.PhaseFinished, loaded[0].Phase)
			s.Final, s.Ended = true, true
			require.NoError(t, sg.SaveRoom(ctx, s))
			loaded, err = sg.LoadRooms(ctx)
			require.NoError(t, err)
			assert.Empty(t, loaded)
			rec, err = st.Room(ctx, "r00m")
			require.NoError(t, err)
			assert.Equal(t, store.StateFinished, rec.State)
			// Unless a finish in it waits to be stored: it comes back to
			// store it.
			s.Players[0].Finished, s.Players[0].Unstored = true, true
			require.NoError(t, sg.SaveRoom(ctx, s))
			loaded, err = sg.LoadRooms(ctx)
			require.NoError(t, err)
			require.Len(t, loaded, 1)
			assert.True(t, loaded[0].Unstored())
			s.Players[0].Unstored = false
			require.NoError(t, sg.SaveRoom(ctx, s))

			sg.RecordEvents("r00m", []room.Record{{Seq: 1, Type: protocol.TypePresence, Player: "p_a", Data: []byte(`{"type":"presence","seq":1}`), At: now}})
			require.NoError(t, events.Flush(ctx))
			evs, err := st.Events(ctx, "r00m", 0, 0)
			require.NoError(t, err)
			require.Len(t, evs, 1)
			assert.Equal(t, "p_a", evs[0].PlayerID)
		})
	}
}

// A player's own puzzle is stored once, with its grade's level, and a
// finish on it (flagged, as the room makes it) counts on no leaderboard,
// while a finish on a dealt puzzle does.
func TestOwnGameOnEveryStore(t *testing.T) {
	t.Parallel()
	gen, err := engine.Generate(engine.GenerateOptions{Level: engine.LevelMedium, Seed: 42})
	require.NoError(t, err)
	own, err := room.OwnPuzzle(gen.Givens)
	require.NoError(t, err)
	for name, st := range backendtest.Stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			sg, _ := newAdapter(t, st)
			require.NoError(t, sg.CreatePlayer(ctx, "p_a", "Ann", server.HashToken("a")))

			pz, err := sg.OwnGame(ctx, "0wn", "0wn", room.ModeRace, own)
			require.NoError(t, err)
			assert.NotZero(t, pz.ID)
			assert.Equal(t, "medium", pz.Level)
			assert.Equal(t, gen.Givens, pz.Givens)
			assert.Equal(t, gen.Solution, pz.Solution)
			again, err := sg.OwnGame(ctx, "0wn", room.GameID("0wn", 2), room.ModeRace, own)
			require.NoError(t, err)
			assert.Equal(t, pz.ID, again.ID, "the same givens are stored once")
			stored, err := st.Puzzle(ctx, pz.ID)
			require.NoError(t, err)
			assert.Equal(t, gen.Solution.String(), stored.Solution)

			dealt, err := sg.NewGame(ctx, "d3alt", "d3alt", room.ModeRace, "medium")
			require.NoError(t, err)
			now := time.Now().UTC().Truncate(time.Millisecond)
			finish := func(gameID string, pz room.Puzzle, elapsed time.Duration, flagged bool) store.Result {
				return store.Result{
					RoomID: gameID, PlayerID: "p_a", PuzzleID: pz.ID, Mode: room.ModeRace, Level: "medium",
					Elapsed: elapsed, Score: 100, FinishedAt: now, Flagged: flagged, AllTime: !flagged,
				}
			}
			require.NoError(t, sg.SaveFinish(ctx, []store.Result{finish("0wn", pz, 30*time.Second, true)}))
			require.NoError(t, sg.SaveFinish(ctx, []store.Result{finish("d3alt", dealt, 5*time.Minute, false)}))

			best, err := st.PlayerBest(ctx, "p_a")
			require.NoError(t, err)
			require.Len(t, best, 1)
			assert.Equal(t, "d3alt", best[0].RoomID, "the faster finish on the own puzzle is not a best time")
			board, err := st.BestTimes(ctx, "medium", 10)
			require.NoError(t, err)
			require.Len(t, board, 1)
			assert.Equal(t, 5*time.Minute, board[0].Elapsed)
		})
	}
}

// A game the process died right after making, before its state was first
// saved, comes back as it was made, whatever its mode: every row of the
// rules table (room.Modes) is restored, a dated mode's with its day. A
// mode added to the table and not restored fails here.
func TestEveryModeComesBackUnsaved(t *testing.T) {
	t.Parallel()
	for name, st := range backendtest.Stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			sg, _ := newAdapter(t, st)
			rooms := &daily.Rooms{Adapter: sg, Puzzles: &daily.Puzzles{Store: st}}
			today := time.Now().UTC().Format(room.DayLayout)
			made := map[string]room.Puzzle{}
			for _, mode := range room.Modes() {
				id := "unsaved-" + mode.Name
				var pz room.Puzzle
				var err error
				if mode.Date == room.DateRequired {
					pz, err = rooms.DailyGame(ctx, id, id, mode.Name, "easy", today)
				} else {
					pz, err = rooms.NewGame(ctx, id, id, mode.Name, "easy")
				}
				require.NoError(t, err, mode.Name)
				made[id] = pz
			}
			saved, err := rooms.LoadRooms(ctx)
			require.NoError(t, err)
			back := map[string]*room.Saved{}
			for _, s := range saved {
				back[s.ID] = s
			}
			for _, mode := range room.Modes() {
				id := "unsaved-" + mode.Name
				s := back[id]
				require.NotNil(t, s, "a %s game never saved does not come back", mode.Name)
				assert.Equal(t, mode.Name, s.Mode)
				assert.Equal(t, 1, s.Round)
				assert.Equal(t, protocol.PhaseWaiting, s.Phase)
				assert.Equal(t, made[id].Givens.String(), s.Puzzle.Givens)
				assert.Equal(t, made[id].Solution.String(), s.Puzzle.Solution)
				if mode.Date == room.DateRequired {
					assert.Equal(t, today, s.Day, "a %s game comes back with its day", mode.Name)
				} else {
					assert.Empty(t, s.Day)
				}
				assert.False(t, s.Archive)
				// And it plays again: the registry can rebuild it.
				g, err := room.Rebuild(room.Config{}, s, nil, time.Now())
				require.NoError(t, err, mode.Name)
				assert.Equal(t, mode.Name, g.Mode())
				assert.Equal(t, s.Day, g.Day())
			}
		})
	}
}
