ALTER TABLE tournament_players DROP COLUMN withdrawn;
ALTER TABLE tournament_players DROP COLUMN joined;
