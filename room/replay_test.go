package room_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
)

// recorded drains the game's records as the room stores them: each event
// in full, as JSON, dated as the game took it.
func (g *game) recorded(into *[]room.Record) {
	g.tb.Helper()
	for _, l := range g.DrainRecords() {
		*into = append(*into, room.RecordOf(l))
	}
}

// TestRebuildReplaysWhatHappenedSinceTheSave plays a game past its first
// save (the one at its creation, before anyone joined) and rebuilds it
// from that save and the records: the state is the game's, to the undo
// history, the racers' hidden mistakes and a finish not yet stored.
func TestRebuildReplaysWhatHappenedSinceTheSave(t *testing.T) {
	for _, mode := range []string{room.ModeRace, room.ModeCoop} {
		t.Run(mode, func(t *testing.T) {
			cfg := room.Config{ReconnectWindow: 20 * time.Second, HintPenalty: 30 * time.Second}
			g := newGame(t, mode, cfg)
			first := g.Save(g.now)
			var recs []room.Record
			g.recorded(&recs)
			require.Empty(t, recs, "a new game has logged nothing")

			g.join("a")
			g.watch("s")
			g.join("b")
			g.join("c")
			g.begin()
			g.after(time.Minute)
			right := g.open("a")
			g.ok("a", move(right, g.pz.Solution[right]))
			g.ok("b", note(protocol.NoteCentre, g.open("b"), 7))
			bCell := g.open("b")
			g.ok("b", move(bCell, g.pz.Solution[bCell]))
			g.ok("b", msg(protocol.TypeUndo))
			g.ok("b", msg(protocol.TypeRedo))
			cell, d := g.wrong("a")
			g.ok("a", move(cell, d))
			g.ok("a", note(protocol.NoteCorner, g.open("a"), 2))
			if mode == room.ModeCoop {
				// An undo that finds its cell changed drops the stale
				// entry, and takes no seq: replay keeps the entry, and
				// the rebuilt game finds it stale again (below).
				g.ok("c", move(bCell, 0))
				g.refused("b", msg(protocol.TypeUndo), protocol.CodeUndoStale)
			}
			g.ok("c", msg(protocol.TypeHint))
			g.after(time.Minute)
			g.recorded(&recs)
			if mode == room.ModeRace {
				g.saved(results(t, g.fill("c")))
				g.after(time.Second)
				g.recorded(&recs)
				// b's finish is not stored yet.
				results(t, g.fill("b"))
				g.recorded(&recs)
			}
			g.ok("a", msg(protocol.TypeLeave))
			g.recorded(&recs)

			var s room.Saved
			data, err := json.Marshal(first)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(data, &s))
			r, err := room.Rebuild(cfg, &s, recs, g.now)
			require.NoError(t, err)

			_, eff := r.Drain()
			require.NotEmpty(t, eff)
			assert.Equal(t, room.Effect{Save: true}, eff[0], "saved at once, so that the next replay starts past the gap")
			if mode == room.ModeRace {
				require.Len(t, eff, 2, "the finish not stored is asked for again")
				require.Len(t, eff[1].Results, 1)
				assert.Equal(t, "b", eff[1].Results[0].PlayerID)
				assert.Equal(t, 2, eff[1].Results[0].Rank)
			} else {
				assert.Len(t, eff, 1)
			}
			if mode == room.ModeCoop {
				rg := played(t, r, g.pz, g.now)
				rg.refused("b", msg(protocol.TypeUndo), protocol.CodeUndoStale)
			}
			want, got := g.Save(g.now), r.Save(g.now)
			assert.Greater(t, got.Seq, want.Seq, "numbering goes on past anything sent after the last record")
			got.Seq = want.Seq
			assert.Equal(t, want, got)
			assert.Equal(t, 2, r.Players())
			_, ok := r.Member("s")
			assert.False(t, ok, "spectators are not kept")

			// The same records twice, or with one missing, change nothing
			// more: replay stops at a gap.
			again, err := room.Rebuild(cfg, &s, append(recs, recs...), g.now)
			require.NoError(t, err)
			assert.Equal(t, r.Players(), again.Players())
			assert.Equal(t, r.Snapshot("", g.now), again.Snapshot("", g.now))
			cut, err := room.Rebuild(cfg, &s, append(recs[:2:2], recs[3:]...), g.now)
			require.NoError(t, err)
			assert.Len(t, cut.Save(g.now).Players, 1, "only the records before the gap")
		})
	}
}

// rebuilt is the game rebuilt from a state it saved and the records after
// it, the state through JSON as the store keeps it.
func rebuilt(t *testing.T, saved *room.Saved, recs []room.Record, now time.Time) *room.Game {
	t.Helper()
	data, err := json.Marshal(saved)
	require.NoError(t, err)
	var s room.Saved
	require.NoError(t, json.Unmarshal(data, &s))
	r, err := room.Rebuild(room.Config{}, &s, recs, now)
	require.NoError(t, err)
	return r
}

// ranked is whether player id's finish in g would be ranked, as every
// member is told.
func ranked(t *testing.T, g *room.Game, now time.Time, id string) bool {
	t.Helper()
	for _, p := range g.Snapshot("", now).Players {
		if p.ID == id {
			require.NotNil(t, p.Ranked, "a round on a daily tells whether %s is ranked", id)
			return *p.Ranked
		}
	}
	require.Failf(t, "no such player", "%s is not a player", id)
	return false
}

// TestRebuildKeepsADailysRanks: whether a finish on the puzzle of the day
// can be ranked comes back from the records. A player with a ranked
// finish of the day already (Attempted) is unranked, which the state
// event after their join tells (a daily's, whose join starts play) or the
// one that starts play (a race's), and until then the saved state, which
// their join asks for; a race that starts after its day is an archive
// round, where nobody is ranked.
func TestRebuildKeepsADailysRanks(t *testing.T) {
	day := t0.Format(room.DayLayout)
	t.Run("daily", func(t *testing.T) {
		g := newGame(t, room.ModeDaily, room.Config{})
		g.PlayDaily(day, false)
		first := g.Save(g.now)
		g.Attempted("a")
		_, s := g.enter("a", false)
		assert.Equal(t, []room.Effect{{Save: true}, {Views: []string{"a"}, Day: day, Level: "easy", At: g.now}}, s.Eff,
			"the join shows the board: the attempt starts")
		require.False(t, ranked(t, g.Game, g.now, "a"))
		var recs []room.Record
		g.recorded(&recs)
		assert.False(t, ranked(t, rebuilt(t, first, recs, g.now), g.now, "a"), "unranked, as the state said")
	})
	t.Run("race", func(t *testing.T) {
		g := newGame(t, room.ModeRace, room.Config{})
		g.PlayDaily(day, false)
		first := g.Save(g.now)
		g.join("a")
		g.Attempted("b")
		_, s := g.enter("b", false)
		assert.Equal(t, []room.Effect{{Save: true}}, s.Eff, "no event tells that b is unranked before play starts: the saved state does")
		var recs []room.Record
		g.recorded(&recs)
		before := rebuilt(t, g.Save(g.now), nil, g.now)
		assert.False(t, ranked(t, before, g.now, "b"))
		g.begin()
		g.recorded(&recs)
		r := rebuilt(t, first, recs, g.now)
		assert.True(t, ranked(t, r, g.now, "a"))
		assert.False(t, ranked(t, r, g.now, "b"), "unranked, as the state that started play said")
	})
	t.Run("archive", func(t *testing.T) {
		g := newGame(t, room.ModeRace, room.Config{})
		g.PlayDaily(day, false)
		first := g.Save(g.now)
		g.join("a")
		g.after(12 * time.Hour) // play starts the next day
		g.begin()
		require.False(t, ranked(t, g.Game, g.now, "a"))
		var recs []room.Record
		g.recorded(&recs)
		assert.False(t, ranked(t, rebuilt(t, first, recs, g.now), g.now, "a"), "an archive round, as play started after its day")
	})
}
