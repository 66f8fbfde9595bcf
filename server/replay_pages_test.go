package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/server"
)

// countingReplays counts the reads of the replays under it; while gate is
// open (not nil and not closed), a read from the start waits for it.
type countingReplays struct {
	server.Replays
	rounds, starts, pages atomic.Int64
	started               chan struct{} // closed as the first read from the start begins
	once                  sync.Once
	gate                  chan struct{}
}

func (c *countingReplays) ReplayRound(ctx context.Context, gameID string) (*room.Saved, error) {
	c.rounds.Add(1)
	return c.Replays.ReplayRound(ctx, gameID)
}

func (c *countingReplays) ReplayEvents(ctx context.Context, gameID string, afterSeq int64, limit int) ([]room.Record, error) {
	c.pages.Add(1)
	if afterSeq == 0 {
		c.starts.Add(1)
		c.once.Do(func() { close(c.started) })
		if c.gate != nil {
			<-c.gate
		}
	}
	return c.Replays.ReplayEvents(ctx, gameID, afterSeq, limit)
}

// Ten requests at once for a finished round's replay read the store once,
// and get the same answer; later ones read it from what was kept.
func TestReplayAskedTogetherIsReadOnce(t *testing.T) {
	t.Parallel()
	k := newKept()
	counted := &countingReplays{started: make(chan struct{}), gate: make(chan struct{})}
	k.replayWrap = func(r server.Replays) server.Replays { counted.Replays = r; return counted }
	e := newEnvOn(t, k)
	a, b := e.dial("Ann"), e.dial("Bob")
	id, givens, sol := e.startGame("coop", a, b)
	solve(a, givens, sol)
	await(b, protocol.TypeState, func(s *protocol.State) bool { return s.Room.Phase == protocol.PhaseFinished })

	bodies := make([][]byte, 10)
	var wg sync.WaitGroup
	wg.Go(func() {
		status, body := e.getReplay(id + "/replay")
		assert.Equal(t, http.StatusOK, status, "%s", body)
		bodies[0] = body
	})
	<-counted.started // the first request reads; the others come while it does
	for i := 1; i < len(bodies); i++ {
		wg.Go(func() {
			status, body := e.getReplay(id + "/replay")
			assert.Equal(t, http.StatusOK, status, "%s", body)
			bodies[i] = body
		})
	}
	time.Sleep(100 * time.Millisecond)
	close(counted.gate)
	wg.Wait()
	for i := range bodies {
		assert.Equal(t, string(bodies[0]), string(bodies[i]), "request %d", i)
	}
	assert.Equal(t, int64(1), counted.rounds.Load(), "the round's state read once")
	assert.Equal(t, int64(1), counted.starts.Load(), "its events read once")

	status, _ := e.getReplay(id + "/replay")
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, int64(1), counted.starts.Load(), "kept")
}

// longReplays is one finished race round, longRound, of n events, stored
// nowhere else.
type longReplays struct {
	server.Replays
	records []room.Record
}

const longRound = "l0ngr9x2"

func newLongReplays(t *testing.T, n int) *longReplays {
	t.Helper()
	at := time.Date(2026, 11, 21, 18, 0, 0, 0, time.UTC)
	var recs []room.Record
	add := func(player string, ev protocol.Event) {
		seq := int64(len(recs)+1) * 2 // seqs with gaps, as events that take none leave
		ev.Head().Seq = seq
		data, err := json.Marshal(ev)
		require.NoError(t, err)
		recs = append(recs, room.Record{Seq: seq, Type: ev.Head().Type, Player: player, Data: data, At: at.Add(time.Duration(seq) * time.Millisecond)})
	}
	for _, p := range []string{"p_ann", "p_bob"} {
		add(p, &protocol.PresenceEvent{Header: protocol.Header{Type: protocol.TypePresence}, Player: p, Name: p[2:], Role: protocol.RolePlayer, Status: protocol.PresenceJoined})
	}
	for len(recs) < n-2 {
		p := []string{"p_ann", "p_bob"}[len(recs)%2]
		add(p, &protocol.MoveEvent{Header: protocol.Header{Type: protocol.TypeMove}, Player: p, Cell: len(recs) % 81, Digit: 1 + len(recs)%9})
	}
	// Bob wins, at the end: every page's players say so.
	add("p_bob", &protocol.FinishEvent{Header: protocol.Header{Type: protocol.TypeFinish}, Player: "p_bob", Rank: 1, ElapsedMS: 60000, Score: 900})
	add("p_ann", &protocol.FinishEvent{Header: protocol.Header{Type: protocol.TypeFinish}, Player: "p_ann", Rank: 2, ElapsedMS: 70000, Score: 800})
	return &longReplays{records: recs}
}

func (l *longReplays) ReplayRound(ctx context.Context, gameID string) (*room.Saved, error) {
	if gameID != longRound {
		return l.Replays.ReplayRound(ctx, gameID)
	}
	return &room.Saved{ID: longRound, Mode: room.ModeRace, Round: 1, Phase: protocol.PhaseFinished, Ended: true,
		Puzzle: room.SavedPuzzle{Level: "easy", Givens: "1...", Solution: "1234"}}, nil
}

func (l *longReplays) ReplayEvents(ctx context.Context, gameID string, afterSeq int64, limit int) ([]room.Record, error) {
	if gameID != longRound {
		return l.Replays.ReplayEvents(ctx, gameID, afterSeq, limit)
	}
	var out []room.Record
	for _, r := range l.records {
		if r.Seq > afterSeq && (limit <= 0 || len(out) < limit) {
			out = append(out, r)
		}
	}
	return out, nil
}

// A round of more than MaxReplayEvents events comes in pages: each holds
// at most that many, says everything else of the round (its players and
// their finishes, from the whole round), and names the next page's start
// in next, until the last, which has none; the pages' events together are
// the round's, in order. A page may start at any seq.
func TestReplayOfALongRoundComesInPages(t *testing.T) {
	t.Parallel()
	long := newLongReplays(t, 2*server.MaxReplayEvents+123)
	k := newKept()
	k.replayWrap = func(r server.Replays) server.Replays { long.Replays = r; return long }
	e := newEnvOn(t, k)

	var all []server.ReplayEvent
	var pages []server.ReplayResponse
	path := longRound + "/replay"
	for {
		r := e.replayOf(path)
		pages = append(pages, r)
		require.LessOrEqual(t, len(r.Events), server.MaxReplayEvents)
		all = append(all, r.Events...)
		if r.Next == 0 {
			break
		}
		require.Len(t, r.Events, server.MaxReplayEvents, "a full page before the last")
		var last struct{ Seq int64 }
		require.NoError(t, json.Unmarshal(r.Events[len(r.Events)-1].Event, &last))
		assert.Equal(t, last.Seq, r.Next, "next: the last seq of the page")
		path = longRound + "/replay?after=" + strconv.FormatInt(r.Next, 10)
		require.Less(t, len(pages), 10)
	}
	require.Len(t, pages, 3)
	assert.Len(t, pages[2].Events, 123)
	require.Len(t, all, len(long.records))
	for i, ev := range all {
		assert.JSONEq(t, string(long.records[i].Data), string(ev.Event), "event %d", i)
	}
	for i, p := range pages {
		require.Len(t, p.Players, 2, "page %d", i)
		assert.Equal(t, server.ReplayPlayer{ID: "p_bob", Name: "bob", Colour: 1, Finished: true, Rank: 1, ElapsedMS: 60000, Score: 900}, p.Players[1], "page %d", i)
		assert.Equal(t, 2, p.Players[0].Rank, "page %d", i)
		assert.Equal(t, pages[0].Solution, p.Solution)
	}

	// From any seq: the events after it.
	mid := e.replayOf(longRound + "/replay?after=11")
	require.Len(t, mid.Events, server.MaxReplayEvents)
	var head struct{ Seq int64 }
	require.NoError(t, json.Unmarshal(mid.Events[0].Event, &head))
	assert.Equal(t, int64(12), head.Seq)
	assert.NotZero(t, mid.Next)
	end := e.replayOf(longRound + fmt.Sprintf("/replay?after=%d", long.records[len(long.records)-1].Seq))
	assert.Empty(t, end.Events, "past the last event: none")
	assert.Zero(t, end.Next)

	for _, bad := range []string{"-1", "x", "1.5"} {
		status, body := e.getReplay(longRound + "/replay?after=" + bad)
		assert.Equal(t, http.StatusBadRequest, status, bad)
		assert.Equal(t, protocol.CodeBadField, apiCode(t, body), bad)
	}
}

// limitedTo asks for path from the address n+1 times: the first n are
// not refused for the rate, the last is 429 rate_limited with
// Retry-After: 60; another address is not refused.
func limitedTo(t *testing.T, e *env, path string, n int) {
	t.Helper()
	do := func(addr string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.RemoteAddr = addr
		rec := httptest.NewRecorder()
		e.srv.Handler().ServeHTTP(rec, req)
		return rec
	}
	for i := range n {
		rec := do("192.0.2.7:" + strconv.Itoa(1000+i))
		assert.NotEqual(t, http.StatusTooManyRequests, rec.Code, "request %d: %s", i, rec.Body)
	}
	rec := do("192.0.2.7:2000")
	assert.Equal(t, http.StatusTooManyRequests, rec.Code, "%s", rec.Body)
	assert.Equal(t, "60", rec.Header().Get("Retry-After"))
	assert.Equal(t, protocol.CodeRateLimited, apiCode(t, rec.Body.Bytes()))
	assert.NotEqual(t, http.StatusTooManyRequests, do("198.51.100.7:1").Code, "another address has its own budget")
}

func TestReplaysAreRateLimitedPerAddress(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *server.Config) { c.ReplayRate = 3 })
	limitedTo(t, e, "/api/rooms/nosuchroom/replay", 3)
}

func TestPlayerRecordsAreRateLimitedPerAddress(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *server.Config) { c.RecordRate = 3 })
	limitedTo(t, e, "/api/players/p_nobody", 3)
	// A record's days and pages of games are record reads too.
	for _, path := range []string{"/api/players/p_nobody/days", "/api/players/p_nobody/games"} {
		e = newEnv(t, func(c *server.Config) { c.RecordRate = 3 })
		limitedTo(t, e, path, 3)
	}
}
