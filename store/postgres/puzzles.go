package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sudoku-arena/arena/store"
)

const puzzleCols = `id, givens, solution, level, score, techniques, seed, created_at, se`

func scanPuzzle(row pgx.Row, what string) (store.Puzzle, error) {
	var p store.Puzzle
	var seed int64
	if err := row.Scan(&p.ID, &p.Givens, &p.Solution, &p.Level, &p.Score, &p.Techniques, &seed, &p.CreatedAt, &p.SE); err != nil {
		return store.Puzzle{}, mapErr(err, what)
	}
	p.Seed, p.CreatedAt = uint64(seed), p.CreatedAt.UTC()
	return p, nil
}

// SavePuzzle stores a puzzle unless its givens are stored already.
func (s *Store) SavePuzzle(ctx context.Context, p store.Puzzle) (store.Puzzle, error) {
	tech := p.Techniques
	if tech == nil {
		tech = map[string]int{}
	}
	// The no-op update makes RETURNING yield the stored row on a conflict.
	return scanPuzzle(s.pool.QueryRow(ctx,
		`INSERT INTO puzzles (givens, solution, level, score, techniques, seed, created_at, se)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		 ON CONFLICT (givens) DO UPDATE SET givens = EXCLUDED.givens
		 RETURNING `+puzzleCols,
		p.Givens, p.Solution, p.Level, p.Score, tech, int64(p.Seed), p.CreatedAt, int(p.SE)), "save puzzle")
}

// Puzzle finds a puzzle by id.
func (s *Store) Puzzle(ctx context.Context, id int64) (store.Puzzle, error) {
	return scanPuzzle(s.pool.QueryRow(ctx, `SELECT `+puzzleCols+` FROM puzzles WHERE id = $1`, id), fmt.Sprintf("puzzle %d", id))
}

// AddToPool puts puzzles in the pool of their level, once ever.
func (s *Store) AddToPool(ctx context.Context, puzzleIDs ...int64) error {
	var missing []int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT x FROM unnest($1::bigint[]) AS x WHERE NOT EXISTS (SELECT 1 FROM puzzles WHERE id = x)`, puzzleIDs)
		if err != nil {
			return err
		}
		missing, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil || len(missing) > 0 {
			return err
		}
		_, err = tx.Exec(ctx,
			`INSERT INTO puzzle_pool (puzzle_id, level, added_at)
			 SELECT id, level, now() FROM puzzles WHERE id = ANY($1) ON CONFLICT (puzzle_id) DO NOTHING`, puzzleIDs)
		return err
	})
	if err == nil && len(missing) > 0 {
		return fmt.Errorf("postgres: add to pool: puzzles %v: %w", missing, store.ErrNotFound)
	}
	return mapErr(err, "add to pool")
}

// TakeFromPool hands out the oldest pooled puzzle of the level. SKIP LOCKED
// lets concurrent takers pass each other's rows instead of queueing on them,
// and no row is handed out twice.
func (s *Store) TakeFromPool(ctx context.Context, level string) (store.Puzzle, error) {
	return scanPuzzle(s.pool.QueryRow(ctx,
		`WITH taken AS (
		   UPDATE puzzle_pool SET taken_at = now()
		   WHERE puzzle_id = (SELECT puzzle_id FROM puzzle_pool WHERE level = $1 AND taken_at IS NULL
		                      ORDER BY puzzle_id LIMIT 1 FOR UPDATE SKIP LOCKED)
		   RETURNING puzzle_id)
		 SELECT `+puzzleCols+` FROM puzzles WHERE id = (SELECT puzzle_id FROM taken)`, level), "take "+level+" puzzle from pool")
}

// PoolSize counts the puzzles of the level waiting in the pool.
func (s *Store) PoolSize(ctx context.Context, level string) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM puzzle_pool WHERE level = $1 AND taken_at IS NULL`, level).Scan(&n)
	return n, mapErr(err, "pool size")
}

// SetDaily records the puzzle of a day and level unless one is recorded.
func (s *Store) SetDaily(ctx context.Context, d store.Daily) (store.Daily, error) {
	if err := store.ValidDay(d.Day, false); err != nil {
		return store.Daily{}, fmt.Errorf("postgres: set daily: %w", err)
	}
	err := s.pool.QueryRow(ctx,
		`WITH ins AS (
		   INSERT INTO daily_puzzles (day, level, puzzle_id) VALUES ($1::date, $2, $3)
		   ON CONFLICT (day, level) DO NOTHING RETURNING puzzle_id)
		 SELECT puzzle_id FROM ins
		 UNION ALL
		 SELECT puzzle_id FROM daily_puzzles WHERE day = $1::date AND level = $2
		 LIMIT 1`, d.Day, d.Level, d.PuzzleID).Scan(&d.PuzzleID)
	return d, mapErr(err, "set daily "+d.Day)
}

// Daily finds the puzzle of a day and level.
func (s *Store) Daily(ctx context.Context, day, level string) (store.Daily, error) {
	if err := store.ValidDay(day, false); err != nil {
		return store.Daily{}, fmt.Errorf("postgres: daily: %w", err)
	}
	d := store.Daily{Day: day, Level: level}
	err := s.pool.QueryRow(ctx, `SELECT puzzle_id FROM daily_puzzles WHERE day = $1::date AND level = $2`, day, level).Scan(&d.PuzzleID)
	return d, mapErr(err, "daily "+day+" "+level)
}
