DROP TABLE tournament_players;
DROP TABLE tournaments;
