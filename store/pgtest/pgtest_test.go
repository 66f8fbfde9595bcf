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
