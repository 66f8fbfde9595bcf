-- The daily leaderboard around one player, as a function: its statements
-- are small and PL/pgSQL keeps their plans for the session, where one big
-- query spent longer being planned (about 1.3 ms) than running (0.7 ms).
-- The rank comes from the counts of migration 000002 plus the ties on the
-- player's own score; the rows either side from two keyset scans that start
-- at the player's row. The leaderboard's order (score descending, then
-- finish and player ascending) is one ascending row in this index, so each
-- scan is a single range with nothing to filter, however many players share
-- the score.
CREATE INDEX results_daily_order ON results (day, level, (-(score::bigint)), finished_at, player_id)
    WHERE day IS NOT NULL;

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
