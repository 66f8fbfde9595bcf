package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sudoku-arena/arena/store"
)

// SavePuzzle stores a puzzle unless its givens are stored already.
func (s *Store) SavePuzzle(ctx context.Context, p store.Puzzle) (store.Puzzle, error) {
	tech, err := json.Marshal(p.Techniques)
	if err != nil {
		return store.Puzzle{}, fmt.Errorf("sqlite: save puzzle: techniques: %w", err)
	}
	if p.Techniques == nil {
		tech = []byte("{}")
	}
	_, err = s.w.ExecContext(ctx,
		`INSERT INTO puzzles (givens, solution, level, score, techniques, seed, created_at, se)
		 VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (givens) DO NOTHING`,
		p.Givens, p.Solution, p.Level, p.Score, string(tech), int64(p.Seed), micros(p.CreatedAt), int(p.SE))
	if err != nil {
		return store.Puzzle{}, mapErr(err, "save puzzle")
	}
	return scanPuzzle(s.w.QueryRowContext(ctx, `SELECT `+puzzleCols+` FROM puzzles WHERE givens = ?`, p.Givens), "saved puzzle")
}

const puzzleCols = `id, givens, solution, level, score, techniques, seed, created_at, se`

func scanPuzzle(row scanner, what string) (store.Puzzle, error) {
	var p store.Puzzle
	var tech string
	var seed int64
	var created sql.NullInt64
	if err := row.Scan(&p.ID, &p.Givens, &p.Solution, &p.Level, &p.Score, &tech, &seed, &created, &p.SE); err != nil {
		return store.Puzzle{}, mapErr(err, what)
	}
	if err := json.Unmarshal([]byte(tech), &p.Techniques); err != nil {
		return store.Puzzle{}, fmt.Errorf("sqlite: %s: techniques: %w", what, err)
	}
	p.Seed, p.CreatedAt = uint64(seed), fromMicros(created)
	return p, nil
}

// Puzzle finds a puzzle by id.
func (s *Store) Puzzle(ctx context.Context, id int64) (store.Puzzle, error) {
	return scanPuzzle(s.r.QueryRowContext(ctx, `SELECT `+puzzleCols+` FROM puzzles WHERE id = ?`, id), fmt.Sprintf("puzzle %d", id))
}

// AddToPool puts puzzles in the pool of their level, once ever.
func (s *Store) AddToPool(ctx context.Context, puzzleIDs ...int64) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return mapErr(err, "add to pool")
	}
	defer tx.Rollback()
	now := micros(time.Now())
	for _, id := range puzzleIDs {
		res, err := tx.ExecContext(ctx,
			`INSERT INTO puzzle_pool (puzzle_id, level, added_at)
			 SELECT id, level, ? FROM puzzles WHERE id = ? ON CONFLICT (puzzle_id) DO NOTHING`, now, id)
		if err != nil {
			return mapErr(err, fmt.Sprintf("add puzzle %d to pool", id))
		}
		if n, _ := res.RowsAffected(); n == 0 {
			var exists int
			if err := tx.QueryRowContext(ctx, `SELECT 1 FROM puzzles WHERE id = ?`, id).Scan(&exists); err != nil {
				return mapErr(err, fmt.Sprintf("add puzzle %d to pool", id))
			}
		}
	}
	return mapErr(tx.Commit(), "add to pool")
}

// TakeFromPool hands out the oldest pooled puzzle of the level. The write
// pool's single connection and IMMEDIATE transactions serialize takers.
func (s *Store) TakeFromPool(ctx context.Context, level string) (store.Puzzle, error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return store.Puzzle{}, mapErr(err, "take from pool")
	}
	defer tx.Rollback()
	var id int64
	err = tx.QueryRowContext(ctx,
		`UPDATE puzzle_pool SET taken_at = ?
		 WHERE puzzle_id = (SELECT puzzle_id FROM puzzle_pool WHERE level = ? AND taken_at IS NULL ORDER BY puzzle_id LIMIT 1)
		 RETURNING puzzle_id`, micros(time.Now()), level).Scan(&id)
	if err != nil {
		return store.Puzzle{}, mapErr(err, "take "+level+" puzzle from pool")
	}
	p, err := scanPuzzle(tx.QueryRowContext(ctx, `SELECT `+puzzleCols+` FROM puzzles WHERE id = ?`, id), "pooled puzzle")
	if err != nil {
		return store.Puzzle{}, err
	}
	return p, mapErr(tx.Commit(), "take from pool")
}

// PoolSize counts the puzzles of the level waiting in the pool.
func (s *Store) PoolSize(ctx context.Context, level string) (int, error) {
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM puzzle_pool WHERE level = ? AND taken_at IS NULL`, level).Scan(&n)
	return n, mapErr(err, "pool size")
}

// SetDaily records the puzzle of a day and level unless one is recorded.
func (s *Store) SetDaily(ctx context.Context, d store.Daily) (store.Daily, error) {
	if err := store.ValidDay(d.Day, false); err != nil {
		return store.Daily{}, fmt.Errorf("sqlite: set daily: %w", err)
	}
	if _, err := s.w.ExecContext(ctx,
		`INSERT INTO daily_puzzles (day, level, puzzle_id) VALUES (?, ?, ?) ON CONFLICT (day, level) DO NOTHING`,
		d.Day, d.Level, d.PuzzleID); err != nil {
		return store.Daily{}, mapErr(err, "set daily "+d.Day)
	}
	return s.daily(ctx, s.w, d.Day, d.Level)
}

// Daily finds the puzzle of a day and level.
func (s *Store) Daily(ctx context.Context, day, level string) (store.Daily, error) {
	return s.daily(ctx, s.r, day, level)
}

func (s *Store) daily(ctx context.Context, db *sql.DB, day, level string) (store.Daily, error) {
	d := store.Daily{Day: day, Level: level}
	err := db.QueryRowContext(ctx, `SELECT puzzle_id FROM daily_puzzles WHERE day = ? AND level = ?`, day, level).Scan(&d.PuzzleID)
	return d, mapErr(err, "daily "+day+" "+level)
}
