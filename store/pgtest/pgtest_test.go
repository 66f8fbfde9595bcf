package pgtest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestServerDatabases(t *testing.T) {
	ctx := context.Background()
	srv, err := Start(ctx, Options{})
	require.NoError(t, err)
	t.Cleanup(srv.Stop)

	a, b := srv.NewDatabase(t), srv.NewDatabase(t)
	require.NotEqual(t, a, b, "each test gets a database of its own")
	ca, err := pgx.Connect(ctx, a)
	require.NoError(t, err)
	defer ca.Close(ctx)
	_, err = ca.Exec(ctx, "CREATE TABLE t (x int); INSERT INTO t VALUES (42)")
	require.NoError(t, err)
	var x int
	require.NoError(t, ca.QueryRow(ctx, "SELECT x FROM t").Scan(&x))
	assert.Equal(t, 42, x)

	cb, err := pgx.Connect(ctx, b)
	require.NoError(t, err)
	defer cb.Close(ctx)
	var n int
	require.NoError(t, cb.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE tablename = 't'").Scan(&n))
	assert.Equal(t, 0, n, "databases do not share tables")
	var version int
	require.NoError(t, cb.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version))
	assert.GreaterOrEqual(t, version, 150000)
}

// TestShare: after Share, the Starts that ask for neither Own nor Durable
// answer one server, whose Stop leaves it running, with databases of
// their own; one with Own has a server of its own; the function Share
// returned stops the shared one.
func TestShare(t *testing.T) {
	ctx := context.Background()
	stop := Share()
	stopped := false
	defer func() {
		if !stopped {
			stop()
		}
	}()
	a, err := Start(ctx, Options{})
	require.NoError(t, err)
	a.Stop()
	b, err := Start(ctx, Options{})
	require.NoError(t, err)
	assert.Same(t, a, b, "one server")
	assert.NotEqual(t, a.NewDatabase(t), b.NewDatabase(t), "a database each")
	conn, err := pgx.Connect(ctx, b.URL)
	require.NoError(t, err, "Stop left the shared server running")
	conn.Close(ctx)

	own, err := Start(ctx, Options{Own: true})
	require.NoError(t, err)
	t.Cleanup(own.Stop)
	assert.NotEqual(t, a.URL, own.URL, "Own: a server of its own")

	stop()
	stopped = true
	_, err = pgx.Connect(ctx, a.URL)
	assert.Error(t, err, "the shared server stopped")
	c, err := Start(ctx, Options{})
	require.NoError(t, err)
	t.Cleanup(c.Stop)
	assert.NotSame(t, a, c, "after the stop, a server of its own again")
}

// TestExternalServerDatabases: with TEST_DATABASE_URL set, each Start
// answers a Server of its own on the one external server, and their
// databases still have names of their own.
func TestExternalServerDatabases(t *testing.T) {
	ctx := context.Background()
	srv, err := Start(ctx, Options{Own: true})
	require.NoError(t, err)
	t.Cleanup(srv.Stop)
	t.Setenv(EnvURL, srv.URL)
	a, err := Start(ctx, Options{})
	require.NoError(t, err)
	b, err := Start(ctx, Options{})
	require.NoError(t, err)
	require.NotSame(t, a, b)
	assert.Equal(t, srv.URL, a.URL)
	assert.NotEqual(t, a.NewDatabase(t), b.NewDatabase(t), "a database each, on the one server")
}
