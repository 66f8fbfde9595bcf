-- Arena tournaments: scheduled ones (upcoming), and finished ones with
-- their standings; a running tournament lives on its node and is stored
-- when it ends. games is the tournament's JSON of a player's races.
CREATE TABLE tournaments (
    id          TEXT PRIMARY KEY CHECK (id <> ''),
    name        TEXT NOT NULL CHECK (name <> ''),
    level       TEXT NOT NULL CHECK (level <> ''),
    starts_at   INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL CHECK (duration_ms >= 1000),
    status      TEXT NOT NULL CHECK (status IN ('upcoming', 'running', 'finished'))
) STRICT;
CREATE INDEX tournaments_status ON tournaments (status, starts_at);

CREATE TABLE tournament_players (
    tournament_id TEXT NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    player_id     TEXT NOT NULL,
    name          TEXT NOT NULL,
    rank          INTEGER NOT NULL CHECK (rank >= 1),
    score         INTEGER NOT NULL,
    wins          INTEGER NOT NULL,
    games         TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (tournament_id, player_id)
) STRICT;
CREATE INDEX tournament_players_player ON tournament_players (player_id);
