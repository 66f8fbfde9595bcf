DROP INDEX results_played;
DROP INDEX results_held;
DROP INDEX results_best;
CREATE INDEX results_best ON results (level, elapsed_ms, finished_at, player_id) WHERE mode <> 'coop';
ALTER TABLE results DROP COLUMN reviewed_at;
ALTER TABLE results DROP COLUMN held_day;
ALTER TABLE results DROP COLUMN reason;
ALTER TABLE results DROP COLUMN review;
ALTER TABLE results DROP COLUMN all_time;
ALTER TABLE results DROP COLUMN played_day;

DROP TABLE daily_attempts;
DROP TABLE ceremonies;
DROP TABLE recovery_codes;
DROP TABLE signin_codes;
DROP TABLE sessions;
DROP TABLE credentials;

DROP INDEX players_handle_key;
ALTER TABLE players DROP COLUMN seed;
ALTER TABLE players DROP COLUMN account_at;
ALTER TABLE players DROP COLUMN handle_key;
ALTER TABLE players DROP COLUMN handle;
