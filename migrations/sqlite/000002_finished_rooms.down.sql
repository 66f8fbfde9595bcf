DROP INDEX IF EXISTS rooms_finished;
