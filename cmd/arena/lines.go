package main

import (
	"bufio"
	"fmt"
	"io"
)

// finishLines ends a command that answers line by line: it flushes the
// answers, then reports on stderr the error that stopped the walk or how
// many lines were bad, and returns the exit code.
func finishLines(name string, out *bufio.Writer, stderr io.Writer, err error, bad int, what string) int {
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		fmt.Fprintf(stderr, "arena %s: %v\n", name, err)
		return exitFail
	}
	if bad > 0 {
		fmt.Fprintf(stderr, "arena %s: %d %s\n", name, bad, what)
		return exitFail
	}
	return exitOK
}
