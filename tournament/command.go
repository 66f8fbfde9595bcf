package tournament

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"time"

	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/backend"
)

const commandUsage = `Usage: arena tournament create -level LEVEL -start TIME -duration D [-name NAME]
       arena tournament list

create stores a one-off tournament, upcoming, in the store DATABASE_URL
names; the server runs it from its start (a running server picks it up
within a minute). TIME is RFC 3339 (2026-11-27T18:00:00Z). list prints
the upcoming tournaments and the latest finished ones.

Flags of create:
  -level LEVEL    easy, medium, hard, expert or master
  -start TIME     when it starts (RFC 3339), in the future
  -duration D     how long it runs, from 1m to 24h (e.g. 20m)
  -name NAME      its name (default: "LEVEL arena")
`

// Command is the arena tournament command as a subcommand's function:
// Main with load and the clock.
func Command(load func() (backend.Kind, error)) func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return func(args []string, _ io.Reader, stdout, stderr io.Writer) int {
		return Main(args, load, time.Now, stdout, stderr)
	}
}

// Main is the arena tournament command: load reads which store to open
// (DATABASE_URL); it returns the exit status (0 done, 1 failed, 2 a
// wrong command line or setting).
func Main(args []string, load func() (backend.Kind, error), now func() time.Time, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help"):
		fmt.Fprint(stderr, commandUsage)
		return 0
	case len(args) == 0 || (args[0] != "create" && args[0] != "list"):
		fmt.Fprint(stderr, commandUsage)
		return 2
	}
	fs := flag.NewFlagSet("tournament "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), commandUsage) }
	level := fs.String("level", "", "")
	start := fs.String("start", "", "")
	dur := fs.Duration("duration", 0, "")
	name := fs.String("name", "", "")
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() > 0 {
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var spec Spec
	if args[0] == "create" {
		at, err := time.Parse(time.RFC3339, *start)
		if *name == "" {
			*name = *level + " arena"
		}
		spec = Spec{ID: room.NewID(), Name: *name, Level: *level, StartsAt: at.UTC(), Duration: *dur}
		switch {
		case err != nil:
			fmt.Fprintf(stderr, "arena tournament create: -start %q is not an RFC 3339 time such as 2026-11-27T18:00:00Z\n", *start)
			return 2
		case !at.After(now()):
			fmt.Fprintf(stderr, "arena tournament create: -start %s has passed\n", *start)
			return 2
		case spec.Check() != nil || !slices.Contains(room.Levels, *level):
			fmt.Fprintf(stderr, "arena tournament create: -level must be one of %v and -duration from 1m to 24h\n", room.Levels)
			return 2
		}
	}
	db, err := load()
	if err != nil {
		fmt.Fprintf(stderr, "arena tournament: %v\n", err)
		return 2
	}
	st, err := backend.Open(ctx, db)
	if err != nil {
		fmt.Fprintf(stderr, "arena tournament: %v\n", err)
		return 1
	}
	defer st.Close()
	if args[0] == "create" {
		err = st.SaveTournament(ctx, store.Tournament{ID: spec.ID, Name: spec.Name, Level: spec.Level,
			StartsAt: spec.StartsAt, Duration: spec.Duration, Status: store.TournamentUpcoming})
		if err == nil {
			fmt.Fprintf(stdout, "tournament %s: %s, %s from %s for %s\n", spec.ID, spec.Name, spec.Level,
				spec.StartsAt.Format(time.RFC3339), short(spec.Duration))
		}
	} else {
		err = list(ctx, st, stdout, time.Now())
	}
	if err != nil {
		fmt.Fprintf(stderr, "arena tournament %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

// list prints the stored tournaments not yet finished (a stored upcoming
// one whose start has passed at now is running) and the latest finished.
func list(ctx context.Context, st store.Store, w io.Writer, now time.Time) error {
	var errs []error
	for _, status := range []string{store.TournamentUpcoming, store.TournamentFinished} {
		ts, err := st.TournamentsByStatus(ctx, status, FinishedListed)
		errs = append(errs, err)
		for _, t := range ts {
			shown := status
			if status == store.TournamentUpcoming && !t.StartsAt.After(now) {
				shown = store.TournamentRunning
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d players\n", t.ID, shown, t.Level, t.StartsAt.Format(time.RFC3339), short(t.Duration), t.Players)
		}
	}
	return errors.Join(errs...)
}
