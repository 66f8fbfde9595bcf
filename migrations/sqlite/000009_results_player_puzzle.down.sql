DROP INDEX results_player_puzzle;
