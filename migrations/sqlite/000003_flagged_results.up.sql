-- A finish faster than its level's floor is stored but kept off the daily
-- leaderboard (day is NULL) and flagged, for a person to look at.
ALTER TABLE results ADD COLUMN flagged INTEGER NOT NULL DEFAULT 0;
CREATE INDEX results_flagged ON results (finished_at) WHERE flagged;
