package postgres

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sudoku-arena/arena/store"
)

// Ratings reads the stored ratings of the players given.
func (s *Store) Ratings(ctx context.Context, playerIDs []string) (map[string]store.Rating, error) {
	out := make(map[string]store.Rating, len(playerIDs))
	if len(playerIDs) == 0 {
		return out, nil
	}
	rs, err := s.ratings(ctx, "ratings",
		`SELECT player_id, rating, rd, volatility, races, updated_at, '' FROM ratings WHERE player_id = ANY($1)`, playerIDs)
	for _, r := range rs {
		out[r.PlayerID] = r
	}
	return out, err
}

func (s *Store) ratings(ctx context.Context, what, query string, args ...any) ([]store.Rating, error) {
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, mapErr(err, what)
	}
	rs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Rating, error) {
		var r store.Rating
		err := row.Scan(&r.PlayerID, &r.Rating, &r.RD, &r.Volatility, &r.Races, &r.UpdatedAt, &r.Name)
		r.UpdatedAt = r.UpdatedAt.UTC()
		return r, err
	})
	return rs, mapErr(err, what)
}

// ApplyRatings stores one race's rating changes in one transaction, each
// on the version of the rating it was computed from.
func (s *Store) ApplyRatings(ctx context.Context, changes []store.RatingChange) error {
	if len(changes) == 0 {
		return nil
	}
	what := "apply ratings of room " + changes[0].RoomID
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var stored bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM rating_changes WHERE room_id = $1 AND player_id = $2)`,
			changes[0].RoomID, changes[0].PlayerID).Scan(&stored); err != nil || stored {
			return err
		}
		for _, c := range changes {
			a, races := c.After, c.Before.Races+1
			query := `UPDATE ratings SET rating = $2, rd = $3, volatility = $4, races = $5, updated_at = $6 WHERE player_id = $1 AND races = $5 - 1`
			if c.Before.Races == 0 {
				query = `INSERT INTO ratings (player_id, rating, rd, volatility, races, updated_at) VALUES ($1, $2, $3, $4, $5, $6)`
			}
			tag, err := tx.Exec(ctx, query, c.PlayerID, a.Rating, a.RD, a.Volatility, races, c.At)
			if err != nil {
				return fmt.Errorf("rating of %s: %w", c.PlayerID, err)
			}
			if tag.RowsAffected() == 0 {
				return fmt.Errorf("%w: the rating of %s has moved since race %d", store.ErrConflict, c.PlayerID, c.Before.Races)
			}
			if _, err := tx.Exec(ctx,
				`INSERT INTO rating_changes (room_id, player_id, rating_before, rd_before, vol_before, rating, rd, volatility, races, at)
				 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
				c.RoomID, c.PlayerID, c.Before.Rating, c.Before.RD, c.Before.Volatility, a.Rating, a.RD, a.Volatility, races, c.At); err != nil {
				return fmt.Errorf("rating change of %s: %w", c.PlayerID, err)
			}
		}
		return nil
	})
	return mapErr(err, what)
}

const changeCols = `room_id, player_id, rating_before, rd_before, vol_before, rating, rd, volatility, races, at`

// RatingHistory is the player's last limit rating changes, oldest first.
func (s *Store) RatingHistory(ctx context.Context, playerID string, limit int) ([]store.RatingChange, error) {
	return s.changes(ctx, "rating history of "+playerID,
		`SELECT * FROM (SELECT `+changeCols+` FROM rating_changes WHERE player_id = $1 ORDER BY races DESC LIMIT $2) c ORDER BY races`,
		playerID, limitArg(limit))
}

// RoomRatings are the rating changes of one race.
func (s *Store) RoomRatings(ctx context.Context, roomID string) ([]store.RatingChange, error) {
	return s.changes(ctx, "ratings of room "+roomID,
		`SELECT `+changeCols+` FROM rating_changes WHERE room_id = $1 ORDER BY player_id`, roomID)
}

// RoomResults are the results of one room's game, by place.
func (s *Store) RoomResults(ctx context.Context, roomID string) ([]store.Result, error) {
	return s.results(ctx, "results of room "+roomID,
		`SELECT `+resultCols+` FROM results WHERE room_id = $1 ORDER BY room_rank, player_id`, roomID)
}

func (s *Store) changes(ctx context.Context, what, query string, args ...any) ([]store.RatingChange, error) {
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, mapErr(err, what)
	}
	cs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.RatingChange, error) {
		var c store.RatingChange
		err := row.Scan(&c.RoomID, &c.PlayerID, &c.Before.Rating, &c.Before.RD, &c.Before.Volatility,
			&c.After.Rating, &c.After.RD, &c.After.Volatility, &c.After.Races, &c.At)
		c.At = c.At.UTC()
		c.Before.PlayerID, c.After.PlayerID = c.PlayerID, c.PlayerID
		c.Before.Races, c.After.UpdatedAt = c.After.Races-1, c.At
		return c, err
	})
	return cs, mapErr(err, what)
}

// TopRatings is the all-time rating leaderboard of accounts.
func (s *Store) TopRatings(ctx context.Context, maxRD float64, limit int) ([]store.Rating, error) {
	return s.ratings(ctx, "top ratings",
		`SELECT r.player_id, r.rating, r.rd, r.volatility, r.races, r.updated_at, p.handle
		 FROM ratings r JOIN players p ON p.id = r.player_id
		 WHERE p.handle_key IS NOT NULL AND r.rd <= $1
		 ORDER BY r.rating DESC, r.rd, r.player_id LIMIT $2`, maxRD, limitArg(limit))
}

// AddRatedRace records a race to rate; a room added before keeps its row.
func (s *Store) AddRatedRace(ctx context.Context, r store.RatedRace) error {
	roster, err := json.Marshal(r.Roster)
	if err != nil {
		return fmt.Errorf("postgres: rated race %s: %w", r.RoomID, err)
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO rated_races (room_id, roster, at) VALUES ($1, $2, $3) ON CONFLICT (room_id) DO NOTHING`,
		r.RoomID, string(roster), r.At)
	return mapErr(err, "add rated race "+r.RoomID)
}

// RatedRaces are the races still to rate, oldest first.
func (s *Store) RatedRaces(ctx context.Context, limit int) ([]store.RatedRace, error) {
	rows, err := s.pool.Query(ctx, `SELECT room_id, roster, at FROM rated_races ORDER BY at, room_id LIMIT $1`, limitArg(limit))
	if err != nil {
		return nil, mapErr(err, "rated races")
	}
	rs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.RatedRace, error) {
		var r store.RatedRace
		var roster string
		if err := row.Scan(&r.RoomID, &roster, &r.At); err != nil {
			return r, err
		}
		r.At = r.At.UTC()
		return r, json.Unmarshal([]byte(roster), &r.Roster)
	})
	return rs, mapErr(err, "rated races")
}

// DropRatedRace forgets a race to rate.
func (s *Store) DropRatedRace(ctx context.Context, roomID string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM rated_races WHERE room_id = $1`, roomID)
	return mapErr(err, "drop rated race "+roomID)
}
