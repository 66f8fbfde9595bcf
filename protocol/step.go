package protocol

import "github.com/sudoku-arena/arena/engine"

// Step is one logical step of the solver as the arena sends it, in the one
// spelling its three senders share: a hint event (docs/protocol.md, the
// hint event), each step of the lab's POST /api/steps (docs/protocol.md),
// and `arena hint` and `arena grade -steps` (README). Each sender sets the
// fields its document lists and leaves the others empty, and an empty field
// is omitted: the technique's display name is TechniqueName in a hint event,
// where it sits beside the event's own fields, and Name elsewhere.
type Step struct {
	// Technique is the technique's stable id, such as "naked-single"; a
	// hint also has "trial" (a cell from the solution) and "wrong-digits".
	Technique string `json:"technique,omitempty"`
	// Name is the technique's display name, such as "Naked Single": the
	// lab's and the command line's.
	Name string `json:"name,omitempty"`
	// TechniqueName is the display name in a hint event.
	TechniqueName string `json:"technique_name,omitempty"`
	// Level is the level the technique belongs to (the command line).
	Level string `json:"level,omitempty"`
	// Explanation is why the step holds, in words.
	Explanation string `json:"explanation,omitempty"`
	// Cells are, in a hint event, every cell the step rests on or
	// changes; in the lab and on the command line, the cells of its
	// pattern.
	Cells []int `json:"cells,omitempty"`
	// Place are the digits the step places, Eliminate the candidates it
	// removes.
	Place     []Mark `json:"place,omitempty"`
	Eliminate []Mark `json:"eliminate,omitempty"`
	// Digits are the digits of the step's pattern (the command line).
	Digits []int `json:"digits,omitempty"`
	// Highlight is every cell the step names (its pattern, placements and
	// eliminations), ascending: the lab's. Every step names a cell, so the
	// lab always sends it.
	Highlight []int `json:"highlight,omitempty"`
}

// Mark is a digit in a cell: one a step places or eliminates. Name is the
// cell's name for people, such as "r4c7", which the command line adds.
type Mark struct {
	Cell  int    `json:"cell"`
	Name  string `json:"name,omitempty"`
	Digit int    `json:"digit"`
}

// Marks are the candidates cs as marks, nil for none.
func Marks(cs []engine.Candidate) []Mark {
	if len(cs) == 0 {
		return nil
	}
	out := make([]Mark, len(cs))
	for i, c := range cs {
		out[i] = Mark{Cell: c.Cell, Digit: int(c.Digit)}
	}
	return out
}
