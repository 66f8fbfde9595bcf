-- Each packed row becomes a row an event. The data comes back as SQLite's
-- JSON functions write it (without white space), the same JSON.
CREATE TEMP TABLE unpacked_events AS
    SELECT e.room_id AS room_id, e.seq + j.key AS seq, json_extract(j.value, '$.t') AS type,
           json_extract(j.value, '$.p') AS player_id, j.value -> '$.d' AS data, e.at + coalesce(json_extract(j.value, '$.dt'), 0) AS at
    FROM room_events e, json_each(e.data) j
    WHERE e.last_seq IS NOT NULL;
DELETE FROM room_events WHERE last_seq IS NOT NULL;
INSERT INTO room_events (room_id, seq, type, player_id, data, at)
    SELECT room_id, seq, type, player_id, data, at FROM unpacked_events WHERE true
    ON CONFLICT (room_id, seq) DO NOTHING;
DROP TABLE unpacked_events;
ALTER TABLE room_events DROP COLUMN last_seq;
