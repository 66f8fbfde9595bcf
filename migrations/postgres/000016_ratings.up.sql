-- Ratings of rated races (SQLite: migration 000013): one row per
-- account that has played one, and each race's change of it. races is the
-- number of rated races that moved the rating, and its version: a change
-- is written only on the rating it was computed from.
CREATE TABLE ratings (
    player_id  TEXT PRIMARY KEY REFERENCES players (id),
    rating     double precision NOT NULL,
    rd         double precision NOT NULL,
    volatility double precision NOT NULL,
    races      INTEGER NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX ratings_top ON ratings (rating DESC, rd, player_id);

CREATE TABLE rating_changes (
    room_id       TEXT NOT NULL,
    player_id     TEXT NOT NULL REFERENCES players (id),
    rating_before double precision NOT NULL,
    rd_before     double precision NOT NULL,
    vol_before    double precision NOT NULL,
    rating        double precision NOT NULL,
    rd            double precision NOT NULL,
    volatility    double precision NOT NULL,
    races         INTEGER NOT NULL,
    at            timestamptz NOT NULL,
    PRIMARY KEY (room_id, player_id)
);
CREATE INDEX rating_changes_player ON rating_changes (player_id, races);
