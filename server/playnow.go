package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/sudoku-arena/arena/lobby"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
)

// PlayNow is the Play now queue and the ratings of rated races (package
// lobby), as the API needs them.
type PlayNow interface {
	Join(ctx context.Context, req lobby.Request) (lobby.Status, error)
	Status(ticket string) (lobby.Status, error)
	Leave(ticket string) bool
	Board(ctx context.Context, limit int) ([]lobby.BoardRowJSON, error)
	Player(ctx context.Context, playerID string, limit int) (lobby.PlayerRatingJSON, error)
	Race(ctx context.Context, roomID string) ([]lobby.ChangeJSON, error)
}

// SetPlayNow turns the queue and rating routes on; without it they answer
// unavailable.
func (s *Server) SetPlayNow(p PlayNow) { s.playNow = p }

// QueueRequest is the body of POST /api/queue.
type QueueRequest struct {
	Level string `json:"level"`
	Rated bool   `json:"rated"`
}

// RatingBoardResponse is GET /api/ratings.
type RatingBoardResponse struct {
	Rows []lobby.BoardRowJSON `json:"rows"`
}

// RoomRatingsResponse is GET /api/rooms/{id}/ratings.
type RoomRatingsResponse struct {
	Room    string             `json:"room"`
	Changes []lobby.ChangeJSON `json:"changes"`
}

// maxQueueBody bounds POST /api/queue's body.
const maxQueueBody = 256

func (s *Server) playNowRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /api/queue", s.postQueue)
	mux.HandleFunc("GET /api/queue/{ticket}", s.getQueue)
	mux.HandleFunc("DELETE /api/queue/{ticket}", s.deleteQueue)
	mux.HandleFunc("GET /api/ratings", s.getRatings)
	mux.HandleFunc("GET /api/players/{id}/rating", s.getPlayerRating)
	mux.HandleFunc("GET /api/rooms/{id}/ratings", s.getRoomRatings)
}

func (s *Server) playNowOff(w http.ResponseWriter) bool {
	if s.playNow == nil {
		writeError(w, protocol.CodeUnavailable, "play now is not on on this server")
		return true
	}
	return false
}

// caller is the player the request's bearer token or session cookie
// names, and whether they are a guest; "" when it names none.
func (s *Server) caller(r *http.Request) (id string, guest bool, err error) {
	if token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && token != "" && len(token) <= protocol.MaxTokenLen {
		id, _, guest, err = s.playerByToken(r.Context(), HashToken(token))
		if errors.Is(err, room.ErrUnknownPlayer) {
			return "", false, nil
		}
		return id, guest, err
	}
	secret := sessionSecret(r)
	if secret == "" || s.accounts == nil {
		return "", false, nil
	}
	p, err := s.accounts.Session(r.Context(), secret)
	if errors.Is(err, ErrNoSession) {
		return "", false, nil
	}
	return p.ID, p.Guest, err
}

// postQueue is POST /api/queue: the caller waits to play now.
func (s *Server) postQueue(w http.ResponseWriter, r *http.Request) {
	if s.playNowOff(w) {
		return
	}
	var req QueueRequest
	const want = `the body must be one JSON object such as {"level":"easy","rated":true}`
	data, rerr := readBody(r.Body, maxQueueBody, want)
	if rerr == nil && protocol.DecodeObject(data, &req, true) != nil {
		rerr = protocol.Errorf(protocol.CodeBadJSON, "%s, and no field but level and rated", want)
	}
	if rerr == nil && !slices.Contains(room.Levels, req.Level) {
		rerr = badLevel()
	}
	if rerr != nil {
		writeRefusal(w, rerr)
		return
	}
	id, guest, err := s.caller(r)
	if err != nil {
		s.log.Error("queue: caller", "err", err)
		writeError(w, protocol.CodeUnavailable, "players cannot be checked just now: try again")
		return
	}
	if id == "" {
		writeError(w, protocol.CodeNotSignedIn, "play now needs a player: send your token, or sign in")
		return
	}
	// Two tickets of one address are never matched together; behind a
	// proxy, where every client shares its address and the per-address
	// limits are off (SOCKETS_PER_ADDR 0), addresses tell nobody apart.
	addr := clientAddr(r)
	if s.cfg.SocketsPerAddr == 0 {
		addr = ""
	}
	st, err := s.playNow.Join(r.Context(), lobby.Request{Player: id, Account: !guest, Addr: addr, Level: req.Level, Rated: req.Rated})
	switch {
	case errors.Is(err, lobby.ErrGuestRated):
		writeError(w, protocol.CodeNotSignedIn, "rated play is for accounts: sign in, or play casual")
	case errors.Is(err, lobby.ErrQueued):
		writeError(w, protocol.CodeAlreadyQueued, "you wait in the queue already: leave it first")
	case err != nil:
		s.log.Error("queue: join", "player", id, "err", err)
		writeError(w, protocol.CodeUnavailable, "the queue cannot be joined just now: try again")
	default:
		writeJSON(w, http.StatusOK, st)
	}
}

// getQueue is GET /api/queue/{ticket}: where the ticket stands.
func (s *Server) getQueue(w http.ResponseWriter, r *http.Request) {
	if s.playNowOff(w) {
		return
	}
	st, err := s.playNow.Status(r.PathValue("ticket"))
	if err != nil {
		writeError(w, protocol.CodeTicketNotFound, "no such ticket: it was left, or its match is over")
		return
	}
	writeJSON(w, http.StatusOK, st)
}

// deleteQueue is DELETE /api/queue/{ticket}: leave the queue, at once.
func (s *Server) deleteQueue(w http.ResponseWriter, r *http.Request) {
	if s.playNowOff(w) {
		return
	}
	if !s.playNow.Leave(r.PathValue("ticket")) {
		writeError(w, protocol.CodeTicketNotFound, "no such ticket waits: it was left, or matched already")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// getRatings is GET /api/ratings: the all-time rating board.
func (s *Server) getRatings(w http.ResponseWriter, r *http.Request) {
	if s.playNowOff(w) {
		return
	}
	limit, rerr := readLimit(r)
	if rerr != nil {
		writeRefusal(w, rerr)
		return
	}
	rows, err := s.playNow.Board(r.Context(), limit)
	if err != nil {
		s.unavailable(w, "rating board", err)
		return
	}
	if rows == nil {
		rows = []lobby.BoardRowJSON{}
	}
	writeJSON(w, http.StatusOK, RatingBoardResponse{Rows: rows})
}

// getPlayerRating is GET /api/players/{id}/rating: a rating and its
// history (the last 100 races), for the player page's chart.
func (s *Server) getPlayerRating(w http.ResponseWriter, r *http.Request) {
	if s.playNowOff(w) {
		return
	}
	pr, err := s.playNow.Player(r.Context(), r.PathValue("id"), maxLimit)
	if err != nil {
		s.unavailable(w, "player rating", err)
		return
	}
	if pr.History == nil {
		pr.History = []lobby.ChangeJSON{}
	}
	writeJSON(w, http.StatusOK, pr)
}

// getRoomRatings is GET /api/rooms/{id}/ratings: what a rated race did
// to its players' ratings; empty until it is rated.
func (s *Server) getRoomRatings(w http.ResponseWriter, r *http.Request) {
	if s.playNowOff(w) {
		return
	}
	id := r.PathValue("id")
	cs, err := s.playNow.Race(r.Context(), id)
	if err != nil {
		s.unavailable(w, "room ratings", err)
		return
	}
	if cs == nil {
		cs = []lobby.ChangeJSON{}
	}
	writeJSON(w, http.StatusOK, RoomRatingsResponse{Room: id, Changes: cs})
}

// CreateRace makes a race room for a group of players (a match of the
// queue, a tournament's pairing), and hands it to the node its players
// will meet on, as POST /api/rooms does. The room starts by itself once
// they are in (room.Registry.CreateGroup).
func (s *Server) CreateRace(ctx context.Context, level string, players []string) (string, error) {
	if perr := s.refusal(); perr != nil {
		return "", fmt.Errorf("server: race for a group: %s", perr.Message)
	}
	rm, err := s.rooms.CreateGroup(ctx, room.ModeRace, level, room.Group{Players: players})
	if err != nil {
		return "", fmt.Errorf("server: race for a group: %w", err)
	}
	if h, ok := s.nodes.(RoomHandOff); ok {
		if err := h.HandOff(ctx, rm.ID()); err != nil {
			s.log.Warn("hand off a group's room", "room", rm.ID(), "err", err)
		}
	}
	return rm.ID(), nil
}
