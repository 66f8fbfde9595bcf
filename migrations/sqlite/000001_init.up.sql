-- Sudoku Arena schema, SQLite. Times are Unix microseconds (UTC), days
-- YYYY-MM-DD text, JSON is text.

CREATE TABLE players (
    id         TEXT PRIMARY KEY CHECK (id <> ''),
    name       TEXT NOT NULL,
    token_hash BLOB NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    last_seen  INTEGER NOT NULL
) STRICT;

CREATE TABLE puzzles (
    id         INTEGER PRIMARY KEY,
    givens     TEXT NOT NULL UNIQUE CHECK (length(givens) = 81),
    solution   TEXT NOT NULL CHECK (length(solution) = 81),
    level      TEXT NOT NULL,
    score      INTEGER NOT NULL,
    techniques TEXT NOT NULL DEFAULT '{}',
    seed       INTEGER NOT NULL, -- the generator's uint64 seed, bit for bit
    created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE puzzle_pool (
    puzzle_id INTEGER PRIMARY KEY REFERENCES puzzles (id),
    level     TEXT NOT NULL,
    added_at  INTEGER NOT NULL,
    taken_at  INTEGER
) STRICT;
CREATE INDEX puzzle_pool_waiting ON puzzle_pool (level, puzzle_id) WHERE taken_at IS NULL;

CREATE TABLE rooms (
    id          TEXT PRIMARY KEY CHECK (id <> ''),
    mode        TEXT NOT NULL CHECK (mode IN ('race', 'coop', 'daily')),
    puzzle_id   INTEGER NOT NULL REFERENCES puzzles (id),
    host_id     TEXT NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('waiting', 'running', 'finished')),
    created_at  INTEGER NOT NULL,
    started_at  INTEGER,
    finished_at INTEGER,
    settings    TEXT NOT NULL DEFAULT '{}'
) STRICT;
CREATE INDEX rooms_live ON rooms (created_at) WHERE state <> 'finished';

CREATE TABLE room_events (
    room_id   TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    seq       INTEGER NOT NULL,
    type      TEXT NOT NULL,
    player_id TEXT NOT NULL DEFAULT '',
    data      TEXT NOT NULL DEFAULT '{}',
    at        INTEGER NOT NULL,
    PRIMARY KEY (room_id, seq)
) STRICT, WITHOUT ROWID;

CREATE TABLE results (
    id          INTEGER PRIMARY KEY,
    room_id     TEXT NOT NULL REFERENCES rooms (id),
    player_id   TEXT NOT NULL REFERENCES players (id),
    puzzle_id   INTEGER NOT NULL REFERENCES puzzles (id),
    mode        TEXT NOT NULL CHECK (mode IN ('race', 'coop', 'daily')),
    level       TEXT NOT NULL,
    elapsed_ms  INTEGER NOT NULL CHECK (elapsed_ms >= 0),
    mistakes    INTEGER NOT NULL,
    hints       INTEGER NOT NULL,
    score       INTEGER NOT NULL,
    finished_at INTEGER NOT NULL,
    day         TEXT,
    UNIQUE (room_id, player_id)
) STRICT;
CREATE UNIQUE INDEX results_daily_player ON results (day, level, player_id) WHERE day IS NOT NULL;
CREATE INDEX results_daily_rank ON results (day, level, score DESC, finished_at, player_id) WHERE day IS NOT NULL;
CREATE INDEX results_player ON results (player_id, finished_at DESC);
CREATE INDEX results_best ON results (level, elapsed_ms, finished_at, player_id) WHERE mode <> 'coop';

CREATE TABLE daily_puzzles (
    day       TEXT NOT NULL,
    level     TEXT NOT NULL,
    puzzle_id INTEGER NOT NULL REFERENCES puzzles (id),
    PRIMARY KEY (day, level)
) STRICT;
