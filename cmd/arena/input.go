package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sudoku-arena/arena/engine"
)

// puzzleLine is one puzzle line read from an input: where it came from, its
// text, and the grid or the reason it does not parse.
type puzzleLine struct {
	Source string // file name, or "-" for stdin
	LineNo int
	Text   string
	Grid   engine.Grid
	Err    error
}

// readPuzzles calls fn for every puzzle line of the named files in order, or
// of stdin when there are none (or the name is "-"). Blank lines and lines
// starting with '#' are skipped. A line that does not parse is still passed
// to fn, with Err set; an unreadable file stops the walk with an error.
func readPuzzles(files []string, stdin io.Reader, fn func(puzzleLine) error) error {
	if len(files) == 0 {
		files = []string{"-"}
	}
	for _, name := range files {
		var r io.Reader = stdin
		if name != "-" {
			f, err := os.Open(name)
			if err != nil {
				return fmt.Errorf("open puzzle file: %w", err)
			}
			r = f
			err = scanPuzzles(name, r, fn)
			f.Close()
			if err != nil {
				return err
			}
			continue
		}
		if err := scanPuzzles(name, r, fn); err != nil {
			return err
		}
	}
	return nil
}

func scanPuzzles(name string, r io.Reader, fn func(puzzleLine) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		pl := puzzleLine{Source: name, LineNo: n, Text: text}
		pl.Grid, pl.Err = engine.Parse(sc.Text())
		if err := fn(pl); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s line %d: %w", name, n+1, err)
	}
	return nil
}

// lineReason words a parse error of a one-line puzzle without the line number
// (the line is the puzzle, and the output stays aligned with the input).
func lineReason(err error) string {
	var pe *engine.ParseError
	if errors.As(err, &pe) && pe.Char != 0 {
		return fmt.Sprintf("column %d: %s %q", pe.Col, pe.Msg, pe.Char)
	}
	return err.Error()
}

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
