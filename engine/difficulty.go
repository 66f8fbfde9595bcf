package engine

import (
	"fmt"
	"strings"
)

// Difficulty is a level puzzles are made and played at: a tier of the
// grade (Level) and a range on the Sudoku Explainer scale (RateSE). Each
// tier's puzzles spread over a wide range of SE ratings; the ranges pick
// a band of each that does not overlap the next, so that a puzzle of a
// harder difficulty is also rated harder. The ranges come from what the
// generator makes (200 seeds each, see docs/performance.md):
//
//	easy     easy     1.0 - 2.3   singles
//	medium   medium   2.4 - 3.4   pointing, claiming, pairs
//	hard     hard     3.5 - 4.9   triples, fish, wings
//	expert   expert   5.0 - 6.9   uniqueness, colouring, chains
//	master   expert   7.0 and up  forcing chains and harder
//
// A master puzzle is solved by the expert tier's techniques, and rated
// 7.0 or more: the rater needs a forcing chain or harder for it (a
// puzzle beyond the rater counts as rated above every bound).
type Difficulty struct {
	Name  string   // the stable lower-case id players pick
	Tier  Level    // the grade's level its puzzles have
	MinSE SERating // the lowest SE rating its puzzles have
	MaxSE SERating // the highest, 0 for no upper bound
}

// Difficulties are the levels puzzles are made at, easiest first: the one
// list every level name players can pick comes from.
var Difficulties = []Difficulty{
	{Name: "easy", Tier: LevelEasy, MinSE: 10, MaxSE: 23},
	{Name: "medium", Tier: LevelMedium, MinSE: 24, MaxSE: 34},
	{Name: "hard", Tier: LevelHard, MinSE: 35, MaxSE: 49},
	{Name: "expert", Tier: LevelExpert, MinSE: 50, MaxSE: 69},
	{Name: "master", Tier: LevelExpert, MinSE: 70},
}

// DifficultyNames are the Difficulties' names, easiest first.
func DifficultyNames() []string {
	names := make([]string, len(Difficulties))
	for i, d := range Difficulties {
		names[i] = d.Name
	}
	return names
}

// ListNames writes names as a sentence's list: "a, b or c".
func ListNames(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// ParseDifficulty finds a difficulty by its name; case and surrounding
// spaces are ignored. The int is its rank, 0 for the easiest.
func ParseDifficulty(name string) (Difficulty, int, error) {
	t := strings.ToLower(strings.TrimSpace(name))
	for i, d := range Difficulties {
		if d.Name == t {
			return d, i, nil
		}
	}
	return Difficulty{}, 0, fmt.Errorf("%w %q (want %s)", ErrUnknownLevel, name, ListNames(DifficultyNames()))
}

// Options are the GenerateOptions that make a puzzle of the difficulty.
func (d Difficulty) Options(seed uint64, symmetric bool) GenerateOptions {
	return GenerateOptions{Level: d.Tier, Seed: seed, Symmetric: symmetric, MinSE: d.MinSE, MaxSE: d.MaxSE}
}

// Range is the difficulty's SE range as people write it: "5.0-6.9", or
// "7.0+" with no upper bound.
func (d Difficulty) Range() string {
	if d.MaxSE == 0 {
		return d.MinSE.String() + "+"
	}
	return d.MinSE.String() + "-" + d.MaxSE.String()
}

// Holds reports whether an SE rating is in the difficulty's range; ok
// false (beyond the rater) is above every bound.
func (d Difficulty) Holds(r SERating, ok bool) bool {
	if !ok {
		return d.MaxSE == 0
	}
	return r >= d.MinSE && (d.MaxSE == 0 || r <= d.MaxSE)
}
