package store

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/golang-migrate/migrate/v4"
	"github.com/golang-migrate/migrate/v4/database"
	"github.com/golang-migrate/migrate/v4/source/iofs"
)

// Migration actions, as `arena migrate` names them.
const (
	MigrateUp      = "up"
	MigrateDown    = "down"
	MigrateVersion = "version"
)

// Migrate runs a migration action against a database through golang-migrate
// and returns the schema version after it (0 when no migration is applied)
// and whether a failed migration left it dirty. Up applies every pending
// migration, Down reverts them all, Version only reports. It closes drv, and
// with it the database handle drv was made from: give it a handle of its own.
func Migrate(src fs.FS, dbName string, drv database.Driver, action string) (version uint, dirty bool, err error) {
	s, err := iofs.New(src, ".")
	if err != nil {
		return 0, false, fmt.Errorf("migrations source: %w", err)
	}
	m, err := migrate.NewWithInstance("iofs", s, dbName, drv)
	if err != nil {
		drv.Close()
		return 0, false, fmt.Errorf("migrate %s: %w", dbName, err)
	}
	defer m.Close()
	switch action {
	case MigrateUp:
		err = m.Up()
	case MigrateDown:
		err = m.Down()
	case MigrateVersion:
	default:
		return 0, false, fmt.Errorf("%w: migrate action %q (want up, down or version)", ErrInvalid, action)
	}
	if err != nil && !errors.Is(err, migrate.ErrNoChange) {
		return 0, false, fmt.Errorf("migrate %s %s: %w", dbName, action, err)
	}
	version, dirty, err = m.Version()
	if errors.Is(err, migrate.ErrNilVersion) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("migrate %s version: %w", dbName, err)
	}
	return version, dirty, nil
}
