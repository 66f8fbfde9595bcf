-- Ratings of rated races (see PostgreSQL's migration 000017): one row per
-- account that has played one, and each race's change of it. races is the
-- number of rated races that moved the rating, and its version: a change
-- is written only on the rating it was computed from.
CREATE TABLE ratings (
    player_id  TEXT PRIMARY KEY REFERENCES players (id),
    rating     REAL NOT NULL,
    rd         REAL NOT NULL,
    volatility REAL NOT NULL,
    races      INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX ratings_top ON ratings (rating DESC, rd, player_id);

CREATE TABLE rating_changes (
    room_id       TEXT NOT NULL,
    player_id     TEXT NOT NULL REFERENCES players (id),
    rating_before REAL NOT NULL,
    rd_before     REAL NOT NULL,
    vol_before    REAL NOT NULL,
    rating        REAL NOT NULL,
    rd            REAL NOT NULL,
    volatility    REAL NOT NULL,
    races         INTEGER NOT NULL,
    at            INTEGER NOT NULL,
    PRIMARY KEY (room_id, player_id)
) STRICT;
CREATE INDEX rating_changes_player ON rating_changes (player_id, races);
