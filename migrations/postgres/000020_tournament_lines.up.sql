-- A running tournament's standings are stored as they change, so that a
-- restart brings it back: joined is the order a player joined in (from
-- 0), withdrawn says they are not paired until they join again.
ALTER TABLE tournament_players
    ADD COLUMN joined INTEGER NOT NULL DEFAULT 0 CHECK (joined >= 0),
    ADD COLUMN withdrawn BOOLEAN NOT NULL DEFAULT false;
