-- A third level of rank counts, per span of 65,536 scores (score >> 16).
-- A ranked daily's score is its time in milliseconds taken from a constant
-- (cmd/arena), so a day's scores spread over millions of values: the
-- blocks of 256 ahead of a player numbered in the thousands, and summing
-- them was most of a rank's cost. Now the rows ahead are a sum over the
-- spans ahead (a few dozen for a day's times), the blocks ahead within the
-- player's span (at most 256), the scores ahead within their block (at
-- most 256) and the ties on their own score.

CREATE TABLE leaderboard_spans (
    day   DATE NOT NULL,
    level TEXT NOT NULL,
    span  INTEGER NOT NULL, -- score >> 16
    n     BIGINT NOT NULL,
    PRIMARY KEY (day, level, span)
);

CREATE OR REPLACE FUNCTION count_daily_result() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO leaderboard_scores (day, level, score, n) VALUES (NEW.day, NEW.level, NEW.score, 1)
    ON CONFLICT (day, level, score) DO UPDATE SET n = leaderboard_scores.n + 1;
    INSERT INTO leaderboard_blocks (day, level, block, n) VALUES (NEW.day, NEW.level, NEW.score >> 8, 1)
    ON CONFLICT (day, level, block) DO UPDATE SET n = leaderboard_blocks.n + 1;
    INSERT INTO leaderboard_spans (day, level, span, n) VALUES (NEW.day, NEW.level, NEW.score >> 16, 1)
    ON CONFLICT (day, level, span) DO UPDATE SET n = leaderboard_spans.n + 1;
    INSERT INTO leaderboard_totals (day, level, n) VALUES (NEW.day, NEW.level, 1)
    ON CONFLICT (day, level) DO UPDATE SET n = leaderboard_totals.n + 1;
    RETURN NULL;
END $$;

-- Rebuilt, should an operator change results by hand, with:
--   TRUNCATE leaderboard_spans; then the INSERT below.
INSERT INTO leaderboard_spans (day, level, span, n)
    SELECT day, level, score >> 16, count(*) FROM results WHERE day IS NOT NULL GROUP BY day, level, score >> 16;

CREATE OR REPLACE FUNCTION daily_around(p_day date, p_level text, p_player text, p_n integer)
RETURNS TABLE (side integer, ahead bigint, player_id text, name text, score integer,
               elapsed_ms bigint, mistakes integer, hints integer, finished_at timestamptz)
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
        (SELECT -1, n_ahead, r.player_id, p.name, r.score, r.elapsed_ms, r.mistakes, r.hints, r.finished_at
           FROM results r JOIN players p ON p.id = r.player_id
          WHERE r.day = p_day AND r.day IS NOT NULL AND r.level = p_level
            AND (-(r.score::bigint), r.finished_at, r.player_id) < (-(my_score::bigint), my_fin, p_player)
          ORDER BY -(r.score::bigint) DESC, r.finished_at DESC, r.player_id DESC
          LIMIT p_n)
        UNION ALL
        (SELECT 1, n_ahead, r.player_id, p.name, r.score, r.elapsed_ms, r.mistakes, r.hints, r.finished_at
           FROM results r JOIN players p ON p.id = r.player_id
          WHERE r.day = p_day AND r.day IS NOT NULL AND r.level = p_level
            AND (-(r.score::bigint), r.finished_at, r.player_id) >= (-(my_score::bigint), my_fin, p_player)
          ORDER BY -(r.score::bigint), r.finished_at, r.player_id
          LIMIT p_n + 1);
END $$;
