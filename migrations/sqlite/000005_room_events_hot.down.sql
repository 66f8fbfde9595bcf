INSERT INTO room_events (room_id, seq, type, player_id, data, at)
SELECT room_id, seq, type, player_id, data, at FROM room_events_hot WHERE true ORDER BY room_id, seq, id
ON CONFLICT (room_id, seq) DO NOTHING;
DROP TABLE room_events_hot;
