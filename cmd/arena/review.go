package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/sudoku-arena/arena/internal/config"
	"github.com/sudoku-arena/arena/store"
	"github.com/sudoku-arena/arena/store/backend"
	"github.com/sudoku-arena/arena/tournament"
)

var runTournament = tournament.Command(func() (backend.Kind, error) { return config.LoadStore(os.Getenv) }) // on DATABASE_URL's store

const reviewUsage = `Usage: arena review [list | confirm ID | remove ID]

Ranked finishes that do not look like a person's (under the level's or the
puzzle's floor, digits at machine-regular intervals, cells in scan order)
are held: stored, off every leaderboard, shown to their player as under
review. list (the default) shows them, oldest first; confirm ID puts one
on the boards it was held from; remove ID keeps it off them for good. The
store is the one DATABASE_URL names, as for arena serve.
`

func runReview(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("review", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), reviewUsage) }
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	action, id := fs.Arg(0), int64(0)
	switch {
	case fs.NArg() <= 1 && (action == "" || action == "list"):
		action = "list"
	case fs.NArg() == 2 && (action == "confirm" || action == "remove"):
		n, err := strconv.ParseInt(fs.Arg(1), 10, 64)
		if err != nil || n <= 0 {
			fmt.Fprintf(stderr, "arena review %s: %q is not a result's id (a number from the list)\n", action, fs.Arg(1))
			return exitUsage
		}
		id = n
	default:
		fs.Usage()
		return exitUsage
	}
	db, err := config.LoadStore(os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "arena review: %v\n", err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	st, err := backend.Open(ctx, db)
	if err != nil {
		fmt.Fprintf(stderr, "arena review: %v\n", err)
		return exitFail
	}
	defer st.Close()
	if action == "list" {
		err = listHeld(ctx, st, stdout)
	} else {
		var r store.Result
		r, err = st.ReviewResult(ctx, id, action == "confirm", time.Now())
		if err == nil {
			fmt.Fprintf(stdout, "result %d %s\n", r.ID, r.Review)
		}
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		fmt.Fprintf(stderr, "arena review %s: no held result has the id %d\n", action, id)
		return exitFail
	case errors.Is(err, store.ErrConflict):
		fmt.Fprintf(stderr, "arena review confirm: the player has another result on that day's leaderboard; remove this one instead\n")
		return exitFail
	case err != nil:
		fmt.Fprintf(stderr, "arena review %s: %v\n", action, err)
		return exitFail
	}
	return exitOK
}

// listHeld prints the held results, a row each.
func listHeld(ctx context.Context, st store.Store, w io.Writer) error {
	held, err := st.HeldResults(ctx, 0)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tFINISHED\tPLAYER\tMODE\tLEVEL\tDAY\tELAPSED\tREASON")
	for _, r := range held {
		who := r.PlayerID
		if p, err := st.Player(ctx, r.PlayerID); err == nil {
			who = fmt.Sprintf("%s (%s)", p.Name, p.ID)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.FinishedAt.UTC().Format(time.DateTime), who,
			r.Mode, r.Level, r.HeldDay, r.Elapsed.Round(time.Second/10), r.Reason)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "%d held\n", len(held))
	return nil
}
