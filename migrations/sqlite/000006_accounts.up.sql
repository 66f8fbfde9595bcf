-- Accounts (see PostgreSQL's migration 000009). A player becomes an account
-- when they take a handle: handle is as shown, handle_key its confusables
-- skeleton, unique among accounts (a guest has neither: a UNIQUE index
-- allows many NULLs). seed is the player's own random number, a uint64
-- stored bit for bit; the players there are draw theirs here (an added
-- column's default must be a constant, so it is filled in after).
ALTER TABLE players ADD COLUMN handle TEXT;
ALTER TABLE players ADD COLUMN handle_key TEXT;
ALTER TABLE players ADD COLUMN account_at INTEGER;
ALTER TABLE players ADD COLUMN seed INTEGER NOT NULL DEFAULT 0;
UPDATE players SET seed = random();
CREATE UNIQUE INDEX players_handle_key ON players (handle_key);

-- An account's passkeys; data is the WebAuthn library's, opaque here.
CREATE TABLE credentials (
    id         BLOB PRIMARY KEY,
    player_id  TEXT NOT NULL REFERENCES players (id),
    data       BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    last_used  INTEGER
) STRICT;
CREATE INDEX credentials_player ON credentials (player_id, created_at);

-- Secrets are kept as their SHA-256 hashes only.
CREATE TABLE sessions (
    hash       BLOB PRIMARY KEY,
    player_id  TEXT NOT NULL REFERENCES players (id),
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX sessions_player ON sessions (player_id);
CREATE INDEX sessions_expiry ON sessions (expires_at);

CREATE TABLE signin_codes (
    hash       BLOB PRIMARY KEY,
    player_id  TEXT NOT NULL REFERENCES players (id),
    expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX signin_codes_player ON signin_codes (player_id);
CREATE INDEX signin_codes_expiry ON signin_codes (expires_at);

CREATE TABLE recovery_codes (
    player_id TEXT NOT NULL REFERENCES players (id),
    hash      BLOB NOT NULL,
    used_at   INTEGER,
    PRIMARY KEY (player_id, hash)
) STRICT;

-- WebAuthn ceremonies between their begin and their finish.
CREATE TABLE ceremonies (
    hash       BLOB PRIMARY KEY,
    data       BLOB NOT NULL,
    expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX ceremonies_expiry ON ceremonies (expires_at);

-- A player's first view of a day's daily of a level: the ranked time's
-- clock runs from started_at.
CREATE TABLE daily_attempts (
    player_id   TEXT NOT NULL REFERENCES players (id),
    day         TEXT NOT NULL,
    level       TEXT NOT NULL,
    started_at  INTEGER NOT NULL,
    finished_at INTEGER,
    PRIMARY KEY (player_id, day, level)
) STRICT;

-- Results: played_day is the daily's date when it was played on its day,
-- ranked or not (streaks count these); all_time says the result counts on
-- its level's all-time board unless flagged; review, reason, held_day and
-- reviewed_at are its review. Existing results keep the boards they were
-- on: all-time for what was neither co-op nor flagged, and the flagged
-- ones are held (from no day's board: theirs was not kept).
ALTER TABLE results ADD COLUMN played_day TEXT;
ALTER TABLE results ADD COLUMN all_time INTEGER NOT NULL DEFAULT 0;
ALTER TABLE results ADD COLUMN review TEXT NOT NULL DEFAULT '' CHECK (review IN ('', 'held', 'confirmed', 'removed'));
ALTER TABLE results ADD COLUMN reason TEXT NOT NULL DEFAULT '';
ALTER TABLE results ADD COLUMN held_day TEXT;
ALTER TABLE results ADD COLUMN reviewed_at INTEGER;
UPDATE results SET played_day = day WHERE day IS NOT NULL;
UPDATE results SET all_time = 1 WHERE mode <> 'coop' AND NOT flagged;
UPDATE results SET review = 'held', reason = 'faster than the level''s floor' WHERE flagged;
-- A ranked daily result stored before attempts were is its attempt's
-- finish: that attempt is over.
INSERT OR IGNORE INTO daily_attempts (player_id, day, level, started_at, finished_at)
    SELECT player_id, day, level, finished_at - elapsed_ms * 1000, finished_at
    FROM results WHERE day IS NOT NULL;

DROP INDEX results_best;
CREATE INDEX results_best ON results (level, elapsed_ms, finished_at, player_id) WHERE all_time AND NOT flagged;
CREATE INDEX results_held ON results (finished_at, id) WHERE review = 'held';
CREATE INDEX results_played ON results (player_id, played_day) WHERE played_day IS NOT NULL;
