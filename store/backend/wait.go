package backend

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sudoku-arena/arena/internal/backoff"
	"github.com/sudoku-arena/arena/store"
)

// DefaultWait is how long a start waits for a database it cannot reach yet
// (DATABASE_WAIT): long enough for a PostgreSQL started beside the server,
// as a container orchestrator starts both at once.
const DefaultWait = 30 * time.Second

// ErrConnect marks an Open or a Migrate that could not connect to the
// database: refused, no such host, timed out, starting up, or a login the
// server turned down. Those that may pass by themselves are retried by
// Wait; the others (a wrong password, no such database) are not.
var ErrConnect = errors.New("cannot connect to the database")

// connectError is a failure to connect: it is ErrConnect, and says
// whether waiting may cure it.
type connectError struct {
	err     error
	mayPass bool
}

func (e *connectError) Error() string        { return e.err.Error() }
func (e *connectError) Unwrap() error        { return e.err }
func (e *connectError) Is(target error) bool { return target == ErrConnect }

// markConnect makes err a *connectError when it is a failure to connect.
func markConnect(err error) error {
	if err == nil {
		return nil
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	if !errors.As(err, &ce) && !errors.As(err, &ne) && !errors.Is(err, syscall.ECONNREFUSED) {
		return err
	}
	return &connectError{err: err, mayPass: mayPass(err)}
}

// mayPass reports whether a connection failure may pass without anyone
// changing a setting: the server is not listening, its host has no
// address yet, the connection timed out, or the server is starting up.
func mayPass(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "57P03" // cannot_connect_now: starting up, shutting down, recovering
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, context.DeadlineExceeded)
}

// Wait opens a store with open and, while it fails to reach a database
// that may come up by itself (ErrConnect: refused, no such host yet,
// timed out, starting up), tries again with backoff (from 250 ms, doubling
// to 5 s) for up to wait in all, logging each failed try. A failure of
// another kind, the end of ctx, or the end of the wait returns the last
// error, which says how long it waited and how many tries it took. wait
// 0 tries once.
func Wait(ctx context.Context, wait time.Duration, logger *slog.Logger, open func(context.Context) (store.Store, error)) (store.Store, error) {
	start := time.Now()
	b := backoff.Backoff{Min: 250 * time.Millisecond, Max: 5 * time.Second}
	for try := 1; ; try++ {
		s, err := open(ctx)
		if err == nil {
			if try > 1 {
				logger.Info("database reached", "try", try, "waited", time.Since(start).Round(time.Millisecond))
			}
			return s, nil
		}
		var ce *connectError
		if !errors.As(err, &ce) || !ce.mayPass || ctx.Err() != nil {
			return nil, err
		}
		left := wait - time.Since(start)
		if left <= 0 {
			if wait <= 0 {
				return nil, err
			}
			return nil, fmt.Errorf("not reached in %s (%d tries): %w", wait, try, err)
		}
		next := min(b.Next(), left)
		logger.Warn("database not reachable yet; trying again", "try", try, "in", next.Round(time.Millisecond), "left", left.Round(time.Millisecond), "err", err)
		t := time.NewTimer(next)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("stopped while waiting for the database: %w", err)
		case <-t.C:
		}
	}
}
