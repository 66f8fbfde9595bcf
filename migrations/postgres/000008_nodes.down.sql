DROP INDEX rooms_owner;
ALTER TABLE rooms DROP COLUMN epoch, DROP COLUMN owner;
DROP TABLE nodes;
