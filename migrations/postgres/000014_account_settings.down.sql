ALTER TABLE players DROP COLUMN settings;
