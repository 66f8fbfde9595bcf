CREATE TABLE room_events_old (
    room_id   TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    seq       INTEGER NOT NULL,
    type      TEXT NOT NULL,
    player_id TEXT NOT NULL DEFAULT '',
    data      TEXT NOT NULL DEFAULT '{}',
    at        INTEGER NOT NULL,
    PRIMARY KEY (room_id, seq)
) STRICT, WITHOUT ROWID;
INSERT INTO room_events_old (room_id, seq, type, player_id, data, at)
    SELECT room_id, seq, type, player_id, data, at FROM room_events;
DROP TABLE room_events;
ALTER TABLE room_events_old RENAME TO room_events;
