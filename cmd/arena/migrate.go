package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"strings"

	"github.com/sudoku-arena/arena/internal/config"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/backend"
)

const migrateUsage = `Usage: arena migrate [-yes] up|down|version

Applies the database migrations to the store DATABASE_URL names
(postgres://… for PostgreSQL; sqlite:PATH, or unset for ./data/arena.db):
  up       apply every pending migration (arena serve does this at start-up)
  down     revert every migration: this drops all tables and their data.
           It asks first, on a terminal: type "down" (or "yes") to go on.
           Without a terminal it needs -yes, and refuses (exit code 2)
           otherwise
  version  print the schema version and whether a failed migration left it dirty

A bad DATABASE_URL, or a database that cannot be reached, is exit code 2.

Flags:
`

// isTerminal reports whether r is a terminal a person can answer at; a
// variable so that tests can stand in for one.
var isTerminal = func(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func runMigrate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	yes := fs.Bool("yes", false, "revert (down) without asking: for scripts, which have no terminal to answer at")
	fs.Usage = func() { fmt.Fprint(fs.Output(), migrateUsage); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	// Flags may come after the action too: arena migrate down -yes.
	action := fs.Arg(0)
	if fs.NArg() > 0 {
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return usageExit(err)
		}
	}
	if action == "" || fs.NArg() != 0 {
		fs.Usage()
		return exitUsage
	}
	switch action {
	case store.MigrateUp, store.MigrateDown, store.MigrateVersion:
	default:
		fmt.Fprintf(stderr, "arena migrate: unknown action %q: want up, down or version\n", action)
		return exitUsage
	}
	for _, w := range config.Misspelled(os.Environ()) {
		fmt.Fprintf(stderr, "arena migrate: warning: %s\n", w)
	}
	db, err := config.LoadStore(os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "arena migrate: %v\n", err)
		return exitUsage
	}
	if action == store.MigrateDown && !*yes {
		if code, ok := confirmDown(db, stdin, stderr); !ok {
			return code
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	version, dirty, err := backend.Migrate(ctx, db, action)
	if err != nil {
		if errors.Is(err, backend.ErrConnect) || errors.Is(err, store.ErrInvalid) {
			fmt.Fprintf(stderr, "arena migrate %s: %s: %v\n", action, config.DatabaseURL, err)
			return exitUsage
		}
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

// confirmDown asks on the terminal stdin is before `migrate down` drops
// every table: the answer "down" or "yes" goes on. Without a terminal it
// refuses, since nobody is there to ask; -yes is the way for scripts. It
// returns false, with the exit code, when it does not go on.
func confirmDown(db backend.Kind, stdin io.Reader, stderr io.Writer) (int, bool) {
	if !isTerminal(stdin) {
		fmt.Fprintf(stderr, "arena migrate down: refusing to drop every table of %s without asking: run it on a terminal to confirm, or give -yes\n", describeStore(db))
		return exitUsage, false
	}
	fmt.Fprintf(stderr, "arena migrate down drops every table of %s, and all their data.\nType \"down\" to go on: ", describeStore(db))
	answer, _ := bufio.NewReader(stdin).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(answer)); a != "down" && a != "yes" {
		fmt.Fprintln(stderr, "arena migrate down: not confirmed; nothing was dropped")
		return exitFail, false
	}
	return exitOK, true
}

// describeStore names the store k points at, for a person, without a
// PostgreSQL URL's password.
func describeStore(k backend.Kind) string {
	if k.Driver == "sqlite" {
		return "the SQLite file " + k.Target
	}
	if u, err := url.Parse(k.Target); err == nil {
		return "the PostgreSQL database " + u.Redacted()
	}
	return "the PostgreSQL database"
}
