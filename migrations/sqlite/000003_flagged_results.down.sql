DROP INDEX results_flagged;
ALTER TABLE results DROP COLUMN flagged;
