CREATE OR REPLACE FUNCTION count_daily_result() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO leaderboard_scores (day, level, score, n) VALUES (NEW.day, NEW.level, NEW.score, 1)
    ON CONFLICT (day, level, score) DO UPDATE SET n = leaderboard_scores.n + 1;
    INSERT INTO leaderboard_blocks (day, level, block, n) VALUES (NEW.day, NEW.level, NEW.score >> 8, 1)
    ON CONFLICT (day, level, block) DO UPDATE SET n = leaderboard_blocks.n + 1;
    INSERT INTO leaderboard_totals (day, level, n) VALUES (NEW.day, NEW.level, 1)
    ON CONFLICT (day, level) DO UPDATE SET n = leaderboard_totals.n + 1;
    RETURN NULL;
END $$;

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
    n_ahead := coalesce((SELECT sum(b.n) FROM leaderboard_blocks b
                          WHERE b.day = p_day AND b.level = p_level AND b.block > my_score >> 8), 0)
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

DROP TABLE IF EXISTS leaderboard_spans;
