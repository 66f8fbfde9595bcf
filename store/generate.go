package store

import (
	"context"
	"fmt"
	"time"

	"github.com/sudoku-arena/arena/engine"
)

// MakePuzzle is the pool's PuzzleMaker, and the daily's: the engine's
// generator, graded and rated, at the level's difficulty
// (engine.Difficulties). The same level and seed make the same puzzle.
func MakePuzzle(ctx context.Context, level string, seed uint64) (Puzzle, error) {
	d, _, err := engine.ParseDifficulty(level)
	if err != nil {
		return Puzzle{}, err
	}
	if err := ctx.Err(); err != nil {
		return Puzzle{}, err
	}
	g, err := engine.Generate(d.Options(seed, false))
	if err != nil {
		return Puzzle{}, fmt.Errorf("generate %s puzzle: %w", level, err)
	}
	counts := make(map[string]int, len(g.Grade.Counts))
	for t, n := range g.Grade.Counts {
		counts[t.String()] = n
	}
	return Puzzle{
		Givens: g.Givens.String(), Solution: g.Solution.String(), Level: level,
		Score: g.Grade.Score, Techniques: counts, Seed: seed, CreatedAt: time.Now(), SE: g.SE,
	}, nil
}
