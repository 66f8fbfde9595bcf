-- Accounts. A player becomes an account when they take a handle: handle
-- is as shown, handle_key its confusables skeleton, unique among accounts
-- (a guest has neither). seed is the player's own random number, from
-- which their copy of each daily puzzle is derived: a uint64 stored bit
-- for bit, drawn here for the players there are.
ALTER TABLE players
    ADD COLUMN handle     TEXT,
    ADD COLUMN handle_key TEXT,
    ADD COLUMN account_at TIMESTAMPTZ,
    ADD COLUMN seed       BIGINT NOT NULL DEFAULT (floor(random() * 9.2e18))::bigint;
CREATE UNIQUE INDEX players_handle_key ON players (handle_key) WHERE handle_key IS NOT NULL;

-- An account's passkeys; data is the WebAuthn library's, opaque here.
CREATE TABLE credentials (
    id         BYTEA PRIMARY KEY,
    player_id  TEXT NOT NULL REFERENCES players (id),
    data       BYTEA NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    last_used  TIMESTAMPTZ
);
CREATE INDEX credentials_player ON credentials (player_id, created_at);

-- Secrets are kept as their SHA-256 hashes only.
CREATE TABLE sessions (
    hash       BYTEA PRIMARY KEY,
    player_id  TEXT NOT NULL REFERENCES players (id),
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX sessions_player ON sessions (player_id);
CREATE INDEX sessions_expiry ON sessions (expires_at);

CREATE TABLE signin_codes (
    hash       BYTEA PRIMARY KEY,
    player_id  TEXT NOT NULL REFERENCES players (id),
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX signin_codes_player ON signin_codes (player_id);
CREATE INDEX signin_codes_expiry ON signin_codes (expires_at);

CREATE TABLE recovery_codes (
    player_id TEXT NOT NULL REFERENCES players (id),
    hash      BYTEA NOT NULL,
    used_at   TIMESTAMPTZ,
    PRIMARY KEY (player_id, hash)
);

-- WebAuthn ceremonies between their begin and their finish.
CREATE TABLE ceremonies (
    hash       BYTEA PRIMARY KEY,
    data       BYTEA NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX ceremonies_expiry ON ceremonies (expires_at);

-- A player's first view of a day's daily of a level: the ranked time's
-- clock runs from started_at.
CREATE TABLE daily_attempts (
    player_id   TEXT NOT NULL REFERENCES players (id),
    day         DATE NOT NULL,
    level       TEXT NOT NULL,
    started_at  TIMESTAMPTZ NOT NULL,
    finished_at TIMESTAMPTZ,
    PRIMARY KEY (player_id, day, level)
);

-- Results: played_day is the daily's date when it was played on its day,
-- ranked or not (streaks count these); all_time says the result counts on
-- its level's all-time board unless flagged; review, reason, held_day and
-- reviewed_at are its review. Existing results keep the boards they were
-- on: all-time for what was neither co-op nor flagged, and the flagged
-- ones are held (from no day's board: theirs was not kept).
ALTER TABLE results
    ADD COLUMN played_day  DATE,
    ADD COLUMN all_time    BOOLEAN NOT NULL DEFAULT false,
    ADD COLUMN review      TEXT NOT NULL DEFAULT '' CHECK (review IN ('', 'held', 'confirmed', 'removed')),
    ADD COLUMN reason      TEXT NOT NULL DEFAULT '',
    ADD COLUMN held_day    DATE,
    ADD COLUMN reviewed_at TIMESTAMPTZ;
UPDATE results SET played_day = day WHERE day IS NOT NULL;
UPDATE results SET all_time = true WHERE mode <> 'coop' AND NOT flagged;
UPDATE results SET review = 'held', reason = 'faster than the level''s floor' WHERE flagged;
-- A ranked daily result stored before attempts were is its attempt's
-- finish: that attempt is over.
INSERT INTO daily_attempts (player_id, day, level, started_at, finished_at)
    SELECT player_id, day, level, finished_at - elapsed_ms * interval '1 millisecond', finished_at
    FROM results WHERE day IS NOT NULL
    ON CONFLICT DO NOTHING;

DROP INDEX results_best;
CREATE INDEX results_best ON results (level, elapsed_ms, finished_at, player_id) WHERE all_time AND NOT flagged;
CREATE INDEX results_held ON results (finished_at, id) WHERE review = 'held';
CREATE INDEX results_played ON results (player_id, played_day) WHERE played_day IS NOT NULL;

-- A held result that is confirmed gets its day (from NULL): it joins that
-- day's leaderboard, and the rank counts (migrations 000002, 000006,
-- 000007) count it as an insert would. That is the one update of a
-- result's day the application makes.
CREATE TRIGGER count_confirmed_result AFTER UPDATE OF day ON results
    FOR EACH ROW WHEN (OLD.day IS NULL AND NEW.day IS NOT NULL) EXECUTE FUNCTION count_daily_result();

-- daily_around (migration 000007) with the guest flag of each row: its
-- columns change, so it is dropped and made again.
DROP FUNCTION daily_around(date, text, text, integer);
CREATE FUNCTION daily_around(p_day date, p_level text, p_player text, p_n integer)
RETURNS TABLE (side integer, ahead bigint, player_id text, name text, score integer,
               elapsed_ms bigint, mistakes integer, hints integer, finished_at timestamptz, guest boolean)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
DECLARE
    my_score integer;
    my_fin   timestamptz;
    n_ahead  bigint;
BEGIN
    SELECT r.score, r.finished_at INTO my_score, my_fin FROM results r
     WHERE r.day = p_day AND r.day IS NOT NULL AND r.level = p_level AND r.player_id = p_player;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    n_ahead := coalesce((SELECT sum(p.n) FROM leaderboard_spans p
                          WHERE p.day = p_day AND p.level = p_level AND p.span > my_score >> 16), 0)
             + coalesce((SELECT sum(b.n) FROM leaderboard_blocks b
                          WHERE b.day = p_day AND b.level = p_level AND b.block > my_score >> 8
                            AND b.block < ((my_score >> 16) + 1) << 8), 0)
             + coalesce((SELECT sum(s.n) FROM leaderboard_scores s
                          WHERE s.day = p_day AND s.level = p_level AND s.score > my_score
                            AND s.score < ((my_score >> 8) + 1) << 8), 0)
             + (SELECT count(*) FROM results r
                 WHERE r.day = p_day AND r.day IS NOT NULL AND r.level = p_level AND r.score = my_score
                   AND (r.finished_at, r.player_id) < (my_fin, p_player));
    RETURN QUERY
        (SELECT -1, n_ahead, r.player_id, p.name, r.score, r.elapsed_ms, r.mistakes, r.hints, r.finished_at,
                p.handle_key IS NULL
           FROM results r JOIN players p ON p.id = r.player_id
          WHERE r.day = p_day AND r.day IS NOT NULL AND r.level = p_level
            AND (-(r.score::bigint), r.finished_at, r.player_id) < (-(my_score::bigint), my_fin, p_player)
          ORDER BY -(r.score::bigint) DESC, r.finished_at DESC, r.player_id DESC
          LIMIT p_n)
        UNION ALL
        (SELECT 1, n_ahead, r.player_id, p.name, r.score, r.elapsed_ms, r.mistakes, r.hints, r.finished_at,
                p.handle_key IS NULL
           FROM results r JOIN players p ON p.id = r.player_id
          WHERE r.day = p_day AND r.day IS NOT NULL AND r.level = p_level
            AND (-(r.score::bigint), r.finished_at, r.player_id) >= (-(my_score::bigint), my_fin, p_player)
          ORDER BY -(r.score::bigint), r.finished_at, r.player_id
          LIMIT p_n + 1);
END $$;
