-- Several nodes share one database. Each registers here and heartbeats;
-- one whose heartbeat_at is older than NODE_TIMEOUT (by the database's
-- clock, so that the nodes' own clocks do not matter) is dead. addr is
-- the internal base URL other nodes relay to; public_url is where clients
-- reach it.
CREATE TABLE nodes (
    id           TEXT PRIMARY KEY CHECK (id <> ''),
    addr         TEXT NOT NULL,
    public_url   TEXT NOT NULL DEFAULT '',
    started_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    heartbeat_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    draining     BOOLEAN NOT NULL DEFAULT false
);

-- A room's owner and epoch live on its first round's row (whose id is the
-- room's id). The epoch goes up on every change of owner, and every write
-- for the room carries the epoch its writer holds: a write with an older
-- one is refused (fencing). epoch 0 is a row no node has owned. owner is
-- no foreign key: a node's row goes when it leaves, its rooms' stay.
ALTER TABLE rooms ADD COLUMN owner TEXT, ADD COLUMN epoch BIGINT NOT NULL DEFAULT 0;
CREATE INDEX rooms_owner ON rooms (owner) WHERE owner IS NOT NULL;
