CREATE OR REPLACE FUNCTION count_daily_result() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO leaderboard_scores (day, level, score, n) VALUES (NEW.day, NEW.level, NEW.score, 1)
    ON CONFLICT (day, level, score) DO UPDATE SET n = leaderboard_scores.n + 1;
    INSERT INTO leaderboard_blocks (day, level, block, n) VALUES (NEW.day, NEW.level, NEW.score >> 8, 1)
    ON CONFLICT (day, level, block) DO UPDATE SET n = leaderboard_blocks.n + 1;
    RETURN NULL;
END $$;
DROP TABLE IF EXISTS leaderboard_totals;
