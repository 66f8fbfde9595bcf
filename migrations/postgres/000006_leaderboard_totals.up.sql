-- How many results each day's leaderboard of a level holds, kept by the
-- count trigger of migration 000002 with its per-score and per-block
-- counts: the total shown with a leaderboard is one row, not a sum over
-- its blocks (thousands of them when scores spread over a day's times in
-- milliseconds).
CREATE TABLE leaderboard_totals (
    day   DATE NOT NULL,
    level TEXT NOT NULL,
    n     BIGINT NOT NULL,
    PRIMARY KEY (day, level)
);

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

-- Rebuilt, should an operator change results by hand, with:
--   TRUNCATE leaderboard_totals; then the INSERT below.
INSERT INTO leaderboard_totals (day, level, n)
    SELECT day, level, count(*) FROM results WHERE day IS NOT NULL GROUP BY day, level;
