-- room_events becomes a rowid table with its primary key as a separate
-- index. As a WITHOUT ROWID table it kept whole rows in its key B-tree,
-- interior pages included, so every insert among a room's events moved
-- 100-byte-to-kilobyte cells in its page splits, and a snapshot event
-- over a kilobyte overflowed the key pages. Now the rows are appended in
-- the order they are written (a batch fills a few pages), and what is
-- kept in room order is the index of (room_id, seq): 20-byte entries.
-- Copies every stored event once.
CREATE TABLE room_events_new (
    room_id   TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    seq       INTEGER NOT NULL,
    type      TEXT NOT NULL,
    player_id TEXT NOT NULL DEFAULT '',
    data      TEXT NOT NULL DEFAULT '{}',
    at        INTEGER NOT NULL,
    PRIMARY KEY (room_id, seq)
) STRICT;
INSERT INTO room_events_new (room_id, seq, type, player_id, data, at)
    SELECT room_id, seq, type, player_id, data, at FROM room_events ORDER BY at, room_id, seq;
DROP TABLE room_events;
ALTER TABLE room_events_new RENAME TO room_events;
