package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/sudoku-arena/arena/internal/ws"
	"github.com/sudoku-arena/arena/protocol"
)

// TournamentGame is one race of a player's in a tournament: their place
// (0: not finished) and its points; fire says a streak doubled them.
type TournamentGame struct {
	Race   string `json:"race"`
	Place  int    `json:"place"`
	Points int    `json:"points"`
	Fire   bool   `json:"fire,omitempty"`
	// Berserk: the player raced it berserk (no notes, no hints); a
	// berserk win scores one point more (package tournament's
	// BerserkBonus).
	Berserk bool `json:"berserk,omitempty"`
}

// TournamentLine is a player's line in a tournament's standings, as a
// "tournament" event's top shows it: without their games.
type TournamentLine struct {
	Rank    int    `json:"rank"`
	Player  string `json:"player"`
	Name    string `json:"name"`
	Score   int    `json:"score"`
	Wins    int    `json:"wins"`
	Fire    bool   `json:"fire,omitempty"`
	Playing string `json:"playing,omitempty"`
	Left    bool   `json:"withdrawn,omitempty"`
}

// TournamentStanding is a player's line in a tournament's standings,
// with their games.
type TournamentStanding struct {
	TournamentLine
	Games []TournamentGame `json:"games"`
}

// TournamentHead is a tournament without its standings.
type TournamentHead struct {
	ID       string    `json:"id"`
	Name     string    `json:"name"`
	Level    string    `json:"level"`
	Status   string    `json:"status"`
	StartsAt time.Time `json:"starts_at"`
	EndsAt   time.Time `json:"ends_at"`
}

// TournamentResponse is a tournament with its standings: the answer of
// GET /api/tournaments/{id}, and of join and withdraw.
type TournamentResponse struct {
	TournamentHead
	Standings []TournamentStanding `json:"standings"`
}

// TournamentTop is how many lines of the standings a "tournament" event
// carries: the full standings are GET /api/tournaments/{id}'s.
const TournamentTop = 10

// TournamentEvent is what GET /ws/tournaments/{id} sends on each change
// of what its socket shows: the top of the standings, how many players
// there are, and to a player of the tournament their own line (You).
// Its size does not grow with the players, so that N sockets cost O(N)
// per change, not O(N²).
type TournamentEvent struct {
	Type string `json:"type"` // "tournament"
	TournamentHead
	Players int                 `json:"players"`
	Top     []TournamentLine    `json:"top"`
	You     *TournamentStanding `json:"you,omitempty"`
}

// tournamentEvent is the event of t for the player me ("": a spectator).
func tournamentEvent(t TournamentResponse, me string) TournamentEvent {
	ev := TournamentEvent{Type: "tournament", TournamentHead: t.TournamentHead, Players: len(t.Standings),
		Top: make([]TournamentLine, min(len(t.Standings), TournamentTop))}
	for i := range ev.Top {
		ev.Top[i] = t.Standings[i].TournamentLine
	}
	if me == "" {
		return ev
	}
	for i := range t.Standings {
		if t.Standings[i].Player == me {
			ev.You = &t.Standings[i]
			break
		}
	}
	return ev
}

// TournamentUpdate is a live tournament's standings as its arena sends
// them to every socket watching it: the part of their events all the
// sockets share (the head, the count, the top) is encoded once per
// update, and the players' lines are found by id once, so that N sockets
// cost an update N own lines, not N tops and N searches of the standings.
type TournamentUpdate struct {
	TournamentResponse
	once   sync.Once
	shared []byte // the event's JSON without you and its closing brace
	err    error
	index  map[string]int // a player's line in the standings
}

// NewTournamentUpdate is the update of t.
func NewTournamentUpdate(t TournamentResponse) *TournamentUpdate {
	return &TournamentUpdate{TournamentResponse: t}
}

// Event is the "tournament" event for the player me ("": a spectator),
// byte for byte json.Marshal(tournamentEvent(t, me)).
func (u *TournamentUpdate) Event(me string) ([]byte, error) {
	u.once.Do(func() {
		var b []byte
		b, u.err = json.Marshal(tournamentEvent(u.TournamentResponse, ""))
		u.shared = b[:max(len(b)-1, 0)] // "you" would come last: cut the '}'
		u.index = make(map[string]int, len(u.Standings))
		for i := range u.Standings {
			u.index[u.Standings[i].Player] = i
		}
	})
	if u.err != nil {
		return nil, u.err
	}
	i, ok := u.index[me]
	if me == "" || !ok {
		return append(append(make([]byte, 0, len(u.shared)+1), u.shared...), '}'), nil
	}
	you, err := json.Marshal(&u.Standings[i])
	if err != nil {
		return nil, err
	}
	ev := make([]byte, 0, len(u.shared)+len(you)+8)
	ev = append(append(append(append(ev, u.shared...), `,"you":`...), you...), '}')
	return ev, nil
}

// TournamentSummary is a tournament in a list.
type TournamentSummary struct {
	TournamentHead
	Players int `json:"players"`
}

// TournamentsResponse is GET /api/tournaments.
type TournamentsResponse struct {
	Upcoming []TournamentSummary `json:"upcoming"`
	Running  []TournamentSummary `json:"running"`
	Finished []TournamentSummary `json:"finished"`
}

// PlayerTournament is a player's place in a finished tournament.
type PlayerTournament struct {
	TournamentSummary
	Rank  int `json:"rank"`
	Score int `json:"score"`
}

// PlayerTournamentsResponse is GET /api/players/{id}/tournaments.
type PlayerTournamentsResponse struct {
	Tournaments []PlayerTournament `json:"tournaments"`
}

// Tournaments is the arena's tournaments as the server asks them
// (package tournament's Hub).
type Tournaments interface {
	// List is the upcoming, running and latest finished tournaments.
	List(ctx context.Context) (TournamentsResponse, error)
	// Tournament is one tournament with its standings, or
	// ErrNoTournament.
	Tournament(ctx context.Context, id string) (TournamentResponse, error)
	// Join adds the player to a tournament that has not ended: ErrNoTournament,
	// ErrTournamentOver.
	Join(ctx context.Context, id, playerID string) error
	// Withdraw stops pairing the player: ErrNoTournament,
	// ErrTournamentOver, ErrNotInTournament.
	Withdraw(ctx context.Context, id, playerID string) error
	// Watch is a live tournament's changes, the latest only (one a slow
	// reader has not taken is replaced by the next); the channel closes
	// when it has ended (after its last change) or stop is called.
	// ErrNoTournament, ErrTournamentOver.
	Watch(ctx context.Context, id string) (changes <-chan *TournamentUpdate, stop func(), err error)
	// PlayerTournaments is the player's places in finished tournaments,
	// latest first.
	PlayerTournaments(ctx context.Context, playerID string, limit int) ([]PlayerTournament, error)
}

// The tournaments' refusals.
var (
	ErrNoTournament    = errors.New("server: no such tournament")
	ErrTournamentOver  = errors.New("server: the tournament has ended")
	ErrNotInTournament = errors.New("server: the player is not in the tournament")
)

// SetTournaments serves the tournaments; without, their routes answer
// unavailable.
func (s *Server) SetTournaments(t Tournaments) { s.tournaments = t }

// tournamentRoutes adds the tournaments' routes to the mux.
func (s *Server) tournamentRoutes(mux *http.ServeMux) {
	// The running tournaments live on one node: the others relay there.
	mux.HandleFunc("GET /api/tournaments", s.onArenaNode(s.getTournaments))
	mux.HandleFunc("GET /api/tournaments/{id}", s.onArenaNode(s.getTournament))
	mux.HandleFunc("POST /api/tournaments/{id}/join", s.onArenaNode(s.tournamentMember(Tournaments.Join)))
	mux.HandleFunc("POST /api/tournaments/{id}/withdraw", s.onArenaNode(s.tournamentMember(Tournaments.Withdraw)))
	mux.HandleFunc("GET /api/players/{id}/tournaments", s.getPlayerTournaments) // from the store, anywhere
	mux.HandleFunc("GET /ws/tournaments/{id}", s.onArenaNode(s.watchTournament))
}

// tournamentError answers with the refusal of err, or unavailable.
func (s *Server) tournamentError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, ErrNoTournament):
		writeError(w, protocol.CodeTournamentNotFound, "no tournament has that id")
	case errors.Is(err, ErrTournamentOver):
		writeError(w, protocol.CodeTournamentOver, "the tournament has ended")
	case errors.Is(err, ErrNotInTournament):
		writeError(w, protocol.CodeNotInTournament, "the player has not joined the tournament")
	default:
		s.log.Error("tournaments", "err", err)
		writeError(w, protocol.CodeUnavailable, "the tournaments cannot be read just now: try again")
	}
}

func (s *Server) tournamentsReady(w http.ResponseWriter) bool {
	if s.tournaments == nil {
		writeError(w, protocol.CodeUnavailable, "this server runs no tournaments")
		return false
	}
	return true
}

// answerTournaments answers with v, or with the refusal of err.
func answerTournaments[T any](s *Server, w http.ResponseWriter, v T, err error) {
	if err != nil {
		s.tournamentError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

func (s *Server) getTournaments(w http.ResponseWriter, r *http.Request) {
	if s.tournamentsReady(w) {
		l, err := s.tournaments.List(r.Context())
		answerTournaments(s, w, l, err)
	}
}

func (s *Server) getTournament(w http.ResponseWriter, r *http.Request) {
	if s.tournamentsReady(w) {
		t, err := s.tournaments.Tournament(r.Context(), r.PathValue("id"))
		answerTournaments(s, w, t, err)
	}
}

func (s *Server) getPlayerTournaments(w http.ResponseWriter, r *http.Request) {
	if !s.tournamentsReady(w) {
		return
	}
	limit, rerr := readLimit(r)
	if rerr != nil {
		writeRefusal(w, rerr)
		return
	}
	places, err := s.tournaments.PlayerTournaments(r.Context(), r.PathValue("id"), limit)
	answerTournaments(s, w, PlayerTournamentsResponse{Tournaments: places}, err)
}

// tournamentMember is join or withdraw (act), of the caller: the player
// of the bearer token, or of the session cookie.
func (s *Server) tournamentMember(act func(Tournaments, context.Context, string, string) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.tournamentsReady(w) {
			return
		}
		me, err := s.bearer(r)
		if err != nil {
			s.tournamentError(w, err)
			return
		}
		if me == "" {
			writeError(w, protocol.CodeNotSignedIn, "joining a tournament needs a player: a session, or a bearer token")
			return
		}
		tid := r.PathValue("id")
		if err := act(s.tournaments, r.Context(), tid, me); err != nil {
			s.tournamentError(w, err)
			return
		}
		t, err := s.tournaments.Tournament(r.Context(), tid)
		answerTournaments(s, w, t, err)
	}
}

// watchTournament is a WebSocket of a live tournament's "tournament"
// events, to players and spectators alike: one at once, then one on each
// change of what it shows (the top, the count, the caller's own line),
// until it has ended. What the client sends is read and dropped.
func (s *Server) watchTournament(w http.ResponseWriter, r *http.Request) {
	if !s.tournamentsReady(w) {
		return
	}
	me, err := s.bearer(r)
	if err != nil {
		s.tournamentError(w, err)
		return
	}
	events, stop, err := s.tournaments.Watch(r.Context(), r.PathValue("id"))
	if err != nil {
		s.tournamentError(w, err)
		return
	}
	rc := http.NewResponseController(w)
	if err := errors.Join(rc.SetReadDeadline(time.Time{}), rc.SetWriteDeadline(time.Time{})); err != nil {
		s.log.Debug("websocket: clear deadlines", "err", err)
	}
	// Counted with the rooms' sockets against SOCKETS_PER_ADDR.
	addr := s.remoteAddr(r)
	if !s.sockets.acquire(addr) {
		stop()
		writeError(w, protocol.CodeRateLimited, fmt.Sprintf("too many connections from this address (at most %d): close another first", s.cfg.SocketsPerAddr))
		return
	}
	defer s.sockets.release(addr)
	sock, err := ws.Accept(w, r, s.wsOrigins, s.cfg.WriteTimeout, int(s.cfg.ReadLimit))
	if err != nil {
		stop()
		return
	}
	s.tune(sock)
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		for {
			in := sock.Next(false)
			if in.Msg != nil {
				ws.DoneWith(in.Msg)
			}
			switch in.Kind {
			case ws.InputClose, ws.InputEnd, ws.InputBad:
				return
			}
		}
	}()
	defer stop()
	var last []byte
	for {
		select {
		case t, ok := <-events:
			if !ok {
				sock.CloseHandshake(ws.StatusNormal, "the tournament has ended")
				return
			}
			ev, err := t.Event(me)
			if err != nil {
				s.log.Error("tournament event", "err", err)
				return
			}
			if bytes.Equal(ev, last) {
				continue // nothing this socket shows changed
			}
			last = ev
			if _, err := sock.Write(ws.AppendText(nil, ev)); err != nil {
				return
			}
		case <-gone:
			sock.CloseHandshake(ws.StatusNormal, "")
			return
		}
	}
}
