package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
)

// Replays is what GET /api/rooms/{id}/replay reads of a round: its stored
// state and its events. Rounds are named by their store id
// (room.GameID).
type Replays interface {
	// ReplayRound is the round's stored state (its puzzle and solution,
	// its phase), or room.ErrNoRound.
	ReplayRound(ctx context.Context, gameID string) (*room.Saved, error)
	// ReplayEvents is up to limit of the events the store keeps of the
	// round with a seq above afterSeq, in order. Read from the start
	// (afterSeq 0), it holds those still on their way to the store too:
	// the events are written in batches, and a replay asked for at the
	// finish must hold it.
	ReplayEvents(ctx context.Context, gameID string, afterSeq int64, limit int) ([]room.Record, error)
}

// SetReplays gives the server the replay route's data; until it is set
// the route answers 503 unavailable. Call it before serving.
func (s *Server) SetReplays(r Replays) { s.replays = r }

// ReplayResponse is GET /api/rooms/{id}/replay: a round that is over, in
// full. Events are the store's record of each event, the full truth (a
// racer's digits, every mistake), not any member's view of it: once the
// round is over, nothing in it is secret any more. A round of more than
// MaxReplayEvents events comes in pages, each with all the rest: Next,
// when set, is the seq to ask for the page after (?after=Next).
type ReplayResponse struct {
	Room  string `json:"room"`
	Round int    `json:"round"`
	// Rounds is how many rounds the room has had so far; the last may
	// still be live.
	Rounds     int            `json:"rounds"`
	Mode       string         `json:"mode"`
	Level      string         `json:"level"`
	Puzzle     string         `json:"puzzle"`
	Solution   string         `json:"solution"`
	StartedAt  *time.Time     `json:"started_at,omitempty"`
	FinishedAt *time.Time     `json:"finished_at,omitempty"`
	Players    []ReplayPlayer `json:"players"`
	Events     []ReplayEvent  `json:"events"`
	Next       int64          `json:"next,omitempty"`
}

// ReplayPlayer is one player of the round, in the order they joined:
// Colour is that order (0 first), the index of their colour in co-op.
// Rank, ElapsedMS, Mistakes, Hints and Score are their finish's (the
// team's in co-op); Finished is false for a player who did not finish.
type ReplayPlayer struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Colour    int    `json:"colour"`
	Finished  bool   `json:"finished"`
	Rank      int    `json:"rank,omitempty"`
	ElapsedMS int64  `json:"elapsed_ms"`
	Mistakes  int    `json:"mistakes"`
	Hints     int    `json:"hints"`
	Score     int    `json:"score"`
}

// ReplayEvent is one event of the round with the server's time of it.
// Event is the event as the protocol documents it, its seq included.
type ReplayEvent struct {
	At    time.Time       `json:"at"`
	Event json.RawMessage `json:"event"`
}

const (
	// MaxReplayEvents is the most events one replay answer holds: a
	// longer round comes in pages (ReplayResponse.Next), so that no
	// answer, and no request's memory, grows with the round.
	MaxReplayEvents = 2000
	// maxRoundsCounted bounds the rounds a replay counts past the one
	// asked for in a room that is no longer live: each is one read of the
	// store.
	maxRoundsCounted = 100
	// replayBuildTimeout bounds the reading and encoding of one replay
	// answer, which the requests that asked for it at once share (none of
	// them cancels it for the others).
	replayBuildTimeout = 20 * time.Second
	// retryReplays is Retry-After of a replay refused by ReplayRate.
	retryReplays = "60"
)

func (s *Server) getReplay(w http.ResponseWriter, r *http.Request) {
	if !s.replayReqs.allow(clientAddr(r), s.clock.Now()) {
		w.Header().Set("Retry-After", retryReplays)
		writeError(w, protocol.CodeRateLimited, "too many replay requests from this address: wait a minute")
		return
	}
	id := r.PathValue("id")
	if len(id) > protocol.MaxRoomLen {
		writeError(w, protocol.CodeRoomNotFound, "no room has that id")
		return
	}
	q := r.URL.Query()
	round := 1
	if v := q.Get("round"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			writeError(w, protocol.CodeBadField, "round must be a whole number from 1")
			return
		}
		round = n
	}
	var after int64
	if v := q.Get("after"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			writeError(w, protocol.CodeBadField, "after must be a whole number from 0: the next of the page before")
			return
		}
		after = n
	}
	if s.replays == nil {
		writeError(w, protocol.CodeUnavailable, "replays cannot be read just now: try again")
		return
	}
	live := s.liveRound(r.Context(), id)
	switch {
	case live.round > 0 && round > live.round:
		writeError(w, protocol.CodeRoomNotFound, fmt.Sprintf("the room has had %d rounds so far", live.round))
		return
	case round == live.round && !roundOver(live.phase):
		writeReplayLive(w)
		return
	}
	req := replayRequest{id: id, round: round, after: after, live: live}
	key := replayKey{game: room.GameID(id, round), after: after}
	// An answer kept from before the room's last rematch counts one round
	// too few.
	usable := func(e *replayEntry) bool { return live.round == 0 || e.rounds == live.round }
	entry, refusal, err := s.replayCache.get(r.Context(), key, s.clock.Now(), usable, func() (*replayEntry, *replayRefusal, error) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), replayBuildTimeout)
		defer cancel()
		return s.buildReplay(ctx, req)
	})
	switch {
	case err != nil:
		s.replayUnavailable(w, key.game, err)
	case refusal != nil:
		writeError(w, refusal.code, refusal.message)
	default:
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(entry.body)
	}
}

// replayRequest is a replay asked for: the room, round and page, and the
// room as it is live here (if it is).
type replayRequest struct {
	id    string
	round int
	after int64
	live  liveInfo
}

// replayRefusal is a replay's answer when it is no replay: an API error.
type replayRefusal struct{ code, message string }

// buildReplay reads one page of a round's replay from the store and
// encodes it, or says why there is none. It reads the round's events
// twice at most, a page at a time: once through, for what every page
// says of the round (its players, their finishes, when it started and
// ended), keeping the page asked for as it passes, and once more for a
// page that starts at no page's start.
func (s *Server) buildReplay(ctx context.Context, req replayRequest) (*replayEntry, *replayRefusal, error) {
	gameID := room.GameID(req.id, req.round)
	saved, err := s.replays.ReplayRound(ctx, gameID)
	if errors.Is(err, room.ErrNoRound) {
		return nil, &replayRefusal{protocol.CodeRoomNotFound, "no room has that id and round"}, nil
	}
	if err != nil {
		return nil, nil, err
	}
	// A room live on no node here is over only by its stored state: one
	// that does not say so may be live elsewhere.
	if req.live.round == 0 && !roundOver(saved.Phase) && !saved.Ended && !saved.Abandoned {
		return nil, &replayRefusal{protocol.CodeReplayLive, replayLiveMessage}, nil
	}
	// A round on the puzzle of the day tells its solution: not before the
	// day is over and a day more, while others may still play it for a
	// rank (a room made just before midnight stays ranked after it).
	day := saved.Day
	if req.round == req.live.round {
		day = req.live.day
	}
	if !s.rooms.RevealsDaily(day) {
		return nil, &replayRefusal{protocol.CodeReplayLive,
			"the round played the puzzle of the day, which others may still be playing for a rank: its replay opens a day after that day is over (midnight UTC)"}, nil
	}

	var fold replayFold
	var page []room.Record
	pageAt, next, total := -1, false, 0 // pageAt: the read that was the page
	for i, cursor := 0, int64(0); ; i++ {
		recs, err := s.replays.ReplayEvents(ctx, gameID, cursor, MaxReplayEvents)
		if err != nil {
			return nil, nil, err
		}
		if pageAt >= 0 && i == pageAt+1 {
			next = len(recs) > 0
		}
		if cursor == req.after {
			page, pageAt = recs, i
		}
		fold.add(recs)
		total += len(recs)
		if len(recs) < MaxReplayEvents {
			break
		}
		cursor = recs[len(recs)-1].Seq
	}
	if total == 0 {
		return nil, &replayRefusal{protocol.CodeReplayExpired,
			"the round's events are no longer kept: replays last as long as the server keeps events (EVENT_RETENTION)"}, nil
	}
	if pageAt < 0 {
		recs, err := s.replays.ReplayEvents(ctx, gameID, req.after, MaxReplayEvents+1)
		if err != nil {
			return nil, nil, err
		}
		page, next = recs[:min(len(recs), MaxReplayEvents)], len(recs) > MaxReplayEvents
	}

	rounds := req.live.round
	if rounds == 0 {
		rounds = s.countRounds(ctx, req.id, req.round)
	}
	out := ReplayResponse{
		Room: req.id, Round: req.round, Rounds: rounds, Mode: saved.Mode, Level: saved.Puzzle.Level,
		Puzzle: saved.Puzzle.Givens, Solution: saved.Puzzle.Solution,
		Players: fold.players, StartedAt: fold.started, FinishedAt: fold.finished,
		Events: make([]ReplayEvent, len(page)),
	}
	for i, rec := range page {
		out.Events[i] = ReplayEvent{At: rec.At, Event: rec.Data}
	}
	if next {
		out.Next = page[len(page)-1].Seq
	}
	body, err := json.Marshal(out)
	if err != nil {
		return nil, nil, fmt.Errorf("encode the replay of %s: %w", gameID, err)
	}
	return &replayEntry{body: append(body, '\n'), rounds: rounds, expires: s.replayExpiry(saved)}, nil, nil
}

// replayExpiry is when a kept replay of the round is given up: after the
// cache's age, or, sooner, when the event retention may delete the
// round's events (counted from its finish, or from its last save).
func (s *Server) replayExpiry(saved *room.Saved) time.Time {
	now := s.clock.Now()
	expires := now.Add(s.cfg.ReplayCache.Age)
	if s.cfg.EventRetention <= 0 {
		return expires
	}
	end := saved.FinishedAt
	if end.IsZero() {
		end = saved.SavedAt
	}
	if end.IsZero() {
		end = now
	}
	if deadline := end.Add(s.cfg.EventRetention); deadline.Before(expires) {
		return deadline
	}
	return expires
}

// liveInfo is a room as it is live on this server: its round, phase and
// daily day (if any); round 0 when it is not live here.
type liveInfo struct {
	round int
	phase string
	day   string
}

// liveRound is the room as it is live on this server, if it is.
func (s *Server) liveRound(ctx context.Context, id string) liveInfo {
	rm, err := s.rooms.Get(id)
	if err != nil {
		return liveInfo{}
	}
	snap, err := rm.Snapshot(ctx)
	if err != nil {
		return liveInfo{}
	}
	return liveInfo{round: snap.Round, phase: snap.Phase, day: snap.Date}
}

// roundOver reports whether a round in the phase is over: finished, or
// giving way to a rematch.
func roundOver(phase string) bool {
	return phase == protocol.PhaseFinished || phase == protocol.PhasePreparing
}

// countRounds is how many rounds the room has had, counting on from one
// that exists, up to maxRoundsCounted past it.
func (s *Server) countRounds(ctx context.Context, id string, from int) int {
	n := from
	for n < from+maxRoundsCounted {
		if _, err := s.replays.ReplayRound(ctx, room.GameID(id, n+1)); err != nil {
			break
		}
		n++
	}
	return n
}

const replayLiveMessage = "the round is still being played: its replay opens once it is over"

func writeReplayLive(w http.ResponseWriter) {
	writeError(w, protocol.CodeReplayLive, replayLiveMessage)
}

func (s *Server) replayUnavailable(w http.ResponseWriter, gameID string, err error) {
	s.log.Error("replay", "game", gameID, "err", err)
	writeError(w, protocol.CodeUnavailable, "replays cannot be read just now: try again")
}

// replayFold reads the round's players from its events, page by page, in
// the order they joined, with their finishes, and when play started and
// ended.
type replayFold struct {
	players           []ReplayPlayer
	index             map[string]int
	started, finished *time.Time
}

// add reads the next events of the round.
func (f *replayFold) add(records []room.Record) {
	if f.players == nil {
		f.players, f.index = []ReplayPlayer{}, map[string]int{}
	}
	for _, rec := range records {
		switch rec.Type {
		case protocol.TypePresence:
			var ev protocol.PresenceEvent
			if json.Unmarshal(rec.Data, &ev) != nil || ev.Role != protocol.RolePlayer {
				continue
			}
			if _, ok := f.index[ev.Player]; !ok && ev.Status == protocol.PresenceJoined {
				f.seat(ev.Player, ev.Name)
			}
		case protocol.TypeState:
			var ev protocol.State
			if json.Unmarshal(rec.Data, &ev) != nil {
				continue
			}
			// A rematch's round begins with a state that seats its players.
			for _, p := range ev.Room.Players {
				if _, ok := f.index[p.ID]; !ok && p.ID != "" {
					f.seat(p.ID, p.Name)
				}
			}
			if ev.Room.StartedAt != nil {
				f.started = ev.Room.StartedAt
			}
			if ev.Room.FinishedAt != nil {
				f.finished = ev.Room.FinishedAt
			}
		case protocol.TypeFinish:
			var ev protocol.FinishEvent
			if json.Unmarshal(rec.Data, &ev) != nil {
				continue
			}
			for i := range f.players {
				if ev.Player == "" || f.players[i].ID == ev.Player {
					p := &f.players[i]
					p.Finished, p.Rank, p.ElapsedMS = true, ev.Rank, ev.ElapsedMS
					p.Mistakes, p.Hints, p.Score = ev.Mistakes, ev.Hints, ev.Score
				}
			}
		}
	}
}

func (f *replayFold) seat(id, name string) {
	f.index[id] = len(f.players)
	f.players = append(f.players, ReplayPlayer{ID: id, Name: name, Colour: len(f.players)})
}
