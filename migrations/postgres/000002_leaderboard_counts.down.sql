DROP TRIGGER IF EXISTS count_daily_result ON results;
DROP FUNCTION IF EXISTS count_daily_result();
DROP TABLE IF EXISTS leaderboard_blocks;
DROP TABLE IF EXISTS leaderboard_scores;
