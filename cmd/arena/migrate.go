package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/sudoku-arena/arena/internal/config"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/backend"
)

const migrateUsage = `Usage: arena migrate up|down|version

Applies the database migrations to the store DATABASE_URL names
(postgres://… for PostgreSQL; sqlite:PATH, or unset for ./data/arena.db):
  up       apply every pending migration (arena serve does this at start-up)
  down     revert every migration: this drops all tables and their data
  version  print the schema version and whether a failed migration left it dirty

Flags:
`

func runMigrate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), migrateUsage); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitUsage
	}
	action := fs.Arg(0)
	switch action {
	case store.MigrateUp, store.MigrateDown, store.MigrateVersion:
	default:
		fmt.Fprintf(stderr, "arena migrate: unknown action %q: want up, down or version\n", action)
		return exitUsage
	}
	db, err := config.LoadStore(os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "arena migrate: %v\n", err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	version, dirty, err := backend.Migrate(ctx, db, action)
	if err != nil {
		fmt.Fprintf(stderr, "arena migrate %s: %v\n", action, err)
		return exitFail
	}
	state := "clean"
	if dirty {
		state = "dirty: a migration failed part-way; fix the database, then force the version"
	}
	fmt.Fprintf(stdout, "schema version %d (%s)\n", version, state)
	return exitOK
}
