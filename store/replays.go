package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sudoku-arena/arena/room"
)

// ReplayRound reads a round's stored state, or, for a round never saved,
// the state it was made with; room.ErrNoRound when there is none.
func (a *Adapter) ReplayRound(ctx context.Context, gameID string) (*room.Saved, error) {
	r, err := a.Store.Room(ctx, gameID)
	if errors.Is(err, ErrNotFound) {
		return nil, room.ErrNoRound
	}
	if err != nil {
		return nil, fmt.Errorf("load round %s: %w", gameID, err)
	}
	s, err := a.savedOf(ctx, r)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, room.ErrNoRound
	}
	return s, nil
}

// replayFlush bounds the wait for the event log to write what it holds
// before a replay reads the store: a replay of a round that just finished
// needs its last batch, and a database that is slow to take it should not
// hold the request for long.
const replayFlush = 2 * time.Second

// ReplayEvents reads up to limit of a round's events after a seq; read
// from the start (afterSeq 0), once the event log has written the ones it
// still holds (or the wait for it is over).
func (a *Adapter) ReplayEvents(ctx context.Context, gameID string, afterSeq int64, limit int) ([]room.Record, error) {
	if a.Events != nil && afterSeq == 0 {
		fctx, cancel := context.WithTimeout(ctx, replayFlush)
		err := a.Events.Flush(fctx)
		cancel()
		if err != nil && a.Logger != nil {
			a.Logger.Warn("replay: flush the event log", "game", gameID, "err", err)
		}
	}
	return a.loadEvents(ctx, gameID, afterSeq, limit)
}
