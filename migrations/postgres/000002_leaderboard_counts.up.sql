-- Rank counts for the daily leaderboard. A player's rank is one plus the
-- number of results ahead of theirs; counting those rows one by one costs
-- time in proportion to the rank (a million rows deep, tens of
-- milliseconds). These tables count results per score and per block of 256
-- scores, so the rows ahead are a sum over a few hundred counts at most
-- plus the ties on the player's own score. A trigger keeps them exact.

CREATE TABLE leaderboard_scores (
    day   DATE NOT NULL,
    level TEXT NOT NULL,
    score INTEGER NOT NULL,
    n     BIGINT NOT NULL,
    PRIMARY KEY (day, level, score)
);

CREATE TABLE leaderboard_blocks (
    day   DATE NOT NULL,
    level TEXT NOT NULL,
    block INTEGER NOT NULL, -- score >> 8
    n     BIGINT NOT NULL,
    PRIMARY KEY (day, level, block)
);

CREATE FUNCTION count_daily_result() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO leaderboard_scores (day, level, score, n) VALUES (NEW.day, NEW.level, NEW.score, 1)
    ON CONFLICT (day, level, score) DO UPDATE SET n = leaderboard_scores.n + 1;
    INSERT INTO leaderboard_blocks (day, level, block, n) VALUES (NEW.day, NEW.level, NEW.score >> 8, 1)
    ON CONFLICT (day, level, block) DO UPDATE SET n = leaderboard_blocks.n + 1;
    RETURN NULL;
END $$;

CREATE TRIGGER count_daily_result AFTER INSERT ON results
    FOR EACH ROW WHEN (NEW.day IS NOT NULL) EXECUTE FUNCTION count_daily_result();

-- Results are never updated or deleted by the application; should an
-- operator do it, the counts are rebuilt with:
--   TRUNCATE leaderboard_scores, leaderboard_blocks; then the two INSERTs below.
INSERT INTO leaderboard_scores (day, level, score, n)
    SELECT day, level, score, count(*) FROM results WHERE day IS NOT NULL GROUP BY day, level, score;
INSERT INTO leaderboard_blocks (day, level, block, n)
    SELECT day, level, score >> 8, count(*) FROM results WHERE day IS NOT NULL GROUP BY day, level, score >> 8;
