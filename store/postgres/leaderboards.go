package postgres

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sudoku-arena/arena/store"
)

// entryCols are a leaderboard row's columns, of results r and players p;
// a player without a handle key is a guest.
const entryCols = `r.player_id, p.name, r.score, r.elapsed_ms, r.mistakes, r.hints, r.finished_at, p.handle_key IS NULL`

func collectEntries(rows pgx.Rows, err error, firstRank int, what string) ([]store.Entry, error) {
	if err != nil {
		return nil, mapErr(err, what)
	}
	i := 0
	es, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Entry, error) {
		var e store.Entry
		var ms int64
		err := row.Scan(&e.PlayerID, &e.Name, &e.Score, &ms, &e.Mistakes, &e.Hints, &e.FinishedAt, &e.Guest)
		e.Elapsed, e.FinishedAt, e.Rank = time.Duration(ms)*time.Millisecond, e.FinishedAt.UTC(), firstRank+i
		i++
		return e, err
	})
	return es, mapErr(err, what)
}

// DailyTop is the head of a day's leaderboard.
func (s *Store) DailyTop(ctx context.Context, day, level string, limit int) ([]store.Entry, error) {
	if err := store.ValidDay(day, false); err != nil {
		return nil, fmt.Errorf("postgres: daily top: %w", err)
	}
	rows, err := s.pool.Query(ctx,
		`SELECT `+entryCols+` FROM results r JOIN players p ON p.id = r.player_id
		 WHERE r.day = $1::date AND r.level = $2 ORDER BY r.score DESC, r.finished_at, r.player_id LIMIT $3`, day, level, limit)
	return collectEntries(rows, err, 1, "daily top "+day)
}

// DailyCount is how many results a day's leaderboard holds: one row of
// the totals the count trigger keeps (migration 000006), not a count.
func (s *Store) DailyCount(ctx context.Context, day, level string) (int, error) {
	if err := store.ValidDay(day, false); err != nil {
		return 0, fmt.Errorf("postgres: daily count: %w", err)
	}
	var n int64
	err := s.pool.QueryRow(ctx,
		`SELECT coalesce(sum(n), 0)::bigint FROM leaderboard_totals WHERE day = $1::date AND level = $2`, day, level).Scan(&n)
	return int(n), mapErr(err, "daily count "+day)
}

// dailyAroundSQL is DailyAround in one round trip, through the function of
// migration 000003 (see there why a function; 000009 made its last).
const dailyAroundSQL = `SELECT side, ahead, player_id, name, score, elapsed_ms, mistakes, hints, finished_at, guest
  FROM daily_around($1::date, $2, $3, $4)`

// DailyAround is the player's row with n rows on either side.
func (s *Store) DailyAround(ctx context.Context, day, level, playerID string, n int) ([]store.Entry, error) {
	if err := store.ValidDay(day, false); err != nil {
		return nil, fmt.Errorf("postgres: daily around: %w", err)
	}
	what := "daily around " + playerID
	rows, err := s.pool.Query(ctx, dailyAroundSQL, day, level, playerID, n)
	if err != nil {
		return nil, mapErr(err, what)
	}
	var before, after []store.Entry
	var ahead int
	for rows.Next() {
		var e store.Entry
		var side int
		var ms int64
		if err := rows.Scan(&side, &ahead, &e.PlayerID, &e.Name, &e.Score, &ms, &e.Mistakes, &e.Hints, &e.FinishedAt, &e.Guest); err != nil {
			rows.Close()
			return nil, mapErr(err, what)
		}
		e.Elapsed, e.FinishedAt = time.Duration(ms)*time.Millisecond, e.FinishedAt.UTC()
		if side < 0 {
			before = append(before, e)
		} else {
			after = append(after, e)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr(err, what)
	}
	if len(after) == 0 || after[0].PlayerID != playerID {
		return nil, fmt.Errorf("postgres: %s: %w", what, store.ErrNotFound)
	}
	slices.Reverse(before)
	out := append(before, after...)
	for i := range out {
		out[i].Rank = ahead - len(before) + 1 + i
	}
	return out, nil
}

// dailyRanksSQL is DailyRanks in one round trip: for each board the
// player's row, and their rank as daily_around counts it (migration
// 000007): the rows ahead are the counts of the spans, blocks and scores
// ahead, and the ties on their score that finished earlier.
const dailyRanksSQL = `SELECT coalesce(k.rank, 0)::bigint
  FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS b(day, level, i)
  LEFT JOIN LATERAL (
    SELECT 1 + coalesce((SELECT sum(p.n) FROM leaderboard_spans p
                          WHERE p.day = m.day AND p.level = m.level AND p.span > m.score >> 16), 0)
             + coalesce((SELECT sum(bl.n) FROM leaderboard_blocks bl
                          WHERE bl.day = m.day AND bl.level = m.level AND bl.block > m.score >> 8
                            AND bl.block < ((m.score >> 16) + 1) << 8), 0)
             + coalesce((SELECT sum(s.n) FROM leaderboard_scores s
                          WHERE s.day = m.day AND s.level = m.level AND s.score > m.score
                            AND s.score < ((m.score >> 8) + 1) << 8), 0)
             + (SELECT count(*) FROM results r
                 WHERE r.day = m.day AND r.day IS NOT NULL AND r.level = m.level AND r.score = m.score
                   AND (r.finished_at, r.player_id) < (m.finished_at, m.player_id)) AS rank
      FROM results m
     WHERE m.day = b.day::date AND m.day IS NOT NULL AND m.level = b.level AND m.player_id = $1
  ) k ON true
  ORDER BY b.i`

// DailyRanks is the player's rank on each board, 0 where they have none.
func (s *Store) DailyRanks(ctx context.Context, playerID string, boards []store.Board) ([]int, error) {
	if len(boards) == 0 {
		return nil, nil
	}
	days, levels := make([]string, len(boards)), make([]string, len(boards))
	for i, b := range boards {
		if err := store.ValidDay(b.Day, false); err != nil {
			return nil, fmt.Errorf("postgres: daily ranks: %w", err)
		}
		days[i], levels[i] = b.Day, b.Level
	}
	what := fmt.Sprintf("daily ranks of %s on %d boards", playerID, len(boards))
	rows, err := s.pool.Query(ctx, dailyRanksSQL, playerID, days, levels)
	if err != nil {
		return nil, mapErr(err, what)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (int, error) {
		var r int64
		err := row.Scan(&r)
		return int(r), err
	})
	return out, mapErr(err, what)
}

// BestTimes is each player's fastest finish of a level that counts on the
// all-time board, fastest first.
func (s *Store) BestTimes(ctx context.Context, level string, limit int) ([]store.Entry, error) {
	rows, err := s.pool.Query(ctx,
		`SELECT `+entryCols+` FROM (
		   SELECT DISTINCT ON (player_id) * FROM results
		   WHERE level = $1 AND all_time AND NOT flagged
		   ORDER BY player_id, elapsed_ms, finished_at, id
		 ) r JOIN players p ON p.id = r.player_id
		 ORDER BY r.elapsed_ms, r.finished_at, r.player_id LIMIT $2`, level, limit)
	return collectEntries(rows, err, 1, "best times "+level)
}
