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
	// ReplayEvents is every event the store keeps of the round, in
	// order, those on their way to it included: the events are written
	// in batches, and a replay asked for at the finish must hold it.
	ReplayEvents(ctx context.Context, gameID string) ([]room.Record, error)
}

// SetReplays gives the server the replay route's data; until it is set
// the route answers 503 unavailable. Call it before serving.
func (s *Server) SetReplays(r Replays) { s.replays = r }

// ReplayResponse is GET /api/rooms/{id}/replay: a round that is over, in
// full. Events are the store's record of each event, the full truth (a
// racer's digits, every mistake), not any member's view of it: once the
// round is over, nothing in it is secret any more.
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

// maxRoundsCounted bounds the rounds a replay counts past the one asked
// for in a room that is no longer live: each is one read of the store.
const maxRoundsCounted = 100

func (s *Server) getReplay(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if len(id) > protocol.MaxRoomLen {
		writeError(w, protocol.CodeRoomNotFound, "no room has that id")
		return
	}
	round := 1
	if v := r.URL.Query().Get("round"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			writeError(w, protocol.CodeBadField, "round must be a whole number from 1")
			return
		}
		round = n
	}
	if s.replays == nil {
		writeError(w, protocol.CodeUnavailable, "replays cannot be read just now: try again")
		return
	}
	liveRound, livePhase, liveDay := s.liveRound(r.Context(), id)
	switch {
	case liveRound > 0 && round > liveRound:
		writeError(w, protocol.CodeRoomNotFound, fmt.Sprintf("the room has had %d rounds so far", liveRound))
		return
	case round == liveRound && !roundOver(livePhase):
		writeReplayLive(w)
		return
	}
	gameID := room.GameID(id, round)
	saved, err := s.replays.ReplayRound(r.Context(), gameID)
	if errors.Is(err, room.ErrNoRound) {
		writeError(w, protocol.CodeRoomNotFound, "no room has that id and round")
		return
	}
	if err != nil {
		s.replayUnavailable(w, gameID, err)
		return
	}
	// A room live on no node here is over only by its stored state: one
	// that does not say so may be live elsewhere.
	if liveRound == 0 && !roundOver(saved.Phase) && !saved.Ended && !saved.Abandoned {
		writeReplayLive(w)
		return
	}
	// A round on the puzzle of the day tells its solution: not before the
	// day is over and a day more, while others may still play it for a
	// rank (a room made just before midnight stays ranked after it).
	day := saved.Day
	if round == liveRound {
		day = liveDay
	}
	if !s.rooms.RevealsDaily(day) {
		writeError(w, protocol.CodeReplayLive,
			"the round played the puzzle of the day, which others may still be playing for a rank: its replay opens a day after that day is over (midnight UTC)")
		return
	}
	records, err := s.replays.ReplayEvents(r.Context(), gameID)
	if err != nil {
		s.replayUnavailable(w, gameID, err)
		return
	}
	if len(records) == 0 {
		writeError(w, protocol.CodeReplayExpired,
			"the round's events are no longer kept: replays last as long as the server keeps events (EVENT_RETENTION)")
		return
	}
	rounds := liveRound
	if rounds == 0 {
		rounds = s.countRounds(r.Context(), id, round)
	}
	out := ReplayResponse{
		Room: id, Round: round, Rounds: rounds, Mode: saved.Mode, Level: saved.Puzzle.Level,
		Puzzle: saved.Puzzle.Givens, Solution: saved.Puzzle.Solution,
		Players: []ReplayPlayer{}, Events: make([]ReplayEvent, len(records)),
	}
	for i, rec := range records {
		out.Events[i] = ReplayEvent{At: rec.At, Event: rec.Data}
	}
	out.Players, out.StartedAt, out.FinishedAt = replayPlayers(records)
	writeJSON(w, http.StatusOK, out)
}

// liveRound is the round, phase and daily day (if any) of the room when
// it is live on this server; round 0 when it is not.
func (s *Server) liveRound(ctx context.Context, id string) (int, string, string) {
	rm, err := s.rooms.Get(id)
	if err != nil {
		return 0, "", ""
	}
	snap, err := rm.Snapshot(ctx)
	if err != nil {
		return 0, "", ""
	}
	return snap.Round, snap.Phase, snap.Date
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

func writeReplayLive(w http.ResponseWriter) {
	writeError(w, protocol.CodeReplayLive,
		"the round is still being played: its replay opens once it is over")
}

func (s *Server) replayUnavailable(w http.ResponseWriter, gameID string, err error) {
	s.log.Error("replay", "game", gameID, "err", err)
	writeError(w, protocol.CodeUnavailable, "replays cannot be read just now: try again")
}

// replayPlayers reads the round's players from its events, in the order
// they joined, with their finishes, and when play started and ended.
func replayPlayers(records []room.Record) ([]ReplayPlayer, *time.Time, *time.Time) {
	players := []ReplayPlayer{}
	index := map[string]int{}
	var started, finished *time.Time
	for _, rec := range records {
		switch rec.Type {
		case protocol.TypePresence:
			var ev protocol.PresenceEvent
			if json.Unmarshal(rec.Data, &ev) != nil || ev.Role != protocol.RolePlayer {
				continue
			}
			if _, ok := index[ev.Player]; !ok && ev.Status == protocol.PresenceJoined {
				index[ev.Player] = len(players)
				players = append(players, ReplayPlayer{ID: ev.Player, Name: ev.Name, Colour: len(players)})
			}
		case protocol.TypeState:
			var ev protocol.State
			if json.Unmarshal(rec.Data, &ev) != nil {
				continue
			}
			// A rematch's round begins with a state that seats its players.
			for _, p := range ev.Room.Players {
				if _, ok := index[p.ID]; !ok && p.ID != "" {
					index[p.ID] = len(players)
					players = append(players, ReplayPlayer{ID: p.ID, Name: p.Name, Colour: len(players)})
				}
			}
			if ev.Room.StartedAt != nil {
				started = ev.Room.StartedAt
			}
			if ev.Room.FinishedAt != nil {
				finished = ev.Room.FinishedAt
			}
		case protocol.TypeFinish:
			var ev protocol.FinishEvent
			if json.Unmarshal(rec.Data, &ev) != nil {
				continue
			}
			for i := range players {
				if ev.Player == "" || players[i].ID == ev.Player {
					p := &players[i]
					p.Finished, p.Rank, p.ElapsedMS = true, ev.Rank, ev.ElapsedMS
					p.Mistakes, p.Hints, p.Score = ev.Mistakes, ev.Hints, ev.Score
				}
			}
		}
	}
	return players, started, finished
}
