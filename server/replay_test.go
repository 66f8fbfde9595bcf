package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/room/roomtest"
	"github.com/sudoku-arena/arena/server"
)

// memReplays is server.Replays over the rooms' store kept in memory, as
// store.Adapter is over the real one.
type memReplays struct {
	rooms     *roomtest.Store
	forgotten *sync.Map
}

func (k *kept) replays() server.Replays {
	r := server.Replays(memReplays{rooms: k.rooms, forgotten: &k.forgotten})
	if k.replayWrap != nil {
		r = k.replayWrap(r)
	}
	return r
}

func (m memReplays) ReplayRound(ctx context.Context, gameID string) (*room.Saved, error) {
	if s := m.rooms.Saved(gameID); s != nil {
		return s, nil
	}
	// A round made but never saved: its puzzle, as NewGame recorded it.
	pz, ok := m.rooms.Puzzle(gameID)
	if !ok {
		return nil, room.ErrNoRound
	}
	id, round := gameID, 1
	if i := strings.LastIndexByte(gameID, '.'); i > 0 {
		n, err := strconv.Atoi(gameID[i+1:])
		if err != nil {
			return nil, room.ErrNoRound
		}
		id, round = gameID[:i], n
	}
	return &room.Saved{ID: id, Round: round, Phase: protocol.PhaseWaiting,
		Puzzle: room.SavedPuzzle{ID: pz.ID, Level: pz.Level, Givens: pz.Givens.String(), Solution: pz.Solution.String()}}, nil
}

func (m memReplays) ReplayEvents(ctx context.Context, gameID string, afterSeq int64, limit int) ([]room.Record, error) {
	if _, ok := m.forgotten.Load(gameID); ok {
		return nil, nil
	}
	recs, err := m.rooms.LoadEvents(ctx, gameID, afterSeq)
	if limit > 0 && len(recs) > limit {
		recs = recs[:limit]
	}
	return recs, err
}

// getReplay asks for a replay and returns the status and body.
func (e *env) getReplay(path string) (int, []byte) {
	e.tb.Helper()
	resp, err := arenatest.Get(e.http.URL + "/api/rooms/" + path)
	require.NoError(e.tb, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(e.tb, err)
	assert.Equal(e.tb, "application/json", resp.Header.Get("Content-Type"))
	return resp.StatusCode, body
}

// replayOf decodes a replay answered 200.
func (e *env) replayOf(path string) server.ReplayResponse {
	e.tb.Helper()
	status, body := e.getReplay(path)
	require.Equal(e.tb, http.StatusOK, status, "%s", body)
	var out server.ReplayResponse
	require.NoError(e.tb, json.Unmarshal(body, &out))
	return out
}

// apiCode is the error code of an API error body.
func apiCode(tb testing.TB, body []byte) string {
	tb.Helper()
	var e struct {
		Error struct{ Code, Message string }
	}
	require.NoError(tb, json.Unmarshal(body, &e), "%s", body)
	assert.NotEmpty(tb, e.Error.Message)
	return e.Error.Code
}

// boardsOf plays a replay's events onto each player's board, as a client
// would, in the order given.
func boardsOf(t *testing.T, r server.ReplayResponse) map[string]engine.Grid {
	t.Helper()
	givens := engine.MustParse(r.Puzzle)
	boards := map[string]engine.Grid{}
	for _, p := range r.Players {
		boards[p.ID] = givens
	}
	var last int64
	for _, ev := range r.Events {
		var head struct {
			Type string `json:"type"`
			Seq  int64  `json:"seq"`
		}
		require.NoError(t, json.Unmarshal(ev.Event, &head))
		assert.Greater(t, head.Seq, last, "events in order")
		last = head.Seq
		assert.False(t, ev.At.IsZero(), "each event has its time")
		if head.Type != protocol.TypeMove {
			continue
		}
		var mv protocol.MoveEvent
		require.NoError(t, json.Unmarshal(ev.Event, &mv))
		b := boards[mv.Player]
		b[mv.Cell] = uint8(mv.Digit)
		boards[mv.Player] = b
	}
	return boards
}

func TestReplayOfAFinishedRace(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b := e.dial("Ann"), e.dial("Bob")
	id, givens, sol := e.startGame("race", a, b)

	// While the race runs, the replay is refused and tells nothing.
	wc, wd := wrongMove(givens, sol)
	b.move(wc, wd)
	await(b, protocol.TypeMove, func(m *protocol.MoveEvent) bool { return m.Cell == wc })
	status, body := e.getReplay(id + "/replay")
	assert.Equal(t, http.StatusConflict, status)
	assert.Equal(t, protocol.CodeReplayLive, apiCode(t, body))
	assert.NotContains(t, string(body), sol.String()[:20])
	assert.NotContains(t, string(body), `"events"`)

	// Bob finishes first, after clearing his mistake; the race is still
	// live until Ann finishes too.
	b.move(wc, 0)
	solve(b, givens, sol)
	bFin := await(a, protocol.TypeFinish, func(f *protocol.FinishEvent) bool { return f.Player == b.id })
	status, body = e.getReplay(id + "/replay")
	assert.Equal(t, http.StatusConflict, status, "a race with a racer left is live")
	assert.NotContains(t, string(body), sol.String()[:20])

	solve(a, givens, sol)
	await(a, protocol.TypeState, func(s *protocol.State) bool { return s.Room.Phase == protocol.PhaseFinished })

	r := e.replayOf(id + "/replay")
	assert.Equal(t, id, r.Room)
	assert.Equal(t, 1, r.Round)
	assert.Equal(t, 1, r.Rounds)
	assert.Equal(t, room.ModeRace, r.Mode)
	assert.Equal(t, "easy", r.Level)
	assert.Equal(t, givens.String(), r.Puzzle)
	assert.Equal(t, sol.String(), r.Solution)
	require.NotNil(t, r.StartedAt)
	require.NotNil(t, r.FinishedAt)
	assert.False(t, r.FinishedAt.Before(*r.StartedAt))
	require.Len(t, r.Players, 2)
	// Ann has no account: the replay marks her a guest, as her presence
	// did.
	assert.Equal(t, server.ReplayPlayer{ID: a.id, Name: "Ann", Guest: true, Colour: 0, Finished: true, Rank: 2,
		ElapsedMS: r.Players[0].ElapsedMS, Score: r.Players[0].Score}, r.Players[0])
	assert.Equal(t, b.id, r.Players[1].ID)
	assert.Equal(t, 1, r.Players[1].Rank)
	assert.Equal(t, 1, r.Players[1].Mistakes, "the replay tells the mistake nobody saw live")
	assert.Equal(t, bFin.ElapsedMS, r.Players[1].ElapsedMS, "Bob's time, as his finish told it")

	// The events are the full truth: each racer's digits, the wrong one
	// included, played in order give each racer's final board.
	boards := boardsOf(t, r)
	assert.Equal(t, sol, boards[a.id])
	assert.Equal(t, sol, boards[b.id])
	assert.Contains(t, string(mustJSON(t, r.Events)), `"digit":`+string(rune('0'+wd)))

	// Anyone may ask: no token, no join. A round under MaxReplayEvents
	// events is one answer, with no next page.
	status, body = e.getReplay(id + "/replay?round=1")
	assert.Equal(t, http.StatusOK, status)
	assert.NotContains(t, string(body), `"next"`)
}

// A replay is kept, ready to send, for ReplayCache.Age: past
// EVENT_RETENTION the events are gone, and the replay with them once the
// kept one is given up.
func TestReplayIsKeptForItsAgeOnly(t *testing.T) {
	t.Parallel()
	clk := server.NewFakeClock(time.Now())
	e := newEnv(t, func(c *server.Config) { c.Clock = clk }) // the rooms keep the wall clock
	a := e.dial("Ann")
	id, givens, sol := e.startGame("race", a)
	solve(a, givens, sol)
	await(a, protocol.TypeState, func(s *protocol.State) bool { return s.Room.Phase == protocol.PhaseFinished })
	first := e.replayOf(id + "/replay")

	e.kept.forgotten.Store(id, true)
	assert.Equal(t, first, e.replayOf(id+"/replay"), "kept: the store is not read again")

	clk.Advance(server.DefaultConfig().ReplayCache.Age)
	status, body := e.getReplay(id + "/replay")
	assert.Equal(t, http.StatusGone, status)
	assert.Equal(t, protocol.CodeReplayExpired, apiCode(t, body))
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	return data
}

func TestReplayRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tc := range []struct {
		path   string
		status int
		code   string
	}{
		{"nosuchroom/replay", http.StatusNotFound, protocol.CodeRoomNotFound},
		{"nosuchroom/replay?round=2", http.StatusNotFound, protocol.CodeRoomNotFound},
		{strings.Repeat("x", 40) + "/replay", http.StatusNotFound, protocol.CodeRoomNotFound},
		{"abc/replay?round=0", http.StatusBadRequest, protocol.CodeBadField},
		{"abc/replay?round=x", http.StatusBadRequest, protocol.CodeBadField},
	} {
		status, body := e.getReplay(tc.path)
		assert.Equal(t, tc.status, status, tc.path)
		assert.Equal(t, tc.code, apiCode(t, body), tc.path)
	}

	// A room nobody has started is live: refused, without its puzzle.
	id := e.createRoom("coop", "easy")
	status, body := e.getReplay(id + "/replay")
	assert.Equal(t, http.StatusConflict, status)
	assert.Equal(t, protocol.CodeReplayLive, apiCode(t, body))
	pz, ok := e.kept.rooms.Puzzle(id)
	require.True(t, ok)
	assert.NotContains(t, string(body), pz.Solution.String())
}

func TestReplayOfEachRoundOfARematch(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b := e.dial("Ann"), e.dial("Bob")
	id, givens, sol := e.startGame("coop", a, b)
	solve(a, givens, sol)
	// The team's time, which can be 0 ms when the moves come in quickly.
	fin := await[protocol.FinishEvent](b, protocol.TypeFinish, nil)
	await(b, protocol.TypeState, func(s *protocol.State) bool { return s.Room.Phase == protocol.PhaseFinished })

	a.send(map[string]any{"type": "rematch"})
	await(b, protocol.TypeState, func(s *protocol.State) bool { return s.Room.Phase == protocol.PhaseWaiting && s.Room.Round == 2 })

	// Round 1 is over; round 2 waits to start: live.
	r1 := e.replayOf(id + "/replay?round=1")
	assert.Equal(t, 1, r1.Round)
	assert.Equal(t, 2, r1.Rounds)
	assert.Equal(t, room.ModeCoop, r1.Mode)
	assert.Equal(t, sol.String(), r1.Solution)
	require.Len(t, r1.Players, 2)
	for i, p := range r1.Players {
		assert.Equal(t, i, p.Colour)
		assert.True(t, p.Finished, "the team finished: %s", p.Name)
		assert.Zero(t, p.Rank, "co-op ranks nobody")
		assert.Equal(t, fin.ElapsedMS, p.ElapsedMS, "the team's time")
	}
	status, body := e.getReplay(id + "/replay?round=2")
	assert.Equal(t, http.StatusConflict, status)
	assert.Equal(t, protocol.CodeReplayLive, apiCode(t, body))
	sol2 := e.solution(id, 2)
	assert.NotContains(t, string(body), sol2.String())
	status, body = e.getReplay(id + "/replay?round=3")
	assert.Equal(t, http.StatusNotFound, status)
	assert.Equal(t, protocol.CodeRoomNotFound, apiCode(t, body))

	// Round 2 played to the end is replayable in its turn, with its own
	// puzzle and the same players, seated by the rematch.
	a.send(map[string]any{"type": "start"})
	g2 := awaitRunning(b)
	awaitRunning(a)
	solve(b, g2, sol2)
	await(a, protocol.TypeState, func(s *protocol.State) bool { return s.Room.Phase == protocol.PhaseFinished && s.Room.Round == 2 })
	r2 := e.replayOf(id + "/replay?round=2")
	assert.Equal(t, 2, r2.Round)
	assert.Equal(t, g2.String(), r2.Puzzle)
	assert.Equal(t, sol2.String(), r2.Solution)
	require.Len(t, r2.Players, 2)
	assert.Equal(t, []string{a.id, b.id}, []string{r2.Players[0].ID, r2.Players[1].ID})
	board := engine.MustParse(r2.Puzzle)
	for _, grid := range boardsOf(t, r2) {
		for c, v := range grid {
			if v != 0 {
				board[c] = v
			}
		}
	}
	assert.Equal(t, sol2, board, "the shared board's digits give the solution")
}

func TestReplayOfTodaysDailyWaitsForTheDayToEnd(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	resp, err := arenatest.Post(e.http.URL+"/api/rooms", "application/json", strings.NewReader(`{"mode":"daily","level":"easy"}`))
	require.NoError(t, err)
	var made server.CreateRoomResponse
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&made))
	resp.Body.Close()
	require.Equal(t, http.StatusCreated, resp.StatusCode)

	a := e.dial("Ann")
	a.join(made.ID)
	givens := awaitRunning(a)
	sol := e.solution(made.ID, 1)
	solve(a, givens, sol)
	await(a, protocol.TypeState, func(s *protocol.State) bool { return s.Room.Phase == protocol.PhaseFinished })

	// The round is over, but others play today's puzzle for a rank.
	status, body := e.getReplay(made.ID + "/replay")
	assert.Equal(t, http.StatusConflict, status)
	assert.Equal(t, protocol.CodeReplayLive, apiCode(t, body))
	assert.Contains(t, string(body), "puzzle of the day")
	assert.NotContains(t, string(body), sol.String())

	// Yesterday's may still be played for its rank in a room made before
	// midnight; the day before's replays.
	today, err := time.Parse(room.DayLayout, e.rooms.Today())
	require.NoError(t, err)
	for back, want := range map[int]int{1: http.StatusConflict, 2: http.StatusOK} {
		day := today.AddDate(0, 0, -back).Format(room.DayLayout)
		resp, err := arenatest.Post(e.http.URL+"/api/rooms", "application/json",
			strings.NewReader(`{"mode":"daily","level":"easy","date":"`+day+`"}`))
		require.NoError(t, err)
		var past server.CreateRoomResponse
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&past))
		resp.Body.Close()
		require.Equal(t, http.StatusCreated, resp.StatusCode)
		p := e.dial("Pat" + strconv.Itoa(back))
		p.join(past.ID)
		pg := awaitRunning(p)
		solve(p, pg, e.solution(past.ID, 1))
		await(p, protocol.TypeState, func(s *protocol.State) bool { return s.Room.Phase == protocol.PhaseFinished })
		status, body := e.getReplay(past.ID + "/replay")
		assert.Equal(t, want, status, "%s: %s", day, body)
	}
}

func TestReplayPageServesTheClient(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	resp, err := arenatest.Get(e.http.URL + "/r/k3m9x2pq/replay?round=2")
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, resp.Header.Get("Content-Type"), "text/html")
	assert.Contains(t, string(body), `<template id="replay-tpl">`)
}
