// Package migrations holds the SQL schema of each store, embedded in the
// binary and applied with golang-migrate: postgres/ for PostgreSQL, sqlite/
// for the embedded SQLite store. Each change is a numbered pair of up and
// down files; a released file is never edited, a new pair is added.
package migrations

import (
	"embed"
	"io/fs"
)

//go:embed postgres/*.sql sqlite/*.sql
var files embed.FS

// Postgres is the PostgreSQL migrations, rooted at their directory.
func Postgres() fs.FS { return sub("postgres") }

// SQLite is the SQLite migrations, rooted at their directory.
func SQLite() fs.FS { return sub("sqlite") }

func sub(dir string) fs.FS {
	f, err := fs.Sub(files, dir)
	if err != nil {
		panic(err) // the directory is embedded above; this cannot fail
	}
	return f
}
