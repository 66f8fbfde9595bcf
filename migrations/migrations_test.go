package migrations_test

import (
	"fmt"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/migrations"
)

// Each store's migrations are numbered 1, 2, 3 ... without a gap or a
// number used twice, each with its up and down file: work merged from
// several branches must renumber its migrations to follow the last.
func TestNumberedInOrder(t *testing.T) {
	for name, m := range map[string]fs.FS{"postgres": migrations.Postgres(), "sqlite": migrations.SQLite()} {
		latest := migrations.Latest(m)
		require.Positive(t, latest, name)
		for v := uint(1); v <= latest; v++ {
			for _, dir := range []string{"up", "down"} {
				got, err := fs.Glob(m, fmt.Sprintf("%06d_*.%s.sql", v, dir))
				require.NoError(t, err)
				assert.Len(t, got, 1, "%s: one %s migration numbered %d", name, dir, v)
			}
		}
		all, err := fs.Glob(m, "*.sql")
		require.NoError(t, err)
		assert.Len(t, all, int(2*latest), "%s: no file beside the numbered pairs", name)
	}
}
