package server_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/protocol"
)

// attackCells is how many empty cells the attack tries every candidate of.
const attackCells = 4

// TestRaceAttackLearnsNothingUntilTheFinish plays the attack of a racer
// who tests digits one by one: Ann places each candidate of a few empty
// cells (a digit no given clashes with) and clears it again, while the
// test records every frame that Ann, her rival Bob and the spectator Sam
// receive, and what GET /api/rooms/{id} shows after each step. With the
// room's sequence numbers, the clock, the move count and the digit Ann
// chose herself set aside, every try reads the same to all of them and to
// the HTTP snapshot, right digit or wrong. Ann's finish then tells her
// mistakes, and the finished room everyone's.
func TestRaceAttackLearnsNothingUntilTheFinish(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.createRoom("race", "easy")
	ann, bob := e.dial("Ann"), e.dial("Bob")
	ann.join(id)
	bob.join(id)
	sam := e.dial("Sam")
	sam.send(map[string]any{"type": "join", "room": id, "as": "spectator", "name": "Sam"})
	await[protocol.Welcome](sam, protocol.TypeWelcome, nil)
	ann.send(map[string]any{"type": "start"})
	var givens engine.Grid
	for _, c := range []*client{ann, bob, sam} {
		givens = awaitRunning(c)
	}
	sol := e.solution(id, 1)

	var tries []attackTry
	for cell, cells := 0, 0; cell < engine.NumCells && cells < attackCells; cell++ {
		if givens[cell] != 0 {
			continue
		}
		cells++
		for d := uint8(1); d <= 9; d++ {
			if givens.Conflicts(cell, d).Empty() {
				tries = append(tries, attackTry{cell, d})
			}
		}
	}
	wrong := 0
	for _, tr := range tries {
		if tr.digit != sol[tr.cell] {
			wrong++
		}
	}
	require.Positive(t, wrong, "some tries are wrong")
	require.Less(t, wrong, len(tries), "some tries are right")

	// seen[who][i] is what who received of try i, normalized; snapshots[i]
	// is the room's after try i's digit went in, and after it came out.
	seen := map[string][]string{}
	var snapshots [][2]string
	observers := map[string]*client{"Ann": ann, "Bob": bob, "Sam": sam}
	moves := 0
	for i, tr := range tries {
		var snaps [2]string
		for step, digit := range []uint8{tr.digit, 0} {
			ann.send(map[string]any{"type": "move", "id": fmt.Sprint("step", step), "cell": tr.cell, "digit": digit})
			moves++
			for who, c := range observers {
				if step == 0 {
					seen[who] = append(seen[who], "")
				}
				for _, f := range readUntilProgress(c, ann.id, moves) {
					seen[who][i] += normalizeFrame(t, f.raw, ann.id, moves) + "\n"
				}
			}
			snaps[step] = normalizeSnapshot(t, e.roomJSON(id), ann.id, moves)
		}
		snapshots = append(snapshots, snaps)
	}
	for who, got := range seen {
		require.Len(t, got, len(tries), who)
		for i, tr := range tries {
			assert.Equal(t, got[0], got[i], "%s: try %d (%d at %s, right: %v) reads differently from try 0 (right: %v)",
				who, i, tr.digit, engine.CellName(tr.cell), tr.digit == sol[tr.cell], tries[0].digit == sol[tries[0].cell])
		}
	}
	for i, tr := range tries {
		assert.Equal(t, snapshots[0], snapshots[i], "GET /api/rooms/%s: try %d (%d at %s, right: %v) reads differently from try 0",
			id, i, tr.digit, engine.CellName(tr.cell), tr.digit == sol[tr.cell])
	}
	assert.NotContains(t, snapshots[0][0], "mistakes", "the snapshot tells no count")
	t.Logf("%d tries over %d cells, %d wrong: every frame and snapshot alike", len(tries), attackCells, wrong)

	// Nothing came after the last try: Bob's move is the next frame
	// each of them gets.
	cell := firstEmpty(givens, nil)
	bob.move(cell, sol[cell])
	for who, c := range observers {
		frames := readUntilProgress(c, bob.id, 1)
		if who == "Bob" {
			require.Len(t, frames, 2, "Bob's move and progress: %s", c.summary())
		} else {
			require.Len(t, frames, 1, "%s: Bob's progress and nothing before it: %s", who, c.summary())
		}
	}

	// Ann's finish tells her mistakes, to everyone; Bob's stay his.
	solve(ann, givens, sol)
	for _, c := range []*client{ann, bob, sam} {
		fin := await(c, protocol.TypeFinish, func(f *protocol.FinishEvent) bool { return f.Player == ann.id })
		assert.Equal(t, wrong, fin.Mistakes, "%s hears Ann's count with her finish", c.name)
	}
	snap := e.roomSnapshot(id)
	require.Len(t, snap.Players, 2)
	assert.Equal(t, &wrong, snap.Players[0].Mistakes, "Ann has finished")
	assert.Nil(t, snap.Players[1].Mistakes, "Bob races on")

	// The finished room tells every count.
	solve(bob, givens, sol)
	zero := 0
	for _, c := range []*client{ann, bob, sam} {
		end := await(c, protocol.TypeState, func(s *protocol.State) bool { return s.Room.Phase == protocol.PhaseFinished })
		require.Len(t, end.Room.Players, 2)
		assert.Equal(t, &wrong, end.Room.Players[0].Mistakes, c.name)
		assert.Equal(t, &zero, end.Room.Players[1].Mistakes, c.name)
	}
	snap = e.roomSnapshot(id)
	assert.Equal(t, &wrong, snap.Players[0].Mistakes)
	assert.Equal(t, &zero, snap.Players[1].Mistakes)
}

// attackTry is a digit the attacker places in a cell, and clears again.
type attackTry struct {
	cell  int
	digit uint8
}

// readUntilProgress reads c's frames up to player's progress event with
// moves moves, and returns them all.
func readUntilProgress(c *client, player string, moves int) []frame {
	c.tb.Helper()
	var frames []frame
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		f := c.read()
		frames = append(frames, f)
		if f.Type != protocol.TypeProgress {
			continue
		}
		var p protocol.ProgressEvent
		require.NoError(c.tb, json.Unmarshal(f.raw, &p))
		if p.Player == player && p.Moves == moves {
			return frames
		}
	}
	c.tb.Fatalf("%s: no progress of %s at %d moves within 5s; saw %s", c.name, player, moves, c.summary())
	return nil
}

// normalizeFrame is a frame with what may differ between two tries set
// aside: its seq, the mover's move count (made relative to moves, the
// count after this step) and, in the mover's own move event, the cell and
// digit they chose. The rest must be the same, byte for byte once
// re-encoded.
func normalizeFrame(tb testing.TB, raw []byte, mover string, moves int) string {
	tb.Helper()
	var ev map[string]any
	require.NoError(tb, json.Unmarshal(raw, &ev))
	delete(ev, "seq")
	switch ev["type"] {
	case protocol.TypeMove:
		if ev["player"] == mover {
			ev["cell"], ev["digit"] = "chosen", "chosen"
		}
	case protocol.TypeProgress:
		if ev["player"] == mover {
			ev["moves"] = ev["moves"].(float64) - float64(moves)
		}
	}
	out, err := json.Marshal(ev)
	require.NoError(tb, err)
	return string(out)
}

// normalizeSnapshot is GET /api/rooms/{id}'s body with its clock and the
// mover's move count (relative to moves) set aside.
func normalizeSnapshot(tb testing.TB, raw []byte, mover string, moves int) string {
	tb.Helper()
	var s map[string]any
	require.NoError(tb, json.Unmarshal(raw, &s))
	delete(s, "now")
	for _, p := range s["players"].([]any) {
		p := p.(map[string]any)
		if p["id"] == mover {
			p["moves"] = p["moves"].(float64) - float64(moves)
		}
	}
	out, err := json.Marshal(s)
	require.NoError(tb, err)
	return string(out)
}

// roomJSON is GET /api/rooms/{id}'s body, as any outsider may read it.
func (e *env) roomJSON(id string) []byte {
	e.tb.Helper()
	resp, err := arenatest.Get(e.http.URL + "/api/rooms/" + id)
	require.NoError(e.tb, err)
	defer resp.Body.Close()
	require.Equal(e.tb, http.StatusOK, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.NoError(e.tb, err)
	return body
}

// roomSnapshot is GET /api/rooms/{id}'s body decoded.
func (e *env) roomSnapshot(id string) protocol.Snapshot {
	e.tb.Helper()
	var s protocol.Snapshot
	require.NoError(e.tb, json.Unmarshal(e.roomJSON(id), &s))
	return s
}
