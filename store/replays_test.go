package store_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/backend/backendtest"
)

// A replay reads a round from the real stores: its state as saved (or as
// made, before any save), every event, those the event log still holds
// included, and nothing once the retention has deleted them.
func TestReplayFromEveryStore(t *testing.T) {
	t.Parallel()
	for name, st := range backendtest.Stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			// An event log that writes only when asked: what a replay
			// reads, it had to flush.
			events := store.NewEventLog(st, store.EventLogOptions{Interval: time.Hour})
			t.Cleanup(func() { _ = events.Close(context.Background()) })
			pool := &store.PuzzlePool{Store: st, Make: store.MakePuzzle, Levels: room.Levels, Stock: 1}
			sg := &store.Adapter{Store: st, Pool: pool, Events: events}

			_, err := sg.ReplayRound(ctx, "n0pe")
			assert.ErrorIs(t, err, room.ErrNoRound)

			pz, err := sg.NewGame(ctx, "r3p1", "r3p1.2", room.ModeRace, "easy")
			require.NoError(t, err)
			made, err := sg.ReplayRound(ctx, "r3p1.2")
			require.NoError(t, err)
			assert.Equal(t, []any{"r3p1", 2, protocol.PhaseWaiting}, []any{made.ID, made.Round, made.Phase})
			assert.Equal(t, pz.Givens.String(), made.Puzzle.Givens)
			assert.Equal(t, pz.Solution.String(), made.Puzzle.Solution)

			saved := &room.Saved{ID: "r3p1", Mode: room.ModeRace, Round: 2, Phase: protocol.PhaseFinished,
				Puzzle: made.Puzzle, Created: time.Now(), SavedAt: time.Now(), FinishedAt: time.Now().Add(-time.Hour), Ended: true}
			require.NoError(t, sg.SaveRoom(ctx, saved))
			got, err := sg.ReplayRound(ctx, "r3p1.2")
			require.NoError(t, err)
			assert.Equal(t, protocol.PhaseFinished, got.Phase)
			assert.True(t, got.Ended)

			at := time.Now().UTC().Truncate(time.Millisecond)
			var recs []room.Record
			for seq := int64(1); seq <= 3; seq++ {
				data, err := json.Marshal(map[string]any{"type": protocol.TypeMove, "seq": seq, "player": "p_a", "cell": seq, "digit": 5})
				require.NoError(t, err)
				recs = append(recs, room.Record{Seq: seq, Type: protocol.TypeMove, Player: "p_a", Data: data, At: at.Add(time.Duration(seq) * time.Second)})
			}
			sg.RecordEvents("r3p1.2", recs[:2])
			out, err := sg.ReplayEvents(ctx, "r3p1.2", 0, 0)
			require.NoError(t, err)
			require.Len(t, out, 2, "the log's batch is flushed before the read from the start")
			// A read further on (a replay's next page) does not wait for the
			// log: the round's events were written when its first page was.
			sg.RecordEvents("r3p1.2", recs[2:])
			out, err = sg.ReplayEvents(ctx, "r3p1.2", 2, 0)
			require.NoError(t, err)
			assert.Empty(t, out, "not flushed")
			out, err = sg.ReplayEvents(ctx, "r3p1.2", 0, 0)
			require.NoError(t, err)
			require.Len(t, out, 3)
			for i, r := range out {
				assert.Equal(t, int64(i+1), r.Seq)
				assert.JSONEq(t, string(recs[i].Data), string(r.Data))
				assert.True(t, recs[i].At.Equal(r.At), "event %d's time", i)
			}
			page, err := sg.ReplayEvents(ctx, "r3p1.2", 1, 1)
			require.NoError(t, err)
			require.Len(t, page, 1, "a page: at most limit events after the seq")
			assert.Equal(t, int64(2), page[0].Seq)

			n, err := st.DeleteFinishedEvents(ctx, time.Now(), 10)
			require.NoError(t, err)
			assert.Equal(t, int64(3), n)
			out, err = sg.ReplayEvents(ctx, "r3p1.2", 0, 0)
			require.NoError(t, err)
			assert.Empty(t, out, "past the retention, no event is left")
		})
	}
}
