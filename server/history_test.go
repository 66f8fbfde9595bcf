package server_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/protocol"
)

// historyOf decodes a welcome's history: each event's type and seq, and
// the hints and errors in full.
func historyOf(t *testing.T, w *protocol.Welcome) (types []string, hints []protocol.HintEvent, errs []protocol.ErrorEvent) {
	t.Helper()
	var last int64
	for _, raw := range w.History {
		var h protocol.Header
		require.NoError(t, json.Unmarshal(raw, &h))
		assert.Greater(t, h.Seq, last, "oldest first, each with its seq")
		assert.LessOrEqual(t, h.Seq, w.Seq, "nothing after the welcome")
		last = h.Seq
		types = append(types, h.Type)
		switch h.Type {
		case protocol.TypeHint:
			var ev protocol.HintEvent
			require.NoError(t, json.Unmarshal(raw, &ev))
			hints = append(hints, ev)
		case protocol.TypeError:
			var ev protocol.ErrorEvent
			require.NoError(t, json.Unmarshal(raw, &ev))
			errs = append(errs, ev)
		}
	}
	return types, hints, errs
}

// TestWelcomeHistory: a join that asks for history (a page just loaded)
// gets, with its snapshot, the room's recent events as that member saw
// them: who joined, the start, a hint (in full to its asker, redacted to
// the others), a conflict; no moves, progress or states, which the
// snapshot holds. A join that does not ask, and a resume, get none.
func TestWelcomeHistory(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b := e.dial("Ann"), e.dial("Bob")
	id, givens, sol := e.startGame("race", a, b)
	cell := firstEmpty(givens, nil)
	a.move(cell, sol[cell])
	await(a, protocol.TypeProgress, func(p *protocol.ProgressEvent) bool { return p.Player == a.id })
	a.send(map[string]any{"type": "hint", "id": "h1"})
	await[protocol.HintEvent](a, protocol.TypeHint, nil)
	cc, cd := conflicting(givens)
	b.move(cc, cd)
	b.awaitError(protocol.CodeConflict)
	await(a, protocol.TypeError, func(e *protocol.ErrorEvent) bool { return e.Code == protocol.CodeConflict })

	// Ann reloads: a new socket, the token, no last_seq, history asked.
	require.NoError(t, a.ws.CloseNow())
	await(b, protocol.TypePresence, func(p *protocol.PresenceEvent) bool { return p.Player == a.id && p.Status == protocol.PresenceAway })
	a2 := e.dial("Ann")
	a2.send(map[string]any{"type": "join", "room": id, "token": a.token, "history": true})
	w := await[protocol.Welcome](a2, protocol.TypeWelcome, nil)
	require.NotNil(t, w.Room, "a snapshot")
	types, hints, errs := historyOf(t, w)
	assert.Equal(t, []string{protocol.TypePresence, protocol.TypeCountdown, protocol.TypeHint, protocol.TypeError}, types,
		"Bob joined, the start, her hint, Bob's conflict; not her own join, moves, progress or states")
	require.Len(t, hints, 1)
	assert.Equal(t, a.id, hints[0].Player)
	assert.NotEmpty(t, hints[0].Technique, "her own hint in full")
	assert.NotEmpty(t, hints[0].Explanation)
	require.Len(t, errs, 1)
	assert.Equal(t, b.id, errs[0].Player)
	assert.Equal(t, cc, *errs[0].Cell)

	// Bob's history has Ann's hint as he saw it: who asked, nothing more.
	require.NoError(t, b.ws.CloseNow())
	b2 := e.dial("Bob")
	b2.send(map[string]any{"type": "join", "room": id, "token": b.token, "history": true})
	w = await[protocol.Welcome](b2, protocol.TypeWelcome, nil)
	types, hints, _ = historyOf(t, w)
	assert.Contains(t, types, protocol.TypePresence)
	require.Len(t, hints, 1)
	assert.Equal(t, a.id, hints[0].Player)
	assert.Empty(t, hints[0].Technique, "redacted")
	assert.Empty(t, hints[0].Cells)

	// A spectator asking sees the same as Bob did.
	s := e.dial("Sam")
	s.send(map[string]any{"type": "join", "room": id, "as": "spectator", "history": true})
	w = await[protocol.Welcome](s, protocol.TypeWelcome, nil)
	_, hints, _ = historyOf(t, w)
	require.Len(t, hints, 1)
	assert.Empty(t, hints[0].Technique)

	// Not asked: none. Resumed: none either (the client has its own).
	require.NoError(t, b2.ws.CloseNow())
	b3 := e.dial("Bob")
	b3.send(map[string]any{"type": "join", "room": id, "token": b.token})
	w = await[protocol.Welcome](b3, protocol.TypeWelcome, nil)
	require.NotNil(t, w.Room)
	assert.Nil(t, w.History)
	seq := w.Seq
	require.NoError(t, b3.ws.CloseNow())
	b4 := e.dial("Bob")
	b4.send(map[string]any{"type": "join", "room": id, "token": b.token, "last_seq": seq, "history": true})
	w = await[protocol.Welcome](b4, protocol.TypeWelcome, nil)
	assert.True(t, w.Resumed)
	assert.Nil(t, w.History)
}
