package postgres

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/pgtest"
	"github.com/sudoku-arena/arena/store/storetest"
)

var server *pgtest.Server

func TestMain(m *testing.M) {
	srv, err := pgtest.Start(context.Background(), pgtest.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	server = srv
	code := m.Run()
	srv.Stop()
	os.Exit(code)
}

func open(t *testing.T) store.Store {
	t.Helper()
	s, err := Open(context.Background(), server.NewDatabase(t))
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

func TestContract(t *testing.T) {
	storetest.Run(t, open)
}

func TestMigrationsUpDownUp(t *testing.T) {
	ctx := context.Background()
	url := server.NewDatabase(t)
	v, _, err := Migrate(ctx, url, store.MigrateVersion)
	require.NoError(t, err)
	assert.Equal(t, uint(0), v)
	v, dirty, err := Migrate(ctx, url, store.MigrateUp)
	require.NoError(t, err)
	assert.Equal(t, uint(9), v)
	assert.False(t, dirty)
	v, _, err = Migrate(ctx, url, store.MigrateDown)
	require.NoError(t, err)
	assert.Equal(t, uint(0), v)
	s, err := Open(ctx, url) // up again
	require.NoError(t, err)
	defer s.Close()
	v, _, err = Migrate(ctx, url, store.MigrateVersion)
	require.NoError(t, err)
	assert.Equal(t, uint(9), v)
	n, err := s.PoolSize(ctx, "easy")
	require.NoError(t, err)
	assert.Zero(t, n)
}

func TestBadURL(t *testing.T) {
	_, err := Open(context.Background(), "postgres://[::1")
	assert.ErrorIs(t, err, store.ErrInvalid)
}
