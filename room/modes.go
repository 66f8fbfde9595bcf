package room

import (
	"fmt"
	"strings"
)

// DateUse is how a mode's rooms play a day's daily puzzle.
type DateUse int

const (
	// DateNone: the mode's rooms never play a daily.
	DateNone DateUse = iota
	// DateOptional: a room may be made on a day's daily (a race on it).
	DateOptional
	// DateRequired: every room plays a day's daily, today's when none is
	// named.
	DateRequired
)

// Mode is one row of the rules table: a mode's name, its rules, and what
// its rooms may be made on. Everything outside room that needs to know the
// modes (the API's checks, the store's restore of a round never saved)
// asks this table rather than listing the modes again, so that a new mode
// is one new row and one rules implementation.
type Mode struct {
	// Name is the mode as clients and the store know it; Title, as a
	// sentence names its rooms.
	Name, Title string
	// Own reports whether a room of the mode may play a puzzle a player
	// gave.
	Own bool
	// Date is how its rooms play a day's daily puzzle.
	Date  DateUse
	rules func() rules
}

// modes is the rules table.
var modes = []Mode{
	{Name: ModeRace, Title: "race", Own: true, Date: DateOptional, rules: func() rules { return race{} }},
	{Name: ModeCoop, Title: "co-op", Own: true, Date: DateNone, rules: func() rules { return coop{} }},
	{Name: ModeDaily, Title: "daily", Own: false, Date: DateRequired, rules: func() rules { return daily{} }},
}

// Modes is the rules table's modes, in its order.
func Modes() []Mode { return append([]Mode(nil), modes...) }

// ModeOf is the mode of the name, and whether there is one.
func ModeOf(name string) (Mode, bool) {
	for _, m := range modes {
		if m.Name == name {
			return m, true
		}
	}
	return Mode{}, false
}

// ModeNames lists the names of the modes for which keep reports true, each
// quoted, in the table's order, as a sentence does: `"race", "coop" or
// "daily"` with the word and given.
func ModeNames(word string, keep func(Mode) bool) string {
	var names []string
	for _, m := range modes {
		if keep == nil || keep(m) {
			names = append(names, fmt.Sprintf("%q", m.Name))
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + word + " " + names[len(names)-1]
}

// rulesFor is the rules of mode.
func rulesFor(mode string) (rules, error) {
	if m, ok := ModeOf(mode); ok {
		return m.rules(), nil
	}
	return nil, fmt.Errorf("room: unknown mode %q", mode)
}
