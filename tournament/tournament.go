// Package tournament is the arena: a tournament of a level that runs from
// its start for its duration, in which the joined players are paired into
// races again as soon as they finish one, scored by their place in each
// race. Tournament is the state and its rules as a plain state machine;
// Arena is the goroutine that runs one on a clock and makes its races.
package tournament

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/sudoku-arena/arena/server"
)

// Statuses of a tournament.
const (
	StatusUpcoming = "upcoming"
	StatusRunning  = "running"
	StatusFinished = "finished"
)

// Race sizes: a race is paired from MinRace to MaxRace free players.
const (
	MinRace = 2
	MaxRace = 4
)

// PlacePoints are the points of each place in a race: 1st 4, 2nd 3, 3rd
// 2, 4th 1. A player on a streak (their last two races won) scores double.
var PlacePoints = [MaxRace]int{4, 3, 2, 1}

// StreakAfter is how many races in a row a player must win for the next
// race's points to count double.
const StreakAfter = 2

// BerserkBonus is the point a berserk player's win adds (after the
// streak's doubling): no notes and no hints, for one more point.
const BerserkBonus = 1

// Errors of the tournament's commands.
var (
	// ErrFinished: the tournament has ended; nobody joins it any more.
	ErrFinished = errors.New("tournament: finished")
	// ErrNotJoined: the player is not in the tournament.
	ErrNotJoined = errors.New("tournament: not joined")
	// ErrNoRace: the race is not one of the tournament's, or the player
	// is not racing in it, or has finished it already.
	ErrNoRace = errors.New("tournament: no such race")
	// ErrBadSpec: a tournament's level, start or duration is not one the
	// arena plays.
	ErrBadSpec = errors.New("tournament: bad level, start or duration")
)

// Spec is what a tournament is made with.
type Spec struct {
	ID       string
	Name     string
	Level    string
	StartsAt time.Time
	Duration time.Duration
}

// EndsAt is when the tournament ends.
func (s Spec) EndsAt() time.Time { return s.StartsAt.Add(s.Duration) }

// Check reports a spec whose duration is not from a minute to a day, or
// whose id or level is empty, as ErrBadSpec.
func (s Spec) Check() error {
	if s.ID == "" || s.Level == "" || s.StartsAt.IsZero() || s.Duration < time.Minute || s.Duration > 24*time.Hour {
		return fmt.Errorf("%w: %q level %q duration %s", ErrBadSpec, s.ID, s.Level, s.Duration)
	}
	return nil
}

// Game is one race of a player's: its place (0 when it did not finish)
// and the points it scored; Fire says the points were doubled by a streak.
type Game = server.TournamentGame

// player is a joined player's state.
type player struct {
	id, name string
	order    int
	score    int
	wins     int
	streak   int
	games    []Game
	race     string // the race being played, "" when free
	left     bool   // withdrawn: not paired again until they join again
}

// race is a race of the tournament: its players, and those who have
// finished or left it, in order.
type race struct {
	id      string
	players []string
	done    []string
}

// Tournament is one tournament's state: a plain state machine. Every
// method takes the time from the caller; nothing here blocks or does I/O.
type Tournament struct {
	Spec
	players []*player
	byID    map[string]*player
	races   map[string]*race
	ended   bool
	// changed are the players whose lines changed since Changed.
	changed map[string]bool
}

// New is a tournament that has nobody in it yet.
func New(s Spec) (*Tournament, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	return &Tournament{Spec: s, byID: map[string]*player{}, races: map[string]*race{}, changed: map[string]bool{}}, nil
}

// Line is a player's line as it is stored while the tournament runs:
// their standing, and the order they joined in (from 0).
type Line struct {
	Standing
	Joined int
}

// Changed are the lines of the players whose line has changed since the
// last call (a join, a withdrawal, a race finished or left), by the
// order they joined in; it forgets them. Touch marks them again (a save
// that failed).
func (t *Tournament) Changed() []Line {
	if len(t.changed) == 0 {
		return nil
	}
	var out []Line
	for _, l := range t.Lines() {
		if t.changed[l.Player] {
			out = append(out, l)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Joined < out[j].Joined })
	clear(t.changed)
	return out
}

// Lines are every player's line, in the standings' order.
func (t *Tournament) Lines() []Line {
	sts := t.Standings()
	out := make([]Line, len(sts))
	for i, st := range sts {
		out[i] = Line{Standing: st, Joined: t.byID[st.Player].order}
	}
	return out
}

// Touch marks the players' lines changed again.
func (t *Tournament) Touch(ids ...string) {
	for _, id := range ids {
		t.changed[id] = true
	}
}

// Restore brings back the players of lines stored while the tournament
// ran (Changed), before anyone else joins: each with their name, score,
// wins and games, withdrawn or not, in the order they joined, their
// streak the races they won last in a row. Nobody is racing: a race
// played when the lines were stored is not theirs any more, and its
// finishes do not count (the players are free, to be paired again).
func (t *Tournament) Restore(lines []Line) error {
	if len(t.players) > 0 {
		return fmt.Errorf("%w: restore into a tournament with players", ErrBadSpec)
	}
	ls := append([]Line(nil), lines...)
	sort.SliceStable(ls, func(i, j int) bool { return ls[i].Joined < ls[j].Joined })
	for _, l := range ls {
		if _, ok := t.byID[l.Player]; ok || l.Player == "" {
			return fmt.Errorf("%w: restore: player %q twice or unnamed", ErrBadSpec, l.Player)
		}
		p := &player{id: l.Player, name: l.Name, order: len(t.players), score: l.Score, wins: l.Wins,
			games: append([]Game(nil), l.Games...), left: l.Left}
		for i := len(p.games) - 1; i >= 0 && p.games[i].Place == 1; i-- {
			p.streak++
		}
		t.players = append(t.players, p)
		t.byID[p.id] = p
	}
	return nil
}

// Status is the tournament's status at now.
func (t *Tournament) Status(now time.Time) string {
	switch {
	case t.ended || !now.Before(t.EndsAt()):
		return StatusFinished
	case now.Before(t.StartsAt):
		return StatusUpcoming
	}
	return StatusRunning
}

// Join adds the player (or brings back one who withdrew); it is a no-op
// for a player in it already. A finished tournament is ErrFinished.
func (t *Tournament) Join(id, name string, now time.Time) error {
	if t.Status(now) == StatusFinished {
		return ErrFinished
	}
	t.changed[id] = true
	if p, ok := t.byID[id]; ok {
		p.left = false
		return nil
	}
	p := &player{id: id, name: name, order: len(t.players)}
	t.players = append(t.players, p)
	t.byID[id] = p
	return nil
}

// Withdraw stops pairing the player; a race they play goes on. Their
// score stays in the standings.
func (t *Tournament) Withdraw(id string) error {
	p, ok := t.byID[id]
	if !ok {
		return ErrNotJoined
	}
	p.left = true
	t.changed[id] = true
	return nil
}

// Joined reports whether the player is in the tournament and not withdrawn.
func (t *Tournament) Joined(id string) bool {
	p, ok := t.byID[id]
	return ok && !p.left
}

// Groups are the races to pair now: while the tournament runs, the free
// players (joined, not withdrawn, not racing) by score, highest first
// (the earlier joined first among equals), cut into as few races of
// MinRace to MaxRace as hold them all, their sizes as even as can be
// (5 free players race as 3 and 2). A lone free player waits. Groups
// changes nothing: AddRace seats each group.
func (t *Tournament) Groups(now time.Time) [][]string {
	if t.Status(now) != StatusRunning {
		return nil
	}
	var free []*player
	for _, p := range t.players {
		if !p.left && p.race == "" {
			free = append(free, p)
		}
	}
	if len(free) < MinRace {
		return nil
	}
	sort.SliceStable(free, func(i, j int) bool { return free[i].score > free[j].score })
	n := len(free)
	races := (n + MaxRace - 1) / MaxRace
	var out [][]string
	at := 0
	for i := 0; i < races; i++ {
		size := n / races
		if i < n%races {
			size++
		}
		g := make([]string, 0, size)
		for _, p := range free[at : at+size] {
			g = append(g, p.id)
		}
		out = append(out, g)
		at += size
	}
	return out
}

// AddRace seats the players in the race with the id.
func (t *Tournament) AddRace(id string, players []string) error {
	if _, ok := t.races[id]; ok || len(players) < MinRace || len(players) > MaxRace {
		return fmt.Errorf("%w: %s of %d players", ErrNoRace, id, len(players))
	}
	for _, pid := range players {
		if p, ok := t.byID[pid]; !ok || p.race != "" {
			return fmt.Errorf("%w: %s is not free", ErrNotJoined, pid)
		}
	}
	t.races[id] = &race{id: id, players: append([]string(nil), players...)}
	for _, pid := range players {
		t.byID[pid].race = id
	}
	return nil
}

// Finish is the player's finish of the race, in the place after those
// who finished it before: its points, doubled when the player's last
// StreakAfter races were won. The player is free again.
func (t *Tournament) Finish(raceID, playerID string, berserk bool) (Game, error) {
	r, p, err := t.racing(raceID, playerID)
	if err != nil {
		return Game{}, err
	}
	r.done = append(r.done, playerID)
	g := Game{Race: raceID, Place: len(r.done), Points: PlacePoints[len(r.done)-1], Berserk: berserk}
	if p.streak >= StreakAfter {
		g.Points *= 2
		g.Fire = true
	}
	if berserk && g.Place == 1 {
		g.Points += BerserkBonus
	}
	if g.Place == 1 {
		p.streak++
		p.wins++
	} else {
		p.streak = 0
	}
	p.score += g.Points
	p.games = append(p.games, g)
	p.race = ""
	t.changed[playerID] = true
	return g, nil
}

// Abandon is the player leaving the race unfinished: no points, the
// streak is broken, and the player is free again; those who finish the
// race after them take the places it leaves.
func (t *Tournament) Abandon(raceID, playerID string) error {
	r, p, err := t.racing(raceID, playerID)
	if err != nil {
		return err
	}
	_ = r
	p.streak = 0
	p.games = append(p.games, Game{Race: raceID})
	p.race = ""
	t.changed[playerID] = true
	return nil
}

// EndRace is the race's room ending: its players who have not finished
// it abandon it (Abandon), and are free again. It returns them.
func (t *Tournament) EndRace(raceID string) []string {
	var left []string
	for _, p := range t.players {
		if p.race == raceID && raceID != "" {
			_ = t.Abandon(raceID, p.id)
			left = append(left, p.id)
		}
	}
	return left
}

func (t *Tournament) racing(raceID, playerID string) (*race, *player, error) {
	r, ok := t.races[raceID]
	p, joined := t.byID[playerID]
	if !ok || !joined || p.race != raceID {
		return nil, nil, fmt.Errorf("%w: %s in %s", ErrNoRace, playerID, raceID)
	}
	return r, p, nil
}

// End ends the tournament: the races still played count as unfinished
// (no points) for those who had not finished them. It returns the ids of
// those races.
func (t *Tournament) End() []string {
	if t.ended {
		return nil
	}
	t.ended = true
	var open []string
	for _, p := range t.players {
		if p.race != "" {
			p.games = append(p.games, Game{Race: p.race})
			open = append(open, p.race)
			p.race = ""
			t.changed[p.id] = true
		}
	}
	return uniq(open)
}

func uniq(ids []string) []string {
	seen := map[string]bool{}
	out := ids[:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// Standing is a player's line in the standings: Playing names the race
// room they are paired into, if any.
type Standing = server.TournamentStanding

// Standings are the players by score, then wins, then fewer races played,
// then the order they joined; equal score, wins and races share a rank.
func (t *Tournament) Standings() []Standing {
	ps := append([]*player(nil), t.players...)
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.score != b.score {
			return a.score > b.score
		}
		if a.wins != b.wins {
			return a.wins > b.wins
		}
		return len(a.games) < len(b.games)
	})
	out := make([]Standing, len(ps))
	for i, p := range ps {
		rank := i + 1
		if i > 0 {
			q := ps[i-1]
			if q.score == p.score && q.wins == p.wins && len(q.games) == len(p.games) {
				rank = out[i-1].Rank
			}
		}
		out[i] = Standing{
			TournamentLine: server.TournamentLine{Rank: rank, Player: p.id, Name: p.name, Score: p.score, Wins: p.wins,
				Fire: p.streak >= StreakAfter, Playing: p.race, Left: p.left},
			Games: append([]Game{}, p.games...),
		}
	}
	return out
}

// Races are the ids of the tournament's races, in no order.
func (t *Tournament) Races() []string {
	ids := make([]string, 0, len(t.races))
	for id := range t.races {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
