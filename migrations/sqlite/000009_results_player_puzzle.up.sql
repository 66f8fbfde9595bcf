-- A player's finishes of a puzzle: the calendars of a player's dailies look
-- up each day's daily puzzle among that player's results.
CREATE INDEX results_player_puzzle ON results (player_id, puzzle_id);
