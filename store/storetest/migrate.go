package storetest

import (
	"io/fs"
	"testing"

	"github.com/golang-migrate/migrate/v4"
	"github.com/golang-migrate/migrate/v4/database"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	"github.com/stretchr/testify/require"
)

// MigrateTo migrates a database, through its migrate driver drv (named
// name) and the migrations in src, up or down to the version given, and
// returns the migration: for a backend's test to look at the rows as
// that version has them. CloseMigrate closes it and the database.
func MigrateTo(t *testing.T, src fs.FS, name string, drv database.Driver, version uint) *migrate.Migrate {
	t.Helper()
	s, err := iofs.New(src, ".")
	require.NoError(t, err)
	m, err := migrate.NewWithInstance("iofs", s, name, drv)
	require.NoError(t, err)
	require.NoError(t, m.Migrate(version))
	return m
}

// CloseMigrate closes what MigrateTo opened.
func CloseMigrate(t *testing.T, m *migrate.Migrate) {
	t.Helper()
	srcErr, dbErr := m.Close()
	require.NoError(t, srcErr)
	require.NoError(t, dbErr)
}
