package backend

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/migrations"
	"github.com/sudoku-arena/arena/store"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in     string
		driver string
		target string
		err    string
	}{
		{"", "sqlite", DefaultSQLitePath, ""},
		{"  ", "sqlite", DefaultSQLitePath, ""},
		{"sqlite:/var/lib/arena/arena.db", "sqlite", "/var/lib/arena/arena.db", ""},
		{"sqlite://data/x.db", "sqlite", "data/x.db", ""},
		{"postgres://arena:secret@db:5432/arena?sslmode=disable", "postgres", "postgres://arena:secret@db:5432/arena?sslmode=disable", ""},
		{"postgresql://localhost/arena", "postgres", "postgresql://localhost/arena", ""},
		{"mysql://localhost/arena", "", "", `invalid value: want postgres://`},
		{"sqlite:", "", "", `invalid value: sqlite: wants a file path`},
		{"sqlite:x.db?mode=ro", "", "", "wants a file path"},
		{"postgres://arena:secret@db:port/arena", "", "", "invalid value: want postgres://user:password@host:port/database: "},
		{"postgres://arena@db/arena?sslmode=sometimes", "", "", "invalid value: want postgres://"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			k, err := Parse(tt.in)
			if tt.err != "" {
				require.Error(t, err)
				assert.ErrorIs(t, err, store.ErrInvalid)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, Kind{Driver: tt.driver, Target: tt.target}, k)
			again, err := Parse(k.URL())
			require.NoError(t, err)
			assert.Equal(t, k, again, "URL reads back as the same store")
		})
	}
}

func TestOpenMigratesSQLite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	k := Kind{Driver: "sqlite", Target: filepath.Join(t.TempDir(), "a.db")}
	v, _, err := Migrate(ctx, k, store.MigrateVersion)
	require.NoError(t, err)
	require.Equal(t, uint(0), v, "a new file has no schema")

	s, err := Open(ctx, k)
	require.NoError(t, err)
	require.NoError(t, s.Ping(ctx))
	require.NoError(t, s.Close())
	v, dirty, err := Migrate(ctx, k, store.MigrateVersion)
	require.NoError(t, err)
	assert.Equal(t, migrations.Latest(migrations.SQLite()), v, "Open applied the migrations")
	assert.False(t, dirty)
}

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, err := Open(ctx, Kind{Driver: "postgres", Target: "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=2"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "open store: postgres: ")

	_, err = Open(ctx, Kind{Driver: "mysql"})
	assert.ErrorIs(t, err, store.ErrInvalid)
	_, _, err = Migrate(ctx, Kind{Driver: "mysql"}, store.MigrateVersion)
	assert.ErrorIs(t, err, store.ErrInvalid)
}
