package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
)

// The rooms API: POST /api/rooms makes a room, GET /api/rooms/{id} is a
// live room's public snapshot.

// CreateRoomRequest is POST /api/rooms's body.
type CreateRoomRequest struct {
	Mode  string `json:"mode"`
	Level string `json:"level,omitempty"`
	// Date (UTC, YYYY-MM-DD) plays that day's daily puzzle: a daily room
	// (today when left out) or a race on it.
	Date string `json:"date,omitempty"`
	// Puzzle (81 cells, '.' or '0' for an empty one) plays the player's
	// own puzzle instead of a fresh one of the level: race or coop only,
	// never ranked.
	Puzzle string `json:"puzzle,omitempty"`
}

// CreateRoomResponse is POST /api/rooms's answer.
type CreateRoomResponse struct {
	ID    string `json:"id"`
	Mode  string `json:"mode"`
	Level string `json:"level"`
	// URL is the link to share: it opens the room in the web client.
	URL string `json:"url"`
	// WS is the WebSocket endpoint's path with the room as its routing
	// hint (/ws?room=ID); join with {"type":"join","room":ID}.
	WS string `json:"ws"`
}

// Retry-After of the refusals of POST /api/rooms, in seconds: a minute
// refills the per-address buckets; a room ends within IDLE_TIMEOUT of its
// last player leaving, so a minute is only a hint for the others.
const (
	retryCreateRate  = "60"
	retryRoomsByAddr = "60"
	retryServerFull  = "30"
)

func (s *Server) createRoom(w http.ResponseWriter, r *http.Request) {
	addr := clientAddr(r)
	if !s.creates.allow(addr, s.clock.Now()) {
		w.Header().Set("Retry-After", retryCreateRate)
		writeError(w, protocol.CodeRateLimited, "too many rooms made from this address: wait a minute")
		return
	}
	req, rerr := readCreateRoom(r.Body)
	if rerr == nil {
		rerr = s.checkRoomDate(&req)
	}
	var own room.Puzzle
	if rerr == nil && req.Puzzle != "" {
		own, rerr = ownPuzzle(req)
		req.Level = own.Level
	}
	if rerr != nil {
		writeRefusal(w, rerr)
		return
	}
	if perr := s.refusal(); perr != nil {
		writeRefusalNow(w, perr)
		return
	}
	if !s.roomsByAddr.acquire(addr) {
		w.Header().Set("Retry-After", retryRoomsByAddr)
		writeError(w, protocol.CodeTooManyRooms,
			fmt.Sprintf("this address has %d live rooms, as many as it may: play in one, or wait for one to end", s.cfg.RoomsPerAddr))
		return
	}
	var rm *room.Room
	var err error
	switch {
	case req.Puzzle != "":
		rm, err = s.rooms.CreateOwn(r.Context(), req.Mode, own)
	case req.Date != "":
		rm, err = s.rooms.CreateDaily(r.Context(), req.Mode, req.Level, req.Date)
	default:
		rm, err = s.rooms.Create(r.Context(), req.Mode, req.Level)
	}
	if err != nil {
		s.roomsByAddr.release(addr)
		if errors.Is(err, room.ErrFull) {
			s.log.Warn("create room: the server is full", "rooms", s.rooms.Stats().Rooms)
			w.Header().Set("Retry-After", retryServerFull)
			writeError(w, protocol.CodeServerFull, "the server holds as many rooms as it may: try again later")
			return
		}
		s.log.Error("create room", "mode", req.Mode, "level", req.Level, "err", err)
		writeError(w, protocol.CodeUnavailable, "no room could be made just now: try again")
		return
	}
	if h, ok := s.nodes.(RoomHandOff); ok {
		// Made here, run where its players meet. A client that hangs up
		// does not leave the hand-off half done.
		hctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), handOffTimeout)
		if err := h.HandOff(hctx, rm.ID()); err != nil {
			s.log.Warn("hand off a new room", "room", rm.ID(), "err", err)
		}
		cancel()
	}
	if s.roomsByAddr != nil {
		// The address holds the room until it ends (here: a room handed
		// off ends here at once, and is counted on no node).
		go func() {
			<-rm.Done()
			s.roomsByAddr.release(addr)
		}()
	}
	s.log.Info("room created", "room", rm.ID(), "mode", req.Mode, "level", req.Level)
	writeJSON(w, http.StatusCreated, CreateRoomResponse{
		ID: rm.ID(), Mode: req.Mode, Level: req.Level, URL: s.baseURL(r) + "/r/" + rm.ID(), WS: wsPath(rm.ID()),
	})
}

// wsPath is the WebSocket endpoint's path for a room: /ws with the room
// as the balancer's routing hint (see GET /ws in docs/protocol.md).
func wsPath(id string) string { return "/ws?room=" + url.QueryEscape(id) }

// RoomHandOff is what a node of several may do besides Nodes: hand a room
// it has just made, before anyone joined it, to the node its players
// reach. A balancer that routes by room sends all of a room's players to
// one node, but POST /api/rooms, with no room yet, to any; the room is
// claimed by the node of its first join (package cluster's Router).
type RoomHandOff interface {
	HandOff(ctx context.Context, id string) error
}

// handOffTimeout bounds a hand-off: a save and a write.
const handOffTimeout = 5 * time.Second

// maxCreateBody is the most of a POST /api/rooms body that is read.
const maxCreateBody = 1024

// readCreateRoom reads and checks a POST /api/rooms body: one JSON object in
// valid UTF-8, of at most maxCreateBody bytes, with no field but mode and
// level, a known mode and a known level (easy when left out).
func readCreateRoom(body io.Reader) (CreateRoomRequest, *protocol.Error) {
	var req CreateRoomRequest
	const want = `the body must be one JSON object such as {"mode":"race","level":"easy"}`
	data, rerr := readBody(body, maxCreateBody, want)
	if rerr != nil {
		return req, rerr
	}
	if err := protocol.DecodeObject(data, &req, true); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return req, protocol.Errorf(protocol.CodeBadField, "%s must be a string", te.Field)
		}
		return req, protocol.Errorf(protocol.CodeBadJSON, "%s, and no field but mode, level, date and puzzle", want)
	}
	if _, ok := room.ModeOf(req.Mode); !ok {
		return req, protocol.Errorf(protocol.CodeBadField, "mode must be %s", room.ModeNames("or", nil))
	}
	if req.Puzzle != "" {
		// The level is the puzzle's grade (ownPuzzle).
		if req.Level != "" {
			return req, protocol.Errorf(protocol.CodeBadField, "a room on your own puzzle takes its level from the puzzle's grade: leave level out")
		}
		return req, nil
	}
	if req.Level == "" {
		req.Level = "easy"
	}
	if !slices.Contains(room.Levels, req.Level) {
		return req, badLevel()
	}
	return req, nil
}

// checkRoomDate checks a new room's date against today (UTC, by the
// rooms' clock), as its mode's row of the rules table says: a daily plays
// today's unless told, a race may play a day's daily, co-op none.
func (s *Server) checkRoomDate(req *CreateRoomRequest) *protocol.Error {
	mode, _ := room.ModeOf(req.Mode) // readCreateRoom checked it
	switch {
	case mode.Date == room.DateRequired && req.Date == "":
		req.Date = s.rooms.Today()
	case mode.Date == room.DateNone && req.Date != "":
		return protocol.Errorf(protocol.CodeBadField, "a %s room has no daily: date is for %s", mode.Title,
			room.ModeNames("and", func(m room.Mode) bool { return m.Date != room.DateNone }))
	case req.Date == "":
		return nil
	}
	if s.rooms.CheckDay(req.Date) != nil {
		return badDate(s.rooms.Today())
	}
	return nil
}

// baseURL is PUBLIC_URL, or the scheme and host the request came to.
func (s *Server) baseURL(r *http.Request) string {
	if s.cfg.PublicURL != "" {
		return s.cfg.PublicURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func (s *Server) getRoom(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	rm, err := s.rooms.Get(id)
	if err != nil && s.nodes != nil {
		if s.proxyRoom(w, r, id) {
			return
		}
		rm, err = s.rooms.Get(id)
	}
	if err != nil {
		writeError(w, protocol.CodeRoomNotFound, "no live room has that id")
		return
	}
	snap, err := rm.Snapshot(r.Context())
	if err != nil {
		writeError(w, protocol.CodeRoomNotFound, "the room has ended")
		return
	}
	writeJSON(w, http.StatusOK, snap)
}
