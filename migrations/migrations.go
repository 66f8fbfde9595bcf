// Package migrations holds the SQL schema of each store, embedded in the
// binary and applied with golang-migrate: postgres/ for PostgreSQL, sqlite/
// for the embedded SQLite store. Each change is a numbered pair of up and
// down files; a released file is never edited, a new pair is added.
package migrations

import (
	"embed"
	"io/fs"
	"strconv"
	"strings"
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

// Latest is the highest version among the migrations in m (0 when there
// are none): the schema version a store has once every one is applied.
func Latest(m fs.FS) uint {
	names, err := fs.Glob(m, "*.up.sql")
	if err != nil {
		panic(err) // the pattern is valid; this cannot fail
	}
	var latest uint
	for _, name := range names {
		if v, ok := version(name); ok && v > latest {
			latest = v
		}
	}
	return latest
}

// version is the number a migration's file name starts with.
func version(name string) (uint, bool) {
	digits, _, ok := strings.Cut(name, "_")
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseUint(digits, 10, 32)
	return uint(v), err == nil
}
