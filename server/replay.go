package server

import (
	"bytes"
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
	Guest     bool   `json:"guest,omitempty"`
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
	entry, refusal, err := s.replayCache.get(r.Context(), key, s.clock.Now(), req.usable, func() (*replayEntry, *replayRefusal, error) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), replayBuildTimeout)
		defer cancel()
		return s.replayPage(ctx, req)
	})
	switch {
	case err != nil && r.Context().Err() != nil:
		// The client went away while another request's read went on.
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

// usable says whether a kept answer will do: one kept from before the
// room's last rematch counts a round too few.
func (req replayRequest) usable(e *replayEntry) bool {
	return req.live.round == 0 || e.rounds == req.live.round
}

// replayRefusal is a replay's answer when it is no replay: an API error.
type replayRefusal struct{ code, message string }

// replayBody is a replay answer with its events encoded already.
type replayBody struct {
	ReplayResponse
	Events json.RawMessage `json:"events"`
	Next   int64           `json:"next,omitempty"`
}

// headAfter is the cache key's after of a round's head: what every page
// of its replay says of it.
const headAfter = -1

// replayPrefetchBytes bounds the pages a round's first reading encodes
// and keeps as it passes through the events: a longer round's later pages
// are read when they are asked for.
const replayPrefetchBytes = 4 << 20

// replayPage answers one page of a round's replay: from what was kept,
// or from the round's head (kept, or read through once, which keeps the
// round's pages as it goes) and one read of the page's events.
func (s *Server) replayPage(ctx context.Context, req replayRequest) (*replayEntry, *replayRefusal, error) {
	gameID := room.GameID(req.id, req.round)
	head, refusal, err := s.replayCache.get(ctx, replayKey{game: gameID, after: headAfter}, s.clock.Now(), req.usable,
		func() (*replayEntry, *replayRefusal, error) { return s.replayHead(ctx, req) })
	if err != nil || refusal != nil {
		return nil, refusal, err
	}
	if e := s.replayCache.peek(replayKey{game: gameID, after: req.after}, s.clock.Now(), req.usable); e != nil {
		return e, nil, nil
	}
	recs, err := s.replays.ReplayEvents(ctx, gameID, req.after, MaxReplayEvents+1)
	if err != nil {
		return nil, nil, err
	}
	if req.after == 0 && len(recs) == 0 {
		return nil, &replayRefusal{protocol.CodeReplayExpired, replayExpiredMessage}, nil
	}
	page := recs[:min(len(recs), MaxReplayEvents)]
	events, err := replayEvents(page)
	if err != nil {
		return nil, nil, fmt.Errorf("encode the replay of %s: %w", gameID, err)
	}
	var next int64
	if len(recs) > MaxReplayEvents {
		next = page[len(page)-1].Seq
	}
	return head.page(events, next), nil, nil
}

// replayEvents encodes records as a replay's events, a JSON array of
// ReplayEvent, as encoding/json would (the times as time.MarshalJSON
// writes them), but with each event's data as it is stored, valid JSON
// the server wrote, not checked and compacted again.
func replayEvents(recs []room.Record) (json.RawMessage, error) {
	n := 2
	for _, rec := range recs {
		n += len(rec.Data) + 64
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, rec := range recs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"at":`...)
		at, err := rec.At.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("event %d's time: %w", rec.Seq, err)
		}
		b = append(b, at...)
		b = append(b, `,"event":`...)
		data := rec.Data
		if rec.Type == protocol.TypeState && bytes.Contains(data, []byte(`"copy":`)) {
			var err error
			if data, err = withoutCopy(data); err != nil {
				return nil, fmt.Errorf("event %d: %w", rec.Seq, err)
			}
		}
		b = append(b, data...)
		b = append(b, '}')
	}
	return append(b, ']'), nil
}

// withoutCopy is a state record without the copy of the daily it names
// (protocol.Snapshot.Copy), the server's own, which no client is sent.
func withoutCopy(data json.RawMessage) (json.RawMessage, error) {
	var st map[string]json.RawMessage
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("a state record: %w", err)
	}
	var snap map[string]json.RawMessage
	if err := json.Unmarshal(st["room"], &snap); err != nil {
		return nil, fmt.Errorf("a state record's room: %w", err)
	}
	delete(snap, "copy")
	room, err := json.Marshal(snap)
	if err != nil {
		return nil, err
	}
	st["room"] = room
	return json.Marshal(st)
}

// page is the answer of the head's round with the events, and next: the
// head's encoding with the events and next spliced in.
func (head *replayEntry) page(events json.RawMessage, next int64) *replayEntry {
	b := make([]byte, 0, len(head.prefix)+len(events)+32)
	b = append(b, head.prefix...)
	b = append(b, events...)
	if next > 0 {
		b = append(b, `,"next":`...)
		b = strconv.AppendInt(b, next, 10)
	}
	b = append(b, "}\n"...)
	return &replayEntry{body: b, rounds: head.rounds, expires: head.expires}
}

// newReplayHead is the head of a round's replay, encoded up to its
// events: `{...,"events":`.
func newReplayHead(resp *ReplayResponse, rounds int, expires time.Time) (*replayEntry, error) {
	body, err := json.Marshal(replayBody{ReplayResponse: *resp, Events: json.RawMessage("[]")})
	if err != nil {
		return nil, fmt.Errorf("encode the replay of %s round %d: %w", resp.Room, resp.Round, err)
	}
	head := &replayEntry{head: resp, prefix: body[:len(body)-len("[]}")], rounds: rounds, expires: expires}
	head.size = replayHeadSize(resp) + int64(len(head.prefix))
	return head, nil
}

const replayExpiredMessage = "the round's events are no longer kept: replays last as long as the server keeps events (EVENT_RETENTION)"

// replayHead reads what every page of a round's replay says of it (the
// round's state, its players and their finishes, when it started and
// ended), or why there is no replay. It reads the round's events through
// once, a page at a time, and keeps the pages as it goes, up to
// replayPrefetchBytes of them: a client reads every page.
func (s *Server) replayHead(ctx context.Context, req replayRequest) (*replayEntry, *replayRefusal, error) {
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

	// The pages as they pass: where each starts, its events, its last seq.
	type passed struct {
		after, last int64
		events      json.RawMessage
	}
	var pages []passed
	var fold replayFold
	total, held := 0, 0
	for cursor := int64(0); ; {
		recs, err := s.replays.ReplayEvents(ctx, gameID, cursor, MaxReplayEvents)
		if err != nil {
			return nil, nil, err
		}
		fold.add(recs)
		total += len(recs)
		if len(recs) > 0 && held <= replayPrefetchBytes {
			events, err := replayEvents(recs)
			if err != nil {
				return nil, nil, fmt.Errorf("encode the replay of %s: %w", gameID, err)
			}
			held += len(events)
			pages = append(pages, passed{after: cursor, last: recs[len(recs)-1].Seq, events: events})
			if held > replayPrefetchBytes {
				pages = nil // too long to keep whole: each page is read when asked for
			}
		}
		if len(recs) < MaxReplayEvents {
			break
		}
		cursor = recs[len(recs)-1].Seq
	}
	if total == 0 {
		return nil, &replayRefusal{protocol.CodeReplayExpired, replayExpiredMessage}, nil
	}
	rounds := req.live.round
	if rounds == 0 {
		rounds = s.countRounds(ctx, req.id, req.round)
	}
	resp := ReplayResponse{
		Room: req.id, Round: req.round, Rounds: rounds, Mode: saved.Mode, Level: saved.Puzzle.Level,
		Puzzle: saved.Puzzle.Givens, Solution: saved.Puzzle.Solution,
		Players: fold.players, StartedAt: fold.started, FinishedAt: fold.finished,
	}
	head, err := newReplayHead(&resp, rounds, s.replayExpiry(saved))
	if err != nil {
		return nil, nil, err
	}
	now := s.clock.Now()
	for i, p := range pages {
		var next int64
		if i+1 < len(pages) {
			next = p.last
		}
		s.replayCache.put(replayKey{game: gameID, after: p.after}, head.page(p.events, next), now)
	}
	return head, nil, nil
}

// replayHeadSize is about what a round's head holds, for the cache's
// count: its strings and each player's.
func replayHeadSize(r *ReplayResponse) int64 {
	n := 512 + len(r.Room) + len(r.Puzzle) + len(r.Solution)
	for _, p := range r.Players {
		n += 128 + len(p.ID) + len(p.Name)
	}
	return int64(n)
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
				f.seat(ev.Player, ev.Name, ev.Guest)
			}
		case protocol.TypeState:
			var ev protocol.State
			if json.Unmarshal(rec.Data, &ev) != nil {
				continue
			}
			// A rematch's round begins with a state that seats its players.
			for _, p := range ev.Room.Players {
				if _, ok := f.index[p.ID]; !ok && p.ID != "" {
					f.seat(p.ID, p.Name, p.Guest)
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

func (f *replayFold) seat(id, name string, guest bool) {
	f.index[id] = len(f.players)
	f.players = append(f.players, ReplayPlayer{ID: id, Name: name, Guest: guest, Colour: len(f.players)})
}
