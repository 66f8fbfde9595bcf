package backend

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/store"
)

func TestOpenMarksConnectionFailures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, err := Open(ctx, Kind{Driver: "postgres", Target: "postgres://arena@" + arenatest.FreeAddr(t) + "/arena?sslmode=disable"})
	require.ErrorIs(t, err, ErrConnect)
	var ce *connectError
	require.ErrorAs(t, err, &ce)
	assert.True(t, ce.mayPass, "a refused connection may pass")
	assert.Contains(t, err.Error(), "open store: postgres: connect for migrations: failed to connect to ")
	assert.Contains(t, err.Error(), "connection refused")

	_, _, err = Migrate(ctx, Kind{Driver: "postgres", Target: "postgres://arena@" + arenatest.FreeAddr(t) + "/arena?sslmode=disable"}, store.MigrateVersion)
	assert.ErrorIs(t, err, ErrConnect)
}

func TestWait(t *testing.T) {
	t.Parallel()
	refused := &connectError{err: errors.New("connection refused"), mayPass: true}
	denied := &connectError{err: errors.New("password authentication failed"), mayPass: false}
	opener := func(fails int, err error) (func(context.Context) (store.Store, error), *int) {
		tries := 0
		return func(context.Context) (store.Store, error) {
			tries++
			if tries <= fails {
				return nil, fmt.Errorf("open store: %w", err)
			}
			return nil, nil
		}, &tries
	}
	ctx := context.Background()
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))

	// It comes up on the third try.
	open, tries := opener(2, refused)
	_, err := Wait(ctx, 30*time.Second, logger, open)
	require.NoError(t, err)
	assert.Equal(t, 3, *tries)
	assert.Equal(t, 2, strings.Count(logs.String(), "database not reachable yet; trying again"), logs.String())
	assert.Contains(t, logs.String(), "try=2 ")
	assert.Contains(t, logs.String(), `msg="database reached" try=3`)

	// It never does: the wait ends, and the error says how long and how
	// many tries.
	open, tries = opener(1000, refused)
	start := time.Now()
	_, err = Wait(ctx, 700*time.Millisecond, logger, open)
	assert.ErrorIs(t, err, ErrConnect)
	assert.Regexp(t, `^not reached in 700ms \(\d+ tries\): open store: connection refused$`, err.Error())
	assert.GreaterOrEqual(t, time.Since(start), 700*time.Millisecond)
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Greater(t, *tries, 1)

	// 0 tries once; a failure waiting cannot cure, or another error, ends
	// it at once.
	for _, tt := range []struct {
		wait time.Duration
		err  error
	}{{0, refused}, {time.Minute, denied}, {time.Minute, errors.New("migration 3 failed")}} {
		open, tries = opener(1000, tt.err)
		_, err = Wait(ctx, tt.wait, logger, open)
		assert.ErrorIs(t, err, tt.err)
		assert.Equal(t, 1, *tries, "%s %v", tt.wait, tt.err)
	}

	// The end of ctx ends the wait.
	cctx, cancel := context.WithCancel(ctx)
	open, _ = opener(1000, refused)
	time.AfterFunc(100*time.Millisecond, cancel)
	start = time.Now()
	_, err = Wait(cctx, time.Minute, logger, open)
	assert.ErrorIs(t, err, ErrConnect)
	assert.Less(t, time.Since(start), 5*time.Second)
}
