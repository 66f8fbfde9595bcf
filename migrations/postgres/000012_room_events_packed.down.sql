-- Each packed row becomes a row an event, its data as it was written.
CREATE TEMP TABLE unpacked_events AS
    SELECT e.room_id, e.seq + j.k - 1 AS seq, j.v ->> 't' AS type, j.v ->> 'p' AS player_id, j.v -> 'd' AS data,
           e.at + coalesce((j.v ->> 'dt')::bigint, 0) * interval '1 microsecond' AS at
    FROM room_events e, json_array_elements(e.data) WITH ORDINALITY AS j (v, k)
    WHERE e.last_seq IS NOT NULL;
DELETE FROM room_events WHERE last_seq IS NOT NULL;
INSERT INTO room_events (room_id, seq, type, player_id, data, at)
    SELECT room_id, seq, type, player_id, data, at FROM unpacked_events
    ON CONFLICT (room_id, seq) DO NOTHING;
DROP TABLE unpacked_events;
ALTER TABLE room_events DROP COLUMN last_seq;
