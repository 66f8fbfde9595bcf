-- The node that runs the tournaments (TOURNAMENTS is set on it): the
-- others relay the tournaments' requests to it.
ALTER TABLE nodes ADD COLUMN arenas BOOLEAN NOT NULL DEFAULT false;
