package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sudoku-arena/arena/store"
)

// Ratings reads the stored ratings of the players given.
func (s *Store) Ratings(ctx context.Context, playerIDs []string) (map[string]store.Rating, error) {
	out := make(map[string]store.Rating, len(playerIDs))
	if len(playerIDs) == 0 {
		return out, nil
	}
	args := make([]any, len(playerIDs))
	for i, id := range playerIDs {
		args[i] = id
	}
	rs, err := queryAll(ctx, s.r, "ratings", scanRating,
		`SELECT player_id, rating, rd, volatility, races, updated_at, '' FROM ratings
		 WHERE player_id IN (?`+strings.Repeat(", ?", len(args)-1)+`)`, args...)
	for _, r := range rs {
		out[r.PlayerID] = r
	}
	return out, err
}

func scanRating(row scanner) (store.Rating, error) {
	var r store.Rating
	var at sql.NullInt64
	err := row.Scan(&r.PlayerID, &r.Rating, &r.RD, &r.Volatility, &r.Races, &at, &r.Name)
	r.UpdatedAt = fromMicros(at)
	return r, err
}

// ApplyRatings stores one race's rating changes in one transaction, each
// on the version of the rating it was computed from.
func (s *Store) ApplyRatings(ctx context.Context, changes []store.RatingChange) error {
	if len(changes) == 0 {
		return nil
	}
	what := "apply ratings of room " + changes[0].RoomID
	return s.inTx(ctx, what, func(tx *sql.Tx) error {
		var stored bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM rating_changes WHERE room_id = ? AND player_id = ?)`,
			changes[0].RoomID, changes[0].PlayerID).Scan(&stored); err != nil || stored {
			return err
		}
		for _, c := range changes {
			a, races := c.After, c.Before.Races+1
			var res sql.Result
			var err error
			if c.Before.Races == 0 {
				res, err = tx.ExecContext(ctx, `INSERT INTO ratings (player_id, rating, rd, volatility, races, updated_at) VALUES (?, ?, ?, ?, 1, ?)`,
					c.PlayerID, a.Rating, a.RD, a.Volatility, micros(c.At))
			} else {
				res, err = tx.ExecContext(ctx, `UPDATE ratings SET rating = ?, rd = ?, volatility = ?, races = ?, updated_at = ? WHERE player_id = ? AND races = ?`,
					a.Rating, a.RD, a.Volatility, races, micros(c.At), c.PlayerID, c.Before.Races)
			}
			if err != nil {
				return fmt.Errorf("rating of %s: %w", c.PlayerID, err)
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n == 0 {
				return fmt.Errorf("%w: the rating of %s has moved since race %d", store.ErrConflict, c.PlayerID, c.Before.Races)
			}
			if _, err := tx.ExecContext(ctx,
				`INSERT INTO rating_changes (room_id, player_id, rating_before, rd_before, vol_before, rating, rd, volatility, races, at)
				 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				c.RoomID, c.PlayerID, c.Before.Rating, c.Before.RD, c.Before.Volatility, a.Rating, a.RD, a.Volatility, races, micros(c.At)); err != nil {
				return fmt.Errorf("rating change of %s: %w", c.PlayerID, err)
			}
		}
		return nil
	})
}

const changeCols = `room_id, player_id, rating_before, rd_before, vol_before, rating, rd, volatility, races, at`

func scanChange(row scanner) (store.RatingChange, error) {
	var c store.RatingChange
	var at sql.NullInt64
	err := row.Scan(&c.RoomID, &c.PlayerID, &c.Before.Rating, &c.Before.RD, &c.Before.Volatility,
		&c.After.Rating, &c.After.RD, &c.After.Volatility, &c.After.Races, &at)
	c.At = fromMicros(at)
	c.Before.PlayerID, c.After.PlayerID = c.PlayerID, c.PlayerID
	c.Before.Races, c.After.UpdatedAt = c.After.Races-1, c.At
	return c, err
}

// RatingHistory is the player's last limit rating changes, oldest first.
func (s *Store) RatingHistory(ctx context.Context, playerID string, limit int) ([]store.RatingChange, error) {
	return queryAll(ctx, s.r, "rating history of "+playerID, scanChange,
		`SELECT * FROM (SELECT `+changeCols+` FROM rating_changes WHERE player_id = ? ORDER BY races DESC LIMIT ?) ORDER BY races`,
		playerID, limitArg(limit))
}

// RoomRatings are the rating changes of one race.
func (s *Store) RoomRatings(ctx context.Context, roomID string) ([]store.RatingChange, error) {
	return queryAll(ctx, s.r, "ratings of room "+roomID, scanChange,
		`SELECT `+changeCols+` FROM rating_changes WHERE room_id = ? ORDER BY player_id`, roomID)
}

// RoomResults are the results of one room's game, by place.
func (s *Store) RoomResults(ctx context.Context, roomID string) ([]store.Result, error) {
	return queryAll(ctx, s.r, "results of room "+roomID, scanResult,
		`SELECT `+resultCols+` FROM results WHERE room_id = ? ORDER BY room_rank, player_id`, roomID)
}

// TopRatings is the all-time rating leaderboard of accounts.
func (s *Store) TopRatings(ctx context.Context, maxRD float64, limit int) ([]store.Rating, error) {
	return queryAll(ctx, s.r, "top ratings", scanRating,
		`SELECT r.player_id, r.rating, r.rd, r.volatility, r.races, r.updated_at, p.handle
		 FROM ratings r JOIN players p ON p.id = r.player_id
		 WHERE p.handle_key IS NOT NULL AND r.rd <= ?
		 ORDER BY r.rating DESC, r.rd, r.player_id LIMIT ?`, maxRD, limitArg(limit))
}

// AddRatedRace records a race to rate; a room added before keeps its row.
func (s *Store) AddRatedRace(ctx context.Context, r store.RatedRace) error {
	roster, err := json.Marshal(r.Roster)
	if err != nil {
		return fmt.Errorf("sqlite: rated race %s: %w", r.RoomID, err)
	}
	_, err = s.w.ExecContext(ctx, `INSERT INTO rated_races (room_id, roster, at) VALUES (?, ?, ?) ON CONFLICT (room_id) DO NOTHING`,
		r.RoomID, string(roster), micros(r.At))
	return mapErr(err, "add rated race "+r.RoomID)
}

// RatedRaces are the races still to rate, oldest first.
func (s *Store) RatedRaces(ctx context.Context, limit int) ([]store.RatedRace, error) {
	return queryAll(ctx, s.r, "rated races", func(row scanner) (store.RatedRace, error) {
		var r store.RatedRace
		var roster string
		var at sql.NullInt64
		if err := row.Scan(&r.RoomID, &roster, &at); err != nil {
			return r, err
		}
		r.At = fromMicros(at)
		return r, json.Unmarshal([]byte(roster), &r.Roster)
	}, `SELECT room_id, roster, at FROM rated_races ORDER BY at, room_id LIMIT ?`, limitArg(limit))
}

// DropRatedRace forgets a race to rate.
func (s *Store) DropRatedRace(ctx context.Context, roomID string) error {
	_, err := s.w.ExecContext(ctx, `DELETE FROM rated_races WHERE room_id = ?`, roomID)
	return mapErr(err, "drop rated race "+roomID)
}
