-- The columns PostgreSQL keeps a room's owner and epoch in (see its
-- migration 000008), so that both stores hold the same rooms. With SQLite
-- the server is one node: nothing claims rooms, and the epoch stays 1.
ALTER TABLE rooms ADD COLUMN owner TEXT;
ALTER TABLE rooms ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0;
