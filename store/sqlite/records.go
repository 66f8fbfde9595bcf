package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/sudoku-arena/arena/store"
)

// PlayerTallies counts the player's finishes by mode and level: a race
// is won when it was first and another player finished the room too
// (one probe of the room's results by their unique index), and contested
// when another player finished it, first or not.
func (s *Store) PlayerTallies(ctx context.Context, playerID string) ([]store.Tally, error) {
	return queryAll(ctx, s.r, "tallies of "+playerID, func(row scanner) (store.Tally, error) {
		var t store.Tally
		var best, total int64
		err := row.Scan(&t.Mode, &t.Level, &t.Finished, &t.Won, &t.Contested, &t.Timed, &best, &total)
		t.Best, t.Total = time.Duration(best)*time.Millisecond, time.Duration(total)*time.Millisecond
		return t, err
	}, `SELECT r.mode, r.level, count(*),
	          sum(CASE WHEN r.mode = 'race' AND r.room_rank = 1
	                    AND EXISTS (SELECT 1 FROM results o WHERE o.room_id = r.room_id AND o.player_id <> r.player_id)
	              THEN 1 ELSE 0 END),
	          sum(CASE WHEN r.mode = 'race'
	                    AND EXISTS (SELECT 1 FROM results o WHERE o.room_id = r.room_id AND o.player_id <> r.player_id)
	              THEN 1 ELSE 0 END),
	          sum(CASE WHEN r.mode <> 'coop' AND NOT r.flagged THEN 1 ELSE 0 END),
	          coalesce(min(CASE WHEN r.mode <> 'coop' AND NOT r.flagged THEN r.elapsed_ms END), 0),
	          coalesce(sum(CASE WHEN r.mode <> 'coop' AND NOT r.flagged THEN r.elapsed_ms END), 0)
	   FROM results r WHERE r.player_id = ? GROUP BY r.mode, r.level`, playerID)
}

// DailiesSolved is the player's finishes of the span's daily puzzles: the
// span's dailies by their key, each looked up among the player's results
// by results_player_puzzle (named: without statistics the planner takes
// results_player, every one of the player's results for each daily).
func (s *Store) DailiesSolved(ctx context.Context, playerID, from, to string) ([]store.SolvedDaily, error) {
	if err := store.ValidSpan(from, to); err != nil {
		return nil, fmt.Errorf("sqlite: dailies solved: %w", err)
	}
	return queryAll(ctx, s.r, "dailies solved by "+playerID, func(row scanner) (store.SolvedDaily, error) {
		var d store.SolvedDaily
		var ms int64
		var fin sql.NullInt64
		err := row.Scan(&d.Day, &d.Level, &ms, &d.Mistakes, &d.Hints, &d.OnDay, &fin)
		d.Elapsed, d.FinishedAt = time.Duration(ms)*time.Millisecond, fromMicros(fin)
		return d, err
	}, `SELECT d.day, d.level, r.elapsed_ms, r.mistakes, r.hints, r.played_day IS NOT NULL AND r.played_day = d.day, r.finished_at
	   FROM daily_puzzles d JOIN results r INDEXED BY results_player_puzzle ON r.player_id = ? AND r.puzzle_id = d.puzzle_id
	   WHERE d.day BETWEEN ? AND ?
	   ORDER BY d.day, d.level, r.finished_at, r.id`, playerID, from, to)
}
