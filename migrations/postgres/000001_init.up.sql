-- Sudoku Arena schema, PostgreSQL.

CREATE TABLE players (
    id         TEXT PRIMARY KEY CHECK (id <> ''),
    name       TEXT NOT NULL,
    token_hash BYTEA NOT NULL UNIQUE,
    created_at TIMESTAMPTZ NOT NULL,
    last_seen  TIMESTAMPTZ NOT NULL
);

CREATE TABLE puzzles (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    givens     TEXT NOT NULL UNIQUE CHECK (length(givens) = 81),
    solution   TEXT NOT NULL CHECK (length(solution) = 81),
    level      TEXT NOT NULL,
    score      INTEGER NOT NULL,
    techniques JSONB NOT NULL DEFAULT '{}',
    seed       BIGINT NOT NULL, -- the generator's uint64 seed, bit for bit
    created_at TIMESTAMPTZ NOT NULL
);

-- A puzzle enters the pool once; taking it stamps taken_at, so it is never
-- handed out twice.
CREATE TABLE puzzle_pool (
    puzzle_id BIGINT PRIMARY KEY REFERENCES puzzles (id),
    level     TEXT NOT NULL,
    added_at  TIMESTAMPTZ NOT NULL,
    taken_at  TIMESTAMPTZ
);
CREATE INDEX puzzle_pool_waiting ON puzzle_pool (level, puzzle_id) WHERE taken_at IS NULL;

CREATE TABLE rooms (
    id          TEXT PRIMARY KEY CHECK (id <> ''),
    mode        TEXT NOT NULL CHECK (mode IN ('race', 'coop', 'daily')),
    puzzle_id   BIGINT NOT NULL REFERENCES puzzles (id),
    host_id     TEXT NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('waiting', 'running', 'finished')),
    created_at  TIMESTAMPTZ NOT NULL,
    started_at  TIMESTAMPTZ,
    finished_at TIMESTAMPTZ,
    settings    JSONB NOT NULL DEFAULT '{}'
);
CREATE INDEX rooms_live ON rooms (created_at) WHERE state <> 'finished';

-- JSON, not JSONB: events are written far more often than they are
-- searched, and replays want the bytes back as they were written.
CREATE TABLE room_events (
    room_id   TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    seq       BIGINT NOT NULL,
    type      TEXT NOT NULL,
    player_id TEXT NOT NULL DEFAULT '',
    data      JSON NOT NULL DEFAULT '{}',
    at        TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (room_id, seq)
);

CREATE TABLE results (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    room_id     TEXT NOT NULL REFERENCES rooms (id),
    player_id   TEXT NOT NULL REFERENCES players (id),
    puzzle_id   BIGINT NOT NULL REFERENCES puzzles (id),
    mode        TEXT NOT NULL CHECK (mode IN ('race', 'coop', 'daily')),
    level       TEXT NOT NULL,
    elapsed_ms  BIGINT NOT NULL CHECK (elapsed_ms >= 0),
    mistakes    INTEGER NOT NULL,
    hints       INTEGER NOT NULL,
    score       INTEGER NOT NULL,
    finished_at TIMESTAMPTZ NOT NULL,
    day         DATE,
    UNIQUE (room_id, player_id)
);
CREATE UNIQUE INDEX results_daily_player ON results (day, level, player_id) WHERE day IS NOT NULL;
-- The daily leaderboard's order; the top N and the rows around a player are
-- range scans of this index.
CREATE INDEX results_daily_rank ON results (day, level, score DESC, finished_at, player_id) WHERE day IS NOT NULL;
CREATE INDEX results_player ON results (player_id, finished_at DESC);
CREATE INDEX results_best ON results (level, elapsed_ms, finished_at, player_id) WHERE mode <> 'coop';

CREATE TABLE daily_puzzles (
    day       DATE NOT NULL,
    level     TEXT NOT NULL,
    puzzle_id BIGINT NOT NULL REFERENCES puzzles (id),
    PRIMARY KEY (day, level)
);
