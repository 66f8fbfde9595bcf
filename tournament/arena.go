package tournament

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/server"
)

// Races makes a tournament's race rooms.
type Races interface {
	// StartRace makes a race room of the level for the players (only
	// they play in it) and returns its id.
	StartRace(ctx context.Context, tournamentID, level string, players []string) (string, error)
}

// Saver stores a tournament: its players' lines as they change while it
// runs, and its results once it has ended.
type Saver interface {
	SaveTournament(ctx context.Context, r Record) error
	SaveLines(ctx context.Context, id string, lines []Line) error
}

// Record is a tournament as it is stored: its spec, status and
// standings (each line with the order its player joined in).
type Record struct {
	Spec
	Status string
	Lines  []Line
}

// Update is the tournament as its participants and spectators see it:
// sent on every change.
type Update = server.TournamentResponse

// Config is what an Arena runs with.
type Config struct {
	Clock  room.Clock
	Races  Races
	Saver  Saver
	Logger *slog.Logger
	// OnRace is told of each race room made for the tournament, so that
	// the rooms' finishes find their way back (Hub).
	OnRace func(roomID string)
	// Lines are the players' lines stored while the tournament ran, to
	// bring back (Tournament.Restore) before it goes on.
	Lines []Line
}

// ErrClosed is what an Arena that has ended (and saved) answers.
var ErrClosed = errors.New("tournament: closed")

// Arena is the goroutine that runs a Tournament on the clock: it starts
// and ends it on time, pairs the free players into race rooms after each
// change, and sends the standings to its subscribers.
type Arena struct {
	cfg  Config
	t    *Tournament
	cmds chan func(now time.Time)
	done chan struct{}
	subs map[chan *server.TournamentUpdate]bool
	// pending says a change waits to be sent; sentAt is when the last
	// update went out (PublishEvery).
	pending bool
	sentAt  time.Time
}

// Start runs an arena for the spec until it has ended and been saved, or
// until ctx is done.
func Start(ctx context.Context, cfg Config, s Spec) (*Arena, error) {
	t, err := New(s)
	if err != nil {
		return nil, err
	}
	if err := t.Restore(cfg.Lines); err != nil {
		return nil, err
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	a := &Arena{cfg: cfg, t: t, cmds: make(chan func(time.Time)), done: make(chan struct{}), subs: map[chan *server.TournamentUpdate]bool{}}
	go a.run(ctx)
	return a, nil
}

// Spec is the arena's tournament.
func (a *Arena) Spec() Spec { return a.t.Spec }

// Done is closed when the arena has ended.
func (a *Arena) Done() <-chan struct{} { return a.done }

// call runs f on the arena's goroutine and waits for it.
func (a *Arena) call(ctx context.Context, f func(now time.Time)) error {
	ran := make(chan struct{})
	select {
	case a.cmds <- func(now time.Time) { f(now); close(ran) }:
	case <-a.done:
		return ErrClosed
	case <-ctx.Done():
		return fmt.Errorf("tournament %s: %w", a.t.ID, ctx.Err())
	}
	<-ran
	return nil
}

// changed runs f, then stores the lines it changed, pairs and publishes
// if it succeeded.
func (a *Arena) changed(ctx context.Context, f func(now time.Time) error) error {
	var err error
	if cerr := a.call(ctx, func(now time.Time) {
		if err = f(now); err == nil {
			a.store(ctx)
			a.pair(ctx, now)
			a.publish(now)
		}
	}); cerr != nil {
		return cerr
	}
	return err
}

// Join adds the player.
func (a *Arena) Join(ctx context.Context, id, name string) error {
	return a.changed(ctx, func(now time.Time) error { return a.t.Join(id, name, now) })
}

// Withdraw stops pairing the player.
func (a *Arena) Withdraw(ctx context.Context, id string) error {
	return a.changed(ctx, func(time.Time) error { return a.t.Withdraw(id) })
}

// Finish is a player's finish of one of the tournament's races.
func (a *Arena) Finish(ctx context.Context, raceID, playerID string, berserk bool) error {
	return a.changed(ctx, func(time.Time) error { _, err := a.t.Finish(raceID, playerID, berserk); return err })
}

// Abandon is a player leaving one of the tournament's races unfinished.
func (a *Arena) Abandon(ctx context.Context, raceID, playerID string) error {
	return a.changed(ctx, func(time.Time) error { return a.t.Abandon(raceID, playerID) })
}

// RaceOver is the end of a race's room: those still in it abandon it.
func (a *Arena) RaceOver(ctx context.Context, raceID string) error {
	return a.changed(ctx, func(time.Time) error { a.t.EndRace(raceID); return nil })
}

// Snapshot is the tournament now.
func (a *Arena) Snapshot(ctx context.Context) (Update, error) {
	var u Update
	err := a.call(ctx, func(now time.Time) { u = a.update(now) })
	return u, err
}

// Subscribe is a channel of the tournament's updates, the latest only
// (an update a slow reader has not taken is replaced by the next), which
// is closed when the arena ends; cancel stops it. Every subscriber gets
// the same update, whose events are encoded once (server.TournamentUpdate).
func (a *Arena) Subscribe(ctx context.Context) (<-chan *server.TournamentUpdate, func(), error) {
	ch := make(chan *server.TournamentUpdate, 1)
	err := a.call(ctx, func(now time.Time) { a.subs[ch] = true; ch <- server.NewTournamentUpdate(a.update(now)) })
	if err != nil {
		return nil, nil, err
	}
	cancel := func() {
		_ = a.call(context.Background(), func(time.Time) {
			if a.subs[ch] {
				delete(a.subs, ch)
				close(ch)
			}
		})
	}
	return ch, cancel, nil
}

func (a *Arena) update(now time.Time) Update {
	return Update{
		TournamentHead: server.TournamentHead{ID: a.t.ID, Name: a.t.Name, Level: a.t.Level, Status: a.t.Status(now),
			StartsAt: a.t.StartsAt.UTC(), EndsAt: a.t.EndsAt().UTC()},
		Standings: a.t.Standings(),
	}
}

// PublishEvery is the least time between two updates the arena sends:
// the changes meanwhile go out together, in the next. Each update holds
// every player's line; the server sends each socket only the top of it
// and its player's own line (server.TournamentEvent).
const PublishEvery = 250 * time.Millisecond

// publish marks the tournament changed: run sends the update at once when
// none went out in the last PublishEvery, else when that has passed.
func (a *Arena) publish(time.Time) { a.pending = true }

// send sends the update to every subscriber.
func (a *Arena) send(now time.Time) {
	a.pending, a.sentAt = false, now
	u := server.NewTournamentUpdate(a.update(now))
	for ch := range a.subs {
		select {
		case <-ch:
		default:
		}
		ch <- u
	}
}

// pair makes a race room for each group of free players. A room that
// cannot be made leaves its players free for the next change.
func (a *Arena) pair(ctx context.Context, now time.Time) {
	for _, g := range a.t.Groups(now) {
		id, err := a.cfg.Races.StartRace(ctx, a.t.ID, a.t.Level, g)
		if err == nil {
			err = a.t.AddRace(id, g)
		}
		if err != nil {
			a.cfg.Logger.Warn("tournament: race not made", "tournament", a.t.ID, "players", g, "err", err)
			continue
		}
		if a.cfg.OnRace != nil {
			a.cfg.OnRace(id)
		}
	}
}

// run is the arena's goroutine: one timer, set for the start and then for
// the end.
func (a *Arena) run(ctx context.Context) {
	defer close(a.done)
	defer func() {
		for ch := range a.subs {
			close(ch)
		}
	}()
	clock := a.cfg.Clock
	timer := clock.NewTimer(a.t.StartsAt)
	defer timer.Stop()
	pace := clock.NewTimer(a.t.EndsAt().Add(time.Hour))
	defer pace.Stop()
	paced := false // pace is set for the next update
	for {
		select {
		case f := <-a.cmds:
			f(clock.Now())
		case <-pace.C():
			paced = false
		case now := <-timer.C():
			if now.Before(a.t.EndsAt()) {
				a.pair(ctx, now)
				a.publish(now)
				timer.Reset(a.t.EndsAt())
				break
			}
			a.t.End()
			a.send(now) // the final standings, at once
			a.save(ctx)
			return
		case <-ctx.Done():
			return
		}
		if now := clock.Now(); a.pending && !paced {
			switch next := a.sentAt.Add(PublishEvery); {
			case now.Before(next):
				pace.Reset(next)
				paced = true
			case !a.store(ctx):
				// Nothing is shown before it is stored: try again later.
				pace.Reset(now.Add(PublishEvery))
				paced = true
			default:
				a.send(now)
			}
		}
	}
}

// store saves the lines changed, and reports whether none is left
// unstored: the standings are sent only then, so a point shown is a
// point stored. Lines not stored are tried again before the next send
// (and saved whole at the end).
func (a *Arena) store(ctx context.Context) bool {
	lines := a.t.Changed()
	if a.cfg.Saver == nil || len(lines) == 0 {
		return true
	}
	if err := a.cfg.Saver.SaveLines(ctx, a.t.ID, lines); err != nil {
		a.cfg.Logger.Error("tournament: standings not stored: not sent until they are", "tournament", a.t.ID, "players", len(lines), "err", err)
		for _, l := range lines {
			a.t.Touch(l.Player)
		}
		return false
	}
	return true
}

func (a *Arena) save(ctx context.Context) {
	if a.cfg.Saver == nil {
		return
	}
	rec := Record{Spec: a.t.Spec, Status: StatusFinished, Lines: a.t.Lines()}
	if err := a.cfg.Saver.SaveTournament(ctx, rec); err != nil {
		a.cfg.Logger.Error("tournament: results not stored", "tournament", a.t.ID, "err", err)
	}
}
