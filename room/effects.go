package room

import (
	"context"
	"errors"
	"time"

	"github.com/sudoku-arena/arena/internal/backoff"
)

// A room's storage work runs beside it, never on its goroutine: the game
// asks for it (Effect), effect starts it, and what comes of it returns to
// the room as a command (back).

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
// go on.
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
