-- A running tournament's standings are stored as they change (see
-- PostgreSQL's migration 000020), so that a restart brings it back:
-- joined is the order a player joined in (from 0), withdrawn says they
-- are not paired until they join again.
ALTER TABLE tournament_players ADD COLUMN joined INTEGER NOT NULL DEFAULT 0 CHECK (joined >= 0);
ALTER TABLE tournament_players ADD COLUMN withdrawn INTEGER NOT NULL DEFAULT 0 CHECK (withdrawn IN (0, 1));
