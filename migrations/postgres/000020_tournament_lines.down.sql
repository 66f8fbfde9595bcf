ALTER TABLE tournament_players DROP COLUMN withdrawn, DROP COLUMN joined;
