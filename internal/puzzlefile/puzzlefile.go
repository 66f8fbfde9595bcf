// Package puzzlefile reads puzzle files as the command line takes them:
// one puzzle a line, 81 characters row by row ('.' or '0' for an empty
// cell), lines starting with '#' and blank lines skipped.
package puzzlefile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sudoku-arena/arena/engine"
)

// Line is one puzzle line read from an input: where it came from, its
// text, and the grid or the reason it does not parse.
type Line struct {
	Source string // file name, or "-" for stdin
	LineNo int
	Text   string
	Grid   engine.Grid
	Err    error
}

// Read calls fn for every puzzle line of the named files in order, or of
// stdin when there are none (or the name is "-"). A line that does not
// parse is still passed to fn, with Err set; an unreadable file stops the
// walk with an error.
func Read(files []string, stdin io.Reader, fn func(Line) error) error {
	if len(files) == 0 {
		files = []string{"-"}
	}
	for _, name := range files {
		if name == "-" {
			if err := scan(name, stdin, fn); err != nil {
				return err
			}
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			return fmt.Errorf("open puzzle file: %w", err)
		}
		err = scan(name, f, fn)
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func scan(name string, r io.Reader, fn func(Line) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		pl := Line{Source: name, LineNo: n, Text: text}
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

// Reason words a parse error of a one-line puzzle without the line number
// (the line is the puzzle, and an answer stays aligned with the input).
func Reason(err error) string {
	var pe *engine.ParseError
	if errors.As(err, &pe) && pe.Char != 0 {
		return fmt.Sprintf("column %d: %s %q", pe.Col, pe.Msg, pe.Char)
	}
	return err.Error()
}
