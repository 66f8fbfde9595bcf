package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sudoku-arena/arena/store"
)

// entryCols are a leaderboard row's columns, of results r and players p;
// a player without a handle key is a guest.
const entryCols = `r.player_id, p.name, r.score, r.elapsed_ms, r.mistakes, r.hints, r.finished_at, p.handle_key IS NULL`

// entries runs a leaderboard query selecting entryCols and numbers its rows
// from firstRank.
func (s *Store) entries(ctx context.Context, what string, firstRank int, query string, args ...any) ([]store.Entry, error) {
	es, err := queryAll(ctx, s.r, what, func(row scanner) (store.Entry, error) {
		var e store.Entry
		var ms int64
		var fin sql.NullInt64
		err := row.Scan(&e.PlayerID, &e.Name, &e.Score, &ms, &e.Mistakes, &e.Hints, &fin, &e.Guest)
		e.Elapsed, e.FinishedAt = time.Duration(ms)*time.Millisecond, fromMicros(fin)
		return e, err
	}, query, args...)
	for i := range es {
		es[i].Rank = firstRank + i
	}
	return es, err
}

// DailyTop is the head of a day's leaderboard.
func (s *Store) DailyTop(ctx context.Context, day, level string, limit int) ([]store.Entry, error) {
	return s.entries(ctx, "daily top "+day, 1,
		`SELECT `+entryCols+` FROM results r JOIN players p ON p.id = r.player_id
		 WHERE r.day = ? AND r.level = ? ORDER BY r.score DESC, r.finished_at, r.player_id LIMIT ?`, day, level, limit)
}

// DailyCount is how many results a day's leaderboard holds.
func (s *Store) DailyCount(ctx context.Context, day, level string) (int, error) {
	if err := store.ValidDay(day, false); err != nil {
		return 0, fmt.Errorf("sqlite: daily count: %w", err)
	}
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM results WHERE day = ? AND level = ?`, day, level).Scan(&n)
	return n, mapErr(err, "daily count "+day)
}

// DailyAround is the player's row with n rows on either side.
func (s *Store) DailyAround(ctx context.Context, day, level, playerID string, n int) ([]store.Entry, error) {
	var score int
	var fin int64
	err := s.r.QueryRowContext(ctx,
		`SELECT score, finished_at FROM results WHERE day = ? AND level = ? AND player_id = ?`, day, level, playerID).Scan(&score, &fin)
	if err != nil {
		return nil, mapErr(err, "daily rank of "+playerID)
	}
	var ahead int
	if err := s.r.QueryRowContext(ctx,
		`SELECT count(*) FROM results WHERE day = ? AND level = ?
		 AND (score > ? OR (score = ? AND (finished_at < ? OR (finished_at = ? AND player_id < ?))))`,
		day, level, score, score, fin, fin, playerID).Scan(&ahead); err != nil {
		return nil, mapErr(err, "daily rank of "+playerID)
	}
	first := max(ahead-n, 0)
	return s.entries(ctx, "daily around "+playerID, first+1,
		`SELECT `+entryCols+` FROM results r JOIN players p ON p.id = r.player_id
		 WHERE r.day = ? AND r.level = ? ORDER BY r.score DESC, r.finished_at, r.player_id LIMIT ? OFFSET ?`,
		day, level, ahead-first+n+1, first)
}

// DailyRanks is the player's rank on each board, 0 where they have none:
// one query, the boards passed as a JSON array of [day, level] pairs, each
// rank one plus the rows ahead of the player's (DailyAround's count).
func (s *Store) DailyRanks(ctx context.Context, playerID string, boards []store.Board) ([]int, error) {
	if len(boards) == 0 {
		return nil, nil
	}
	pairs := make([][2]string, len(boards))
	for i, b := range boards {
		if err := store.ValidDay(b.Day, false); err != nil {
			return nil, fmt.Errorf("sqlite: daily ranks: %w", err)
		}
		pairs[i] = [2]string{b.Day, b.Level}
	}
	arg, err := json.Marshal(pairs)
	if err != nil {
		return nil, fmt.Errorf("sqlite: daily ranks: %w", err)
	}
	return queryAll(ctx, s.r, fmt.Sprintf("daily ranks of %s on %d boards", playerID, len(boards)), func(row scanner) (int, error) {
		var r int
		return r, row.Scan(&r)
	}, `WITH b AS (SELECT key AS i, json_extract(value, '$[0]') AS day, json_extract(value, '$[1]') AS level FROM json_each(?))
	    SELECT coalesce((SELECT 1 + (SELECT count(*) FROM results o WHERE o.day = m.day AND o.level = m.level
	                      AND (o.score > m.score OR (o.score = m.score AND (o.finished_at < m.finished_at
	                           OR (o.finished_at = m.finished_at AND o.player_id < m.player_id)))))
	                     FROM results m WHERE m.day = b.day AND m.level = b.level AND m.player_id = ?), 0)
	      FROM b ORDER BY b.i`, string(arg), playerID)
}

// BestTimes is each player's fastest finish of a level that counts on the
// all-time board, fastest first.
func (s *Store) BestTimes(ctx context.Context, level string, limit int) ([]store.Entry, error) {
	return s.entries(ctx, "best times "+level, 1,
		`SELECT `+entryCols+` FROM (
		   SELECT *, row_number() OVER (PARTITION BY player_id ORDER BY elapsed_ms, finished_at, id) AS n
		   FROM results WHERE level = ? AND all_time AND NOT flagged
		 ) r JOIN players p ON p.id = r.player_id
		 WHERE r.n = 1 ORDER BY r.elapsed_ms, r.finished_at, r.player_id LIMIT ?`, level, limit)
}
