-- daily_around as migration 000007 made it, without the guest flag.
DROP FUNCTION daily_around(date, text, text, integer);
CREATE FUNCTION daily_around(p_day date, p_level text, p_player text, p_n integer)
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

DROP TRIGGER count_confirmed_result ON results;
DROP INDEX results_played;
DROP INDEX results_held;
DROP INDEX results_best;
CREATE INDEX results_best ON results (level, elapsed_ms, finished_at, player_id) WHERE mode <> 'coop';
ALTER TABLE results
    DROP COLUMN reviewed_at,
    DROP COLUMN held_day,
    DROP COLUMN reason,
    DROP COLUMN review,
    DROP COLUMN all_time,
    DROP COLUMN played_day;

DROP TABLE daily_attempts;
DROP TABLE ceremonies;
DROP TABLE recovery_codes;
DROP TABLE signin_codes;
DROP TABLE sessions;
DROP TABLE credentials;

DROP INDEX players_handle_key;
ALTER TABLE players
    DROP COLUMN seed,
    DROP COLUMN account_at,
    DROP COLUMN handle_key,
    DROP COLUMN handle;
