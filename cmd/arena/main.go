// Command arena is Sudoku Arena's one binary: the server and the tools around
// the engine. Run `arena help` for the list of subcommands.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// command is one subcommand: its name, a one-line summary for `arena help`,
// and the function that runs it with its arguments and standard streams and
// returns the exit code.
type command struct {
	name    string
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{"serve", "serve the game: web client, JSON API and WebSockets (configured by environment)", runServe},
		{"solve", "solve puzzles, one a line, and say whether each has one, none or several solutions", runSolve},
		{"generate", "generate unique puzzles of a level, deterministic from a seed", runGenerate},
		{"grade", "grade puzzles by the human techniques they need", runGrade},
		{"hint", "print the next logical step for a board read from stdin", runHint},
		{"bench", "measure the solver on puzzle files", runBench},
		{"loadtest", "play real games against a running server and measure latency, throughput and memory", runLoadtest},
		{"migrate", "apply or revert the database migrations of the store DATABASE_URL names", runMigrate},
		{"review", "list the ranked finishes held for review, and confirm or remove them", runReview},
		{"tournament", "make a one-off tournament, or list the tournaments", runTournament},
	}
}

// Exit codes shared by every subcommand.
const (
	exitOK    = 0
	exitFail  = 1 // the command ran but some input was bad or some work failed
	exitUsage = 2 // the command line itself was wrong
)

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			return run([]string{args[1], "-h"}, stdin, stdout, stderr)
		}
		usage(stdout)
		return exitOK
	}
	for _, c := range commands() {
		if c.name == name {
			return c.run(args[1:], stdin, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "arena: unknown command %q\n\n", name)
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Sudoku Arena: a real-time multiplayer Sudoku server and its engine's tools.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: arena COMMAND [flags] [args]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "  help      this text; `arena help COMMAND` or `arena COMMAND -h` explains a command's flags")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Puzzles are 81 characters, row by row, '.' or '0' for an empty cell; in files,")
	fmt.Fprintln(w, "one puzzle a line, and lines starting with '#' and blank lines are skipped.")
}
