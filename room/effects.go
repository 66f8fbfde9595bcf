package room

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/sudoku-arena/arena/internal/backoff"
	"github.com/sudoku-arena/arena/protocol"
)

// Store is what rooms need kept. cmd wires it to the store package; tests
// use an in-memory one.
type Store interface {
	// NewGame takes a fresh puzzle of the level and records a game with it
	// (gameID is the room's id, or "ROOM.N" for round N).
	NewGame(ctx context.Context, roomID, gameID, mode, level string) (Puzzle, error)
	// DailyGame records a game with the daily puzzle of the day
	// (YYYY-MM-DD, UTC) and level, the same for every caller.
	DailyGame(ctx context.Context, roomID, gameID, mode, level, day string) (Puzzle, error)
	// OwnGame stores a puzzle a player gave (its Level the grade's; ID
	// unset) and records a game with it, returning it with its stored ID.
	OwnGame(ctx context.Context, roomID, gameID, mode string, pz Puzzle) (Puzzle, error)
	// DailyAttempt is what is known of the player's ranked attempt at the
	// day's daily of the level as they join a room on it: whether their
	// finish can be ranked, and since when its clock runs.
	DailyAttempt(ctx context.Context, day, level, playerID string) (Attempt, error)
	// DailyViews starts the ranked attempts of the players who were sent
	// the board of the day's daily of the level at the time given, for
	// each one unless theirs started before.
	DailyViews(ctx context.Context, day, level string, playerIDs []string, at time.Time) error
	// SaveResults stores one finish (a racer's result, or all of a team's)
	// in one transaction: all of it or none. Saving a finish again once it
	// is stored must change nothing, for it is retried after any error.
	// An error that retrying cannot cure (the database refuses the values)
	// wraps ErrRefused.
	SaveResults(ctx context.Context, rs []Result) error
	// SaveRoom stores the room's state, from which Restore rebuilds it.
	SaveRoom(ctx context.Context, s *Saved) error
	// LoadRooms lists the saved rooms that had not finished.
	LoadRooms(ctx context.Context) ([]*Saved, error)
	// RecordEvents queues logged events for storage; it must not block.
	RecordEvents(gameID string, events []Record)
	// LoadEvents reads back the recorded events of a game with a seq
	// after the one given, in order, for Restore to replay onto the
	// game's saved state.
	LoadEvents(ctx context.Context, gameID string, afterSeq int64) ([]Record, error)
}

// Record is a logged event for the store: the event in full, as the room
// knows it rather than as any member sees it (a racer's mistakes are in
// it), so that replaying the records after a saved state rebuilds the
// room. Records are the server's own and never go to a client.
type Record struct {
	Seq    int64
	Type   string
	Player string
	Data   json.RawMessage
	At     time.Time
}

// ErrRefused is what a Store wraps when it refuses a write for good (not
// because the database is away), so that the room stops retrying it.
var ErrRefused = errors.New("room: refused by the store")

// ErrMoved is what a Store wraps when it refuses a write because another
// server has taken the room over: the room stops retrying it and
// announces nothing, for the room is being stopped here, and its players
// come back on its new server, where the finish is stored already or
// happens again.
var ErrMoved = errors.New("room: the room has moved to another server")

// Retry bounds of a finish whose write failed: the wait doubles from the
// first to the last, each drawn from its upper half.
const (
	resultRetryMin = 250 * time.Millisecond
	resultRetryMax = 10 * time.Second
)

// effect starts the storage work the game asked for.
func (r *Room) effect(ctx context.Context, e Effect) {
	st := r.reg.store
	switch {
	case len(e.Results) > 0:
		r.saveResults(ctx, e.Results)
	case e.NewRound > 0:
		round, mode, pz, own := e.NewRound, r.g.Mode(), r.g.Puzzle(), r.g.Own()
		r.beside(ctx, func(sctx context.Context) func(time.Time) {
			var err error
			if own {
				// A rematch on a player's own puzzle plays it again.
				pz, err = st.OwnGame(sctx, r.id, GameID(r.id, round), mode, pz)
			} else {
				pz, err = st.NewGame(sctx, r.id, GameID(r.id, round), mode, pz.Level)
			}
			return func(now time.Time) {
				if err != nil {
					r.log().Error("room: new round", "room", r.id, "round", round, "err", err)
					r.g.RematchFailed(now)
					return
				}
				r.g.Rematch(now, round, pz)
			}
		})
	case e.Save:
		r.save(ctx)
	case len(e.Views) > 0:
		r.beside(ctx, func(sctx context.Context) func(time.Time) {
			if err := st.DailyViews(sctx, e.Day, e.Level, e.Views, e.At); err != nil {
				r.log().Warn("room: daily attempts not started", "room", r.id, "players", e.Views, "err", err)
			}
			return func(time.Time) {}
		})
	}
}

// saveResults stores a finish beside the room, and tells the game once it
// is stored (Game.ResultsSaved announces it then, never before). While the
// database is away the write is tried again after a back-off, capped and
// jittered, on the registry's clock, for as long as it takes: the finish
// waits in the registry's backlog, the room keeps playing, and the room
// does not end while it waits. Once the registry shuts down one last try
// is made; a finish that still fails then is logged with every field, as
// the last place it is kept. A finish the store refuses for good is
// logged and announced, since retrying cannot store it and the game must
// go on; one refused because the room has moved (ErrMoved) is not
// announced: what a room announces is stored.
func (r *Room) saveResults(ctx context.Context, rs []Result) {
	st, clock, stop := r.reg.store, r.reg.clock, r.reg.ctx.Done()
	waiting := r.reg.backlog.add(len(rs), clock.Now())
	r.beside(ctx, func(context.Context) func(time.Time) {
		defer r.reg.backlog.remove(waiting)
		wait := backoff.Backoff{Min: resultRetryMin, Max: resultRetryMax}
		for {
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.reg.cfg.StoreTimeout)
			err := st.SaveResults(sctx, rs)
			cancel()
			switch {
			case err == nil:
				if wait.Fails() > 0 {
					r.log().Info("room: finish stored after retries", "room", r.id, "game", rs[0].GameID, "results", len(rs), "failures", wait.Fails())
				}
			case errors.Is(err, ErrMoved):
				r.log().Warn("room: finish not stored here: the room has moved to another server", "room", r.id, "err", err, "results", rs)
				return func(time.Time) {}
			case errors.Is(err, ErrRefused):
				r.log().Error("room: finish refused by the store, announced unstored", "room", r.id, "err", err, "results", rs)
			default:
				select {
				case <-stop:
					r.log().Error("room: finish not stored at shutdown", "room", r.id, "err", err, "results", rs)
					return func(now time.Time) {}
				default:
				}
				d := wait.Next()
				r.log().Warn("room: finish not stored, retrying", "room", r.id, "game", rs[0].GameID, "results", len(rs), "failures", wait.Fails(), "backoff", d, "err", err)
				t := clock.NewTimer(clock.Now().Add(d))
				select {
				case <-t.C():
				case <-stop:
				}
				t.Stop()
				continue
			}
			return func(now time.Time) {
				r.g.ResultsSaved(now, rs)
				// A state saved while the finish waited says so
				// (Saved.Unstored); save again, so that a restart does
				// not store and announce it twice.
				r.save(ctx)
			}
		}
	})
}

// save stores the room's state beside the room. One save is in flight at a
// time, and a save asked for meanwhile follows it with the newest state, so
// an older state never lands last.
func (r *Room) save(ctx context.Context) {
	if r.saving {
		r.saveAgain = true
		return
	}
	r.saving = true
	s := r.g.Save(r.reg.clock.Now())
	r.savedSeq = s.Seq
	r.beside(ctx, func(sctx context.Context) func(time.Time) {
		if err := r.reg.store.SaveRoom(sctx, s); err != nil {
			r.log().Error("room: save", "room", r.id, "err", err)
		}
		return func(time.Time) {
			r.saving = false
			if r.saveAgain {
				r.saveAgain = false
				r.save(ctx)
			}
		}
	})
}

// beside runs storage work in a goroutine of its own, bounded by the store
// timeout and not cut short by the room's end, and hands what the work
// returns back to the room as a command.
func (r *Room) beside(ctx context.Context, work func(context.Context) func(now time.Time)) {
	r.pending++
	timeout := r.reg.cfg.StoreTimeout
	go func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		done := work(sctx)
		cancel()
		r.back(done)
	}()
}

// back reports a storage goroutine's outcome to the room. The room waits
// for its storage work before it ends, so this always has a taker.
func (r *Room) back(f func(now time.Time)) {
	r.cmds <- func(now time.Time) {
		r.pending--
		f(now)
	}
}

// end saves the room, closes its connections and leaves the registry. It
// first lets its storage goroutines report back, so no result is lost.
func (r *Room) end(ctx context.Context, now time.Time, why CloseReason) {
	for r.pending > 0 {
		f := <-r.cmds
		r.at = r.reg.clock.Now()
		f(r.at)
		r.flush(ctx)
	}
	if why != CloseMoved { // a moved room's state is its new owner's to save
		s := r.g.Save(now)
		s.Final = true
		if why == CloseRoomEnded {
			s.Ended = true
			s.Abandoned = s.Phase != protocol.PhaseFinished
		}
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.reg.cfg.StoreTimeout)
		if err := r.reg.store.SaveRoom(sctx, s); err != nil {
			r.log().Error("room: save at end", "room", r.id, "err", err)
		}
		cancel()
	}
	for id, c := range r.conns {
		c.Close(why)
		r.dropConn(id)
	}
	r.reg.remove(r)
}
