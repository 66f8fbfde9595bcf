-- Rated races still to rate (SQLite: migration 000014): a match of the
-- rated queue, or a tournament's race between accounts, from the moment
-- its room is made until it is rated, so that a restart, or another node,
-- still rates it. roster is the accounts' ids, a JSON array.
CREATE TABLE rated_races (
    room_id TEXT PRIMARY KEY,
    roster  TEXT NOT NULL,
    at      timestamptz NOT NULL
);
CREATE INDEX rated_races_at ON rated_races (at, room_id);
