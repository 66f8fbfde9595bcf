package tournament

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store"
)

// FinishedListed is how many finished tournaments the list shows.
const FinishedListed = 20

func (h *Hub) live() []*Arena {
	h.mu.Lock()
	defer h.mu.Unlock()
	as := make([]*Arena, 0, len(h.arenas))
	for _, a := range h.arenas {
		as = append(as, a)
	}
	return as
}

// summary is a stored tournament in a list.
func summary(t store.Tournament) server.TournamentSummary {
	return server.TournamentSummary{TournamentHead: server.TournamentHead{ID: t.ID, Name: t.Name, Level: t.Level, Status: t.Status,
		StartsAt: t.StartsAt.UTC(), EndsAt: t.StartsAt.Add(t.Duration).UTC()}, Players: t.Players}
}

// List is the tournaments page: the upcoming and running ones live here,
// the latest finished ones from the store.
func (h *Hub) List(ctx context.Context) (server.TournamentsResponse, error) {
	l := server.TournamentsResponse{Upcoming: []server.TournamentSummary{}, Running: []server.TournamentSummary{}, Finished: []server.TournamentSummary{}}
	for _, a := range h.live() {
		u, err := a.Snapshot(ctx)
		if errors.Is(err, ErrClosed) {
			continue
		}
		if err != nil {
			return l, err
		}
		s := server.TournamentSummary{TournamentHead: u.TournamentHead, Players: len(u.Standings)}
		switch u.Status {
		case StatusUpcoming:
			l.Upcoming = append(l.Upcoming, s)
		case StatusRunning:
			l.Running = append(l.Running, s)
		}
	}
	for _, ss := range [][]server.TournamentSummary{l.Upcoming, l.Running} {
		sort.Slice(ss, func(i, j int) bool { return ss[i].StartsAt.Before(ss[j].StartsAt) })
	}
	fin, err := h.st.TournamentsByStatus(ctx, store.TournamentFinished, FinishedListed)
	if err != nil {
		return l, fmt.Errorf("tournaments: finished: %w", err)
	}
	for _, t := range fin {
		l.Finished = append(l.Finished, summary(t))
	}
	return l, nil
}

// Tournament is the tournament: live, or as stored once finished.
func (h *Hub) Tournament(ctx context.Context, id string) (Update, error) {
	if a, ok := h.arena(id); ok {
		u, err := a.Snapshot(ctx)
		if !errors.Is(err, ErrClosed) {
			return u, err
		}
	}
	t, err := h.st.Tournament(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return Update{}, server.ErrNoTournament
	}
	if err != nil {
		return Update{}, fmt.Errorf("tournament %s: %w", id, err)
	}
	u := Update{TournamentHead: summary(t).TournamentHead, Standings: make([]Standing, len(t.Standings))}
	for i, s := range t.Standings {
		u.Standings[i] = Standing{TournamentLine: server.TournamentLine{Rank: s.Rank, Player: s.PlayerID, Name: s.Name, Score: s.Score, Wins: s.Wins}, Games: []Game{}}
		if err := json.Unmarshal(s.Games, &u.Standings[i].Games); err != nil {
			return Update{}, fmt.Errorf("tournament %s: games of %s: %w", id, s.PlayerID, err)
		}
	}
	return u, nil
}

// Watch is the live tournament's updates (Arena.Subscribe).
func (h *Hub) Watch(ctx context.Context, id string) (<-chan *server.TournamentUpdate, func(), error) {
	a, ok := h.arena(id)
	if !ok {
		return nil, nil, h.gone(ctx, id)
	}
	ups, stop, err := a.Subscribe(ctx)
	if err != nil {
		return nil, nil, arenaErr(err)
	}
	return ups, stop, nil
}

// PlayerTournaments is the player's places in finished tournaments.
func (h *Hub) PlayerTournaments(ctx context.Context, playerID string, limit int) ([]server.PlayerTournament, error) {
	rs, err := h.st.PlayerTournaments(ctx, playerID, limit)
	if err != nil {
		return nil, fmt.Errorf("tournaments of %s: %w", playerID, err)
	}
	out := make([]server.PlayerTournament, len(rs))
	for i, r := range rs {
		out[i] = server.PlayerTournament{TournamentSummary: summary(r.Tournament), Rank: r.Rank, Score: r.Score}
	}
	return out, nil
}
